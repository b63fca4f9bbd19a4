"""Paired and two-sample tests of many pairs at once, each equal to scipy's test of that pair alone."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from ir_rarity.errors import ParameterError
from ir_rarity.stats import (
    paired_differences,
    paired_pvalues,
    paired_t_pvalues,
    randomization_pvalues,
    two_sample_t_pvalues,
    wilcoxon_pvalues,
)


@pytest.fixture(scope="module")
def values() -> np.ndarray:
    rng = np.random.default_rng(11)
    scores = rng.uniform(0.1, 0.6, size=(6, 1)) + rng.normal(0, 0.15, size=(6, 25))
    scores[2, [3, 7]] = np.nan  # a run without a value on two queries
    return scores


def test_paired_differences_are_every_pair_once(values: np.ndarray) -> None:
    i, j, diffs = paired_differences(values)
    assert list(zip(i, j, strict=True)) == [(a, b) for a in range(6) for b in range(a + 1, 6)]
    np.testing.assert_array_equal(diffs[4], values[0] - values[5])


def test_each_test_equals_scipy_on_the_common_queries(values: np.ndarray) -> None:
    i, j, diffs = paired_differences(values)
    t = paired_t_pvalues(diffs)
    w = wilcoxon_pvalues(diffs)
    ind = two_sample_t_pvalues(values)
    for k, (a, b) in enumerate(zip(i, j, strict=True)):
        common = ~np.isnan(diffs[k])
        x, y = values[a][common], values[b][common]
        assert t[k] == pytest.approx(sps.ttest_rel(x, y).pvalue, rel=1e-9)
        assert w[k] == pytest.approx(sps.wilcoxon(x - y).pvalue, rel=1e-9)
        xa, yb = values[a][~np.isnan(values[a])], values[b][~np.isnan(values[b])]
        assert ind[k] == pytest.approx(sps.ttest_ind(xa, yb).pvalue, rel=1e-9)


def test_randomization_is_seeded_and_close_to_the_t_test(values: np.ndarray) -> None:
    _, _, diffs = paired_differences(values)
    first = randomization_pvalues(diffs, 4000, seed=2)
    np.testing.assert_array_equal(first, randomization_pvalues(diffs, 4000, seed=2))
    assert np.all((first > 0) & (first <= 1))
    assert np.abs(first - paired_t_pvalues(diffs)).max() < 0.06
    assert np.isnan(randomization_pvalues(np.full((1, 4), np.nan), 10, seed=0)[0])  # no query: undefined


def test_paired_pvalues_dispatches_and_leaves_undefined_pairs_out(values: np.ndarray) -> None:
    pairs = np.array([[0, 1], [2, 3], [4, 4]])
    diffs = values[pairs[:, 0]] - values[pairs[:, 1]]
    np.testing.assert_array_equal(paired_pvalues(values, pairs, "t")[:2], paired_t_pvalues(diffs)[:2])
    np.testing.assert_array_equal(paired_pvalues(values, pairs, "wilcoxon")[:2], wilcoxon_pvalues(diffs)[:2])
    custom = paired_pvalues(values, pairs, sps.ttest_rel)
    np.testing.assert_allclose(custom[:2], paired_t_pvalues(diffs)[:2], rtol=1e-12)
    for test in ("t", "wilcoxon", "randomization", sps.ttest_rel):
        assert np.isnan(paired_pvalues(values, pairs, test, trials=50)[2])  # a run against itself: no difference
    with pytest.raises(ParameterError):
        paired_pvalues(values, pairs, "sign")
    with pytest.raises(ParameterError):
        paired_pvalues(values, pairs, "randomization", trials=0)
