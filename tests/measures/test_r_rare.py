"""R_rare, rarity-weighted recall (Türkmen, Lease & Kutlu, ECIR 2023, section 5.1).

alpha=0 is trec_eval's recall; hand-worked values.
"""

from __future__ import annotations

from fractions import Fraction

import ir_measures
import numpy as np
import pandas as pd
import pytest

from ir_rarity import Pool, R_rare


def test_alpha_zero_equals_trec_eval_recall_on_every_round1_run_and_query(covid_pool: Pool,
                                                                          covid_qrels: pd.DataFrame) -> None:
    pairs = [(R_rare(alpha=0) @ k, ir_measures.parse_measure(f"R(rel={rel})@{k}") if rel != 1 else
              ir_measures.parse_measure(f"R@{k}")) for k in (5, 20, 100) for rel in (1,)]
    pairs += [(R_rare(alpha=0, rel=2) @ 100, ir_measures.parse_measure("R(rel=2)@100"))]
    long = covid_pool.evaluate(covid_qrels, [m for pair in pairs for m in pair], by_query=True)
    table = long.pivot_table(index=["run", "query_id"], columns="measure", values="value")
    assert len(table) == 143 * 30
    for ours, theirs in pairs:  # R@k comes from pytrec_eval (trec_eval's recall_k) through ir_measures
        assert (table[str(ours)] == table[str(theirs)]).all(), (ours, theirs)
        assert table[str(theirs)].sum() > 0


def test_hand_worked_values(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    # S = 3. At depth 2 for q1: A has d1, d2; B has d2, d4; C (d2 and d3 tie at 9.0: docno descending) d3, d2.
    # S_d: d1 = 1, d2 = 3, d3 = 1, d4 = 1, d5 = 0. Relevant (label >= 1): d1, d2, d5.
    # w = 1 + (1 - S_d/3): d1 = 5/3, d2 = 1, d5 = 2 (retrieved by nobody: R = 1); the denominator is 14/3.
    # q2: relevant d1, retrieved by A only: w = 5/3.
    f = Fraction
    expected_q1 = {"A": (f(5, 3) + 1) / f(14, 3), "B": 1 / f(14, 3), "C": 1 / f(14, 3)}
    expected_q2 = {"A": f(1), "B": f(0), "C": f(0)}
    table = hand_pool.evaluate(hand_qrels, [R_rare @ 2], by_query=True).set_index(["run", "query_id"])["value"]
    for run in "ABC":
        assert table[run, "q1"] == pytest.approx(float(expected_q1[run]), abs=1e-15)
        assert table[run, "q2"] == pytest.approx(float(expected_q2[run]), abs=1e-15)
    mean = hand_pool.evaluate(hand_qrels, [R_rare @ 2])
    assert mean.loc["A", "R_rare@2"] == pytest.approx(float((f(4, 7) + 1) / 2), abs=1e-15)
    # Graded gain: each weight times the label, in both sums. q1: (2 * 5/3 + 1) / (2 * 5/3 + 1 + 2) = 13/19.
    graded = hand_pool.evaluate(hand_qrels, [R_rare(gain="graded") @ 2], by_query=True)
    assert graded.set_index(["run", "query_id"]).loc[("A", "q1"), "value"] == pytest.approx(13 / 19, abs=1e-15)
    # Bounded: w = (1 - a) + a R'(d), R' = 1 - (S_d - 1)/(S - 1) with S_d at least 1. alpha = 0.5:
    # d1 = 0.5 + 0.5 * 1 = 1, d2 = 0.5 + 0.5 * 0 = 0.5, d5 = 1; A: 1.5 / 2.5.
    bounded = hand_pool.evaluate(hand_qrels, [R_rare(alpha=0.5, bounded=True) @ 2], by_query=True)
    assert bounded.set_index(["run", "query_id"]).loc[("A", "q1"), "value"] == pytest.approx(0.6, abs=1e-15)


def test_a_newcomer_counts_its_own_documents_in_both_sums(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    # N retrieves d5 then d2 for q1 and joins alone: S = 4; S_d(d5) = 0 + 1, S_d(d2) = 3 + 1, S_d(d1) = 1.
    # w: d5 = 1 + 3/4, d2 = 1, d1 = 1 + 3/4; R_rare@2 = (7/4 + 1) / (7/4 + 1 + 7/4) = 11/18; q2 scores 0.
    newcomer = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d5", "d2"], "score": [2.0, 1.0]})
    per_query = hand_pool.evaluate(hand_qrels, [R_rare @ 2], by_query=True, runs={"N": newcomer})
    values = per_query.set_index("query_id")["value"]
    assert values["q1"] == pytest.approx(11 / 18, abs=1e-15) and values["q2"] == 0.0
    rebuilt = Pool.from_runs({**{n: hand_pool.run(n) for n in hand_pool.names}, "N": newcomer})
    assert rebuilt.evaluate(hand_qrels, [R_rare @ 2]).loc["N", "R_rare@2"] == pytest.approx(11 / 36, abs=1e-15)


def test_bounds_and_monotonicity(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    measures = [R_rare(alpha=a) @ 100 for a in (0.0, 1.0, 5.0)] + [R_rare(alpha=1.0, bounded=True) @ 100,
                                                                   R_rare(weighting="log") @ 100]
    table = covid_pool.evaluate(covid_qrels, measures, by_query=True)
    assert table["value"].between(0.0, 1.0 + 1e-12).all()
    # With S_d counted at one depth, the weights stay the same as k grows and recall never falls.
    wide = covid_pool.evaluate(covid_qrels, [R_rare(alpha=1.0, depth=100) @ k for k in (10, 50, 100)])
    assert (np.diff(wide.to_numpy(), axis=1) >= -1e-12).all()
