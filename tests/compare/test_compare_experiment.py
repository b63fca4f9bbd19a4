"""ir_rarity.Experiment: NaN-skipping baseline tests by the one rule (scipy/statsmodels), and ci= columns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import ir_rarity
from ir_rarity.stats import bootstrap_interval, in_natural_order

pytest.importorskip("pyterrier")

NAMES = ["BBGhelani1", "BERT", "run1", "sab20.1.meta.docs"]


def test_experiment_tests_and_intervals(covid_pool, covid_qrels):
    results = {n: covid_pool.run(n).rename(columns={"query_id": "qid", "doc_id": "docno"}) for n in NAMES}
    topics = pd.DataFrame({"qid": sorted(covid_qrels["query_id"].unique()), "query": "covid"})
    qid = sorted(covid_qrels["query_id"].unique())[0]  # no relevant document left: ASL undefined there
    qrels = covid_qrels[~((covid_qrels["query_id"] == qid) & (covid_qrels["relevance"] > 0))]
    table = ir_rarity.Experiment(results, topics, qrels, ["ASL@g1-10"], baseline="BERT", correction="holm",
                                 ci=0.9).set_index("name")
    per_query = ir_rarity.Experiment(results, topics, qrels, ["ASL@g1-10"], perquery=True)
    wide = per_query.pivot_table(index="name", columns="qid", values="value", dropna=False).reindex(NAMES)
    others = [n for n in NAMES if n != "BERT"]
    raw = [stats.ttest_rel(wide.loc[n], wide.loc["BERT"], nan_policy="omit").pvalue for n in others]
    np.testing.assert_allclose(table.loc[others, "ASL@g1-10 p-value"].astype(float), raw, rtol=1e-10)
    np.testing.assert_allclose(table.loc[others, "ASL@g1-10 p-value corrected"].astype(float),
                               multipletests(raw, method="holm")[1], rtol=1e-10)
    # the queries in natural order of their ids before the seeded draws, as every id-aware caller puts them
    low, high = bootstrap_interval(in_natural_order(wide).to_numpy(), 0.9, 10_000, seed=0, skip_undefined=True)
    np.testing.assert_array_equal(table.loc[NAMES, "ASL@g1-10 ci low"].to_numpy(), low)
    np.testing.assert_array_equal(table.loc[NAMES, "ASL@g1-10 ci high"].to_numpy(), high)
    assert (table["ASL@g1-10 ci low"] <= table["ASL@g1-10"]).all()
