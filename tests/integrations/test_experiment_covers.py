"""``ir_rarity.Experiment(..., ci=, covers=, draws=, seed=)``: intervals that say what they cover, equal to
``Evaluation.interval`` and ``campaign_table`` for the same evaluation, and to tie ranges worked by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import covid_round1
from ir_rarity.compare import campaign_table
from ir_rarity.engine import COVERS
from ir_rarity.errors import ParameterError

# q1: b ties x, y, z (trec_eval's order: docno descending, z y x); q2: b ties p and r above s
SYSTEMS = {
    "a": pd.DataFrame({"qid": ["q1"] * 3 + ["q2"], "docno": ["x", "u", "y", "s"], "score": [3.0, 2.0, 1.0, 1.0]}),
    "b": pd.DataFrame({"qid": ["q1"] * 3 + ["q2"] * 3, "docno": ["x", "y", "z", "p", "r", "s"],
                       "score": [1.0, 1.0, 1.0, 2.0, 2.0, 1.0]}),
}
QRELS = pd.DataFrame({"qid": ["q1"] * 3 + ["q2"] * 3, "docno": ["x", "y", "z", "p", "r", "s"],
                      "label": [1, 0, 1, 1, 0, 1]})
TOPICS = pd.DataFrame({"qid": ["q1", "q2"], "query": ["q1", "q2"]})


def test_ties_is_the_exact_range_worked_by_hand() -> None:
    table = ir_rarity.Experiment(SYSTEMS, TOPICS, QRELS, ["P@1", "AP"], ci=0.95, covers="ties").set_index("name")
    # b, P@1: q1 z first (relevant) -> 1, any of x y z first: 0 .. 1; q2 r first -> 0, p or r first: 0 .. 1
    assert table.loc["b", ["P@1", "P@1 ci low", "P@1 ci high"]].tolist() == [0.5, 0.0, 1.0]
    # b, AP (R = 2 on both): q1 y first 7/12, y last 1; q2 r first (1/2 + 2/3)/2 = 7/12, p first (1 + 2/3)/2 = 5/6
    low, high = (7 / 12 + 7 / 12) / 2, (1 + 5 / 6) / 2
    assert table.loc["b", "AP ci low"] == pytest.approx(low, abs=1e-15)
    assert table.loc["b", "AP ci high"] == pytest.approx(high, abs=1e-15)
    assert table.loc["b", "AP"] == pytest.approx((5 / 6 + 7 / 12) / 2, abs=1e-15)  # z y x: (1 + 2/3)/2; r p s
    # a has no ties: its interval is its score
    assert table.loc["a", ["P@1 ci low", "P@1 ci high"]].tolist() == [table.loc["a", "P@1"]] * 2
    assert table.attrs["interval"]["covers"] == "ties"
    assert table.attrs["interval"]["what"] == COVERS["ties"]
    assert "P@1 ties low" not in table.columns and "P@1 unjudged" not in table.columns  # gathered, not shown


@pytest.fixture(scope="module")
def round1() -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    pool = ir_rarity.Pool.from_runs(covid_round1.runs, split_by_tag=True)
    names = sorted(pool.names)[::12]  # 12 runs of the campaign
    systems = {n: pool.run(n).rename(columns={"query_id": "qid", "doc_id": "docno"}) for n in names}
    return systems, ir_rarity.read_trec_qrels(covid_round1.qrels)


@pytest.mark.parametrize("covers", ["unjudged", "all", "ties"])
def test_equals_the_evaluation_and_the_campaign_table(round1: tuple[dict[str, pd.DataFrame], pd.DataFrame],
                                                      covers: str) -> None:
    systems, qrels = round1
    measures = ["P@10", "AP_rare", "nDCG@10"]
    topics = pd.DataFrame({"qid": sorted(qrels["query_id"].unique()), "query": ""})
    table = ir_rarity.Experiment(systems, topics, qrels, measures, ci=0.9, covers=covers, draws=60,
                                 seed=7).set_index("name")
    result = ir_rarity.evaluate(systems, qrels, measures, unjudged=True, ties=True)
    published = campaign_table(result, ci=0.9, covers=covers, draws=60, seed=7).values
    for m in measures:
        interval = result.interval(m, covers=covers, level=0.9, draws=60, seed=7)
        assert table[m].to_numpy() == pytest.approx(result.table()[m].to_numpy(), abs=1e-15)
        for side in ("low", "high"):
            ours = table[f"{m} ci {side}"].to_numpy()
            np.testing.assert_array_equal(ours, interval.loc[list(table.index), side].to_numpy())
            np.testing.assert_array_equal(ours, published.loc[list(table.index), f"{m} ci {side}"].to_numpy())
        if covers == "ties":  # trec_eval's order is one of the orders (drawn judgments may move a score outside)
            assert (table[f"{m} ci low"] <= table[m]).all() and (table[m] <= table[f"{m} ci high"]).all()
    if covers != "ties":  # the draws open something on round 1
        assert (table["P@10 ci high"] - table["P@10 ci low"]).max() > 0


def test_topics_stays_the_bootstrap_and_options_are_checked() -> None:
    table = ir_rarity.Experiment(SYSTEMS, TOPICS, QRELS, ["P@1"], ci=0.9, seed=3)
    assert table.attrs["interval"]["covers"] == "topics" and table.attrs["interval"]["seed"] == 3
    with pytest.raises(ParameterError, match="needs ci="):
        ir_rarity.Experiment(SYSTEMS, TOPICS, QRELS, ["P@1"], covers="unjudged")
    with pytest.raises(ParameterError, match="unknown covers"):
        ir_rarity.Experiment(SYSTEMS, TOPICS, QRELS, ["P@1"], ci=0.9, covers="judges")
