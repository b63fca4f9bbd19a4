"""A three-system campaign computed by hand: every number below was worked out on paper.

Qrels: q1: d1=2, d2=1, d3=0, d5=1 (never retrieved); q2: d1=1. d4, d6 and x are unjudged.
Runs in trec_eval order: A q1 = d1 d2 d3 d4, A q2 = d1; B q1 = d2 d4 d1; C q1 = d3 d2 d6 (d3 and d2 tie at
9.0, docno descending puts d3 first), C q2 = x.
"""

from __future__ import annotations

import ir_measures
import pandas as pd
import pytest
from ir_measures import AP, P

import ir_rarity
from ir_rarity import AP_rare, P_rare, ParameterError, Pool

EXPECTED = {
    # P_rare@2, alpha=1: S_d counted in each run's top 2 (q1: d1=1, d2=3, d3=1, d4=1; q2: d1=1).
    # A: q1 (1+2/3 + 1)/2 = 4/3, q2 (1+2/3)/2 = 5/6 -> 13/12. B: q1 1/2, q2 0 -> 1/4. C: q1 1/2, q2 0 -> 1/4.
    "P_rare@2": {"A": 13 / 12, "B": 1 / 4, "C": 1 / 4},
    # alpha=0 is P@2: A (1 + 1/2)/2, B (1/2 + 0)/2, C (1/2 + 0)/2.
    "P_rare(alpha=0.0)@2": {"A": 3 / 4, "B": 1 / 4, "C": 1 / 4},
    # AP_rare, full depth (q1: d1=2, d2=3, d3=2, d4=2, d6=1; q2: d1=1, x=1), N_R(q1)=3, N_R(q2)=1.
    # A: q1 (4/3 + 7/6)/3 = 5/6, q2 5/3 -> 5/4. B: q1 (1 + 7/9)/3 = 16/27, q2 0 -> 8/27. C: q1 (1/2)/3, q2 0.
    "AP_rare": {"A": 5 / 4, "B": 8 / 27, "C": 1 / 12},
    # Bounded, alpha=0.5, R' = 1 - (S_d-1)/2: A q1 (1 + 0.5)/2, q2 1/2 -> 5/8; B q1 0.5/2; C q1 0.5/2.
    "P_rare(alpha=0.5,bounded=True)@2": {"A": 5 / 8, "B": 1 / 8, "C": 1 / 8},
    # rel=2: only d1 of q1 is relevant. A: q1 (5/3)/2, q2 0 -> 5/12. B and C retrieve d1 outside the top 2.
    "P_rare(rel=2)@2": {"A": 5 / 12, "B": 0.0, "C": 0.0},
    # depth=1: S_d from top 1 only (q1: d1=1, d2=1, d3=1; q2: d1=1): A q1 (5/3+5/3)/2, q2 (5/3)/2 -> 5/4.
    "P_rare(depth=1)@2": {"A": 5 / 4, "B": (1 + 2 / 3) / 4, "C": (1 + 2 / 3) / 4},
}


@pytest.mark.parametrize("measure", sorted(EXPECTED))
def test_pool_evaluate_matches_hand_values(hand_pool: Pool, hand_qrels: pd.DataFrame, measure: str) -> None:
    table = hand_pool.evaluate(hand_qrels, [measure])
    for run, value in EXPECTED[measure].items():
        assert table.loc[run, measure] == pytest.approx(value, abs=1e-15)


@pytest.mark.parametrize("measure", sorted(EXPECTED))
def test_ir_measures_in_pool_matches_hand_values(hand_pool: Pool, hand_qrels: pd.DataFrame, measure: str) -> None:
    parsed = ir_measures.parse_measure(measure)
    with hand_pool:
        for run, value in EXPECTED[measure].items():
            got = ir_measures.calc_aggregate([parsed], hand_qrels, hand_pool.run(run))[parsed]
            assert got == pytest.approx(value, abs=1e-15)


def test_per_query_values_and_missing_query_scores_zero(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    long = hand_pool.evaluate(hand_qrels, [AP_rare], by_query=True)
    assert list(long.columns) == ["run", "query_id", "measure", "value"]
    values = long.set_index(["run", "query_id"])["value"]
    assert values["A", "q1"] == pytest.approx(5 / 6)
    assert values["A", "q2"] == pytest.approx(5 / 3)
    assert values["B", "q1"] == pytest.approx(16 / 27)
    assert values["B", "q2"] == 0.0  # B has no ranking for q2
    assert values["C", "q1"] == pytest.approx(1 / 6)


def test_alpha_zero_equals_trec_eval_on_hand_campaign(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    table = hand_pool.evaluate(hand_qrels, [P_rare(alpha=0) @ 2, P @ 2, AP_rare(alpha=0), AP])
    assert (table["P_rare(alpha=0.0)@2"] == table["P@2"]).all()
    assert (table["AP_rare(alpha=0.0)"] == table["AP"]).all()


def test_new_run_joins_the_pool(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    # N q1 = d5, d1. As a newcomer S = 4; at depth 2, d5: 0 + 1 -> R = 3/4; d1: 1 (A) + 1 -> R = 1/2.
    # q1: (7/4 + 3/2)/2 = 13/8; q2 missing -> 0; mean 13/16.
    new = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d5", "d1"], "score": [2.0, 1.0]})
    assert hand_pool.member_of(new) is None
    with hand_pool:
        got = ir_measures.calc_aggregate([P_rare @ 2], hand_qrels, new)[P_rare @ 2]
    assert got == pytest.approx(13 / 16, abs=1e-15)


def test_membership_is_by_content_not_name(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    copy_of_a = hand_pool.run("A").rename(columns={"query_id": "qid", "doc_id": "docno"})
    copy_of_a["score"] = copy_of_a["score"] * 10  # same ranking, other scores
    assert hand_pool.member_of(copy_of_a) == "A"
    with hand_pool:
        got = ir_measures.calc_aggregate([P_rare @ 2], hand_qrels, copy_of_a)[P_rare @ 2]
    assert got == pytest.approx(13 / 12, abs=1e-15)


def test_membership_is_checked_to_the_depth_counted(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    # A cut to its top 2 is A for a depth-2 measure, a new system for a full-depth one.
    top2 = hand_pool.run("A").groupby("query_id").head(2)
    assert hand_pool.member_of(top2, depth=2) == "A"
    assert hand_pool.member_of(top2) is None
    with hand_pool:
        assert ir_measures.calc_aggregate([P_rare @ 2], hand_qrels, top2)[P_rare @ 2] == pytest.approx(13 / 12)


def test_ties_broken_by_docno_descending_and_rank_column_ignored(hand_pool: Pool) -> None:
    c = hand_pool.run("C")
    assert list(c[c.query_id == "q1"].doc_id) == ["d3", "d2", "d6"]


def test_scores_compared_in_single_precision_like_trec_eval(hand_qrels: pd.DataFrame) -> None:
    # 1.00000001 and 1.0 are the same float32: a tie, so docno descending puts "z" before "d1".
    run = pd.DataFrame({"query_id": ["q2", "q2"], "doc_id": ["d1", "z"], "score": [1.00000001, 1.0]})
    pool = Pool.from_runs({"only": run})
    table = pool.evaluate(hand_qrels, [P_rare(alpha=0) @ 1, P @ 1])
    assert table.loc["only", "P_rare(alpha=0.0)@1"] == 0.0
    assert table.loc["only", "P@1"] == 0.0  # pytrec_eval agrees


def test_bounded_variant_needs_two_systems(hand_qrels: pd.DataFrame) -> None:
    pool = Pool.from_runs({"solo": pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]})})
    with pytest.raises(ParameterError, match="at least 2 systems"):
        pool.evaluate(hand_qrels, [P_rare(bounded=True, alpha=0.5) @ 2])


def test_mean_is_over_all_qrels_queries(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    # A query judged but retrieved by nobody still counts (as 0) in the mean.
    extra = pd.concat([hand_qrels, pd.DataFrame({"query_id": ["q3"], "doc_id": ["d9"], "relevance": [1]})])
    table = hand_pool.evaluate(extra, [P_rare @ 2])
    assert table.loc["A", "P_rare@2"] == pytest.approx((4 / 3 + 5 / 6) / 3)


def test_run_queries_absent_from_qrels_are_ignored(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    run = pd.concat([hand_pool.run("A"), pd.DataFrame({"query_id": ["zz"], "doc_id": ["d1"], "score": [1.0]})])
    with hand_pool:
        result = ir_measures.calc([P_rare @ 2], hand_qrels, run)
    assert {m.query_id for m in result.per_query} == {"q1", "q2"}
    # The extra query makes it a newcomer: S = 4 and its own documents count. Depth 2: q1 d1 1+1 -> R = 1/2,
    # d2 3+1 -> R = 0: (3/2 + 1)/2 = 5/4; q2 d1 1+1 -> (3/2)/2 = 3/4. Mean over q1, q2 = 1.
    assert result.aggregated[P_rare @ 2] == pytest.approx(1.0, abs=1e-15)


def test_teams_count_systems_not_runs(hand_files: dict, hand_qrels: pd.DataFrame) -> None:
    # A and B as one team: S = 2. At depth 2, q1: d1 -> {AB} 1, d2 -> {AB, C} 2; q2: d1 -> 1.
    # A: q1 (1 + 1/2) + (1 + 0) = 5/2 -> 5/4; q2 (1 + 1/2)/2 = 3/4 -> mean 1.
    pool = Pool.from_runs([hand_files[n] for n in "ABC"], teams={"A": "t1", "B": "t1", "C": "t2"})
    assert pool.num_systems == 2
    assert pool.evaluate(hand_qrels, [P_rare @ 2]).loc["A", "P_rare@2"] == pytest.approx(1.0)


def test_counts_table(hand_pool: Pool) -> None:
    counts = hand_pool.counts(depth=2).set_index(["query_id", "doc_id"])["S_d"]
    assert counts.to_dict() == {("q1", "d1"): 1, ("q1", "d2"): 3, ("q1", "d3"): 1, ("q1", "d4"): 1,
                                ("q2", "d1"): 1, ("q2", "x"): 1}
    assert hand_pool.counts()["S_d"].sum() == 12  # A 5 rows + B 3 + C 4: every row counted once


def test_parameter_ranges_are_checked(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    for bad, message in [
        (P_rare(alpha=-0.1) @ 10, "alpha must be >= 0"),
        (P_rare(alpha=1.5, bounded=True) @ 10, r"alpha in \[0, 1\]"),
        (P_rare(depth=0) @ 10, "depth must be a positive"),
        (P_rare @ 0, "cutoff must be a positive"),
        (P_rare(alpha=0.5), "'cutoff' is required"),
    ]:
        with pytest.raises(ParameterError, match=message):
            hand_pool.evaluate(hand_qrels, [bad])
    with pytest.raises(ParameterError, match="unsupported parameter"):
        ir_rarity.P_rare(beta=1).validate_params()


def test_qrels_as_path_iterable_and_the_evaluator(hand_pool: Pool, hand_files: dict, hand_qrels: pd.DataFrame
                                                  ) -> None:
    expected = EXPECTED["P_rare@2"]
    by_path = hand_pool.evaluate(hand_files["qrels"], ["P_rare@2"])["P_rare@2"]
    by_iter = hand_pool.evaluate(list(ir_measures.read_trec_qrels(str(hand_files["qrels"]))), ["P_rare@2"])
    for run, value in expected.items():
        assert by_path[run] == pytest.approx(value) and by_iter.loc[run, "P_rare@2"] == pytest.approx(value)
    evaluator = ir_measures.evaluator([P_rare @ 2, P @ 2], hand_qrels)  # built outside the pool: fine
    with hand_pool:
        for run, value in expected.items():
            got = evaluator.calc_aggregate(hand_pool.run(run))
            assert got[P_rare @ 2] == pytest.approx(value, abs=1e-15)
            assert got[P @ 2] == pytest.approx(EXPECTED["P_rare(alpha=0.0)@2"][run], abs=1e-15)
