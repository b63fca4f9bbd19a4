"""Rendering tables as text in any output format, for the command line, the campaign tables and notebooks alike.

The formats themselves (how each writes a table, encodes a cell, leads with a comment) are one registry,
:data:`ir_rarity.formats.FORMATS`; this module turns values into the text cells a format writes.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ir_rarity.formats import FORMATS, Cell, Table, format_of

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FORMATS", "Cell", "render", "render_frame"]


def _fmt(value: Any, places: int) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return f"{value:.{places}f}" if places >= 0 else repr(value)
    return str(value)


def _numeric(rows: Sequence[Sequence[Any]], i: int) -> bool:
    return bool(rows) and isinstance(rows[0][i], (int, float)) and not isinstance(rows[0][i], bool)


def render(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str, places: int = 4,
           header: bool = True, caption: str | None = None, *, bold: Collection[Cell] = (),
           superscripts: Mapping[Cell, str] | None = None) -> str:
    r"""Render a table as tsv, csv, jsonl, markdown, latex or html text (ending with a newline).

    Args:
        columns: Column names.
        rows: The rows of values (floats are printed with ``places`` decimals, except in jsonl).
        fmt: One of :data:`~ir_rarity.formats.FORMATS`.
        places: Decimals for floats (-1: full precision).
        header: Print a header line (tsv only; the other formats always name their columns).
        caption: A caption, for markdown (a line before the table), latex (a comment line, or the float's
            ``\caption`` when cells are marked) and html (``<caption>``); the other formats carry none, so that
            they stay machine-readable.
        bold: Cells printed bold (markdown ``**x**``, latex ``\textbf{x}``, html ``<b>``), e.g. the best value
            of a column.
        superscripts: Text set as a superscript after a cell's value (markdown and html ``<sup>ab</sup>``, latex
            ``$^{ab}$``), e.g. the letters of the runs a value is significantly better than. The machine-readable
            formats print neither mark: they carry the numbers behind the marks as columns of their own.

    Raises:
        ValueError: an unknown format.
        InputError: a cell the format cannot hold (a tab or line break in tsv).

    """
    form = format_of(fmt)
    if form.check is not None:
        form.check(columns, rows)
    cells = [[form.cell(_fmt(v, places)) for v in row] for row in rows]
    table = Table(columns=[form.cell(c) for c in columns], cells=cells, rows=rows,
                  numeric=[_numeric(rows, j) for j in range(len(columns))],
                  caption=" ".join(caption.split()) if caption else None, header=header,
                  bold=frozenset(bold) if form.marks else frozenset(),
                  superscripts=dict(superscripts or {}) if form.marks else {})
    return form.table(table)


def render_frame(frame: pd.DataFrame, fmt: str, places: int = 4, caption: str | None = None) -> str:
    """Render a DataFrame's columns (not its index) with :func:`render`; missing values (pd.NA) print empty."""
    import pandas as pd  # here, not at the top: the command line's parser needs FORMATS, and starts without pandas

    rows = [tuple("" if v is pd.NA else v for v in row) for row in frame.itertuples(index=False, name=None)]
    return render([str(c) for c in frame.columns], rows, fmt, places, caption=caption)
