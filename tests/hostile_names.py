"""A campaign whose run names and file names try to break out of every output format, and readers to check it.

The run files and the qrels file are named with line breaks, HTML comment ends (``-->``, ``--->``), comment starts,
``<script>``, ``<img onerror>``, table pipes, backslashes, TeX's specials and quotes. The readers parse an output
back the way a user's tool would (csv module, pandas, json, Python-Markdown, html.parser, the LaTeX rows).
"""

from __future__ import annotations

import hashlib
import json
from html.parser import HTMLParser
from pathlib import Path

from conftest import HAND_QRELS, HAND_RUNS

RUN_A = "A x---><img src=x onerror=alert(1)> <!-- p|q back\\slash a\\|b & 50% $x$ \"dq\" 'sq' <script>alert(2)"
"""A run file's name (one line: tsv refuses a line break in a run name)."""
RUN_B = "B -->\n<img src=x onerror=alert(3)>\n| 9.9 |"
"""A run file's name with line breaks (and a markdown row after them)."""
QRELS = "qrels\nA\t9.9999\n# --->\n<img src=x onerror=alert(4)>\n\\end{tabular}\n.txt"
"""The qrels file's name: each line of it would be a row, a comment end or markup if written raw."""

P_AT_2 = {"A": 0.75, "B": 0.25}
"""P@2 of the hand campaign's runs A and B, worked by hand (tests/conftest.py): A ranks d1 (2), d2 (1) on q1 and
d1 (1) on q2: (2/2 + 1/2) / 2; B ranks d2 (1), d4 (unjudged) on q1 and nothing on q2: (1/2 + 0) / 2."""


def hostile_campaign(folder: Path, *, newline_runs: bool = True) -> dict[str, Path]:
    """The hand campaign's qrels and runs A and B under hostile names (B's without line breaks if not asked)."""
    folder.mkdir(parents=True, exist_ok=True)
    b_name = RUN_B if newline_runs else RUN_B.replace("\n", " ")
    files = {"qrels": folder / QRELS, "A": folder / RUN_A, "B": folder / b_name}
    files["qrels"].write_text(HAND_QRELS)
    files["A"].write_text(HAND_RUNS["A"])
    files["B"].write_text(HAND_RUNS["B"])
    return files


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Cells(HTMLParser):
    """The rows of every ``<table>`` (cell texts, entities decoded), every start tag, and the comments."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.tags: list[str] = []
        self.comments: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


def parse_html(text: str) -> Cells:
    parser = Cells()
    parser.feed(text)
    parser.close()
    return parser


def markdown_to_html(text: str) -> str:
    """Markdown as Python-Markdown renders it, with pipe tables."""
    import markdown

    return str(markdown.markdown(text, extensions=["tables"]))


def comment_json(parser: Cells) -> dict:
    """The provenance facts in the one HTML comment, read by a JSON parser."""
    (body,) = parser.comments
    title, _, payload = body.partition("\n")
    assert title.strip() == "ir_rarity provenance"
    return dict(json.loads(payload))


LATEX_SPECIALS = {r"\textbackslash{}": "\\", r"\&": "&", r"\%": "%", r"\$": "$", r"\#": "#", r"\_": "_",
                  r"\{": "{", r"\}": "}", r"\textasciitilde{}": "~", r"\textasciicircum{}": "^",
                  r"\textless{}": "<", r"\textgreater{}": ">", r"\textbar{}": "|"}


def latex_rows(text: str) -> list[list[str]]:
    r"""The cells of a tabular's rows between ``\midrule`` and ``\bottomrule``, TeX escapes undone."""
    lines = text.split("\n")
    body = lines[lines.index(r"\midrule") + 1:lines.index(r"\bottomrule")]
    rows = []
    for line in body:
        assert line.endswith(r" \\"), line
        cells = []
        for cell in line[:-3].split(" & "):
            out, i = "", 0
            while i < len(cell):
                for escape, char in LATEX_SPECIALS.items():
                    if cell.startswith(escape, i):
                        out, i = out + char, i + len(escape)
                        break
                else:
                    out, i = out + cell[i], i + 1
            cells.append(out)
        rows.append(cells)
    return rows
