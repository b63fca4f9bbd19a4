r"""One encoder per output format: how a text becomes a table cell, and how facts become a comment readers skip.

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

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["COMMENT_TITLE", "FORMATS", "comment", "csv_row", "fact_lines", "json_for_comment", "json_for_script",
           "json_text", "latex_text", "markdown_text", "read_comment"]

FORMATS = ("tsv", "csv", "jsonl", "markdown", "latex", "html")
"""The formats of every table ir_rarity writes."""

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


def comment(fmt: str, facts: Mapping[str, Any]) -> str:
    """``facts`` as the comment that leads an output in ``fmt``, which a reader of the format skips.

    Raises:
        ValueError: an unknown format.

    """
    if fmt in ("tsv", "csv", "latex"):
        mark = "%" if fmt == "latex" else "#"
        return "".join(f"{mark} {line}\n" for line in fact_lines(facts))
    if fmt == "jsonl":
        return json_text({"provenance": dict(facts)}) + "\n"
    if fmt in ("markdown", "html"):  # a blank line after it: markdown starts a new block there
        return f"<!-- {COMMENT_TITLE}\n{json_for_comment(dict(facts), indent=2)}\n-->\n\n"
    raise ValueError(f"no comment for format {fmt!r}; choose from {', '.join(FORMATS)}")


def read_comment(text: str, fmt: str) -> dict[str, Any]:
    """The facts :func:`comment` wrote at the top of ``text`` (an output in ``fmt``).

    Raises:
        ValueError: an unknown format, or ``text`` does not begin with such a comment.

    """
    if fmt in ("markdown", "html"):
        head = f"<!-- {COMMENT_TITLE}\n"
        end = text.find("\n-->\n")
        if not text.startswith(head) or end < 0:
            raise ValueError(f"no {COMMENT_TITLE} comment at the top")
        return dict(json.loads(text[len(head):end]))
    if fmt == "jsonl":
        return dict(json.loads(text.split("\n", 1)[0])["provenance"])
    if fmt not in ("tsv", "csv", "latex"):
        raise ValueError(f"no comment for format {fmt!r}; choose from {', '.join(FORMATS)}")
    mark = "% " if fmt == "latex" else "# "
    facts: dict[str, Any] = {}
    for line in text.split("\n"):
        if not line.startswith(mark):
            break
        key, _, value = line[len(mark):].partition(": ")
        if key == "input":
            facts.setdefault("inputs", []).append(json.loads(value))
        else:
            facts[key] = json.loads(value)
    return facts


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
