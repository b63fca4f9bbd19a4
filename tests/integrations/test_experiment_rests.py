"""``ir_rarity.Experiment(..., unjudged=True, ties=True)``: pt.Experiment's table with each measure's unjudged share,
bounds and tie range, equal to the Evaluation's values of the same systems."""

from __future__ import annotations

import pandas as pd
import pytest

import ir_rarity

SYSTEMS = {
    # a: x (relevant), u (unjudged), y; b: x, y, z all at one score (trec_eval's order: z, y, x)
    "a": pd.DataFrame({"qid": "q", "docno": ["x", "u", "y"], "score": [3.0, 2.0, 1.0]}),
    "b": pd.DataFrame({"qid": "q", "docno": ["x", "y", "z"], "score": [1.0, 1.0, 1.0]}),
}
QRELS = pd.DataFrame({"qid": "q", "docno": ["x", "y", "z"], "label": [1, 0, 1]})
TOPICS = pd.DataFrame({"qid": ["q"], "query": ["q"]})


def test_the_table_carries_the_rests_by_hand() -> None:
    table = ir_rarity.Experiment(SYSTEMS, TOPICS, QRELS, ["P@2"], unjudged=True, ties=True).set_index("name")
    # a: P@2 reads x, u -> 1/2, u unjudged (share 1/2), high 1; b: z, y -> 1/2, ties 1/2 .. 1 (x, z first)
    assert table.loc["a", ["P@2", "P@2 unjudged", "P@2 low", "P@2 high"]].tolist() == [0.5, 0.5, 0.5, 1.0]
    assert table.loc["b", ["P@2", "P@2 ties low", "P@2 ties high"]].tolist() == [0.5, 0.5, 1.0]
    assert table.loc["b", "P@2 unjudged"] == 0.0


def test_the_columns_equal_the_evaluation() -> None:
    table = ir_rarity.Experiment(SYSTEMS, TOPICS, QRELS, ["AP", "nDCG@2"], unjudged=True).set_index("name")
    qrels = QRELS.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    result = ir_rarity.evaluate(SYSTEMS, qrels, ["AP", "nDCG@2"], unjudged=True)
    for m in ("AP", "nDCG@2"):
        assert table[f"{m} high"].to_dict() == pytest.approx(result.bounds(m)["high"].to_dict(), abs=1e-15)
    assert "AP ties low" not in table.columns


def test_results_whose_rank_column_contradicts_their_scores_are_named() -> None:
    from ir_rarity.compare.rank_column import RankColumnWarning

    systems = {"a": SYSTEMS["a"], "b": SYSTEMS["b"].assign(rank=[1, 0, 2])}  # b's rank column: y, x, z
    # by score (trec_eval's order z, y, x) P@1 = 1 (z relevant); by the rank column y first: 0
    with pytest.warns(RankColumnWarning, match=r"1 run\(s\).*b \(P@1 1.0000 by score, 0.0000 by rank column"):
        ir_rarity.Experiment(systems, TOPICS, QRELS, ["P@1"], ties=True)
