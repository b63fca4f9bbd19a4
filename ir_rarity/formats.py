r"""The output formats, one registry: how each writes a table, encodes a text as a cell, and leads with a comment.

:data:`FORMATS` maps each format's name to its :class:`Format`; :func:`ir_rarity.tables.render` and
:func:`ir_rarity.provenance.stamp` look formats up there, so a new format is one entry (and its functions) in this
module.

Every table ir_rarity writes (:func:`ir_rarity.tables.render`, :class:`~ir_rarity.compare.table.CampaignTable`)
and every provenance stamp (:func:`ir_rarity.provenance.stamp`) encodes the strings it was given (run names,
measure names, file names, the command line) here, and nowhere else, so that no input string ever becomes markup,
a line or a column of its own:

* ``tsv``, ``csv``: provenance as ``# key: value`` lines, each value one line of JSON (:func:`json_text`); csv
  cells quoted as RFC 4180 says, and also when they hold ``#`` (``pandas.read_csv(comment="#")`` would cut them);
* ``latex``: provenance as ``% key: value`` lines (JSON values); cells with TeX's special characters escaped;
* ``jsonl``: a first line ``{"provenance": ...}``; JSON is its own escape;
* ``markdown``, ``html``: provenance as JSON in an HTML comment that nothing can close
  (:func:`json_for_comment`: ``<``, ``>``, ``&`` and a ``-`` after a ``-`` written as ``\u`` escapes); markdown
  cells with markdown's and HTML's special characters escaped (:func:`markdown_text`); html through Jinja2 with
  autoescape (:func:`ir_rarity.tables.render`).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ir_rarity.errors import InputError
from ir_rarity.io.raw import short

__all__ = [
    "COMMENT_TITLE",
    "FORMATS",
    "Cell",
    "Format",
    "Table",
    "comment",
    "csv_row",
    "fact_lines",
    "format_of",
    "json_for_comment",
    "json_for_script",
    "json_text",
    "latex_text",
    "markdown_text",
    "read_comment",
]

Cell = tuple[int, int]
"""A cell of a table body: (row, column), both 0-based."""

COMMENT_TITLE = "ir_rarity provenance"
"""The first words of the HTML comment that carries an output's provenance in markdown and html."""

_LINE_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}  # JSON leaves these raw
_SCRIPT = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}


def json_text(value: Any, indent: int | None = None) -> str:
    r"""``value`` as JSON holding no character a reader could take for a line break (one line unless ``indent``).

    JSON escapes the control characters (``\n``, ``\r``...); U+0085, U+2028 and U+2029, which ``str.splitlines``
    and some editors break lines at, are written as ``\u`` escapes too. Values JSON does not know are written
    as their ``str``.
    """
    text = json.dumps(value, ensure_ascii=False, indent=indent, default=str)
    return re.sub("[\x85\u2028\u2029]", lambda m: _LINE_BREAKS[m.group()], text)


def json_for_script(value: Any, indent: int | None = None) -> str:
    """``value`` as JSON safe inside an HTML ``<script>`` element: ``<``, ``>``, ``&``, U+2028, U+2029 as escapes.

    Neither ``</script>`` nor ``<!--`` can then appear, and ``JSON.parse`` (or :func:`json.loads`) of the
    element's text gives ``value`` back.
    """
    return re.sub("[<>&]", lambda m: _SCRIPT[m.group()], json_text(value, indent))


def json_for_comment(value: Any, indent: int | None = None) -> str:
    r"""``value`` as JSON that nothing can end inside an HTML comment: :func:`json_for_script`, and no ``--``.

    A ``-`` that follows a ``-`` is written ``\u002d`` (JSON has ``--`` only inside strings, where the escape is
    valid), so neither ``-->`` nor ``--!>`` can close the comment; :func:`json.loads` of the body gives ``value``.
    """
    return re.sub("(?<=-)-", lambda m: "\\u002d", json_for_script(value, indent))


def fact_lines(facts: Mapping[str, Any]) -> list[str]:
    """``facts`` as ``key: value`` lines, each value one line of JSON; a list under ``inputs`` one line an item.

    The inverse of :func:`read_comment` for the line formats.
    """
    out = []
    for key, value in facts.items():
        items = value if key == "inputs" and isinstance(value, list) else [value]
        out += [f"{'input' if key == 'inputs' else key}: {json_text(item)}" for item in items]
    return out


def _line_comment(mark: str) -> Callable[[Mapping[str, Any]], str]:
    """The comment of a line format (tsv, csv: ``#``; latex: ``%``): one ``key: JSON`` line a fact."""
    def write(facts: Mapping[str, Any]) -> str:
        return "".join(f"{mark} {line}\n" for line in fact_lines(facts))

    return write


def _read_line_comment(mark: str) -> Callable[[str], dict[str, Any]]:
    """The reader of :func:`_line_comment`'s lines at the top of a text."""
    def read(text: str) -> dict[str, Any]:
        facts: dict[str, Any] = {}
        for line in text.split("\n"):
            if not line.startswith(f"{mark} "):
                break
            key, _, value = line[len(mark) + 1:].partition(": ")
            if key == "input":
                facts.setdefault("inputs", []).append(json.loads(value))
            else:
                facts[key] = json.loads(value)
        return facts

    return read


def _jsonl_comment(facts: Mapping[str, Any]) -> str:
    return json_text({"provenance": dict(facts)}) + "\n"


def _read_jsonl_comment(text: str) -> dict[str, Any]:
    return dict(json.loads(text.split("\n", 1)[0])["provenance"])


def _html_comment(facts: Mapping[str, Any]) -> str:
    """An HTML comment nothing can close (a blank line after it: markdown starts a new block there)."""
    return f"<!-- {COMMENT_TITLE}\n{json_for_comment(dict(facts), indent=2)}\n-->\n\n"


def _read_html_comment(text: str) -> dict[str, Any]:
    head = f"<!-- {COMMENT_TITLE}\n"
    end = text.find("\n-->\n")
    if not text.startswith(head) or end < 0:
        raise ValueError(f"no {COMMENT_TITLE} comment at the top")
    return dict(json.loads(text[len(head):end]))


def comment(fmt: str, facts: Mapping[str, Any]) -> str:
    """``facts`` as the comment that leads an output in ``fmt``, which a reader of the format skips.

    Raises:
        ValueError: an unknown format.

    """
    return format_of(fmt).comment(facts)


def read_comment(text: str, fmt: str) -> dict[str, Any]:
    """The facts :func:`comment` wrote at the top of ``text`` (an output in ``fmt``).

    Raises:
        ValueError: an unknown format, or ``text`` does not begin with such a comment.

    """
    return format_of(fmt).read_comment(text)


# ------------------------------------------------------------------------------------------------- cells
_MARKDOWN = {"\\": "\\\\", "`": "\\`", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]", "|": "\\|", "<": "&lt;",
             ">": "&gt;", "&": "&amp;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;", "~": "&#126;"}
_MARKDOWN_RE = re.compile("[" + re.escape("".join(_MARKDOWN)) + "]")


def markdown_text(text: str) -> str:
    r"""``text`` as markdown that renders as exactly ``text``, in a table cell or a paragraph.

    Markdown's inline marks (``\ ` * _ [ ] |``) are escaped with a backslash (but ``_`` between two letters or
    digits, which never marks emphasis: ``P_rare@10`` stays readable); ``<``, ``>``, ``&``, ``~`` and line breaks
    and tabs are written as HTML character references (markdown keeps them; a browser shows the character), so no
    input becomes an element, a link, emphasis, a new cell or a new row. A space at either end (a table cell would
    lose it) is written ``&#32;``.
    """
    def one(m: re.Match[str]) -> str:
        c, i = m.group(), m.start()
        if c == "_" and 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum():
            return c
        return _MARKDOWN[c]

    out = _MARKDOWN_RE.sub(one, text)
    if out[:1] == " ":
        out = "&#32;" + out[1:]
    if out[-1:] == " ":
        out = out[:-1] + "&#32;"
    return out


_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
          "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
          ">": r"\textgreater{}", "|": r"\textbar{}"}


def latex_text(text: str) -> str:
    """``text`` as LaTeX that typesets as ``text``: the special characters escaped, line breaks as spaces.

    TeX reads a line break as a space; a cell of a tabular row is one line of the source, so breaks (and tabs)
    are written as single spaces.
    """
    one_line = " ".join(re.split(r"[\t\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]+", text))
    return "".join(_LATEX.get(c, c) for c in one_line)


_CSV_QUOTED = re.compile('[,"\r\n#]')


def csv_row(cells: Sequence[str]) -> str:
    r"""One csv record (RFC 4180), ending with ``\n``; a cell is quoted when it holds ``,``, ``"``, a break or ``#``.

    ``#`` is quoted too because ``pandas.read_csv(comment="#")``, the way to skip the provenance lines, cuts an
    unquoted cell there. A lone empty cell is quoted, so the record is no blank line.
    """
    def field(cell: str) -> str:
        return '"' + cell.replace('"', '""') + '"' if _CSV_QUOTED.search(cell) or (not cell and len(cells) == 1) \
            else cell

    return ",".join(field(c) for c in cells) + "\n"


# ------------------------------------------------------------------------------------------------- tables
@dataclass(frozen=True)
class Table:
    """A table as a format writes it: its text cells encoded by the format's :attr:`Format.cell`, and its marks.

    Attributes:
        columns: Column names, encoded.
        cells: The body's cells as text, encoded.
        rows: The body's values as given (jsonl writes them as JSON values).
        numeric: Whether each column holds numbers (right-aligned where the format aligns).
        caption: The caption, one line, not encoded (each format encodes it), or None.
        header: Whether to write the header line (tsv; the other formats always name their columns).
        bold: Cells printed bold.
        superscripts: Text set as a superscript after a cell's value.

    """

    columns: list[str]
    cells: list[list[str]]
    rows: Sequence[Sequence[Any]]
    numeric: list[bool]
    caption: str | None = None
    header: bool = True
    bold: Collection[Cell] = frozenset()
    superscripts: Mapping[Cell, str] = field(default_factory=dict)

    @property
    def marked(self) -> bool:
        """Whether any cell carries a mark."""
        return bool(self.bold) or bool(self.superscripts)


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



def _tsv(table: Table) -> str:
    lines = (["\t".join(table.columns)] if table.header else []) + ["\t".join(r) for r in table.cells]
    return "".join(line + "\n" for line in lines)


def _csv(table: Table) -> str:
    return "".join(csv_row(r) for r in [table.columns, *table.cells])


def _jsonl(table: Table) -> str:
    """One JSON object a row, the values as given (NaN as null), keyed by the column names."""
    lines = [json.dumps({c: (None if isinstance(v, float) and v != v else v)
                         for c, v in zip(table.columns, row, strict=True)}) for row in table.rows]
    return "".join(line + "\n" for line in lines)


def _marks(table: Table, bold: Callable[[str], str], sup: Callable[[str, str], str]) -> list[list[str]]:
    """The table's cells with its bold and superscript marks, written by ``bold`` and ``sup``."""
    out = []
    for i, row in enumerate(table.cells):
        new = []
        for j, text in enumerate(row):
            text = bold(text) if (i, j) in table.bold else text
            mark = table.superscripts.get((i, j), "")
            new.append(sup(text, mark) if mark else text)
        out.append(new)
    return out


def _markdown(table: Table) -> str:
    """A pipe table of cells escaped already (:func:`markdown_text`), the caption a paragraph."""
    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(values) + " |"

    cells = _marks(table, lambda t: f"**{t}**", lambda t, s: f"{t}<sup>{markdown_text(s)}</sup>")
    align = ["---"] + ["---:" if n else "---" for n in table.numeric[1:]]
    text = "\n".join([line(table.columns), "| " + " | ".join(align) + " |", *(line(r) for r in cells)]) + "\n"
    return f"{markdown_text(table.caption)}\n\n{text}" if table.caption else text


def _latex(table: Table) -> str:
    """A booktabs tabular (in a table float with its caption when cells are marked; else the caption a comment)."""
    spec = "l" + "".join("r" if n else "l" for n in table.numeric[1:])
    cells = _marks(table, lambda t: rf"\textbf{{{t}}}", lambda t, s: f"{t}$^{{{latex_text(s)}}}$")
    body = [" & ".join(table.columns) + r" \\", r"\midrule", *(" & ".join(r) + r" \\" for r in cells)]
    tabular = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule", *body, r"\bottomrule", r"\end{tabular}"]
    if table.marked:
        text = [r"\begin{table}", r"\centering", *tabular]
        if table.caption:
            text.append(rf"\caption{{{latex_text(table.caption)}}}")
        return "\n".join([*text, r"\end{table}"]) + "\n"
    caption = [f"% {table.caption}"] if table.caption else []
    return "\n".join([*caption, *tabular]) + "\n"


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


def _html(table: Table) -> str:
    """An HTML ``<table>`` (numbers right-aligned; marks as ``<b>`` and ``<sup>``), as notebooks show.

    Rendered by Jinja2 with autoescape: no run name, measure name or caption can become markup.
    """
    body = [[(text, table.numeric[j], (i, j) in table.bold, table.superscripts.get((i, j), ""))
             for j, text in enumerate(row)] for i, row in enumerate(table.cells)]
    return str(_html_template().render(columns=table.columns, body=body, caption=table.caption or ""))


# ------------------------------------------------------------------------------------------------- the registry
def _as_is(text: str) -> str:
    return text


@dataclass(frozen=True)
class Format:
    """One output format: how it writes a table, encodes a text as a cell, and leads with a comment.

    Attributes:
        name: The format's one name (``-o NAME``).
        table: Writes a :class:`Table` (ending with a newline).
        comment: Writes facts (provenance) as the comment that leads an output, which a reader of the format skips.
        read_comment: Reads the facts :attr:`comment` wrote back from the top of an output.
        cell: Encodes a text (a cell, a column name) for the format; html cells are escaped by the template.
        check: Refuses cells the format cannot hold (``InputError``), or None.
        marks: Whether the format shows bold and superscript marks (the others carry the numbers as columns).
        typed: Whether the format writes values as typed values (JSON), not as text with ``places`` decimals.

    """

    name: str
    table: Callable[[Table], str]
    comment: Callable[[Mapping[str, Any]], str]
    read_comment: Callable[[str], dict[str, Any]]
    cell: Callable[[str], str] = _as_is
    check: Callable[[Sequence[str], Sequence[Sequence[Any]]], None] | None = None
    marks: bool = False
    typed: bool = False


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("tsv", _tsv, _line_comment("#"), _read_line_comment("#"), check=_check_tsv),
    Format("csv", _csv, _line_comment("#"), _read_line_comment("#")),
    Format("jsonl", _jsonl, _jsonl_comment, _read_jsonl_comment, typed=True),
    Format("markdown", _markdown, _html_comment, _read_html_comment, cell=markdown_text, marks=True),
    Format("latex", _latex, _line_comment("%"), _read_line_comment("%"), cell=latex_text, marks=True),
    Format("html", _html, _html_comment, _read_html_comment, marks=True),
)}
"""Every output format, by name: the one registry tables, provenance and the command line read."""


def format_of(name: str) -> Format:
    """The :class:`Format` called ``name``.

    Raises:
        ValueError: no format has that name.

    """
    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r}; choose from {', '.join(FORMATS)}")
    return FORMATS[name]
