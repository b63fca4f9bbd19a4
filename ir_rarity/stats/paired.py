r"""Significance tests of the difference between two runs, vectorized over many pairs of runs.

Paired tests compare two runs on the queries both have a value for (a query without a value, NaN, as ASL has
for queries without relevant documents, is left out of that pair only), through the per-query differences
:math:`d_q = s_{a,q} - s_{b,q}`:

* :func:`paired_t_pvalues`: Student's paired t-test (Student, "The probable error of a mean", Biometrika 1908);
* :func:`wilcoxon_pvalues`: Wilcoxon's signed-rank test (Wilcoxon, "Individual comparisons by ranking methods",
  Biometrics Bulletin 1945);
* :func:`randomization_pvalues`: Fisher's paired randomization (sign-flip) test (Fisher, *The Design of
  Experiments*, Oliver & Boyd 1935), as Smucker, Allan & Carterette ("A comparison of statistical significance
  tests for information retrieval evaluation", CIKM 2007) apply it;
* :func:`paired_pvalues`: any of them (or a scipy-like callable) for chosen pairs of rows of a runs x queries
  matrix.

:func:`two_sample_t_pvalues` is the unpaired pooled-variance two-sample t-test for every pair of runs, the test
of the discriminative power analysis of Türkmen, Lease & Kutlu (ECIR 2023, Section 4.3). Every test is
two-sided.

The randomization test draws one sign per query *position*: these functions receive arrays without ids and keep
the queries in the order given, so the caller puts them in a canonical order first
(:func:`ir_rarity.stats.scores.natural_order`, as :func:`ir_rarity.compare.significance.compare_values` and
:func:`ir_rarity.meta.discriminative.discriminative_power` do) for p-values that do not depend on the order the
data came in.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, TypeAlias

import numpy as np

from ir_rarity.checks import check_draws
from ir_rarity.errors import ParameterError
from ir_rarity.stats.names import TESTS
from ir_rarity.stats.scores import BLOCK_ELEMENTS, group_moments
from ir_rarity.stats.ties import differences

__all__ = ["PairTest", "paired_differences", "paired_pvalues", "paired_t_pvalues", "randomization_pvalues",
           "two_sample_t_pvalues", "wilcoxon_pvalues"]

PairTest: TypeAlias = Callable[[np.ndarray, np.ndarray], Any]
"""A custom test: ``test(run_values, reference_values)`` returning ``(statistic, pvalue)`` as scipy's tests do."""


def paired_differences(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every unordered pair of rows of a runs x queries matrix and its per-query differences.

    Args:
        values: Runs x queries scores.

    Returns:
        ``(i, j, diffs)``: the pairs ``i < j`` in :func:`numpy.triu_indices` order and the pairs x queries
        differences ``values[i] - values[j]`` (NaN where either run has no value; exactly 0 where the two values
        tie, :func:`ir_rarity.stats.ties.differences`).

    """
    i, j = np.triu_indices(values.shape[0], k=1)
    return i, j, differences(values[i], values[j])


def _two_sided_t_pvalue(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    """Two-sided p-value ``2 * P(T_df > |t|)``; NaN where ``t`` is NaN or ``df < 1``."""
    from scipy import stats as sps  # here: importing ir_rarity.stats loads no scipy

    p = np.full(t.shape, np.nan)
    ok = ~np.isnan(t) & (df >= 1)
    p[ok] = 2.0 * sps.t.sf(np.abs(t[ok]), df[ok])
    return p


def paired_t_pvalues(diffs: np.ndarray) -> np.ndarray:
    r"""Two-sided paired t-test of every row of a pairs x queries matrix of per-query differences.

    For a pair with differences :math:`d_q = s_{a,q} - s_{b,q}` on its :math:`m` queries without NaN,
    :math:`t = \bar d / \sqrt{s_d^2 / m}` on :math:`m - 1` degrees of freedom (Student, Biometrika 1908; as
    :func:`scipy.stats.ttest_rel`, which it calls when no value is missing). A query with NaN is left out of its
    pair only.

    Args:
        diffs: Pairs x queries per-query differences (NaN where either run has no value).

    Returns:
        One two-sided p-value per pair; NaN where the test is undefined (zero variance, fewer than two queries).

    """
    from scipy import stats as sps  # here: importing ir_rarity.stats loads no scipy

    diffs = np.asarray(diffs, dtype=float)
    if not np.isnan(diffs).any():
        with np.errstate(divide="ignore", invalid="ignore"):
            res = sps.ttest_1samp(diffs, 0.0, axis=1)
        return np.asarray(res.pvalue, dtype=float).reshape(-1)
    # With NaN, the same statistic on each pair's complete queries: t = mean(d) / sqrt(var(d) / m).
    valid = ~np.isnan(diffs)
    m = valid.sum(axis=1).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(valid, diffs, 0.0).sum(axis=1) / m
        var = np.where(valid, (diffs - mean[:, None]) ** 2, 0.0).sum(axis=1) / (m - 1.0)
        t = mean / np.sqrt(var / m)
    return _two_sided_t_pvalue(t, m - 1.0)


def two_sample_t_pvalues(values: np.ndarray) -> np.ndarray:
    r"""Pooled-variance two-sample t-test of every pair of rows ``i < j`` of a runs x queries matrix.

    :math:`t = (\bar x_i - \bar x_j) / \sqrt{s_p^2 (1/n_i + 1/n_j)}` with
    :math:`s_p^2 = (SS_i + SS_j) / (n_i + n_j - 2)` on :math:`n_i + n_j - 2` degrees of freedom (Student,
    Biometrika 1908): the queries are treated as two independent samples, unpaired. Each run's NaN scores are
    dropped on their own (the statistic of :func:`scipy.stats.ttest_ind` with ``nan_policy="omit"``, computed
    from per-run moments instead of slice by slice). With two groups Tukey's HSD is this test
    (:func:`ir_rarity.stats.hsd.paper_hsd`).

    Args:
        values: Runs x queries scores.

    Returns:
        One two-sided p-value per pair in :func:`numpy.triu_indices` order; NaN where undefined.

    """
    from scipy import stats as sps  # here: importing ir_rarity.stats loads no scipy

    values = np.asarray(values, dtype=float)
    i, j = np.triu_indices(values.shape[0], k=1)
    if not np.isnan(values).any():
        with np.errstate(divide="ignore", invalid="ignore"):
            res = sps.ttest_ind(values[i], values[j], axis=1, equal_var=True)
        return np.asarray(res.pvalue, dtype=float)
    n, mean, ss = group_moments(values)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = n[i] + n[j] - 2.0
        pooled = (ss[i] + ss[j]) / df
        t = (mean[i] - mean[j]) / np.sqrt(pooled * (1.0 / n[i] + 1.0 / n[j]))
    return _two_sided_t_pvalue(t, df)


def randomization_pvalues(diffs: np.ndarray, trials: int = 10_000,
                          seed: int | np.random.Generator | None = None) -> np.ndarray:
    r"""Two-sided paired randomization (sign-flip) test of every row of a pairs x queries difference matrix.

    Fisher's randomization test (Oliver & Boyd 1935) as Smucker, Allan & Carterette (CIKM 2007) apply it to IR:
    under the null hypothesis the two runs are exchangeable on every query, so each difference :math:`d_q` may flip
    its sign.
    With ``trials`` random sign vectors :math:`e` (one matrix shared by all pairs, so a seed fixes every p-value),
    :math:`p = (\#\{e : |\sum_q e_q d_q| \ge |\sum_q d_q|\} + 1) / (\text{trials} + 1)`. A query with NaN
    contributes nothing to its pair's sums (it is left out of that pair only). Computed as one matrix product per
    block of pairs.

    The signs are drawn by query position, in the order given: the caller puts the queries in a canonical order
    first (:func:`ir_rarity.stats.scores.natural_order` of their ids) for p-values that do not depend on the order
    the data came in.

    Args:
        diffs: Pairs x queries per-query differences (NaN where either run has no value), queries in the
            caller's (canonical) order.
        trials: Number of random sign vectors.
        seed: Seed or :class:`numpy.random.Generator`.

    Returns:
        One p-value per pair (NaN for a pair without any query).

    Raises:
        ParameterError: fewer than 1 trial, or more than a draw may take (:func:`~ir_rarity.checks.check_draws`).

    """
    diffs = np.asarray(diffs, dtype=float)
    trials = check_draws(trials, "trials", diffs.shape[1], each="queries")  # the trials x queries signs
    rng = np.random.default_rng(seed)
    signs = rng.integers(0, 2, size=(trials, diffs.shape[1])).astype(float) * 2.0 - 1.0
    valid = ~np.isnan(diffs)
    counts = valid.sum(axis=1)
    diffs = np.where(valid, diffs, 0.0)  # a dropped query contributes nothing to any signed sum
    pvals = np.full(diffs.shape[0], np.nan)
    chunk = max(1, BLOCK_ELEMENTS // max(trials, 1))
    for start in range(0, diffs.shape[0], chunk):
        block = diffs[start : start + chunk]
        observed = np.abs(block.sum(axis=1))
        permuted = np.abs(block @ signs.T)  # pairs x trials signed sums (same ordering as the means)
        # Tolerance so that sign patterns reproducing |observed| exactly are not lost to rounding.
        tol = 1e-10 * np.abs(block).sum(axis=1)
        hits = (permuted >= (observed - tol)[:, None]).sum(axis=1)
        pvals[start : start + chunk] = (hits + 1.0) / (trials + 1.0)
    pvals[counts == 0] = np.nan
    return pvals


def _wilcoxon(diffs: np.ndarray) -> float:
    from scipy import stats as sps  # here: importing ir_rarity.stats loads no scipy

    if len(diffs) == 0 or not np.any(diffs):
        return float("nan")  # no query differs: the test is undefined
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(sps.wilcoxon(diffs).pvalue)


def wilcoxon_pvalues(diffs: np.ndarray) -> np.ndarray:
    r"""Two-sided Wilcoxon signed-rank test of every row of a pairs x queries difference matrix.

    The non-zero differences are ranked by :math:`|d_q|` (ties get their average rank) and
    :math:`W = \min(W^+, W^-)`, the smaller of the rank sums of the positive and of the negative differences, is
    compared with its null distribution (Wilcoxon, Biometrics Bulletin 1945), by :func:`scipy.stats.wilcoxon`
    (exact for small samples without ties, the normal approximation otherwise). A query with NaN is left out of
    its pair only.

    Args:
        diffs: Pairs x queries per-query differences (NaN where either run has no value).

    Returns:
        One p-value per pair; NaN for a pair without a query or without any non-zero difference.

    """
    diffs = np.asarray(diffs, dtype=float)
    return np.array([_wilcoxon(row[~np.isnan(row)]) for row in diffs], dtype=float)


def _custom_pvalues(test: PairTest, values: np.ndarray, pairs: np.ndarray, common: np.ndarray) -> np.ndarray:
    """p-values of a scipy-like callable, one call per pair on its common queries."""
    return np.array([float(test(values[a][c], values[b][c])[1]) if c.sum() > 1 else np.nan
                     for (a, b), c in zip(pairs, common, strict=True)], dtype=float)


def paired_pvalues(values: np.ndarray, pairs: np.ndarray, test: str | PairTest = "t", trials: int = 10_000,
                   seed: int | np.random.Generator | None = 0) -> np.ndarray:
    r"""Two-sided p-value of each pair of rows of a runs x queries matrix, on the queries both have a value for.

    For the pair ``(a, b)`` the test reads :math:`d_q = s_{a,q} - s_{b,q}` on the common queries: ``"t"`` is
    :func:`paired_t_pvalues` (Student, Biometrika 1908), ``"wilcoxon"`` :func:`wilcoxon_pvalues` (Wilcoxon,
    Biometrics Bulletin 1945) and ``"randomization"`` :func:`randomization_pvalues` (Smucker, Allan & Carterette,
    CIKM 2007); a callable is given the two runs' values on those queries.

    Args:
        values: Runs x queries per-query values (NaN: no value), queries in the caller's (canonical) order: the
            randomization test draws its signs by position (see :func:`randomization_pvalues`).
        pairs: ``(k, 2)`` row indices ``(run, reference)``.
        test: ``"t"``, ``"wilcoxon"``, ``"randomization"`` or a callable like :func:`scipy.stats.ttest_rel`.
        trials: Random sign vectors of the randomization test.
        seed: Seed of the randomization test (the same seed gives the same p-values).

    Returns:
        ``k`` p-values; NaN where the test is undefined (fewer than two common queries, no difference at all).

    Raises:
        ParameterError: An unknown test, or ``trials < 1`` for the randomization test.

    """
    values = np.asarray(values, dtype=float)
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    diffs = differences(values[pairs[:, 0]], values[pairs[:, 1]])  # a tie is a zero difference
    common = ~np.isnan(diffs)
    if test == "t":
        p = paired_t_pvalues(diffs)
    elif test == "randomization":
        if trials < 1:
            raise ParameterError(f"trials must be >= 1, got {trials}")
        p = randomization_pvalues(diffs, trials, seed)
    elif test == "wilcoxon":
        p = wilcoxon_pvalues(diffs)
    elif callable(test):
        p = _custom_pvalues(test, values, pairs, common)
    else:
        raise ParameterError(f"unknown test {test!r}; choose from {', '.join(TESTS)}")
    p = np.asarray(p, dtype=float)
    p[common.sum(axis=1) < 2] = np.nan
    p[~np.any(common & (diffs != 0), axis=1)] = np.nan  # no difference at all: undefined for every test alike
    return p
