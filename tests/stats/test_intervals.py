"""Confidence intervals: equal to scipy's bootstrap and t-interval, reproducible under a seed, covering the mean."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ir_rarity.scoring import evaluate_campaign as evaluate
from ir_rarity.stats import bootstrap_interval, t_interval


@pytest.fixture(scope="module")
def matrices(covid_pool, covid_qrels):
    result = evaluate(covid_pool, covid_qrels, ["P_rare(alpha=0.5)@100", "ASL"])
    rare, asl = result.measures
    return result.values[rare], result.values[asl]


def test_bootstrap_equals_scipy_percentile_bootstrap(matrices):
    rare, _ = matrices
    low, high = bootstrap_interval(rare, 0.9, resamples=999, seed=11)
    for r in (0, 17, 100):
        ref = stats.bootstrap((rare[r],), np.mean, n_resamples=999, confidence_level=0.9, method="percentile",
                              rng=np.random.default_rng(11)).confidence_interval
        assert low[r] == pytest.approx(ref.low, rel=1e-12)
        assert high[r] == pytest.approx(ref.high, rel=1e-12)


def test_bootstrap_is_seeded_and_covers_the_mean(matrices):
    rare, asl = matrices
    a = bootstrap_interval(rare, 0.95, 2000, seed=5)
    b = bootstrap_interval(rare, 0.95, 2000, seed=5)
    c = bootstrap_interval(rare, 0.95, 2000, seed=6)
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0], c[0])
    mean = rare.mean(axis=1)
    varied = rare.std(axis=1) > 0
    assert np.all(a[0][varied] < mean[varied]) and np.all(mean[varied] < a[1][varied])
    low, high = bootstrap_interval(asl, 0.95, 2000, seed=5, skip_undefined=True)  # ASL: NaN queries left out
    asl_mean = np.nanmean(asl, axis=1)
    assert np.all(low <= asl_mean) and np.all(asl_mean <= high)


def test_t_interval_equals_scipy(matrices):
    rare, asl = matrices
    low, high = t_interval(rare, 0.95)
    for r in (0, 50):
        ref = stats.t.interval(0.95, rare.shape[1] - 1, loc=rare[r].mean(), scale=stats.sem(rare[r]))
        assert (low[r], high[r]) == pytest.approx(ref, rel=1e-12)
    low, high = t_interval(asl, 0.95, skip_undefined=True)
    x = asl[3][~np.isnan(asl[3])]
    assert (low[3], high[3]) == pytest.approx(stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x)))
