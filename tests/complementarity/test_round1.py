"""Round 1 (embedded): the analysis on a subset of teams, its values recomputed independently."""

from __future__ import annotations

import gzip
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
from test_similarity import plain_rbo_ext

import ir_rarity
from ir_rarity import covid_round1
from ir_rarity.cli import main
from ir_rarity.complementarity import complementarity, write_complementarity

pytestmark = pytest.mark.slow

TEAMS = ["GUIR_S2", "sabir", "covidex", "xj4wang", "UMASS_CIIR", "BBGhelani", "OHSU", "unipd.it"]


def subset() -> tuple[pd.DataFrame, dict[str, str]]:
    board = pd.read_csv(covid_round1.leaderboard)
    team_of = {r: t for r, t in zip(board["run"], board["team"], strict=True) if t in TEAMS}
    with gzip.open(covid_round1.runs, "rt") as handle:
        rows = pd.read_csv(handle, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "run"],
                           dtype={"query_id": str, "doc_id": str, "run": str})
    return rows[rows["run"].isin(list(team_of))].reset_index(drop=True), team_of


def write_runs(rows: pd.DataFrame, folder: Path) -> Path:
    path = folder / "runs.trec"
    rows[["query_id", "q0", "doc_id", "rank", "score", "run"]].to_csv(path, sep=" ", header=False, index=False)
    return path


def trec_order(rows: pd.DataFrame) -> pd.DataFrame:
    return rows.sort_values(["run", "query_id", "score", "doc_id"], ascending=[True, True, False, False])


def plain_rrf(rows: pd.DataFrame, depth: int = 100) -> pd.DataFrame:
    ordered = trec_order(rows).copy()
    ordered["r"] = ordered.groupby(["run", "query_id"]).cumcount() + 1
    ordered["w"] = 1.0 / (60 + ordered["r"])
    fused = ordered.groupby(["query_id", "doc_id"], as_index=False)["w"].sum()
    fused["score"] = fused["w"].astype(np.float32)
    fused = fused.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    return fused.groupby("query_id").head(depth)[["query_id", "doc_id", "score"]]


def test_round1_subset_against_independent_values(tmp_path: Path) -> None:
    rows, team_of = subset()
    runs = write_runs(rows, tmp_path)
    result = complementarity(str(covid_round1.qrels), str(runs), ["nDCG@10", "P@10"], split_by_tag=True,
                             teams=team_of, samples=20, seed=1, rarity=["P_rare(alpha=0.5)@10"])
    qrels = pd.read_csv(covid_round1.qrels, sep=r"\s+", header=None, names=["query_id", "it", "doc_id", "relevance"],
                        dtype={"query_id": str, "doc_id": str})
    fused = plain_rrf(rows)
    expected = ir_measures.calc_aggregate([ir_measures.nDCG @ 10, ir_measures.P @ 10], qrels, fused)
    fusion = result.fusion.set_index(["method", "measure"])["value"]
    assert fusion[("rrf", "nDCG@10")] == pytest.approx(expected[ir_measures.nDCG @ 10], abs=1e-12)
    assert fusion[("rrf", "P@10")] == pytest.approx(expected[ir_measures.P @ 10], abs=1e-12)

    # similarity of a few pairs, by Python sets on the rankings read by pandas
    ranked_lists = {(r, q): list(g["doc_id"]) for (r, q), g in trec_order(rows).groupby(["run", "query_id"])}
    pairs = result.similarity.pairs().set_index(["run_a", "run_b"])
    names = list(result.similarity.run_names)
    for a, b in [(0, 1), (2, 9), (5, len(names) - 1)]:
        queries = sorted({str(q) for (r, q) in ranked_lists if r in (names[a], names[b])})
        jaccard, rbo = [], []
        for q in queries:
            s, t = ranked_lists.get((names[a], q), []), ranked_lists.get((names[b], q), [])
            jaccard.append(len(set(s) & set(t)) / len(set(s) | set(t)))
            rbo.append(plain_rbo_ext(s, t, 0.9) if s and t else 0.0)
        assert pairs.loc[(names[a], names[b]), "jaccard"] == pytest.approx(np.mean(jaccard), abs=1e-12)
        assert pairs.loc[(names[a], names[b]), "rbo"] == pytest.approx(np.mean(rbo), abs=1e-12)

    # efficiency: the Shapley values sum to the fused run's nDCG@10
    teams = result.teams.set_index("team")
    assert teams["shapley"].sum() == pytest.approx(fusion[("rrf", "nDCG@10")], abs=1e-9)

    # unique relevant at depth 10, by pandas: relevant documents in the top 10 of exactly one team
    top = trec_order(rows).groupby(["run", "query_id"]).head(10).copy()
    top["team"] = top["run"].map(team_of)
    relevant = top.merge(qrels[qrels["relevance"] >= 1], on=["query_id", "doc_id"])
    by_doc = relevant.drop_duplicates(["team", "query_id", "doc_id"]).groupby(["query_id", "doc_id"])["team"]
    single = by_doc.agg(["nunique", "first"])
    counts = single[single["nunique"] == 1]["first"].value_counts().reindex(TEAMS, fill_value=0)
    assert teams.loc[TEAMS, "unique_relevant"].tolist() == counts.tolist()

    # a team's rarity score is its best run's, as ir_rarity.evaluate scores the campaign
    scores = ir_rarity.evaluate(str(runs), qrels, ["P_rare(alpha=0.5)@10"], split_by_tag=True,
                                teams=team_of).table()["P_rare(alpha=0.5)@10"]
    best = scores.groupby(pd.Series(team_of)).max()
    np.testing.assert_allclose(teams.loc[TEAMS, "P_rare(alpha=0.5)@10"], best.loc[TEAMS], atol=1e-12)

    # correlations: pandas' Spearman and Kendall (tau-b)
    corr = result.correlations.set_index(["rarity_measure", "against"])
    for against in ("shapley", "unique_relevant", "contribution"):
        pair = teams[["P_rare(alpha=0.5)@10", against]].astype(float)
        assert corr.loc[("P_rare(alpha=0.5)@10", against), "spearman"] == pytest.approx(
            pair.corr(method="spearman").iloc[0, 1], abs=1e-12)
        assert corr.loc[("P_rare(alpha=0.5)@10", against), "kendall"] == pytest.approx(
            pair.corr(method="kendall").iloc[0, 1], abs=1e-12)

    # the game's own measure, for comparison: each team's best nDCG@10 against its Shapley value
    assert ("nDCG@10", "shapley") in corr.index
    best_ndcg = ir_rarity.evaluate(str(runs), qrels, ["nDCG@10"], split_by_tag=True).table()["nDCG@10"]
    np.testing.assert_allclose(teams.loc[TEAMS, "nDCG@10"],
                               best_ndcg.groupby(pd.Series(team_of)).max().loc[TEAMS], atol=1e-12)

    summary = write_complementarity(tmp_path / "out", result)
    written = {p.name for p in summary.parent.iterdir()}
    assert {"similarity.csv", "clusters.csv", "fusion.csv", "contribution.csv", "teams.csv", "correlations.csv",
            "summary.md", "settings.json", "dendrogram.png", "rarity.png"} <= written
    assert "S + 1" in summary.read_text()


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows, team_of = subset()
    runs = write_runs(rows, tmp_path)
    teams = tmp_path / "teams.csv"
    pd.DataFrame({"run": list(team_of), "team": list(team_of.values())}).to_csv(teams, index=False)
    out = tmp_path / "out"
    code = main(["complementarity", str(covid_round1.qrels), str(runs), "--split-by-tag", "--teams", str(teams),
                 "--out", str(out), "--samples", "5", "-m", "P@10", "--no-plots"])
    assert code == 0
    assert (out / "summary.md").is_file() and not (out / "rarity.png").exists()
    contribution = pd.read_csv(out / "contribution.csv")
    assert set(contribution["method"]) == {"rrf", "combsum", "combmnz"}
    np.testing.assert_allclose(contribution["contribution"], contribution["with"] - contribution["without"])
    assert "complementarity" in capsys.readouterr().err
    # a second run into the same folder is allowed (it wrote it); a folder of the user's is refused
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine")
    code = main(["complementarity", str(covid_round1.qrels), str(runs), "--split-by-tag", "--out",
                 str(tmp_path / "mine"), "--samples", "5", "-m", "P@10", "--no-plots"])
    assert code == 2
    assert "holds files this command did not write (notes.txt)" in capsys.readouterr().err
    assert (tmp_path / "mine" / "notes.txt").read_text() == "mine"
