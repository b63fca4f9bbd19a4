"""Rendering tables as text (tsv, csv, jsonl, markdown, latex), for the command line and the reports alike."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ir_rarity.errors import InputError
from ir_rarity.formats import FORMATS, csv_row, latex_text, markdown_text
from ir_rarity.io.raw import short

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FORMATS", "Cell", "render", "render_frame"]

Cell = tuple[int, int]
"""A cell of a table body: (row, column), both 0-based."""

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


def _fmt(value: Any, places: int) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return f"{value:.{places}f}" if places >= 0 else repr(value)
    return str(value)


def _text_cells(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str, places: int
                ) -> tuple[list[str], list[list[str]]]:
    """Column names and cells as text, markdown and latex ones escaped (:mod:`ir_rarity.formats`); tsv checked.

    html cells stay raw text: the template escapes them.
    """
    if fmt == "tsv":
        _check_tsv(columns, rows)
    cells = [[_fmt(v, places) for v in row] for row in rows]
    escape = {"markdown": markdown_text, "latex": latex_text}.get(fmt)
    if escape is not None:
        return [escape(c) for c in columns], [[escape(c) for c in row] for row in cells]
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
        return "".join(csv_row(r) for r in [columns, *cells])
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
    """A pipe table of cells escaped already (:func:`ir_rarity.formats.markdown_text`), the caption a paragraph."""
    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(values) + " |"
    align = ["---"] + ["---:" if _numeric(rows, i) else "---" for i in range(1, len(columns))]
    table = "\n".join([line(columns), "| " + " | ".join(align) + " |", *(line(r) for r in cells)]) + "\n"
    return f"{markdown_text(' '.join(caption.split()))}\n\n{table}" if caption else table


def _latex(columns: Sequence[str], cells: list[list[str]], rows: Sequence[Sequence[Any]], caption: str | None,
           marked: bool) -> str:
    spec = "l" + "".join("r" if _numeric(rows, i) else "l" for i in range(1, len(columns)))
    body = [" & ".join(columns) + r" \\", r"\midrule"]  # cells escaped (and marked) already
    if marked:
        body += [" & ".join(r) + r" \\" for r in cells]
        tabular = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule", *body, r"\bottomrule", r"\end{tabular}"]
        text = [r"\begin{table}", r"\centering", *tabular]
        if caption:
            text.append(rf"\caption{{{latex_text(' '.join(caption.split()))}}}")
        return "\n".join([*text, r"\end{table}"]) + "\n"
    body += [" & ".join(r) + r" \\" for r in cells]
    comment = [f"% {' '.join(caption.split())}"] if caption else []
    return "\n".join([*comment, rf"\begin{{tabular}}{{{spec}}}", r"\toprule", *body, r"\bottomrule",
                      r"\end{tabular}"]) + "\n"


_HTML_TABLE = (
    '<table class="ir-rarity">{% if caption %}<caption>{{ caption }}</caption>{% endif %}'
    "<thead><tr>{% for c in columns %}<th>{{ c }}</th>{% endfor %}</tr></thead>\n<tbody>\n"
    "{% for row in body %}<tr>{% for text, right, strong, sup in row %}"
    '<td{% if right %} style="text-align: right"{% endif %}>'
    "{% if strong %}<b>{{ text }}</b>{% else %}{{ text }}{% endif %}{% if sup %}<sup>{{ sup }}</sup>{% endif %}</td>"
    "{% endfor %}</tr>{% if not loop.last %}\n{% endif %}{% endfor %}\n</tbody></table>\n")
"""The html table: every value goes through Jinja2's autoescape, the markup is the template's alone."""


@functools.cache
def _html_template() -> Any:
    """The compiled :data:`_HTML_TABLE` (Jinja2 with autoescape on), made once."""
    from jinja2 import Environment, StrictUndefined  # here: the command line's parser starts without it

    environment = Environment(autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True)
    return environment.from_string(_HTML_TABLE)


def _html(columns: Sequence[str], cells: list[list[str]], rows: Sequence[Sequence[Any]], caption: str | None,
          bold: set[Cell], superscripts: Mapping[Cell, str]) -> str:
    """An HTML ``<table>`` (numbers right-aligned; marks as ``<b>`` and ``<sup>``), as notebooks show.

    Rendered by Jinja2 with autoescape: no run name, measure name or caption can become markup.
    """
    right = [_numeric(rows, j) for j in range(len(columns))]
    body = [[(text, right[j], (i, j) in bold, superscripts.get((i, j), "")) for j, text in enumerate(row)]
            for i, row in enumerate(cells)]
    return str(_html_template().render(columns=list(columns), body=body,
                                       caption=" ".join(caption.split()) if caption else ""))


def _marked(cells: list[list[str]], fmt: str, bold: set[Cell], superscripts: Mapping[Cell, str]
            ) -> list[list[str]]:
    """Cells (escaped already) with bold and superscript marks in markdown or latex."""
    out = []
    for i, row in enumerate(cells):
        new = []
        for j, text in enumerate(row):
            sup = superscripts.get((i, j), "")
            if fmt == "latex":
                text = rf"\textbf{{{text}}}" if (i, j) in bold else text
                text = f"{text}$^{{{latex_text(sup)}}}$" if sup else text
            else:
                text = f"**{text}**" if (i, j) in bold else text
                text = f"{text}<sup>{markdown_text(sup)}</sup>" if sup else text
            new.append(text)
        out.append(new)
    return out


def render_frame(frame: pd.DataFrame, fmt: str, places: int = 4, caption: str | None = None) -> str:
    """Render a DataFrame's columns (not its index) with :func:`render`; missing values (pd.NA) print empty."""
    import pandas as pd  # here, not at the top: the command line's parser needs FORMATS, and starts without pandas

    rows = [tuple("" if v is pd.NA else v for v in row) for row in frame.itertuples(index=False, name=None)]
    return render([str(c) for c in frame.columns], rows, fmt, places, caption=caption)
