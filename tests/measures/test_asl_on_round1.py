"""ASL on the embedded TREC-COVID round-1 campaign: bounds, the g1-1 optimum and monotonicity."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest

from ir_rarity import ASL, Pool
from ir_rarity.analysis import per_document_asl


@pytest.fixture(scope="module")
def asl_by_query(covid_pool: Pool, covid_qrels: pd.DataFrame) -> pd.DataFrame:
    return covid_pool.evaluate(covid_qrels, [ASL, ASL @ "g1-1", ASL @ "g1-10"], by_query=True)


def test_asl_is_at_least_one(asl_by_query: pd.DataFrame) -> None:
    values = asl_by_query["value"].to_numpy()
    assert np.isfinite(values).any()
    assert (values[~np.isnan(values)] >= 1).all()


def test_first_document_relevant_gives_exactly_one(covid_pool: Pool, covid_qrels: pd.DataFrame,
                                                   asl_by_query: pd.DataFrame) -> None:
    firsts = []
    for name in covid_pool.names:
        run = covid_pool.run(name)
        firsts.append(run[run["rank"] == 1].assign(run=name))
    first = pd.concat(firsts, ignore_index=True).merge(covid_qrels, on=["query_id", "doc_id"], how="left")
    g11 = asl_by_query[asl_by_query["measure"] == "ASL@g1-1"]
    first = first.merge(g11, on=["run", "query_id"])  # queries of the qrels only
    hit = first["relevance"].to_numpy() >= 1  # NaN (unjudged) is False
    assert hit.sum() > 1000
    assert (first.loc[hit, "value"] == 1.0).all()
    assert (first.loc[~hit, "value"].dropna() > 1.0).all()


def test_pool_evaluate_agrees_with_ir_measures(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    measures = [ASL, ASL @ "g1-10", ASL(unretrieved="eq3")]
    table = covid_pool.evaluate(covid_qrels, measures)
    for name in covid_pool.names[:3]:
        got = ir_measures.calc_aggregate(measures, covid_qrels, covid_pool.run(name))  # no active pool needed
        for m in measures:
            assert got[m] == pytest.approx(table.loc[name, str(m)], abs=1e-12)


def test_per_document_mean_is_the_query_value(covid_pool: Pool, covid_qrels: pd.DataFrame,
                                              asl_by_query: pd.DataFrame) -> None:
    name = covid_pool.names[0]
    per_doc = per_document_asl(covid_pool.run(name), covid_qrels).groupby("query_id")["asl"].mean()
    plain = asl_by_query[(asl_by_query["measure"] == "ASL") & (asl_by_query["run"] == name)]
    plain = plain.set_index("query_id")["value"].dropna()
    pd.testing.assert_series_equal(per_doc.sort_index(), plain.sort_index(), check_names=False, atol=1e-12)


def test_moving_a_relevant_document_up_never_increases_asl(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    relevant = set(map(tuple, covid_qrels[covid_qrels["relevance"] >= 1][["query_id", "doc_id"]].to_numpy()))
    for name in covid_pool.names[:5]:
        run = covid_pool.run(name)
        before = {m.query_id: m.value for m in ir_measures.iter_calc([ASL, ASL @ "g1-10"], covid_qrels, run)
                  if m.measure == ASL}
        is_rel = np.array([(q, d) in relevant for q, d in zip(run["query_id"], run["doc_id"], strict=True)])
        # Per query, the deepest retrieved relevant document swaps scores with the document just above it.
        moved = run.copy()
        candidates = moved[is_rel & (moved["rank"] > 1)].groupby("query_id")["rank"].idxmax()
        for idx in candidates:
            above = moved.index[(moved["query_id"] == moved.at[idx, "query_id"])
                                & (moved["rank"] == moved.at[idx, "rank"] - 1)][0]
            moved.loc[[idx, above], "score"] = moved.loc[[above, idx], "score"].to_numpy()
        after = {m.query_id: m.value for m in ir_measures.iter_calc([ASL], covid_qrels, moved)}
        for query_id, value in before.items():
            if not np.isnan(value):
                assert after[query_id] <= value + 1e-12
        assert any(after[q] < before[q] for q in before if not np.isnan(before[q]))
