"""Vectorized Tukey HSD: the paper's decisions equal statsmodels' per pair; one distribution serves all pairs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps
from statsmodels.stats.multicomp import pairwise_tukeyhsd

from ir_rarity import Pool
from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.stats import paper_hsd, studentized_range_sf, tukey_hsd_pvalues


@pytest.fixture(scope="module")
def ap_scores(covid_pool: Pool, covid_qrels: pd.DataFrame) -> pd.DataFrame:
    return evaluate_campaign(covid_pool, covid_qrels, ["AP@100"]).matrix("AP@100")


@pytest.mark.slow
@pytest.mark.parametrize(("alpha", "n_random", "n_near"), [(0.05, 150, 30), (0.01, 10, 20)])
def test_paper_decisions_equal_statsmodels_on_round1_pairs(ap_scores: pd.DataFrame, alpha: float, n_random: int,
                                                           n_near: int) -> None:
    values = ap_scores.to_numpy().copy()
    values[3, :4] = np.nan  # a run with missing queries: another degrees of freedom
    pvalues, reject = paper_hsd(values, alpha)
    i, j = np.triu_indices(len(values), k=1)
    rng = np.random.default_rng(1)
    sample = rng.choice(len(i), size=n_random, replace=False)
    sample = np.union1d(sample, np.flatnonzero((i == 3) | (j == 3))[:20])
    # pairs near the critical value are where a decision could flip: take those too
    critical = sps.studentized_range.ppf(1 - alpha, 2, 2 * values.shape[1] - 2)
    near = np.argsort(np.abs(np.sqrt(2) * np.abs(sps.t.isf(pvalues / 2, 2 * values.shape[1] - 2)) - critical))
    sample = np.union1d(sample, near[:n_near])
    assert len(sample) >= n_random + n_near
    for k in sample:
        x, y = values[i[k]], values[j[k]]
        x, y = x[~np.isnan(x)], y[~np.isnan(y)]
        res = pairwise_tukeyhsd(np.concatenate([x, y]), np.array(["a"] * len(x) + ["b"] * len(y)), alpha=alpha)
        assert bool(res.reject[0]) == bool(reject[k]), (i[k], j[k])
        assert abs(float(res.pvalues[0]) - pvalues[k]) < 1e-6
    assert 0 < reject.sum() < len(reject)


@pytest.mark.slow
def test_tukey_hsd_pvalues_within_1e6_of_scipy() -> None:
    rng = np.random.default_rng(0)
    values = rng.normal(size=(12, 30)) * 0.1 + rng.uniform(0, 0.3, size=(12, 1))
    values[2, 5] = np.nan  # unequal group sizes
    ours = tukey_hsd_pvalues(values)
    groups = [row[~np.isnan(row)] for row in values]
    i, j = np.triu_indices(len(values), k=1)
    theirs = sps.tukey_hsd(*groups).pvalue[i, j]
    assert np.abs(ours - theirs).max() < 1e-6
    assert theirs.min() < 0.01 and theirs.max() > 0.5  # small and large p-values both checked


@pytest.mark.slow
def test_studentized_range_sf_at_many_points_within_1e6_of_scipy() -> None:
    q = np.concatenate([np.linspace(0.0, 9.0, 12), [25.0, np.inf]])
    ours = studentized_range_sf(q, 143, 4147.0)
    theirs = sps.studentized_range.sf(q[:12], 143, 4147.0)
    assert np.abs(ours[:12] - theirs).max() < 1e-6
    assert ours[-2] == 0.0 and ours[-1] == 0.0
