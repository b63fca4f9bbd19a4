"""Reusability with the full qrels encoded once: restricted qrels only relabelled, results as scoring each anew."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ir_rarity import Pool
from ir_rarity.engine import relabelled
from ir_rarity.engine.judgments import Judgments
from ir_rarity.engine.relabelled import Restrictor
from ir_rarity.errors import MemberNotice
from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.io.frames import as_qrels_frame
from ir_rarity.judging import pool_qrels, reusability, simulate
from ir_rarity.measures.parse import higher_is_better, parse_measures
from ir_rarity.stats import kendall_tau, tau_ap

MEASURES = ["P@10", "AP", "P_rare(alpha=0.5)@10", "AP_rare(alpha=0.5)", "nDCG@10", "AP(judged_only=True)"]


@pytest.fixture(scope="module")
def small_pool(covid_pool: Pool) -> Pool:
    return covid_pool.subset(covid_pool.names[1::6])


@pytest.fixture(scope="module")
def noisy_qrels(covid_qrels: pd.DataFrame) -> pd.DataFrame:
    """Round-1 qrels with a tenth of the labels -1, and judgments of a query no run retrieved."""
    rng = np.random.default_rng(4)
    frame = covid_qrels.copy()
    frame.loc[rng.random(len(frame)) < 0.1, "relevance"] = -1
    extra = pd.DataFrame({"query_id": "no-such-topic", "doc_id": ["x1", "x2"], "relevance": [1, 0]})
    return pd.concat([frame, extra], ignore_index=True)


def _reference(sim: Any, pool: Pool, qrels: pd.DataFrame, measures: list[str]) -> pd.DataFrame:
    """Reusability as scored before: each restricted qrels frame made by pool_qrels and evaluated anew."""
    measure_list = parse_measures(measures)
    full = pool.evaluate(qrels, measure_list)
    rows = []
    for strategy in sim.orders:
        for budget in sim.budgets:
            judged = sim.orders[strategy].frame(sim.per_query(budget))
            scores = pool.evaluate(pool_qrels(qrels, judged), measure_list)
            for m in measure_list:
                name, hib = str(m), higher_is_better(m)
                rows.append({"strategy": strategy, "budget": budget, "judged": len(judged), "measure": name,
                             "tau": kendall_tau(scores[name], full[name], higher_is_better=hib),
                             "tau_ap": tau_ap(scores[name], full[name], higher_is_better=hib)})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("which", ["plain", "noisy"])
def test_reusability_equals_evaluating_each_restricted_qrels(small_pool: Pool, covid_qrels: pd.DataFrame,
                                                             noisy_qrels: pd.DataFrame, which: str) -> None:
    qrels = covid_qrels if which == "plain" else noisy_qrels
    sim = simulate(small_pool, qrels, ["depth", "rbp", "mtf"], [3, 10], depth=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemberNotice)
        table = reusability(sim, small_pool, qrels, MEASURES, depth=20, loto=False)
        expected = _reference(sim, small_pool, qrels, MEASURES)
    pd.testing.assert_frame_equal(table, expected)


def test_relabelled_encoding_equals_encoding_the_restricted_frame(small_pool: Pool,
                                                                   noisy_qrels: pd.DataFrame) -> None:
    sim = simulate(small_pool, noisy_qrels, ["depth", "rrf"], [5, 40], depth=30)
    restrictor = Restrictor(small_pool, Judgments(noisy_qrels))
    assert restrictor.shared
    for strategy in sim.orders:
        for budget in sim.budgets:
            judged = sim.orders[strategy].frame(sim.per_query(budget))
            restricted = restrictor.restrict(judged)
            frame = pool_qrels(noisy_qrels, judged)
            pd.testing.assert_frame_equal(restricted.frame, as_qrels_frame(frame))
            got, want = restricted.encoded_for(small_pool), small_pool.encode_qrels(frame)
            for field in ("keys", "labels", "key_query", "query_codes"):
                np.testing.assert_array_equal(getattr(got, field), getattr(want, field))
            for field in ("query_ids", "doc_extra", "query_extra"):
                pd.testing.assert_index_equal(getattr(got, field), getattr(want, field))
    # Another campaign (other vocabularies) gets the restricted frame encoded for it.
    other = Pool.from_runs({n: small_pool.run(n) for n in small_pool.names[:3]})
    np.testing.assert_array_equal(restricted.encoded_for(other).labels, other.encode_qrels(frame).labels)
    np.testing.assert_array_equal(restricted.encoded_for(other).keys, other.encode_qrels(frame).keys)


ONE_PASS = ["P@10", "P(rel=2)@5", "R@20", "AP", "AP@20", "RR", "Rprec", "P_rare(alpha=0.5)@10",
            "AP_rare(alpha=0.5)", "AP_rare(alpha=1,depth=5)@30", "nDCG_rare(rel=2)@20", "R_rare(alpha=0.5)@20",
            "P(rel=0)@10", "AP_rare(rel=0,alpha=1)@10"]
"""Measures reading relevant rows only, at thresholds 2, 1 and 0 (a label set to 0 is then relevant)."""


@pytest.mark.parametrize("which", ["plain", "noisy"])
@pytest.mark.parametrize("block_rows", [1 << 20, 3000])  # the whole pool at once, or many blocks of runs
def test_one_pass_values_equal_evaluating_each_restricted_qrels(small_pool: Pool, covid_qrels: pd.DataFrame,
                                                                noisy_qrels: pd.DataFrame, which: str,
                                                                block_rows: int,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    qrels = covid_qrels if which == "plain" else noisy_qrels
    monkeypatch.setattr(relabelled, "BLOCK_ROWS", block_rows)
    measures = parse_measures(ONE_PASS)
    assert all(relabelled.reads_relevant_rows_only(m) for m in measures)
    sim = simulate(small_pool, qrels, ["depth", "mtf"], [2, 15], depth=20)
    restrictor = Restrictor(small_pool, Judgments(qrels))
    frames = [sim.orders[s].frame(sim.per_query(b)) for s in sim.orders for b in sim.budgets]
    restricted = [restrictor.restrict(frame) for frame in frames]
    labellings = [r.encoded_for(small_pool).labels for r in restricted]
    got = relabelled.relabelled_values(small_pool, restrictor.encoded, labellings, measures)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemberNotice)
        for values, frame in zip(got, frames, strict=True):
            expected = evaluate_campaign(small_pool, pool_qrels(qrels, frame), measures)
            for m in measures:
                np.testing.assert_array_equal(values[m], expected.values[m], err_msg=str(m))


def test_measures_reading_other_rows_are_scored_apart() -> None:
    for name in ["nDCG@10", "AP(judged_only=True)", "P_rare(judged_only=True)@10", "ASL", "Judged@10", "Bpref",
                 "NumRet", "U_novel@10", "Success@5"]:
        assert not relabelled.reads_relevant_rows_only(parse_measures([name])[0]), name
