r"""Paired significance tests of runs against baselines (or of all pairs), with multiple-testing corrections.

Each comparison pairs two runs on the queries both have a value for (a query without a value, NaN, as ASL has for
queries without relevant documents, is left out of that pair only) and tests the per-query differences
:math:`d_q = s_{\text{run},q} - s_{\text{reference},q}`:

* ``"t"``: Student's paired t-test (:func:`scipy.stats.ttest_rel`);
* ``"wilcoxon"``: Wilcoxon's signed-rank test (:func:`scipy.stats.wilcoxon`);
* ``"randomization"``: Fisher's paired randomization test (Smucker, Allan & Carterette, CIKM 2007), seeded and
  vectorized over pairs and permutations (:func:`ir_rarity.meta.stats.randomization_pvalues`).

All tests are two-sided. The p-values of one measure form one family, corrected with statsmodels'
:func:`~statsmodels.stats.multitest.multipletests` (``bonferroni``, ``holm``, ``fdr_bh``...). Every count is
direction-aware: for a lower-is-better measure (ASL) a run is *better* on a query where its value is lower.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from ir_rarity.compare.names import CORRECTIONS, TEST_NAMES, TESTS
from ir_rarity.errors import ParameterError
from ir_rarity.measures.parse import higher_is_better
from ir_rarity.meta.stats import paired_t_pvalues, randomization_pvalues

__all__ = ["CORRECTIONS", "TESTS", "TEST_NAMES", "compare_values", "comparison_pairs", "correct", "paired_pvalues"]


PairTest = Callable[[np.ndarray, np.ndarray], Any]
"""A custom test: ``test(run_values, reference_values)`` returning ``(statistic, pvalue)`` as scipy's tests do."""


def comparison_pairs(names: Sequence[str], baselines: Sequence[str] | None = None,
                     all_pairs: bool = False) -> list[tuple[str, str]]:
    """The ``(run, reference)`` pairs to test: every other run against each baseline, or every unordered pair.

    Args:
        names: The runs.
        baselines: Runs every other run is compared with.
        all_pairs: Compare every pair once (``(names[i], names[j])`` for ``i < j``).

    Raises:
        ParameterError: no baseline and not ``all_pairs``, both given, or a baseline that is not a run.

    """
    names = [str(n) for n in names]
    if all_pairs:
        if baselines:
            raise ParameterError("give baselines or all_pairs, not both")
        return [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
    if not baselines:
        raise ParameterError("nothing to compare: give a baseline or all_pairs=True")
    known = set(names)
    for b in baselines:
        if str(b) not in known:
            raise ParameterError(f"baseline {b!r} is not one of the evaluated runs")
    return [(n, str(b)) for b in dict.fromkeys(baselines) for n in names if n != str(b)]


def _wilcoxon(diffs: np.ndarray) -> float:
    if len(diffs) == 0 or not np.any(diffs):
        return float("nan")  # no query differs: the test is undefined
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(sps.wilcoxon(diffs).pvalue)


def paired_pvalues(values: np.ndarray, pairs: np.ndarray, test: str | PairTest = "t", trials: int = 10_000,
                   seed: int | np.random.Generator | None = 0) -> np.ndarray:
    """Two-sided p-value of each pair of rows of a runs x queries matrix, on the queries both have a value for.

    Args:
        values: Runs x queries per-query values (NaN: no value).
        pairs: ``(k, 2)`` row indices ``(run, reference)``.
        test: ``"t"``, ``"wilcoxon"``, ``"randomization"`` or a callable like :func:`scipy.stats.ttest_rel`.
        trials: Random sign vectors of the randomization test.
        seed: Seed of the randomization test (the same seed gives the same p-values).

    Returns:
        ``k`` p-values; NaN where the test is undefined (fewer than two common queries, no difference at all).

    """
    values = np.asarray(values, dtype=float)
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    diffs = values[pairs[:, 0]] - values[pairs[:, 1]]
    common = ~np.isnan(diffs)
    if test == "t":
        p = paired_t_pvalues(diffs)
    elif test == "randomization":
        if trials < 1:
            raise ParameterError(f"trials must be >= 1, got {trials}")
        p = randomization_pvalues(diffs, trials, seed)
    elif test == "wilcoxon":
        p = np.array([_wilcoxon(d[c]) for d, c in zip(diffs, common, strict=True)])
    elif callable(test):
        p = np.array([float(test(values[a][c], values[b][c])[1]) if c.sum() > 1 else np.nan
                      for (a, b), c in zip(pairs, common, strict=True)])
    else:
        raise ParameterError(f"unknown test {test!r}; choose from {', '.join(TESTS)}")
    p = np.asarray(p, dtype=float)
    p[common.sum(axis=1) < 2] = np.nan
    p[~np.any(common & (diffs != 0), axis=1)] = np.nan  # no difference at all: undefined for every test alike
    return p


def correct(pvalues: np.ndarray, method: str | None, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Corrected p-values and rejections of one family, with statsmodels' ``multipletests``.

    Undefined p-values (NaN) are not part of the family: they stay NaN and are not rejected.

    Args:
        pvalues: The family's p-values.
        method: A :data:`CORRECTIONS` name, or None (the p-values as they are, rejected below ``alpha``).
        alpha: The family-wise error rate (or false discovery rate, for ``fdr_*``).

    Returns:
        ``(rejected, corrected p-values)``.

    """
    if not 0.0 < alpha < 1.0:
        raise ParameterError(f"alpha must be in (0, 1), got {alpha}")
    pvalues = np.asarray(pvalues, dtype=float)
    defined = ~np.isnan(pvalues)
    reject = np.zeros(len(pvalues), dtype=bool)
    if method is None:
        reject[defined] = pvalues[defined] < alpha
        return reject, pvalues.copy()
    if method not in CORRECTIONS:
        raise ParameterError(f"unknown correction {method!r}; choose from {', '.join(CORRECTIONS)}")
    corrected = np.full(len(pvalues), np.nan)
    if defined.any():
        try:
            from statsmodels.stats.multitest import multipletests
        except ImportError:
            raise ParameterError("corrections need statsmodels: pip install 'ir_rarity[meta]'") from None

        rejected, adjusted, _, _ = multipletests(pvalues[defined], alpha=alpha, method=method)
        reject[defined], corrected[defined] = rejected, adjusted
    return reject, corrected


def compare_values(values: Mapping[Any, np.ndarray], names: Sequence[str], baselines: Sequence[str] | None = None,
                   *, all_pairs: bool = False, test: str | PairTest = "t", correction: str | None = None,
                   alpha: float = 0.05, trials: int = 10_000, seed: int | np.random.Generator | None = 0
                   ) -> pd.DataFrame:
    r"""Test runs against baselines (or all pairs) on every measure; one row per measure and pair.

    For each measure, each pair ``(run, reference)`` is tested on its common queries (see :func:`paired_pvalues`)
    and the measure's p-values are corrected as one family (:func:`correct`). With the oriented differences
    :math:`\delta_q = \pm(s_{\text{run},q} - s_{\text{reference},q})` (the sign making positive mean *better*,
    lower for ASL), ``better`` and ``worse`` count the queries with :math:`\delta_q > 0` and :math:`\delta_q < 0`,
    and ``run_better`` says whether :math:`\sum_q \delta_q > 0`.

    Args:
        values: Measure -> runs x queries matrix (rows in the order of ``names``).
        names: The runs.
        baselines: Runs to compare every other run with.
        all_pairs: Compare every pair of runs once instead.
        test: See :func:`paired_pvalues`.
        correction: A :data:`CORRECTIONS` method, or None.
        alpha: Significance level.
        trials: Random sign vectors of the randomization test.
        seed: Its seed.

    Returns:
        Columns ``measure, run, reference, queries, better, worse, ties, difference`` (mean of the oriented
        differences), ``run_better, pvalue, pvalue_corrected, significant``; ``attrs`` holds ``test``,
        ``correction`` and ``alpha``.

    """
    pairs = comparison_pairs(names, baselines, all_pairs)
    position = {str(n): i for i, n in enumerate(names)}
    index = np.array([(position[a], position[b]) for a, b in pairs], dtype=np.int64).reshape(-1, 2)
    parts = []
    for measure, matrix in values.items():
        matrix = np.asarray(matrix, dtype=float)
        sign = 1.0 if higher_is_better(measure) else -1.0
        delta = sign * (matrix[index[:, 0]] - matrix[index[:, 1]])
        common = ~np.isnan(delta)
        n = common.sum(axis=1)
        p = paired_pvalues(matrix, index, test, trials, seed)
        reject, corrected = correct(p, correction, alpha)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_delta = np.where(common, delta, 0.0).sum(axis=1) / np.where(n > 0, n, np.nan)
        parts.append(pd.DataFrame({
            "measure": str(measure), "run": [a for a, _ in pairs], "reference": [b for _, b in pairs],
            "queries": n, "better": (delta > 0).sum(axis=1), "worse": (delta < 0).sum(axis=1),
            "ties": (delta == 0).sum(axis=1), "difference": mean_delta, "run_better": mean_delta > 0,
            "pvalue": p, "pvalue_corrected": corrected, "significant": reject,
        }))
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    frame.attrs.update({"test": test if isinstance(test, str) else getattr(test, "__name__", "custom"),
                        "correction": correction, "alpha": alpha})
    return frame
