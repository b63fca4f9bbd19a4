"""Evaluation and campaign tables render as HTML and markdown in a notebook, with what they were computed against."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pandas as pd

import ir_rarity
from ir_rarity.compare import campaign_table
from ir_rarity.tables import render


class _Cells(HTMLParser):
    """The text of every <td>/<th> cell, row by row, and the caption."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.caption = ""
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th", "caption"):
            self._in = tag
            if tag != "caption":
                self.rows[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th", "caption"):
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "caption":
            self.caption += data
        elif self._in:
            self.rows[-1][-1] += data


def _parse(html: str) -> _Cells:
    cells = _Cells()
    cells.feed(html)
    return cells


def _small() -> ir_rarity.Evaluation:
    runs = {n: pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": docs, "score": [3.0, 2.0, 1.0]})
            for n, docs in {"a<b": ["d1", "d2", "d3"], "c": ["d2", "d9", "d3"], "e": ["d9", "d8", "d7"]}.items()}
    qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["d1", "d2", "d3"], "relevance": [1, 1, 2]})
    return ir_rarity.evaluate(runs, qrels, ["P@2", "P_rare(alpha=0.5)@2"])


def test_an_evaluation_shows_its_table_and_what_it_was_computed_against() -> None:
    result = _small()
    cells = _parse(result._repr_html_())
    assert cells.rows[0] == ["run", "P@2", "P_rare(alpha=0.5)@2"]
    table = result.table()
    for row in cells.rows[1:]:
        assert [float(v) for v in row[1:]] == [round(float(x), 4) for x in table.loc[row[0]]]
    assert "a<b" in [row[0] for row in cells.rows]  # escaped in the HTML, the name itself in the text
    assert "&lt;" in result._repr_html_()
    assert result.describe() in cells.caption
    markdown = result._repr_markdown_()
    assert markdown.startswith("3 runs x 2 queries; ") and "| run | P@2 | P_rare(alpha=0.5)@2 |" in markdown


def test_a_campaign_table_shows_its_marks() -> None:
    table = campaign_table(_small(), baselines=["e"])
    html = table._repr_html_()
    assert re.search(r"<b>0\.\d{4}</b>", html)  # the best value of a column, bold
    assert _parse(html).caption.startswith("Computed against the")
    assert table._repr_markdown_() == table.render("markdown")


def test_html_is_a_format_of_every_table() -> None:
    html = render(["run", "x"], [("<r>", 0.5)], "html", 2, caption="c & d", bold=[(0, 1)],
                  superscripts={(0, 1): "a"})
    assert html == ('<table class="ir-rarity"><caption>c &amp; d</caption><thead><tr><th>run</th><th>x</th></tr>'
                    '</thead>\n<tbody>\n<tr><td>&lt;r&gt;</td><td style="text-align: right"><b>0.50</b><sup>a</sup>'
                    '</td></tr>\n</tbody></table>\n')
