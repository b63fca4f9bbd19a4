"""ir-rarity judges: the files it writes, what they hold against the Python call, its refusals in one line."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import ir_rarity
from ir_rarity import covid_round1
from ir_rarity.analysis.judges import compare_judges, lenient_judge
from tests.cli_helpers import assert_cli_error, run_cli


def _second_judge(tmp_path: Path) -> Path:
    pool = ir_rarity.Pool.from_runs(covid_round1.runs, split_by_tag=True)
    second = lenient_judge(ir_rarity.read_trec_qrels(covid_round1.qrels), pool.counts(), pool.num_systems, seed=1)
    path = tmp_path / "lenient.qrels"
    second.assign(iteration="0")[["query_id", "iteration", "doc_id", "relevance"]].to_csv(
        path, sep=" ", header=False, index=False)
    return path


@pytest.mark.slow
def test_judges_folder_on_round1(tmp_path: Path) -> None:
    lenient = _second_judge(tmp_path)
    out = tmp_path / "judges"
    args = [covid_round1.qrels, lenient, "--runs", covid_round1.runs, "--split-by-tag", "-m", "P@10", "AP",
            "--names", "nist", "lenient", "--leaderboard", covid_round1.leaderboard, "--group-column", "runtype",
            "--combine", "fill", "--resamples", "200", "--out", out]
    result = run_cli("judges", *args)
    assert result.returncode == 0, result.stderr
    assert "| nist | lenient | 8691 |" in result.stdout
    for name in ("agreement.csv", "agreement_by_rarity.csv", "confusion.csv", "rankings.csv", "leaderboards.csv",
                 "runs.csv", "groups.csv", "summary.md", "provenance.json"):
        assert (out / name).is_file(), name
    rankings = pd.read_csv(out / "rankings.csv")
    assert list(rankings.columns) == ["measure", "judge_a", "judge_b", "n_runs", "tau", "tau_ap", "top10_overlap"]
    expected = compare_judges([covid_round1.qrels, lenient], covid_round1.runs, ["P@10", "AP"],
                              names=["nist", "lenient"], combine="fill", split_by_tag=True, resamples=200)
    assert rankings["tau"].to_numpy() == pytest.approx(expected.rankings["tau"].to_numpy(), abs=1e-15)
    by = pd.read_csv(out / "agreement_by_rarity.csv", dtype={"s_d": str})
    assert by["s_d"].unique().tolist() == ["0", "1", "2-5", "6-71", "72-143"]
    summary = (out / "summary.md").read_text()
    assert "S = 143 runs" in summary and "Agreement by rarity" in summary and "runtype" in summary
    # a second run into the folder it wrote is fine; a folder holding a file of the user's is refused
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.md").write_text("mine")
    refused = run_cli("judges", *args[:-1], tmp_path / "mine")
    assert_cli_error(refused, "notes.md", "--overwrite")


def test_judges_refusals(tmp_path: Path) -> None:
    assert_cli_error(run_cli("judges", covid_round1.qrels, "--runs", covid_round1.runs, "-m", "P@10",
                             "--out", tmp_path / "o"), "two or more QRELS")
    assert_cli_error(run_cli("judges", covid_round1.qrels, covid_round1.qrels, "--runs", covid_round1.runs,
                             "--split-by-tag", "-m", "P@10", "--out", tmp_path / "o", "--group-column", "runtype"),
                     "--leaderboard")
    missing = run_cli("judges", covid_round1.qrels, tmp_path / "none.qrels", "--runs", covid_round1.runs,
                      "--split-by-tag", "-m", "P@10", "--out", tmp_path / "o")
    assert_cli_error(missing, "none.qrels")


def test_judges_help_names_the_files() -> None:
    result = run_cli("judges", "--help")
    assert result.returncode == 0
    for word in ("QRELS", "--runs", "--combine", "--group-column", "kappa", "alpha", "tau_AP"):
        assert word in result.stdout, word
