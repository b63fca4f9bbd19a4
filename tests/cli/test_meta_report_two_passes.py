"""``ir-rarity meta`` and ``ir-rarity report`` with ``--stream`` / ``--memory``: the outputs of the runs held in memory.

The reference is each command without the options (its values are checked against trec_eval, brute force and
hand-worked values elsewhere). Every output is parsed back: the meta-evaluation's CSV files read with pandas, the
report's tables as its CSV export builds them (``report.js``: the last header row's texts, each cell's
``data-value`` or its own first text) read with pandas. What legitimately differs is named where it is compared:
the line stating the pool says the runs were read in two passes, and the report leaves out what reads every row
of the runs (the unjudged shares and bounds, the pooling simulation), each with a note saying so.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from html.parser import HTMLParser
from pathlib import Path
from typing import cast

import pandas as pd
import pytest

import ir_rarity
from ir_rarity import covid_round1
from ir_rarity.cli.commands import build_parser, main
from ir_rarity.cli.options import MEMORY_HELP, STREAM_HELP
from ir_rarity.errors import ParameterError
from ir_rarity.pool.stream import TWO_PASSES, file_blocks
from tests.pool.test_stream import small_blocks  # noqa: F401  (the fixture: blocks of one or two files)
from tests.run_files import write_campaign

pytest.importorskip("matplotlib")
pytest.importorskip("plotly")

META_CSVS = ("tau_alpha", "discriminative_power", "stability", "robustness", "synthetic")
LEFT_OUT = ("unjudged-table", "pooling-found", "pooling-reuse")
"""Tables of the report that read every row of the runs: left out when they are read in two passes."""


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``ir-rarity`` (exit 0 asserted) and return its stderr."""
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 0, err
    return err


# ---------------------------------------------------------------------------------------------- meta
def _meta(tmp_path: Path, name: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    out = tmp_path / name
    return out, _run(["meta", *argv, "--out", str(out)], capsys)


def _same_meta(memory: Path, streamed: Path) -> None:
    """Every CSV equal read back; report.md equal but for the pool line, which says two passes; the provenance's pool
    facts equal but for ``read``."""
    for name in META_CSVS:
        pd.testing.assert_frame_equal(pd.read_csv(memory / f"{name}.csv"), pd.read_csv(streamed / f"{name}.csv"),
                                      check_exact=True)
    a, b = ((p / "report.md").read_text(encoding="utf-8").splitlines() for p in (memory, streamed))
    pool_line = next(i for i, line in enumerate(a) if line.startswith("Pool: "))
    assert TWO_PASSES not in a[pool_line]
    assert b[pool_line] == a[pool_line].replace(" systems;", f" systems ({TWO_PASSES});", 1)
    assert a[:pool_line] + a[pool_line + 1:] == b[:pool_line] + b[pool_line + 1:]
    pools = [json.loads((p / "provenance.json").read_text(encoding="utf-8"))["pool"] for p in (memory, streamed)]
    assert "read" not in pools[0] and pools[1].pop("read") == "two passes"
    assert pools[0] == pools[1]


@pytest.mark.usefixtures("small_blocks")
def test_meta_of_several_files_in_blocks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files, qrels = write_campaign(tmp_path / "c", n_runs=9)
    assert len(file_blocks(files)) > 2  # the counts are merged across blocks
    argv = [str(qrels), *map(str, files), "--cutoff", "10", "--trials", "20", "--seed", "3"]
    memory, said = _meta(tmp_path, "memory", argv, capsys)
    assert said.splitlines()[0] == "ir-rarity: pool: S = 9 runs"
    streamed, said = _meta(tmp_path, "stream", [*argv, "--stream"], capsys)
    assert said.splitlines()[0] == f"ir-rarity: pool: S = 9 runs; {TWO_PASSES}"
    _same_meta(memory, streamed)
    assert all((streamed / f"{n}.png").is_file() for n in ("tau_alpha", "robustness", "synthetic"))
    # --memory: a budget the rows fit is read in memory (no line changes), one they do not in two passes
    fits, said = _meta(tmp_path, "fits", [*argv, "--memory", "64G"], capsys)
    assert TWO_PASSES not in said and (fits / "report.md").read_text() == (memory / "report.md").read_text()
    tight, said = _meta(tmp_path, "tight", [*argv, "--memory", "1K"], capsys)
    assert TWO_PASSES in said
    _same_meta(memory, tight)


def test_meta_of_round1_split_by_tag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(covid_round1.qrels), str(covid_round1.runs), "--split-by-tag", "--trials", "8", "--no-plots"]
    memory, _ = _meta(tmp_path, "memory", argv, capsys)
    streamed, said = _meta(tmp_path, "stream", [*argv, "--stream"], capsys)
    assert f"S = 143 runs; {TWO_PASSES}" in said
    _same_meta(memory, streamed)
    robustness = pd.read_csv(streamed / "robustness.csv")
    assert robustness["mean_tau"].notna().any()  # the samples were scored, not left empty


# ---------------------------------------------------------------------------------------------- report
class _Tables(HTMLParser):
    """Every sortable table of a report page as its CSV export (``report.js``'s ``toCsv``), by element id."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.csv: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._head = False
        self._row: list[str] | None = None
        self._cell: dict[str, object] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and "sortable" in (a.get("class") or "").split():
            self._table = str(a.get("id"))
            self.csv[self._table] = []
        elif self._table is None:
            return
        elif tag in ("thead", "tbody"):
            self._head = tag == "thead"
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = {"value": a.get("data-value"), "text": [], "first": None}
        elif self._cell is not None and self._cell["first"] is None:  # the cell's first text node ends here
            self._cell["first"] = "".join(self._cell["text"])  # type: ignore[arg-type]

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell["text"].append(data)  # type: ignore[attr-defined]

    def handle_endtag(self, tag: str) -> None:
        if self._table is None:
            return
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            whole = "".join(self._cell["text"])  # type: ignore[arg-type]
            first = self._cell["first"] or whole  # a cell opening with an element: its whole text
            value = self._cell["value"]
            self._row.append(whole.strip() if self._head else str(value if value is not None else first).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            rows = self.csv[self._table]
            if self._head:  # the last header row names the columns
                rows[:1] = [self._row]
            else:
                rows.append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None


def _tables(page: Path) -> dict[str, pd.DataFrame]:
    """Each sortable table's CSV export, read back with pandas (every cell as written)."""
    parser = _Tables()
    parser.feed(page.read_text(encoding="utf-8"))
    out = {}
    for name, rows in parser.csv.items():
        text = io.StringIO()
        csv.writer(text).writerows(rows)
        out[name] = pd.read_csv(io.StringIO(text.getvalue()), dtype=str, keep_default_na=False)
    return out


def _same_report(memory: Path, streamed: Path) -> None:
    """Every table of the page equal, read back from its CSV export, but those left out (with their notes) and the
    leaderboard's unjudged shares beside each score; the glance says two passes."""
    a, b = _tables(memory), _tables(streamed)
    assert set(a) - set(b) == {t for t in LEFT_OUT if t in a} and set(b) <= set(a)
    assert {"composition-table", "unique-team-table", "unique-run-table", "rare-queries-table", "judged-table",
            "tau-alpha-table", "meta-table", "asl-table", "leaderboard-table"} <= set(b)
    for name, table in b.items():
        expected = a[name]
        if name == "leaderboard-table":  # the unjudged shares read every row: not beside the scores
            expected = expected[[c for c in expected.columns if not c.endswith(" unjudged")]]
            assert len(expected.columns) < len(a[name].columns)
        pd.testing.assert_frame_equal(expected, table, check_exact=True, obj=name)
    page = streamed.read_text(encoding="utf-8")
    assert f"its own runs scored; {TWO_PASSES}" in page  # the glance's campaign line
    assert f"not gathered ({TWO_PASSES})" in page  # the unjudged section's note
    assert '"read": "two passes"' in page  # the provenance's pool facts
    assert TWO_PASSES not in memory.read_text(encoding="utf-8")


@pytest.mark.usefixtures("small_blocks")
def test_report_of_several_files_in_blocks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files, qrels = write_campaign(tmp_path / "c", n_runs=8)
    assert len(file_blocks(files)) > 2
    argv = ["report", str(qrels), *map(str, files), "--resamples", "30", "--composition-resamples", "6",
            "--trials", "10", "--seed", "2", "--quiet"]
    said = _run([*argv, "--out", str(tmp_path / "memory.html")], capsys)
    assert TWO_PASSES not in said
    said = _run([*argv, "--out", str(tmp_path / "stream.html"), "--stream"], capsys)
    assert said.splitlines()[0].endswith(f"its own runs scored; {TWO_PASSES}")
    _same_report(tmp_path / "memory.html", tmp_path / "stream.html")
    assert "pooling-found" in _tables(tmp_path / "memory.html")  # left out in two passes only
    assert "(runs read in two passes: drop --stream or raise --memory)" in (tmp_path / "stream.html").read_text()


def test_report_of_round1_split_by_tag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["report", str(covid_round1.qrels), str(covid_round1.runs), "--split-by-tag", "--resamples", "20",
            "--composition-resamples", "3", "--trials", "5", "--no-pooling", "--quiet"]
    _run([*argv, "--out", str(tmp_path / "memory.html")], capsys)
    said = _run([*argv, "--out", str(tmp_path / "stream.html"), "--memory", "1K"], capsys)
    assert f"S = 143 runs; S_d at depth 100; its own runs scored; {TWO_PASSES}" in said
    _same_report(tmp_path / "memory.html", tmp_path / "stream.html")


# ---------------------------------------------------------------------------------------------- one rule
def test_the_options_are_eval_s() -> None:
    """``--memory`` and ``--stream`` are spelled and explained alike by eval, meta and report."""
    sub = cast("dict[str, argparse.ArgumentParser]",
               next(a.choices for a in build_parser()._actions if a.dest == "command"))
    for command in ("eval", "meta", "report"):
        options = {a.dest: a for a in sub[command]._actions}
        assert options["memory"].help == MEMORY_HELP and options["memory"].metavar == "SIZE"
        assert options["stream"].help == STREAM_HELP and options["stream"].default is False


def test_what_cannot_be_read_in_two_passes_is_refused_as_evaluate_refuses(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files, qrels = write_campaign(tmp_path / "c", n_runs=4)
    teams = tmp_path / "teams.csv"
    teams.write_text("run,team\n" + "".join(f"{f.name},t{i % 2}\n" for i, f in enumerate(files)), encoding="utf-8")
    with pytest.raises(ParameterError) as refused:
        ir_rarity.evaluate(files, qrels, ["P_rare@10"], teams=str(teams), stream=True)
    expected = f"ir-rarity: error: {refused.value}"
    runs = list(map(str, files))
    for argv in (["meta", str(qrels), *runs, "--out", str(tmp_path / "m"), "--teams", str(teams), "--stream"],
                 ["report", str(qrels), *runs, "--out", str(tmp_path / "r.html"), "--teams", str(teams),
                  "--stream", "--quiet"]):
        assert main(argv) == 2
        assert capsys.readouterr().err.strip().splitlines() == [expected]
    with pytest.raises(ParameterError) as refused:
        ir_rarity.evaluate(files, qrels, ["U_novel@10"], stream=True)
    assert main(["report", str(qrels), *runs, "--out", str(tmp_path / "r.html"), "-m", "U_novel@10", "--stream",
                 "--quiet"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"ir-rarity: error: {refused.value}"]
    assert main(["meta", str(qrels), *runs, "--out", str(tmp_path / "m"), "--memory", "lots"]) == 2
    assert capsys.readouterr().err.strip() == ("ir-rarity: error: a memory budget is bytes or a number with K, M, G "
                                               "or T (e.g. '4G'), got 'lots'")
    assert not (tmp_path / "r.html").exists()
