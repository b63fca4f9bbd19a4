"""Mean paired difference with its bootstrap interval (scipy.stats.bootstrap exactly) and Cohen's d_z."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats as sps

from ir_rarity.errors import ParameterError
from ir_rarity.stats import DIFF_INTERVALS, cohens_dz, mean_difference_interval, paired_effects


def _scipy(d: np.ndarray, level: float, resamples: int, method: str, seed: int) -> tuple[float, float]:
    ci = sps.bootstrap((d,), np.mean, confidence_level=level, n_resamples=resamples, method=method,
                       rng=np.random.default_rng(seed)).confidence_interval  # the generator of the mean's interval
    return float(ci.low), float(ci.high)


@pytest.mark.parametrize(("method", "scipy_method"), [("percentile", "percentile"), ("bca", "BCa")])
@pytest.mark.parametrize(("n", "level", "seed"), [(25, 0.95, 0), (50, 0.9, 7), (7, 0.99, 123)])
def test_interval_is_scipy_bootstrap(method, scipy_method, n, level, seed):
    d = np.random.default_rng(n).gamma(2.0, 0.1, size=n) - 0.15
    got = mean_difference_interval(d, level, 2_000, method, seed)
    assert got == _scipy(d, level, 2_000, scipy_method, seed)  # exactly, not approximately


def test_blocks_of_resamples_draw_what_one_batch_draws():
    d = np.random.default_rng(3).normal(size=5_000)  # 2e6 / 5000 = 400 resamples per block
    for method, scipy_method in (("percentile", "percentile"), ("bca", "BCa")):
        assert mean_difference_interval(d, 0.95, 1_000, method, 2) == _scipy(d, 0.95, 1_000, scipy_method, 2)


def test_dz_by_hand():
    d = np.array([0.1, -0.2, 0.4, 0.0, 0.3])
    mean = sum(d) / 5
    sd = (sum((x - mean) ** 2 for x in d) / 4) ** 0.5
    assert cohens_dz(d) == pytest.approx(mean / sd, rel=1e-14)
    assert cohens_dz(d) == pytest.approx(np.mean(d) / np.std(d, ddof=1), rel=1e-14)
    assert cohens_dz(np.append(d, np.nan)) == cohens_dz(d)  # NaN left out


def test_equal_differences():
    d = np.full(10, 0.25)
    assert np.isnan(cohens_dz(d))  # sd = 0: undefined
    a = np.random.default_rng(0).uniform(size=10)
    assert np.isnan(cohens_dz((a + 0.1) - a))  # equal up to rounding: sd ~ 1e-17, not a d_z of 1e16
    assert np.isnan(cohens_dz(np.zeros(4)))
    assert mean_difference_interval(d, method="percentile", resamples=200) == (0.25, 0.25)
    assert all(np.isnan(mean_difference_interval(d, method="bca", resamples=200)))  # no warning escapes
    assert all(np.isnan(mean_difference_interval(np.array([0.3]), resamples=200)))
    assert np.isnan(cohens_dz(np.array([0.3])))


def test_paired_effects_rows_leave_nan_out():
    rng = np.random.default_rng(5)
    delta = rng.normal(0.05, 0.2, size=(3, 30))
    delta[1, [2, 9]] = np.nan
    got = paired_effects(delta, 0.9, 500, "bca", 11)
    for i, row in enumerate(delta):
        d = row[~np.isnan(row)]
        assert got["diff"][i] == pytest.approx(np.mean(d))
        assert (got["diff low"][i], got["diff high"][i]) == _scipy(d, 0.9, 500, "BCa", 11)
        assert got["d_z"][i] == pytest.approx(np.mean(d) / np.std(d, ddof=1))


def test_bad_parameters():
    d = np.arange(5.0)
    assert DIFF_INTERVALS == ("percentile", "bca")
    with pytest.raises(ParameterError, match="unknown interval method"):
        mean_difference_interval(d, method="basic")
    with pytest.raises(ParameterError, match="confidence level"):
        mean_difference_interval(d, level=1.0)
    with pytest.raises(ParameterError, match="resamples"):
        mean_difference_interval(d, resamples=1)


def test_older_scipy_gets_the_same_generator_as_random_state():
    from ir_rarity.stats.effects import _generator_keyword

    def before_1_15(data, statistic, *, n_resamples=9999, method="BCa", random_state=None):  # scipy 1.10-1.14
        raise AssertionError("not called")

    assert _generator_keyword(before_1_15) == "random_state" and _generator_keyword(sps.bootstrap) == "rng"
    d = np.random.default_rng(8).normal(0.1, 0.3, size=40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy may announce random_state's deprecation
        legacy_keyword = sps.bootstrap((d,), np.mean, n_resamples=700, method="BCa",
                                       random_state=np.random.default_rng(5)).confidence_interval
    assert mean_difference_interval(d, 0.95, 700, "bca", 5) == (legacy_keyword.low, legacy_keyword.high)
