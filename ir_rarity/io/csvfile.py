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

    Raises:
        InputError: missing, unreadable or malformed, or without one of the ``needed`` columns; the message names
            the file and quotes at most a few column names, each cut short.

    """
    source = open_input(path, kind)
    try:
        frame = pd.read_csv(source.source(), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as e:
        raise InputError(f"not a readable {kind} file ({type(e).__name__})", source.name) from None
    for column in needed:
        if column not in frame.columns:
            found = ", ".join(short(c, 20) for c in list(frame.columns)[:8])
            raise InputError(f"{kind} file has no column {column!r} (its first columns: {found})", source.name)
    return frame
