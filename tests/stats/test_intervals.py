"""Confidence intervals: equal to scipy's bootstrap and t-interval, reproducible under a seed, covering the mean."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ir_rarity.evaluation import evaluate_campaign as evaluate
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
        assert (low[r], high[r]) == (ref.low, ref.high)  # to the last digit


@pytest.mark.parametrize(("n_queries", "level", "seed"), [(37, 0.9, 11), (12, 0.95, 0), (230, 0.99, 123)])
def test_bootstrap_is_scipy_with_default_rng_to_the_last_digit(n_queries, level, seed):
    values = np.random.default_rng(n_queries).gamma(2.0, 0.1, size=(4, n_queries))
    values[3, ::4] = np.nan  # with skip_undefined, scipy's statistic is np.nanmean (no resample of NaN only here)
    low, high = bootstrap_interval(values[:3], level, 1_500, seed)
    low_skip, high_skip = bootstrap_interval(values, level, 1_500, seed, skip_undefined=True)
    for r in range(4):
        statistic = np.nanmean if r == 3 else np.mean
        ref = stats.bootstrap((values[r],), statistic, n_resamples=1_500, confidence_level=level,
                              method="percentile", rng=np.random.default_rng(seed)).confidence_interval
        assert (low_skip[r], high_skip[r]) == (ref.low, ref.high)
        if r < 3:
            assert (low[r], high[r]) == (ref.low, ref.high)


def test_one_seed_one_generator_for_the_mean_and_the_difference():
    from ir_rarity.stats import mean_difference_interval

    x = np.random.default_rng(4).gamma(2.0, 0.1, size=(2, 40))
    d = x[0] - x[1]
    for seed in (3, 4):
        means = bootstrap_interval(d[None, :], 0.95, 800, seed)
        diff = mean_difference_interval(d, 0.95, 800, "percentile", seed)
        ref = stats.bootstrap((d,), np.mean, n_resamples=800, method="percentile",
                              rng=np.random.default_rng(seed)).confidence_interval
        assert (means[0][0], means[1][0]) == diff == (ref.low, ref.high)  # one generator for both
    assert bootstrap_interval(d[None, :], 0.95, 800, 3)[0][0] != bootstrap_interval(d[None, :], 0.95, 800, 4)[0][0]
    assert mean_difference_interval(d, 0.95, 800, "bca", 3) != mean_difference_interval(d, 0.95, 800, "bca", 4)


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
