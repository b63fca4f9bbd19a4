"""ASL (Alex, Hall & Metzler, Atomized Search Length) on a campaign computed by hand.

Qrels: q1: d1=1, d2=2, d3=0, d4=1, d9=1 (d9 never retrieved); q2: d1=0 (no relevant document); q3: d5=1 (the run
retrieves nothing for q3); q4: e1=1, e2=1; q5: d1=0 (no relevant document, not retrieved either).
Run R in trec_eval order: q1 = x d2 d3 d1 y d4 (x, y unjudged); q2 = d1; q4 = z e2 e1 (all three tie at 1.0, docno
descending puts z first; z unjudged).

Per-document ASL = non-relevant documents above + 1:
  q1: d2 = 2 (x), d1 = 3 (x, d3), d4 = 4 (x, d3, y), d9 unretrieved = irrel_q + 1 = 3 + 1 = 4 (eq3: 3).
  q3: d5 unretrieved with irrel_q = 0: 1 (eq3: 0).      q4: e2 = 2 (z), e1 = 2 (z; e2 is relevant, not counted).
Per query: q1 (2+3+4+4)/4 = 13/4 (eq3 12/4 = 3); q2, q5 NaN; q3 1 (eq3 0); q4 2.
"""

from __future__ import annotations

import math

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import ASL, ParameterError, Pool
from ir_rarity.analysis import (
    asl_differences,
    asl_distribution,
    difference_buckets,
    effective_fraction,
    per_document_asl,
    relative_error_reduction,
)

QRELS = pd.DataFrame(
    [("q1", "d1", 1), ("q1", "d2", 2), ("q1", "d3", 0), ("q1", "d4", 1), ("q1", "d9", 1), ("q2", "d1", 0),
     ("q3", "d5", 1), ("q4", "e1", 1), ("q4", "e2", 1), ("q5", "d1", 0)],
    columns=["query_id", "doc_id", "relevance"])
RUN = pd.DataFrame(
    [("q1", "x", 5.0), ("q1", "d2", 4.0), ("q1", "d3", 3.0), ("q1", "d1", 2.0), ("q1", "y", 1.0), ("q1", "d4", 0.5),
     ("q2", "d1", 1.0), ("q4", "e1", 1.0), ("q4", "e2", 1.0), ("q4", "z", 1.0)],
    columns=["query_id", "doc_id", "score"])

EXPECTED = {
    # mean over q1, q3, q4 (q2 and q5 have no relevant document): (13/4 + 1 + 2)/3.
    "ASL": (13 / 4 + 1 + 2) / 3,
    "ASL(unretrieved='eq3')": (3 + 0 + 2) / 3,
    # best-placed relevant document: q1 d2 = 2, q3 d5 = 1, q4 e2 = 2.
    "ASL@g1-1": (2 + 1 + 2) / 3,
    # every query has fewer than 10 relevant documents: same as ASL.
    "ASL@g1-10": (13 / 4 + 1 + 2) / 3,
    # 2nd-3rd: q1 (d1 3 + d4 4)/2; q3 has 1 relevant document: left out; q4 e1 = 2 only.
    "ASL@g2-3": (7 / 2 + 2) / 2,
    # 4th-5th: only q1 has a 4th (d9, unretrieved, 4) and no 5th.
    "ASL@g4-5": 4.0,
    "ASL(unretrieved='eq3')@g4-5": 3.0,
    # rel=2: only q1's d2 is relevant, with x above it: 2 (every other query has none).
    "ASL(rel=2)": 2.0,
}


def test_per_query_values() -> None:
    values = {(m.query_id, str(m.measure)): m.value
              for m in ir_measures.iter_calc([ASL, ASL(unretrieved="eq3")], QRELS, RUN)}
    assert values["q1", "ASL"] == 13 / 4
    assert values["q3", "ASL"] == 1.0  # nothing retrieved: all relevant unretrieved, irrel_q = 0
    assert values["q4", "ASL"] == 2.0
    assert math.isnan(values["q2", "ASL"]) and math.isnan(values["q5", "ASL"])
    assert values["q1", "ASL(unretrieved='eq3')"] == 3.0
    assert values["q3", "ASL(unretrieved='eq3')"] == 0.0


@pytest.mark.parametrize("measure", sorted(EXPECTED))
def test_aggregate_without_pool(measure: str) -> None:
    parsed = ir_measures.parse_measure(measure)
    got = ir_measures.calc_aggregate([parsed], QRELS, RUN)[parsed]
    assert got == pytest.approx(EXPECTED[measure], abs=1e-15)


@pytest.mark.parametrize("measure", sorted(EXPECTED))
def test_pool_evaluate_and_active_pool_agree(measure: str) -> None:
    other = RUN.assign(score=-RUN["score"])  # a second run, reversed
    pool = Pool.from_runs({"R": RUN, "other": other})
    table = pool.evaluate(QRELS, [measure])
    assert table.loc["R", measure] == pytest.approx(EXPECTED[measure], abs=1e-15)
    parsed = ir_measures.parse_measure(measure)
    with pool:
        for name in ("R", "other"):
            got = ir_measures.calc_aggregate([parsed], QRELS, pool.run(name))[parsed]
            assert got == pytest.approx(table.loc[name, measure], abs=1e-15)


def test_nan_default_does_not_pull_the_mean_down() -> None:
    assert math.isnan(ASL.DEFAULT)
    # q2 and q5 are back-filled / computed as NaN; a plain mean counting them as 0 would give (13/4+1+2)/5.
    got = ir_measures.calc_aggregate([ASL], QRELS, RUN)[ASL]
    assert got == pytest.approx(25 / 12) and got != pytest.approx((13 / 4 + 3) / 5)
    long = Pool.from_runs({"R": RUN}).evaluate(QRELS, [ASL], by_query=True).set_index("query_id")["value"]
    assert math.isnan(long["q2"]) and math.isnan(long["q5"]) and long["q3"] == 1.0


def test_no_relevant_document_at_all_is_nan() -> None:
    qrels = QRELS.assign(relevance=0)
    assert math.isnan(ir_measures.calc_aggregate([ASL], qrels, RUN)[ASL])


def test_first_document_relevant_gives_one() -> None:
    run = pd.DataFrame([("q4", "e2", 3.0), ("q4", "z", 2.0), ("q4", "e1", 1.0)],
                       columns=["query_id", "doc_id", "score"])
    values = {m.query_id: m.value for m in ir_measures.iter_calc([ASL @ "g1-1"], QRELS, run)}
    assert values["q4"] == 1.0
    # e1 is below one non-relevant document: 2. ASL@g2-2 and the mean ASL (1 + 2)/2.
    assert {m.query_id: m.value for m in ir_measures.iter_calc([ASL @ "g2-2"], QRELS, run)}["q4"] == 2.0
    assert {m.query_id: m.value for m in ir_measures.iter_calc([ASL], QRELS, run)}["q4"] == 1.5


def test_parsing_round_trip_and_direction() -> None:
    for text in ("ASL", "ASL@g1-10", "ASL@g1-1", "ASL@g5-20", "ASL(rel=2)@g1-10", "ASL(unretrieved='eq3')@g2-3"):
        measure = ir_measures.parse_measure(text)
        assert str(measure) == text
        assert ir_measures.parse_measure(str(measure)) == measure
        assert ir_measures.util.parse_measure(text) == measure
        assert not ir_rarity.higher_is_better(measure)
    assert ir_measures.parse_measure("ASL@g3") == ASL @ "g3-3"
    assert ir_measures.parse_measure("P@10") == ir_measures.P @ 10
    assert not ir_rarity.higher_is_better("ASL@g1-10")
    assert not ASL.NEEDS_POOL


@pytest.mark.parametrize("bad", ["g0-3", "g5-2", "1-10", "g1", "gx-2"])
def test_invalid_group(bad: str) -> None:
    with pytest.raises(ParameterError):
        (ASL @ bad).validate_params()


def test_invalid_unretrieved() -> None:
    with pytest.raises(ParameterError):
        ASL(unretrieved="never").validate_params()


def test_registration_is_idempotent() -> None:
    ir_rarity._register()
    ir_rarity._register()
    assert ir_measures.parse_measure("ASL@g1-10") == ASL @ "g1-10"
    assert not hasattr(ir_measures.util.parse_measure._ir_rarity_original, "_ir_rarity_original")


def test_per_document_table() -> None:
    docs = per_document_asl(RUN, QRELS).set_index(["query_id", "doc_id"])
    assert docs["asl"].to_dict() == {("q1", "d2"): 2.0, ("q1", "d1"): 3.0, ("q1", "d4"): 4.0, ("q1", "d9"): 4.0,
                                     ("q3", "d5"): 1.0, ("q4", "e1"): 2.0, ("q4", "e2"): 2.0}
    assert docs.loc[("q1", "d1"), "rank"] == 4.0 and math.isnan(docs.loc[("q1", "d9"), "rank"])
    assert list(docs["retrieved"]) == [True, True, True, False, False, True, True]
    assert per_document_asl(RUN, QRELS, unretrieved="eq3").set_index("doc_id").loc["d9", "asl"].item() == 3.0


def test_distribution_counts_not_retrieved_separately() -> None:
    table = asl_distribution(RUN, QRELS, edges=(1, 2, 3, 5))
    # retrieved: d2 2, d1 3, d4 4, e1 2, e2 2 -> [1]: 0, [2]: 3, [3-4]: 2, [>=5]: 0; not retrieved: d9, d5.
    assert table["bucket"].tolist() == ["1", "2", "3-4", ">=5", "not retrieved"]
    assert table["count"].tolist() == [0, 3, 2, 0, 2]
    pool = Pool.from_runs({"R": RUN})
    assert asl_distribution(pool, QRELS, run="R", edges=(1, 2, 3, 5)).equals(table)


def test_differences() -> None:
    better = pd.DataFrame([("q1", "d9", 9.0), ("q1", "d1", 8.0), ("q1", "x", 1.0)],
                          columns=["query_id", "doc_id", "score"])
    diff = asl_differences(better, RUN, QRELS).set_index(["query_id", "doc_id"])
    # better q1: d9 1, d1 1, then unretrieved d2, d4 at irrel 1 + 1 = 2; q4 nothing retrieved: e1, e2 = 1.
    assert diff.loc[("q1", "d9"), "difference"] == 1 - 4
    assert diff.loc[("q1", "d2"), "difference"] == 2 - 2
    assert diff.loc[("q4", "e1"), "difference"] == 1 - 2
    assert len(diff) == 7
    buckets = difference_buckets(diff)
    assert buckets.set_index("bucket")["count"].to_dict()["-1..-9"] == 5  # d9 -3, d1 -2, d4 -2, e1 -1, e2 -1
    assert buckets["count"].sum() == 7


def test_relative_error_reduction_reproduces_table_1() -> None:
    # Table 1 of the paper: P@20 documents 0.456 -> 0.594 is 25%; MAP passages 0.400 -> 0.572 is 29%.
    assert round(100 * relative_error_reduction(0.456, 0.594, True)) == 25
    assert round(100 * relative_error_reduction(0.400, 0.572, "AP")) == 29
    # ASL@g1-10 documents 14 -> 5 is 69%, passages 51 -> 6 is 90%; ASL passages 264 -> 215 is 19%.
    assert relative_error_reduction(14, 5, False) == pytest.approx(9 / 13)
    assert round(100 * relative_error_reduction(51, 6, ASL @ "g1-10")) == 90
    assert round(100 * relative_error_reduction(264, 215, "ASL")) == 19
    np.testing.assert_allclose(relative_error_reduction([0.5, 0.0], [0.75, 0.5], True), [0.5, 0.5])


def test_effective_fraction_appendix_example() -> None:
    # Appendix A.1: SL = [1, 1, 1, 2, 4, 5, 10, 10000, 10000]; mean of P in SL space = 9 / 4.0502 = 2.222.
    # Prefix means 1, 1, 1, 1.25, 1.8, 2.333, ... : 2.333 (k = 6) is closest.
    assert effective_fraction([1, 1, 1, 2, 4, 5, 10, 10000, 10000]) == pytest.approx(6 / 9)
    assert effective_fraction([3, 3, 3]) == pytest.approx(1 / 3)
    with pytest.raises(ParameterError):
        effective_fraction([1, 0])


def test_plots_write_png(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    from ir_rarity.analysis.plots import plot_asl_differences, plot_asl_distribution

    a = plot_asl_distribution(asl_distribution(RUN, QRELS), tmp_path / "dist.png")
    b = plot_asl_differences(asl_differences(RUN, RUN.assign(score=-RUN["score"]), QRELS), tmp_path / "diff.png")
    for path in (a, b):
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
