"""The published table: markers and bold agree with the tests' numbers; ir-rarity eval options; teams files."""

from __future__ import annotations

import io
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import assert_cli_error, run_cli

from ir_rarity import Pool, covid_round1
from ir_rarity.compare import campaign_table, compare_values
from ir_rarity.compare.table import letters
from ir_rarity.errors import TeamNotice
from ir_rarity.evaluation import evaluate_campaign as evaluate
from ir_rarity.pool.teams import read_teams

RUNS = ["BBGhelani1", "BBGhelani2", "sab20.1.meta.docs", "run2", "BERT", "BITEM_BL"]


@pytest.fixture(scope="module")
def six(covid_pool, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("six")
    for name in RUNS:
        run = covid_pool.run(name)
        lines = [f"{q} Q0 {d} {r} {s!r} {name}\n" for q, d, s, r in run.itertuples(index=False, name=None)]
        (folder / name).write_text("".join(lines))
    return folder


@pytest.mark.slow
def test_markers_follow_the_corrected_tests(covid_pool, covid_qrels):
    sub = covid_pool.subset(RUNS)
    result = evaluate(sub, covid_qrels, ["P_rare(alpha=0.5)@100", "ASL"])
    table = campaign_table(result, all_pairs=True, correction="holm", ci=0.95, resamples=500)
    text = table.render("markdown")
    tests = compare_values(result.values, RUNS, all_pairs=True, correction="holm")
    label = dict(zip(RUNS, letters(len(RUNS)), strict=True))
    lines = {line.split(" | ")[1]: line for line in text.splitlines() if line.startswith("| ")}
    for measure, col in (("P_rare(alpha=0.5)@100", 2), ("ASL", 4)):
        part = tests[tests["measure"] == measure]
        for run in RUNS:
            beaten = set(part[(part["run"] == run) & part["significant"] & part["run_better"]]["reference"])
            beaten |= set(part[(part["reference"] == run) & part["significant"] & ~part["run_better"]
                               & (part["difference"] != 0)]["run"])
            cell = lines[run].split(" | ")[col]
            marks = re.search(r"<sup>(\w+)</sup>", cell)
            assert set(marks.group(1) if marks else "") == {label[b] for b in beaten}, (measure, run, cell)
    best_asl = result.table()["ASL"].idxmin()  # lower is better: the lowest is bold
    assert "**" in lines[best_asl].split(" | ")[4]
    assert "holm correction" in text and "paired t-test" in text and "S = 6 runs" in text
    assert "a = BBGhelani1" in text and "95% confidence interval" in text
    assert any("<sup>" in line for line in lines.values())
    latex = table.render("latex")
    assert r"\caption{" in latex and r"\textbf{" in latex and "$^{" in latex


@pytest.mark.slow
def test_cli_baseline_tsv_carries_pvalues(six, covid_qrels):
    result = run_cli("eval", covid_round1.qrels, six, "-m", "P_rare(alpha=0.5)@100", "--baseline", "BERT",
                     "--correction", "bonferroni", "--ci", "0.9", "--resamples", "300", "-p", "-1")
    assert result.returncode == 0, result.stderr
    frame = pd.read_csv(io.StringIO(result.stdout), sep="\t", index_col="run")
    m = "P_rare(alpha=0.5)@100"
    pool = Pool.from_runs(six)
    tests = compare_values(evaluate(pool, covid_qrels, [m]).values, pool.names, ["BERT"],
                           correction="bonferroni").set_index("run")
    for run in tests.index:
        assert frame.loc[run, f"{m} vs BERT p-value"] == pytest.approx(tests.loc[run, "pvalue"], rel=1e-12)
        assert frame.loc[run, f"{m} vs BERT p-value corrected"] == pytest.approx(tests.loc[run, "pvalue_corrected"])
        assert frame.loc[run, f"{m} ci low"] < frame.loc[run, m] < frame.loc[run, f"{m} ci high"]
    assert "ir-rarity: pool: S = 6 runs" in result.stderr


@pytest.mark.slow
def test_cli_composition_and_plot(six, tmp_path):
    plot = tmp_path / "ranks.png"
    result = run_cli("eval", covid_round1.qrels, six, "-m", "P_rare(alpha=0.5)@100", "P@10", "--composition",
                     "--composition-resamples", "20", "--plot", plot, "--format", "markdown")
    assert result.returncode == 0, result.stderr
    assert "LOTO rank" in result.stdout and "Composition:" in result.stdout
    assert plot.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(("args", "words"), [
    (["--correction", "holm"], ["--correction", "--baseline"]),
    (["--baseline", "nope"], ["nope", "not one of the evaluated runs"]),
    (["--baseline", "BERT", "--all-pairs"], ["not both"]),
    (["--composition", "--pool", "PLACEHOLDER"], ["--composition", "--pool"]),
    (["--ci", "1.5"], ["confidence level"]),
])
def test_cli_errors(six, args, words):
    args = [str(six) if a == "PLACEHOLDER" else a for a in args]
    assert_cli_error(run_cli("eval", covid_round1.qrels, six, "-m", "P_rare@100", *args), *words)


@pytest.mark.slow
def test_teams_file_with_a_named_run_column(tmp_path):
    board = pd.read_csv(covid_round1.leaderboard).rename(columns={"run": "tag"})
    path = tmp_path / "leaderboard.csv"
    board[board["tag"] != "run1"].to_csv(path, index=False)
    mapping = read_teams(f"{path}:tag:team")
    assert mapping["BBGhelani1"] == board.set_index("tag").loc["BBGhelani1", "team"]
    assert read_teams((path, "tag", "team")) == mapping
    with pytest.warns(TeamNotice, match=r"1 run\(s\) not in the team file.*run1"):
        pool = Pool.from_runs(covid_round1.runs, split_by_tag=True, teams=f"{path}:tag:team")
    assert pool.teams["run1"] == "run1"
    assert pool.num_systems == board[board["tag"] != "run1"]["team"].nunique() + 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # every run listed: silent
        Pool.from_runs(covid_round1.runs, split_by_tag=True, teams=(covid_round1.leaderboard, "team"))
    result = run_cli("eval", covid_round1.qrels, covid_round1.runs, "--split-by-tag", "-m", "P_rare@100", "--teams",
                     f"{path}:tag:team")
    assert result.returncode == 0
    assert "ir-rarity: note: 1 run(s) not in the team file count as a team of their own each: run1" in result.stderr
