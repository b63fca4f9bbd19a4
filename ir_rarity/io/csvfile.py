"""Small CSV tables users name (team files, leaderboards): read within the input bounds, errors in one line."""

from __future__ import annotations

import os
from collections.abc import Sequence

import pandas as pd

from ir_rarity.errors import InputError
from ir_rarity.io.raw import open_input, short

__all__ = ["read_csv_columns"]


def read_csv_columns(path: str | os.PathLike[str], needed: Sequence[str], kind: str = "CSV") -> pd.DataFrame:
    """A CSV file as strings (nothing turned into NaN), with the columns ``needed`` checked.

    Blank lines are skipped; the frame's index is each row's 1-based line number in the file (the header is line
    1), for messages naming a line.

    Raises:
        InputError: missing, unreadable or malformed, or without one of the ``needed`` columns; the message names
            the file and quotes no cell of it (a file given by mistake may hold anything, e.g. a password), only
            the column looked for.

    """
    source = open_input(path, kind)
    try:
        frame = pd.read_csv(source.source(), dtype=str, keep_default_na=False, skip_blank_lines=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as e:
        raise InputError(f"not a readable {kind} file ({type(e).__name__})", source.name) from None
    for column in needed:
        if column not in frame.columns:
            raise InputError(f"{kind} file has no column {short(column, 20)} in its first line (its header, of "
                             f"{len(frame.columns)} field(s))", source.name)
    frame.index = pd.RangeIndex(2, len(frame) + 2)
    blank = (frame == "").all(axis=1) if len(frame.columns) else pd.Series(False, index=frame.index)
    return frame[~blank]
