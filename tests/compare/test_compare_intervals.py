"""Interval columns of a campaign table: the bootstrap interval of each run's mean next to the mean."""

from __future__ import annotations

import numpy as np
import pytest

from ir_rarity.compare.intervals import interval_columns
from ir_rarity.evaluation import evaluate_campaign as evaluate
from ir_rarity.stats import bootstrap_interval
from ir_rarity.stats.scores import natural_order


@pytest.fixture(scope="module")
def matrices(covid_pool, covid_qrels):
    result = evaluate(covid_pool, covid_qrels, ["P_rare(alpha=0.5)@100", "ASL"])
    rare, asl = result.measures
    natural = natural_order(result.query_ids)  # the order every seeded draw takes the queries in
    return result.values[rare][:, natural], result.values[asl][:, natural]


def test_pool_evaluate_ci_columns(covid_pool, covid_qrels, matrices):
    table = covid_pool.evaluate(covid_qrels, ["P_rare(alpha=0.5)@100"], ci=0.95)
    low, high = interval_columns("P_rare(alpha=0.5)@100")
    assert list(table.columns) == ["P_rare(alpha=0.5)@100", low, high]
    expected = bootstrap_interval(matrices[0], 0.95, 10_000, seed=0)
    np.testing.assert_array_equal(table[low].to_numpy(), expected[0])
    assert table.attrs["interval"]["method"] == "bootstrap"
