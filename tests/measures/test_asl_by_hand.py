"""ASL (Alex, Hall & Metzler, Atomized Search Length) on a campaign computed by hand (``asl_hand``)."""

from __future__ import annotations

import math

import ir_measures
import pandas as pd
import pytest
from asl_hand import QRELS, RUN

import ir_rarity
from ir_rarity import ASL, ParameterError, Pool

EXPECTED = {
    # mean over q1, q3, q4 (q2 and q5 have no relevant document): (13/4 + 1 + 2)/3.
    "ASL": (13 / 4 + 1 + 2) / 3,
    "ASL(unretrieved='eq3')": (3 + 0 + 2) / 3,
    # best-placed relevant document: q1 d2 = 2, q3 d5 = 1, q4 e2 = 2.
    "ASL@g1-1": (2 + 1 + 2) / 3,
    # every query has fewer than 10 relevant documents: same as ASL.
    "ASL@g1-10": (13 / 4 + 1 + 2) / 3,
    # the first 3, as P@3 is the top 3 (ASL@g3 is ASL@g1-3): q1 (2 + 3 + 4)/3; q3 its one, 1; q4 (2 + 2)/2.
    "ASL@g3": (3 + 1 + 2) / 3,
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
    assert ir_measures.parse_measure("ASL@g3") == ASL @ "g1-3"  # the first 3, as P@3 is the top 3
    assert ir_measures.parse_measure("ASL(rel=2) @ g 3") == ASL(rel=2) @ "g1-3"
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
