"""On the real TREC-COVID round-1 campaign (143 runs, top 100): alpha=0 is exactly trec_eval's P and AP."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest

from ir_rarity import Pool

pytestmark = pytest.mark.slow  # every round-1 run and query against pytrec_eval


def _per_query(pool: Pool, qrels: pd.DataFrame, measures: list[str]) -> pd.DataFrame:
    long = pool.evaluate(qrels, measures, by_query=True)
    return long.pivot_table(index=["run", "query_id"], columns="measure", values="value")


def test_pool_shape(covid_pool: Pool) -> None:
    assert len(covid_pool) == 143
    assert covid_pool.num_systems == 143
    assert len(covid_pool.query_ids) == 30


@pytest.mark.parametrize("rel", [1, 2])
def test_alpha_zero_equals_pytrec_eval_every_run_and_query(covid_pool: Pool, covid_qrels: pd.DataFrame,
                                                           rel: int) -> None:
    pairs = [(f"P_rare(alpha=0,rel={rel})@100", f"P(rel={rel})@100"),
             (f"AP_rare(alpha=0,rel={rel})@100", f"AP(rel={rel})@100"),
             (f"AP_rare(alpha=0,rel={rel})", f"AP(rel={rel})"),
             (f"P_rare(alpha=0,rel={rel})@10", f"P(rel={rel})@10")]
    names = [str(ir_measures.parse_measure(m)) for pair in pairs for m in pair]
    table = _per_query(covid_pool, covid_qrels, names)
    assert len(table) == 143 * 30
    for ours, theirs in zip(names[::2], names[1::2], strict=False):
        np.testing.assert_allclose(table[ours], table[theirs], rtol=0, atol=1e-12)
        assert table[theirs].sum() > 0  # a real comparison, not zeros against zeros


@pytest.mark.parametrize("rel", [1, 2])
def test_alpha_zero_equals_pytrec_eval_through_ir_measures(covid_pool: Pool, covid_qrels: pd.DataFrame,
                                                           rel: int) -> None:
    ours = [ir_measures.parse_measure(f"P_rare(alpha=0,rel={rel})@100"),
            ir_measures.parse_measure(f"AP_rare(alpha=0,rel={rel})@100")]
    theirs = [ir_measures.parse_measure(f"P(rel={rel})@100"), ir_measures.parse_measure(f"AP(rel={rel})@100")]
    with covid_pool:
        for i, name in enumerate(covid_pool.names):
            run = covid_pool.run(name)
            if i % 10 == 0:  # calc_aggregate itself, on every tenth run
                agg = ir_measures.calc_aggregate(ours + theirs, covid_qrels, run)
            else:  # calc: the same evaluator, aggregates and per-query values in one pass
                agg, per_query_metrics = ir_measures.calc(ours + theirs, covid_qrels, run)
                per_query = {(m.query_id, str(m.measure)): m.value for m in per_query_metrics}
                assert len(per_query) == 4 * 30
                for a, b in zip(ours, theirs, strict=False):
                    for qid in covid_qrels["query_id"].unique():
                        assert abs(per_query[qid, str(a)] - per_query[qid, str(b)]) <= 1e-12, (name, qid, a)
            for a, b in zip(ours, theirs, strict=False):
                assert abs(agg[a] - agg[b]) <= 1e-12, (name, a)


def test_rarity_reorders_the_campaign(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    table = covid_pool.evaluate(covid_qrels, ["P@100", "P_rare(alpha=0.5)@100", "P_rare@100", "AP_rare"])
    # P_rare grows with alpha and stays within [P, P * (1 + alpha (S-1)/S)].
    assert (table["P_rare(alpha=0.5)@100"] >= table["P@100"]).all()
    assert (table["P_rare@100"] >= table["P_rare(alpha=0.5)@100"]).all()
    assert (table["P_rare@100"] <= table["P@100"] * (1 + 142 / 143) + 1e-12).all()
    # ... and changes the order of systems.
    assert (table["P@100"].rank() != table["P_rare@100"].rank()).any()


def test_pool_member_via_ir_measures_equals_pool_evaluate(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    measures = [ir_measures.parse_measure(m) for m in ["P_rare(alpha=0.5)@100", "AP_rare", "AP_rare(bounded=True)"]]
    table = covid_pool.evaluate(covid_qrels, measures)
    with covid_pool:
        for name in covid_pool.names[:20]:
            agg = ir_measures.calc_aggregate(measures, covid_qrels, covid_pool.run(name))
            for m in measures:
                assert agg[m] == pytest.approx(table.loc[name, str(m)], abs=1e-12)


def test_full_run_file_is_a_newcomer_to_a_top100_pool(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    # A run cut to its top 50 is the pool member for depth 50, and a new system for depth 100.
    run = covid_pool.run("BBGhelani1").groupby("query_id").head(50)
    assert covid_pool.member_of(run, depth=50) == "BBGhelani1"
    assert covid_pool.member_of(run, depth=100) is None
    with covid_pool:
        as_member = ir_measures.calc_aggregate([ir_measures.parse_measure("P_rare@50")], covid_qrels, run)
        as_new = ir_measures.calc_aggregate([ir_measures.parse_measure("P_rare@100")], covid_qrels, run)
    table = covid_pool.evaluate(covid_qrels, ["P_rare@50", "P_rare@100"])
    assert next(iter(as_member.values())) == pytest.approx(table.loc["BBGhelani1", "P_rare@50"], abs=1e-12)
    assert next(iter(as_new.values())) < table.loc["BBGhelani1", "P_rare@100"]
