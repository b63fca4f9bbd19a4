"""U_novel, the novelty-based utility of Fujii & Ishikawa (LREC 2000), worked out by hand.

Hand campaign of conftest.py. Qrels: q1: d1=2, d2=1, d3=0, d5=1 (nobody retrieves d5); q2: d1=1.
Runs in trec_eval order: A q1 = d1 d2 d3 d4, A q2 = d1; B q1 = d2 d4 d1; C q1 = d3 d2 d6, C q2 = x.
P(D=d|S=x) = (N - r + 1)/N. With the cutoff 2 (N = 2): rank 1 -> 1, rank 2 -> 1/2, below -> 0.
Top-2 probabilities: A q1 d1 1, d2 1/2, q2 d1 1; B q1 d2 1, d4 1/2; C q1 d3 1, d2 1/2, q2 x 1.
Each term is log((P(d|x) + e)/(P(d) + e)), P(d) the mean over the *other* systems.
"""

from __future__ import annotations

import math

import ir_measures
import numpy as np
import pandas as pd
import pytest

from ir_rarity import ParameterError, Pool, U_novel
from ir_rarity.evaluation import evaluate_campaign

E = 0.001  # the default epsilon


def lg(p: float, q: float) -> float:
    """log((p + e)/(q + e))."""
    return math.log((p + E) / (q + E))


EXPECTED = {
    "U_novel@2": {
        # A, E = {B, C}: q1 d1: 1 vs (0 + 0)/2 (B has d1 at rank 3); d2: 1/2 vs (1 + 1/2)/2 = 3/4; d5: 0 vs 0 -> 0.
        # q2 d1: 1 vs 0.
        "A": (lg(1, 0) + lg(0.5, 0.75) + lg(1, 0)) / 2,
        # B, E = {A, C}: q1 d1: 0 vs (1 + 0)/2; d2: 1 vs (1/2 + 1/2)/2 = 1/2; q2 (B has none) d1: 0 vs 1/2.
        "B": (lg(0, 0.5) + lg(1, 0.5) + lg(0, 0.5)) / 2,
        # C, E = {A, B}: q1 d1: 0 vs 1/2; d2: 1/2 vs (1/2 + 1)/2 = 3/4; q2 d1: 0 vs 1/2.
        "C": (lg(0, 0.5) + lg(0.5, 0.75) + lg(0, 0.5)) / 2,
    },
    "U_novel": {
        # Whole rankings, N = each ranking's length: A q1 N = 4, B q1 3, C q1 3, A q2 1, C q2 1.
        # A q1 d1: 1 vs (B rank 3 of 3: 1/3, C 0)/2 = 1/6; d2: (4 - 2 + 1)/4 = 3/4 vs (B 1 + C 2/3)/2 = 5/6;
        # q2 d1: 1 vs 0.
        "A": (lg(1, 1 / 6) + lg(0.75, 5 / 6) + lg(1, 0)) / 2,
        # B q1 d1: 1/3 vs (A 1 + C 0)/2 = 1/2; d2: 1 vs (A 3/4 + C 2/3)/2 = 17/24; q2 d1: 0 vs (1 + 0)/2.
        "B": (lg(1 / 3, 0.5) + lg(1, 17 / 24) + lg(0, 0.5)) / 2,
    },
    "U_novel(epsilon=0.5)@2": {
        # e = 1/2: A: log(1.5/0.5) + log(1/1.25) + log(1.5/0.5) = 2 log 3 + log 0.8, over 2 queries.
        "A": (2 * math.log(3) + math.log(0.8)) / 2,
    },
}


@pytest.mark.parametrize("measure", sorted(EXPECTED))
def test_members_match_hand_values(hand_pool: Pool, hand_qrels: pd.DataFrame, measure: str) -> None:
    table = hand_pool.evaluate(hand_qrels, [measure])
    for run, value in EXPECTED[measure].items():
        assert table.loc[run, measure] == pytest.approx(value, abs=1e-12), run


def test_newcomer_is_scored_against_every_pool_system(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    # N q1 = d5, d1; E = {A, B, C}. q1 d5: 1 vs 0; d1: 1/2 vs (A 1 + 0 + 0)/3 = 1/3;
    # d2 (missed): 0 vs (A 1/2 + B 1 + C 1/2)/3 = 2/3. q2 (N has none) d1: 0 vs (A 1)/3.
    expected = (lg(1, 0) + lg(0.5, 1 / 3) + lg(0, 2 / 3) + lg(0, 1 / 3)) / 2
    new = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d5", "d1"], "score": [2.0, 1.0]})
    with hand_pool:
        got = ir_measures.calc_aggregate([U_novel @ 2], hand_qrels, new)[U_novel @ 2]
    assert got == pytest.approx(expected, abs=1e-12)


def _leave_one_out_agrees(pool: Pool, qrels: pd.DataFrame, names: list[str], measures: list) -> int:
    full = pool.evaluate(qrels, measures, by_query=True).set_index(["run", "query_id", "measure"])["value"]
    checked = 0
    for name in names:
        others = pool.subset([n for n in pool.names if n != name])
        run = pool.run(name)
        if others.member_of(run) is not None:  # another run has the same rankings: it *is* that member
            continue
        encoded = others.encode_qrels(qrels)
        newcomer = evaluate_campaign(others, qrels, measures, {name: run})  # the newcomer path
        for m in measures:
            alone = newcomer.values[m][0]
            member = full.loc[name].xs(str(m), level="measure").reindex(encoded.query_ids).to_numpy()
            np.testing.assert_allclose(alone, member, rtol=0, atol=1e-9)
        checked += 1
    return checked


def test_member_equals_newcomer_against_the_others(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    measures = [U_novel, U_novel @ 2, U_novel(epsilon=1e-9) @ 1]
    assert _leave_one_out_agrees(hand_pool, hand_qrels, hand_pool.names, measures) == 3


def test_member_equals_newcomer_on_round1(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    measures = [U_novel, U_novel @ 10]
    assert _leave_one_out_agrees(covid_pool, covid_qrels, covid_pool.names[::12], measures) >= 10


def test_values_are_always_finite(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    measures = [U_novel, U_novel @ 10, U_novel(epsilon=1e-12) @ 100, U_novel(rel=2) @ 5]
    long = covid_pool.evaluate(covid_qrels, measures, by_query=True)
    assert len(long) == 4 * 143 * 30
    assert np.isfinite(long["value"]).all()
    # A newcomer missing everything, a one-run pool (no other system: P(d) = 0) and an empty qrels query.
    stranger = pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["nope", "nada"], "score": [1.0, 0.5]})
    with covid_pool:
        values = ir_measures.iter_calc([U_novel @ 10], covid_qrels, stranger)
        assert all(math.isfinite(m.value) for m in values)
    solo = Pool.from_runs({"solo": stranger})
    assert np.isfinite(solo.evaluate(covid_qrels, [U_novel @ 10]).to_numpy()).all()


def test_no_other_system_and_nobody_retrieving(hand_qrels: pd.DataFrame) -> None:
    # One run: |E| = 0, so P(d) = 0. q1 = d1 at rank 1 of 1: log((1 + e)/e); d2 and d5 missed by everyone: 0.
    # q2 (absent): d1 missed by everyone: 0. Mean over 2 queries.
    pool = Pool.from_runs({"solo": pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]})})
    assert pool.evaluate(hand_qrels, [U_novel]).iloc[0, 0] == pytest.approx(lg(1, 0) / 2, abs=1e-12)


def test_epsilon_must_be_positive() -> None:
    for bad in (0.0, -1.0, float("inf")):
        with pytest.raises(ParameterError, match="epsilon"):
            U_novel(epsilon=bad).validate_params()


def test_a_query_the_run_lacks_scores_the_missed_documents_not_zero(hand_pool: Pool, hand_qrels: pd.DataFrame
                                                                    ) -> None:
    # B has no ranking for q2, whose one relevant document d1 A reads at rank 1 (top 2: P = 1) and C does not
    # retrieve: P(D=d1) over E = {A, C} = (1 + 0)/2 = 1/2 and B's P(D=d1|S=B) = 0, so B's q2 is
    # log((0 + e)/(1/2 + e)) = log(0.001/0.501) = -6.2166..., not 0 (P@2 of the same query is 0).
    table = hand_pool.evaluate(hand_qrels, ["U_novel@2", "P@2"], by_query=True)
    value = table.set_index(["run", "query_id", "measure"])["value"]
    assert value[("B", "q2", "U_novel@2")] == pytest.approx(math.log(0.001 / 0.501), abs=1e-12)
    assert value[("B", "q2", "U_novel@2")] == pytest.approx(-6.216606, abs=1e-6)
    assert value[("B", "q2", "P@2")] == 0.0
    # A newcomer lacking q2 is scored against all three systems: P(D=d1) = (1 + 0 + 0)/3.
    new = pd.DataFrame({"qid": ["q1"], "docno": ["d5"], "score": [1.0]})
    with hand_pool:
        per_query = {m.query_id: m.value for m in ir_measures.iter_calc([U_novel @ 2], hand_qrels, new)}
    assert per_query["q2"] == pytest.approx(math.log(0.001 / (1 / 3 + 0.001)), abs=1e-12)
