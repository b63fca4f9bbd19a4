"""pt.Experiment on result DataFrames inside `with pool:` gives pool.evaluate's numbers."""

from __future__ import annotations

import pandas as pd
import pyterrier as pt
import pytest
from ir_measures import AP, P

from ir_rarity import AP_rare, P_rare, Pool


def test_experiment_in_pool_matches_pool_evaluate(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    names = ["BBGhelani1", "BERT", "run1", "sab20.1.meta.docs"]
    results = [covid_pool.run(n).rename(columns={"query_id": "qid", "doc_id": "docno"}) for n in names]
    topics = pd.DataFrame({"qid": sorted(covid_qrels["query_id"].unique()), "query": "covid"})
    qrels = covid_qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    measures = [P @ 100, P_rare(alpha=0.5) @ 100, AP_rare, AP_rare(alpha=0) @ 100, AP @ 100]
    with covid_pool:
        table = pt.Experiment(results, topics, qrels, measures, names=names).set_index("name")
    expected = covid_pool.evaluate(covid_qrels, measures).loc[names]
    for m in measures:
        for n in names:
            assert table.loc[n, str(m)] == pytest.approx(expected.loc[n, str(m)], abs=1e-12)
    assert (table["AP_rare(alpha=0.0)@100"] - table["AP@100"]).abs().max() <= 1e-12
