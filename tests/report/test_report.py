"""The campaign report without a browser: offline, every section, the leaderboard's numbers, the command line."""

from __future__ import annotations

import json
import math
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

import ir_rarity
from ir_rarity import covid_round1
from ir_rarity.cli import main
from ir_rarity.report.facts import compact_lines
from ir_rarity.report.sections import SECTIONS


class _Page(HTMLParser):
    """What the checks read from a page: external references, section ids, leaderboard cells, provenance JSON."""

    def __init__(self) -> None:
        super().__init__()
        self.external: list[str] = []
        self.sections: list[str] = []
        self.leads: int = 0
        self.cells: dict[tuple[str, str], str] = {}
        self._run: str | None = None
        self._json: str | None = None
        self._lines: str | None = None
        self.provenance = ""
        self.provenance_lines = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        for key in ("src", "href", "data"):
            value = (a.get(key) or "").strip().lower()
            if tag in ("script", "link", "img", "iframe", "object", "embed", "source") and re.match(
                    r"(https?:)?//", value):
                self.external.append(f"<{tag} {key}={value}>")
        if tag == "link" and (a.get("rel") or "") == "stylesheet":
            self.external.append("<link rel=stylesheet>")
        if tag == "section":
            self.sections.append(a.get("id") or "")
        if tag == "p" and a.get("class") == "lead":
            self.leads += 1
        if tag == "tr" and a.get("data-run"):
            self._run = a["data-run"]
        if tag == "td" and self._run and a.get("data-measure"):
            self.cells[(self._run, a["data-measure"] or "")] = a.get("data-value") or ""
        if tag == "script" and a.get("id") == "provenance-json":
            self._json = ""
        if tag == "pre" and a.get("id") == "provenance-lines":
            self._lines = ""

    def handle_data(self, data: str) -> None:
        if self._json is not None:
            self._json += data
        if self._lines is not None:
            self._lines += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._json is not None:
            self.provenance, self._json = self._json, None
        if tag == "pre" and self._lines is not None:
            self.provenance_lines, self._lines = self._lines, None
        if tag == "tr":
            self._run = None


@pytest.fixture(scope="module")
def page(round1_report: ir_rarity.report.Report) -> _Page:
    parsed = _Page()
    parsed.feed(round1_report.html)
    return parsed


def test_offline_one_file(round1_report: ir_rarity.report.Report, page: _Page) -> None:
    assert page.external == []
    text = round1_report.html
    assert re.search(r"@import\s+url\(\s*['\"]?(https?:)?//", text) is None
    assert len(re.findall(r"\* plotly\.js v\d", text)) == 1  # plotly.js inlined once
    assert text.count("Plotly.newPlot(") >= 8
    assert 1_000_000 < round1_report.size < 15_000_000


def test_every_section_opens_with_its_sentence(round1_report: ir_rarity.report.Report, page: _Page) -> None:
    assert page.sections == list(SECTIONS)
    assert page.leads == len(SECTIONS)
    for section in SECTIONS.values():
        assert section.lead.endswith(".") and section.lead.count(". ") == 0, section.title  # one sentence each
    data = round1_report.data
    assert not data.notes  # round 1 has everything every section needs


def test_leaderboard_numbers_are_the_evaluation_table(round1_report: ir_rarity.report.Report, page: _Page) -> None:
    table = round1_report.data.evaluation.table()
    assert len(table) == 143 and list(table.columns) == ir_rarity.report.DEFAULT_MEASURES
    assert len(page.cells) == table.size
    for (run, measure), value in page.cells.items():
        expected = float(table.at[run, measure])
        assert (math.isnan(expected) and value == "") or float(value) == expected, (run, measure)


def test_baseline_marks_and_intervals(round1_report: ir_rarity.report.Report) -> None:
    text = round1_report.html
    assert "(baseline a)" in text and 'class="baseline"' in text
    assert "mark-up" in text and "mark-down" in text
    assert '<span class="ci">[' in text


def test_asl_warning_and_provenance(round1_report: ir_rarity.report.Report, page: _Page) -> None:
    depth = round1_report.html.split('id="depth"', 1)[1].split("</section>", 1)[0]
    assert "Warning:" in depth and "rankings of different lengths" in depth
    facts = json.loads(page.provenance.replace("<\\/", "</"))
    assert facts["pool"]["S"] == 56 and facts["pool"]["systems"] == "teams"
    assert {Path(i["name"]).name for i in facts["inputs"]} >= {"qrels.txt.gz", "runs_top100.trec.gz"}
    assert all(len(i["sha256"]) == 64 for i in facts["inputs"])
    assert page.provenance_lines == "\n".join(compact_lines(round1_report.provenance))  # shown as written


def test_save_and_repr(round1_report: ir_rarity.report.Report, round1_html: Path) -> None:
    assert round1_html.read_text(encoding="utf-8") == round1_report.html
    lite = round1_report._repr_html_()  # a summary linking to the saved page, not the 6 MB page
    assert len(lite.encode("utf-8")) < 300_000 and "<script" not in lite and "<iframe" not in lite
    assert f'href="{round1_html}"' in lite
    assert "143 runs x 30 queries" in repr(round1_report)
    markdown = round1_report._repr_markdown_()
    assert markdown.startswith("**Campaign report**: 143 runs x 30 queries; ")
    table = round1_report.data.evaluation.table()
    first = table.index[0]
    assert f"| {first} | {table.iloc[0, 0]:.4f} |" in markdown


def test_cli_writes_the_report(hand_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
                               ) -> None:
    pytest.importorskip("plotly")
    out = tmp_path / "report.html"
    runs = [str(hand_files[n]) for n in "ABC"]
    code = main(["report", str(hand_files["qrels"]), *runs, "--out", str(out), "--resamples", "50",
                 "--composition-resamples", "5", "--trials", "10", "--budgets", "2", "--quiet",
                 "-m", "P@2", "P_rare(alpha=0.5)@3", "ASL"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert f"ir-rarity: report: wrote {out}" in err
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and 'id="provenance-json"' in text


def test_cli_refuses_to_overwrite_an_input(hand_files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    qrels = hand_files["qrels"]
    before = qrels.read_bytes()
    code = main(["report", str(qrels), str(hand_files["A"]), str(hand_files["B"]), "--out", str(qrels)])
    assert code == 2
    assert "ir-rarity: error:" in capsys.readouterr().err
    assert qrels.read_bytes() == before


def test_python_out_and_evaluation(tmp_path: Path) -> None:
    pytest.importorskip("plotly")
    evaluation = ir_rarity.evaluate(covid_round1.runs, covid_round1.qrels, ["P@10", "P_rare(alpha=0.5)@10"],
                                    split_by_tag=True)
    built = ir_rarity.report(evaluation=evaluation.select(evaluation.names[:20]), out=tmp_path / "r.html",
                             pooling=False, resamples=50, composition_resamples=5, trials=10, progress=False)
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == built.html
    assert built.data.notes["pooling"] == ["not computed (pooling=False, --no-pooling)"]
    assert built.data.notes["depth"] == ["no ASL measure was evaluated"]
    with pytest.raises(ir_rarity.ParameterError, match="baseline"):
        ir_rarity.report(evaluation=evaluation, baselines=["no such run"], progress=False)


def test_without_plotly_one_clear_error_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "plotly", None)  # import plotly raises ImportError
    monkeypatch.setitem(sys.modules, "plotly.graph_objects", None)
    with pytest.raises(ir_rarity.ParameterError, match=r"pip install 'ir_rarity\[report\]'"):
        ir_rarity.report("no such runs", "no such qrels")


def _ranked_run(name: str, hits: dict[str, int]) -> str:
    """A run retrieving, per query, ``hits`` relevant documents (r0, r1...) then non-relevant ones, 10 in all."""
    lines = []
    for query, k in hits.items():
        docs = [f"r{i}" for i in range(k)] + [f"n{i}" for i in range(10 - k)]
        lines += [f"{query} Q0 {doc} {i + 1} {10 - i} {name}" for i, doc in enumerate(docs)]
    return "\n".join(lines) + "\n"


def test_rank_column_gives_tied_runs_one_rank(tmp_path: Path) -> None:
    """P@10 of (0.3, 0.6) and (0.4, 0.5): means 0.45 both, whose floats differ in the last bit; they tie."""
    pytest.importorskip("plotly")
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 r{i} 1\n" for q in ("q1", "q2") for i in range(10)))
    hits = {"best": (9, 9), "split": (3, 6), "even": (4, 5), "worst": (1, 1)}
    runs = {}
    for name, (h1, h2) in hits.items():
        runs[name] = tmp_path / name
        runs[name].write_text(_ranked_run(name, {"q1": h1, "q2": h2}))
    built = ir_rarity.report(runs, qrels, ["P@10"], pooling=False, resamples=20, composition_resamples=2, trials=5,
                             progress=False)
    means = built.data.evaluation.table()["P@10"]
    assert means["split"] != means["even"] and abs(means["split"] - means["even"]) < 1e-15  # the floats differ
    rows = re.findall(r'<tr data-run="([^"]+)"[^>]*><td data-value="([^"]*)">([^<]*)</td>', built.html)
    assert rows == [("best", "1.0", "1"), ("even", "2.0", "2"), ("split", "2.0", "2"), ("worst", "4.0", "4")]


def test_one_section_registry() -> None:
    """A section is one entry: its key, title, lead, template and assembly step; a note for no section is refused."""
    from ir_rarity.report.data import ReportData, Settings

    assert all(s.template and callable(s.render) for s in SECTIONS.values())
    assert [k for k, s in SECTIONS.items() if s.gather is None] == ["provenance"]  # reads what the others gathered
    data = ReportData(evaluation=None, settings=Settings(), teams={}, warnings=[])  # type: ignore[arg-type]
    data.note("per-query", "left out")
    assert data.notes == {"per-query": ["left out"]}
    with pytest.raises(ValueError, match="no report section 'per query'"):
        data.note("per query", "shown nowhere")
