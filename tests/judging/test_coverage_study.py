"""The leave-one-team-out re-judging study and ``ir-rarity coverage``: unique pairs by brute force, each case's truth
and reduced score against independent scores (pytrec_eval through ir_measures, the front door on the reduced qrels),
the table's coverage and widths recounted from the cases, and the command's table parsed back."""

from __future__ import annotations

import io
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
from cli_helpers import assert_cli_error, run_cli

import ir_rarity
from ir_rarity import Pool
from ir_rarity.errors import ParameterError
from ir_rarity.judging.coverage import COVERS, coverage_study, team_unique_pairs

DEPTH = 3


def campaign(seed: int = 0) -> tuple[dict[str, pd.DataFrame], pd.DataFrame, dict[str, str]]:
    """Eight runs of four teams over a small universe; the qrels judge the depth-3 pool (all runs), graded."""
    rng = np.random.default_rng(seed)
    runs, pooled = {}, set()
    for r in range(8):
        parts = []
        for q in range(5):
            docs = rng.choice(25, size=15, replace=False)
            parts.append(pd.DataFrame({"query_id": f"q{q}", "doc_id": [f"d{d}" for d in docs],
                                       "score": np.arange(15, 0, -1, dtype=float)}))
            pooled |= {(f"q{q}", f"d{d}") for d in docs[:DEPTH]}
        runs[f"r{r}"] = pd.concat(parts, ignore_index=True)
    pairs = sorted(pooled)
    labels = rng.choice([0, 0, 1, 2], size=len(pairs))
    qrels = pd.DataFrame({"query_id": [p[0] for p in pairs], "doc_id": [p[1] for p in pairs], "relevance": labels})
    teams = {f"r{r}": f"t{r // 2}" for r in range(8)}
    return runs, qrels, teams


MEASURES = ["P@5", "nDCG@5", "AP", "P_rare(alpha=0.5)@10", "AP_rare"]


def test_team_unique_pairs_by_brute_force() -> None:
    runs, qrels, teams = campaign()
    pool = Pool.from_runs(runs, teams=teams)
    got = team_unique_pairs(pool, qrels, DEPTH)
    judged = set(zip(qrels["query_id"], qrels["doc_id"], strict=True))
    holders: dict[tuple[str, str], set[str]] = {}
    for name, run in runs.items():
        for q, part in run.groupby("query_id"):
            for d in part["doc_id"].iloc[:DEPTH]:
                holders.setdefault((q, d), set()).add(teams[name])
    expected = {(next(iter(t)), q, d) for (q, d), t in holders.items() if len(t) == 1 and (q, d) in judged}
    assert set(zip(got["team"], got["query_id"], got["doc_id"], strict=True)) == expected
    assert len(expected) > 0


@pytest.fixture(scope="module")
def study() -> tuple[object, dict[str, pd.DataFrame], pd.DataFrame, dict[str, str]]:
    runs, qrels, teams = campaign()
    pool = Pool.from_runs(runs, teams=teams)
    return coverage_study(pool, qrels, MEASURES, DEPTH, level=0.9, draws=60, resamples=200, seed=3), runs, qrels, teams


def test_each_case_against_independent_scores(study: tuple) -> None:
    result, runs, qrels, teams = study
    cases = result.cases
    pool = Pool.from_runs(runs, teams=teams)
    unique = team_unique_pairs(pool, qrels, DEPTH)
    full = ir_rarity.evaluate(pool, qrels, MEASURES).table()
    for team, part in cases.groupby("team"):
        removed = unique[unique["team"] == team]
        drop = set(zip(removed["query_id"], removed["doc_id"], strict=True))
        reduced = qrels[[(q, d) not in drop for q, d in zip(qrels["query_id"], qrels["doc_id"], strict=True)]]
        assert set(part["removed"]) == {len(removed)}
        door = ir_rarity.evaluate(pool, reduced, MEASURES).table()
        for row in part.itertuples(index=False):
            assert row.truth == pytest.approx(full.loc[row.run, row.measure], abs=1e-12)
            assert row.score == pytest.approx(door.loc[row.run, row.measure], abs=1e-12)
            assert row.changed == (abs(row.truth - row.score) > 1e-12)
            for covers in COVERS:
                assert getattr(row, f"_{list(part.columns).index(f'{covers} low')}") <= getattr(
                    row, f"_{list(part.columns).index(f'{covers} high')}") + 1e-12
        # P@5 and AP of the reduced qrels by pytrec_eval (ir_measures), the queries of the qrels averaged
        for name in part["run"].unique():
            values = {(str(v.measure), v.query_id): v.value for v in ir_measures.iter_calc(
                [ir_measures.P @ 5, ir_measures.AP], reduced, runs[name])}
            for m, label in ((ir_measures.P @ 5, "P@5"), (ir_measures.AP, "AP")):
                mean = np.mean([values.get((str(m), q), 0.0) for q in sorted(qrels["query_id"].unique())])
                got = part.loc[(part["run"] == name) & (part["measure"] == label), "score"].iloc[0]
                assert got == pytest.approx(mean, abs=1e-12)
    assert set(cases["team"]) <= {"t0", "t1", "t2", "t3"} and len(cases) > 0


def test_the_table_recounts_the_cases(study: tuple) -> None:
    result = study[0]
    summary = result.summary().set_index("measure")
    cases = result.cases[result.cases["changed"]]
    for measure, part in cases.groupby("measure"):
        assert summary.loc[measure, "cases"] == len(part)
        assert summary.loc[measure, "level"] == 0.9
        for covers in COVERS:
            low, high, truth = part[f"{covers} low"], part[f"{covers} high"], part["truth"]
            inside = [lo - 1e-12 <= t <= hi + 1e-12 for lo, hi, t in zip(low, high, truth, strict=True)]
            assert summary.loc[measure, f"{covers} coverage"] == pytest.approx(sum(inside) / len(inside))
            assert summary.loc[measure, f"{covers} median width"] == pytest.approx(float(np.median(high - low)))
        assert summary.loc[measure, "unjudged width / topics"] == pytest.approx(
            summary.loc[measure, "unjudged median width"] / summary.loc[measure, "topics median width"])


def test_refusals() -> None:
    runs, qrels, _ = campaign()
    with pytest.raises(ParameterError, match="two teams"):
        coverage_study(Pool.from_runs(runs, teams=dict.fromkeys(runs, "one")), qrels, ["P@5"], DEPTH)
    with pytest.raises(ParameterError, match="unknown team"):
        coverage_study(Pool.from_runs(runs), qrels, ["P@5"], DEPTH, teams=["nobody"])
    with pytest.raises(ParameterError, match="Bpref"):
        coverage_study(Pool.from_runs(runs), qrels, ["Bpref"], DEPTH, draws=2)


def _write(tmp_path: Path) -> tuple[Path, Path, Path]:
    runs, qrels, teams = campaign()
    folder = tmp_path / "runs"
    folder.mkdir()
    for name, run in runs.items():
        with (folder / name).open("w") as f:
            for i, (q, d, s) in enumerate(run[["query_id", "doc_id", "score"]].itertuples(index=False)):
                f.write(f"{q} Q0 {d} {i + 1} {s} {name}\n")
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.itertuples(index=False)))
    teams_path = tmp_path / "teams.csv"
    teams_path.write_text("run,team\n" + "".join(f"{r},{t}\n" for r, t in teams.items()))
    return qrels_path, folder, teams_path


def test_the_command_prints_the_study(tmp_path: Path) -> None:
    qrels_path, folder, teams_path = _write(tmp_path)
    out = run_cli("coverage", qrels_path, folder, "--depth", DEPTH, "--teams", teams_path, "-m", "P@5", "AP",
                  "--level", "0.9", "--draws", "60", "--resamples", "200", "--seed", "3", "-o", "tsv",
                  "--out", tmp_path / "study")
    assert out.returncode == 0, out.stderr
    table = pd.read_csv(io.StringIO(out.stdout), sep="\t", comment="#")
    runs, qrels, teams = campaign()
    expected = coverage_study(Pool.from_runs(runs, teams=teams), qrels, ["P@5", "AP"], DEPTH, level=0.9, draws=60,
                              resamples=200, seed=3).summary()
    assert list(table["measure"]) == ["P@5", "AP"]
    for column in ("cases", "unjudged coverage", "all coverage", "topics coverage", "unjudged median width"):
        np.testing.assert_allclose(table[column].to_numpy(float), expected[column].to_numpy(float), atol=5e-4)
    assert (tmp_path / "study" / "summary.tsv").exists() and (tmp_path / "study" / "cases.tsv").exists()
    assert_cli_error(run_cli("coverage", qrels_path, folder, "--depth", DEPTH, "--level", "1.5"), "--level")


def test_eval_covers_options(tmp_path: Path) -> None:
    qrels_path, folder, _ = _write(tmp_path)
    out = run_cli("eval", qrels_path, folder, "-m", "P@5", "--ci", "0.9", "--covers", "unjudged", "--draws", "50",
                  "--format", "jsonl")
    assert out.returncode == 0, out.stderr
    rows = pd.read_json(io.StringIO(out.stdout), lines=True).set_index("run")
    runs, qrels, _ = campaign()
    interval = ir_rarity.evaluate(Pool.from_runs(runs), qrels, ["P@5"]).interval("P@5", "unjudged", 0.9, draws=50)
    np.testing.assert_allclose(rows.loc[interval.index, "P@5 ci low"], interval["low"], atol=1e-12)
    np.testing.assert_allclose(rows.loc[interval.index, "P@5 ci high"], interval["high"], atol=1e-12)
    assert_cli_error(run_cli("eval", qrels_path, folder, "-m", "P@5", "--covers", "all"), "--ci")
    assert_cli_error(run_cli("eval", qrels_path, folder, "-m", "P@5", "--ci", "0.9", "--covers", "unjudged",
                             "--interval", "t"), "--interval t")
    assert_cli_error(run_cli("eval", qrels_path, folder, "-m", "P@5", "--ci", "0.9", "--covers", "all",
                             "--draws", "0"), "draws must be an integer >= 1")
    with pytest.raises(ParameterError, match="draws must be an integer >= 1"):
        ir_rarity.evaluate(Pool.from_runs(runs), qrels, ["P@5"]).interval("P@5", "unjudged", 0.9, draws=0)
    caption = run_cli("eval", qrels_path, folder, "-m", "P@5", "--ci", "0.9", "--covers", "unjudged", "--draws", "20",
                      "--format", "markdown").stdout.splitlines()[0]
    assert "90% interval of the mean covering the unjudged documents' judgments" in caption
    assert "(20 draws, seed 0" in caption
    ties = run_cli("eval", qrels_path, folder, "-m", "P@5", "--ci", "0.9", "--covers", "ties", "--format", "markdown")
    assert "range of the mean over every order of tied documents (exact)" in ties.stdout.splitlines()[0]
