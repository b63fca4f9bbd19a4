"""Rendering tables as text (tsv, csv, jsonl, markdown, latex), for the command line and the reports alike."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ir_rarity.errors import InputError
from ir_rarity.io.raw import short

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FORMATS", "Cell", "render", "render_frame"]

Cell = tuple[int, int]
"""A cell of a table body: (row, column), both 0-based."""

FORMATS = ("tsv", "csv", "jsonl", "markdown", "latex", "html")

_BREAKS = ("\t", "\n", "\r")


def _check_tsv(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Refuse a tab or a line break in a tsv cell (a run name, a column name): it would shift the columns.

    Raises:
        InputError: naming the column and the value (cut short).

    """
    for j, name in enumerate(columns):
        for text in (name, *(row[j] for row in rows)):
            if isinstance(text, str) and any(c in text for c in _BREAKS):
                what = f"the column name {short(name)}" if text is name else f"the {name} {short(text)}"
                raise InputError(f"cannot write {what} as tsv: it holds a tab or a line break, which would shift "
                                 "the columns; rename it, or choose the csv or jsonl format (quoted)")


def _one_line(text: str) -> str:
    """Line breaks and tabs as spaces (markdown and latex rows are one line each)."""
    return " ".join(text.replace("\t", " ").splitlines()) if any(c in text for c in _BREAKS) else text


def _fmt(value: Any, places: int) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return f"{value:.{places}f}" if places >= 0 else repr(value)
    return str(value)


def _latex_escape(text: str) -> str:
    special = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
               "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
    return "".join(special.get(c, c) for c in text)


def _text_cells(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str, places: int
                ) -> tuple[list[str], list[list[str]]]:
    """Column names and cells as text: no tab nor line break in a tsv cell; a markdown or latex cell on one line."""
    if fmt == "tsv":
        _check_tsv(columns, rows)
    cells = [[_fmt(v, places) for v in row] for row in rows]
    if fmt in ("markdown", "latex"):
        return [_one_line(c) for c in columns], [[_one_line(c) for c in row] for row in cells]
    return list(columns), cells


def _numeric(rows: Sequence[Sequence[Any]], i: int) -> bool:
    return bool(rows) and isinstance(rows[0][i], (int, float)) and not isinstance(rows[0][i], bool)


def render(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str, places: int = 4,
           header: bool = True, caption: str | None = None, *, bold: Collection[Cell] = (),
           superscripts: Mapping[Cell, str] | None = None) -> str:
    r"""Render a table as tsv, csv, jsonl, markdown, latex or html text (ending with a newline).

    Args:
        columns: Column names.
        rows: The rows of values (floats are printed with ``places`` decimals, except in jsonl).
        fmt: One of :data:`FORMATS`.
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

    """
    if fmt == "jsonl":
        lines = [json.dumps({c: (None if isinstance(v, float) and math.isnan(v) else v)
                             for c, v in zip(columns, row, strict=True)}) for row in rows]
        return "".join(line + "\n" for line in lines)
    columns, cells = _text_cells(columns, rows, fmt, places)
    if fmt == "html":
        return _html(columns, cells, rows, caption, set(bold), superscripts or {})
    if fmt == "tsv":
        lines = (["\t".join(columns)] if header else []) + ["\t".join(r) for r in cells]
        return "".join(line + "\n" for line in lines)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(cells)
        return buffer.getvalue()
    marked = bool(bold) or bool(superscripts)
    if marked and fmt in ("markdown", "latex"):
        cells = _marked(cells, fmt, set(bold), superscripts or {})
    if fmt == "markdown":
        return _markdown(columns, cells, rows, caption)
    if fmt == "latex":
        return _latex(columns, cells, rows, caption, marked)
    raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")


def _markdown(columns: Sequence[str], cells: list[list[str]], rows: Sequence[Sequence[Any]], caption: str | None
              ) -> str:
    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.replace("|", r"\|") for v in values) + " |"
    align = ["---"] + ["---:" if _numeric(rows, i) else "---" for i in range(1, len(columns))]
    table = "\n".join([line(columns), "| " + " | ".join(align) + " |", *(line(r) for r in cells)]) + "\n"
    return f"{caption}\n\n{table}" if caption else table


def _latex(columns: Sequence[str], cells: list[list[str]], rows: Sequence[Sequence[Any]], caption: str | None,
           marked: bool) -> str:
    spec = "l" + "".join("r" if _numeric(rows, i) else "l" for i in range(1, len(columns)))
    body = [" & ".join(_latex_escape(c) for c in columns) + r" \\", r"\midrule"]
    if marked:  # cells were escaped (and marked) already
        body += [" & ".join(r) + r" \\" for r in cells]
        tabular = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule", *body, r"\bottomrule", r"\end{tabular}"]
        text = [r"\begin{table}", r"\centering", *tabular]
        if caption:
            text.append(rf"\caption{{{_latex_escape(' '.join(caption.split()))}}}")
        return "\n".join([*text, r"\end{table}"]) + "\n"
    body += [" & ".join(_latex_escape(c) for c in r) + r" \\" for r in cells]
    comment = [f"% {' '.join(caption.split())}"] if caption else []
    return "\n".join([*comment, rf"\begin{{tabular}}{{{spec}}}", r"\toprule", *body, r"\bottomrule",
                      r"\end{tabular}"]) + "\n"


def _html(columns: Sequence[str], cells: list[list[str]], rows: Sequence[Sequence[Any]], caption: str | None,
          bold: set[Cell], superscripts: Mapping[Cell, str]) -> str:
    """An HTML ``<table>`` (escaped text; numbers right-aligned; marks as ``<b>`` and ``<sup>``), as notebooks show."""
    from html import escape

    def cell(i: int, j: int, text: str) -> str:
        body = escape(text)
        body = f"<b>{body}</b>" if (i, j) in bold else body
        sup = superscripts.get((i, j))
        body = f"{body}<sup>{escape(sup)}</sup>" if sup else body
        style = ' style="text-align: right"' if _numeric(rows, j) else ""
        return f"<td{style}>{body}</td>"

    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "\n".join("<tr>" + "".join(cell(i, j, text) for j, text in enumerate(row)) + "</tr>"
                     for i, row in enumerate(cells))
    top = f"<caption>{escape(' '.join(caption.split()))}</caption>" if caption else ""
    return f'<table class="ir-rarity">{top}<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody></table>\n'


def _marked(cells: list[list[str]], fmt: str, bold: set[Cell], superscripts: Mapping[Cell, str]
            ) -> list[list[str]]:
    """Cells with bold and superscript marks in markdown or latex (latex cells escaped here)."""
    out = []
    for i, row in enumerate(cells):
        new = []
        for j, text in enumerate(row):
            sup = superscripts.get((i, j), "")
            if fmt == "latex":
                text = _latex_escape(text)
                text = rf"\textbf{{{text}}}" if (i, j) in bold else text
                text = f"{text}$^{{{_latex_escape(sup)}}}$" if sup else text
            else:
                text = f"**{text}**" if (i, j) in bold else text
                text = f"{text}<sup>{sup}</sup>" if sup else text
            new.append(text)
        out.append(new)
    return out


def render_frame(frame: pd.DataFrame, fmt: str, places: int = 4, caption: str | None = None) -> str:
    """Render a DataFrame's columns (not its index) with :func:`render`; missing values (pd.NA) print empty."""
    import pandas as pd  # here, not at the top: the command line's parser needs FORMATS, and starts without pandas

    rows = [tuple("" if v is pd.NA else v for v in row) for row in frame.itertuples(index=False, name=None)]
    return render([str(c) for c in frame.columns], rows, fmt, places, caption=caption)
