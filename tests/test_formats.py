"""One encoder per format: every cell and every provenance value reads back as exactly what was given.

Names are parsed back the way users' tools read each format (Python-Markdown, html.parser, pandas, json); the
JSON for comments and scripts is checked to hold nothing that could end them.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest
from hostile_names import comment_json, markdown_to_html, parse_html

import ir_rarity
from ir_rarity.compare import campaign_table
from ir_rarity.formats import json_for_comment, json_text, markdown_text, read_comment
from ir_rarity.provenance import InputFile, Provenance, json_for_script, stamp
from ir_rarity.tables import render

NAMES = ["x|y", "x\\|y", "x\\\\|y", "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "*a* _b_ __c__",
         "[link](http://x)", "![i](x.png)", "`code`", "~~gone~~", "&lt; & &amp;", "a\nb\r\nc\td", " lead", "trail ",
         "x---><b>", "<!-- c -->", "P_rare@10", "50% $x$ #1 {y} ^z", "\"dq\" 'sq'"]
"""Run names a table must show as they are, whatever the format's syntax makes of them."""


def _rows() -> list[tuple[str, float]]:
    return [(name, i / 100) for i, name in enumerate(NAMES)]


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_cells_read_back_as_given(fmt: str) -> None:
    text = render(["run ", "P@2|x"], _rows(), fmt, places=2, caption="cap <img src=x onerror=alert(1)> | *b*")
    page = parse_html(markdown_to_html(text) if fmt == "markdown" else text)
    assert {"img", "script", "a", "em", "strong", "code", "del", "b"}.isdisjoint(page.tags), page.tags
    header, *rows = page.rows
    assert header == ["run ", "P@2|x"]
    assert rows == [[name, f"{v:.2f}"] for name, v in _rows()]


def test_markdown_marks_stay_marks() -> None:
    text = render(["run", "v"], [("a*b", 0.5), ("c", 0.25)], "markdown", bold={(0, 1)}, superscripts={(1, 1): "a"})
    page = parse_html(markdown_to_html(text))
    assert page.rows[1:] == [["a*b", "0.5000"], ["c", "0.2500a"]] and page.tags.count("strong") == 1
    assert markdown_text("P_rare@10") == "P_rare@10" and markdown_text("_x_") == "\\_x\\_"


def test_csv_quotes_what_pandas_would_cut() -> None:
    rows = [("run#1", 0.5), ('q"uote,comma', 0.25), ("two\nlines", 0.125)]
    text = render(["run", "v"], rows, "csv")
    frame = pd.read_csv(io.StringIO("# a comment line\n" + text), comment="#")
    assert list(zip(frame["run"], frame["v"], strict=True)) == [(r, float(f"{v:.4f}")) for r, v in rows]


def test_json_for_comment_and_script_hold_nothing_that_ends_them() -> None:
    value = {"k": NAMES, "dash": "-" * 7, "seps": "\u2028\u2029\x85", "n": -1.5e-3, "neg": [-1, -2]}
    for encode in (json_for_comment, json_for_script):
        text = encode(value, indent=2)
        assert json.loads(text) == value
        assert not {"<", ">", "&", "\u2028", "\u2029"} & set(text)
    assert "--" not in json_for_comment(value) and "--" not in json_for_comment(value, indent=2)
    assert len(json_text({"a": "x\ny\u2028z\x85"}).splitlines()) == 1


def _provenance(tmp_path: Path) -> Provenance:
    name = str(tmp_path / "q\n# x\t1\n--->\n<img src=x onerror=alert(1)>\n% \\end{tabular}")
    return Provenance(command="ir-rarity eval '--->' 'a\n-->b'", inputs=(InputFile(name),),
                      pool={"S": 2, "run": "<!--"}, versions={"ir_rarity": "0"}, created="2024-01-01T00:00:00+00:00",
                      extra={"measures": ["P@2 --><b>"]})


@pytest.mark.parametrize("fmt", ["tsv", "csv", "jsonl", "markdown", "latex", "html"])
def test_every_stamp_reads_back_as_the_facts(tmp_path: Path, fmt: str) -> None:
    provenance = _provenance(tmp_path)
    table = render(["run", "v"], [("A", 0.5)], fmt)
    text = stamp(table, fmt, provenance)
    assert read_comment(text, fmt) == provenance.as_dict()
    assert text.endswith(table)
    head = text[:-len(table)]
    if fmt in ("tsv", "csv", "latex"):  # one line per fact (and one per input), each a comment line
        assert len(head.splitlines()) == 7 and all(line.startswith("%" if fmt == "latex" else "#")
                                                   for line in head.splitlines())
    if fmt in ("markdown", "html"):
        page = parse_html(markdown_to_html(text) if fmt == "markdown" else text)
        assert comment_json(page) == provenance.as_dict() and page.rows == [["run", "v"], ["A", "0.5000"]]


def test_campaign_table_caption_and_reprs(hand_files: dict[str, Path], hand_qrels: pd.DataFrame) -> None:
    runs = {"<img src=x onerror=alert(1)>": hand_files["A"], "x|y *z*": hand_files["B"]}
    result = ir_rarity.evaluate(runs, hand_qrels, ["P@2"])
    table = campaign_table(result, baselines=["<img src=x onerror=alert(1)>"], resamples=50)
    for text in (table._repr_markdown_(), table.render("markdown")):
        page = parse_html(markdown_to_html(text))
        assert "img" not in page.tags
        legend = text.split("\n")[0]  # the caption names the baseline's letter
        assert "a = <img src=x onerror=alert(1)>." in _text(markdown_to_html(legend))
        assert [r[1] for r in page.rows[1:]] == ["<img src=x onerror=alert(1)>", "x|y *z*"]
    page = parse_html(table._repr_html_())
    assert "img" not in page.tags and [r[1] for r in page.rows[1:]] == ["<img src=x onerror=alert(1)>", "x|y *z*"]


def _text(html: str) -> str:
    from html.parser import HTMLParser

    parts: list[str] = []
    parser = HTMLParser()
    parser.handle_data = parts.append  # type: ignore[method-assign]
    parser.feed(html)
    return "".join(parts)
