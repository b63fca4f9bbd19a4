r"""Paired significance tests of runs against baselines (or of all pairs), with multiple-testing corrections.

Each comparison pairs two runs on the queries both have a value for (a query without a value, NaN, as ASL has for
queries without relevant documents, is left out of that pair only) and tests the per-query differences
:math:`d_q = s_{\text{run},q} - s_{\text{reference},q}` with a test of :mod:`ir_rarity.stats.paired`:

* ``"t"``: Student's paired t-test (Student, Biometrika 1908);
* ``"wilcoxon"``: Wilcoxon's signed-rank test (Wilcoxon, Biometrics Bulletin 1945);
* ``"randomization"``: Fisher's paired randomization test (Smucker, Allan & Carterette, CIKM 2007), seeded and
  vectorized over pairs and permutations.

Given the query ids, the queries are put in natural order of their ids
(:func:`ir_rarity.stats.scores.natural_order`) before any seeded draw, so a randomization p-value does not depend
on the order the data came in. All tests are two-sided. The p-values of one measure form one family, corrected by
:func:`ir_rarity.stats.corrections.correct` (statsmodels' ``multipletests``: ``bonferroni``, ``holm``,
``fdr_bh``...). A comparison ``(a, b)`` and its mirror ``(b, a)`` (two baselines compared with each other) test one
hypothesis, the same two-sided null: the family holds each unordered pair of runs once, tested in the orientation
listed first, and both rows carry its p-value, corrected p-value and decision. Every count is direction-aware:
for a lower-is-better measure (ASL) a run is *better* on a query where its value is lower.

Each comparison also gets its size (:mod:`ir_rarity.stats.effects`): the mean of the oriented differences
``diff`` with a paired bootstrap confidence interval over the queries (``diff low``, ``diff high``: percentile or
BCa, exactly :func:`scipy.stats.bootstrap` on the differences with ``rng=np.random.default_rng(seed)``, the
generator of each mean's interval) and Cohen's paired effect size ``d_z`` = mean / standard deviation (ddof 1) of
the differences, NaN when they are all equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.compare.names import TEST_NAMES
from ir_rarity.errors import ParameterError, did_you_mean
from ir_rarity.measures.parse import higher_is_better
from ir_rarity.stats import PairTest, correct, natural_order, paired_effects, paired_pvalues
from ir_rarity.stats.ties import differences

__all__ = ["TEST_NAMES", "compare_values", "comparison_pairs", "hypotheses"]


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
            raise ParameterError(f"baseline {b!r} is not one of the evaluated runs{did_you_mean(b, names)}")
    return [(n, str(b)) for b in dict.fromkeys(baselines) for n in names if n != str(b)]


def hypotheses(pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The correction family of some ``(run, reference)`` pairs: each unordered pair of runs once.

    ``(a, b)`` and ``(b, a)`` test one two-sided hypothesis (two baselines compared with each other appear both
    ways round), so the family holds the pair once, in the orientation listed first.

    Args:
        pairs: ``(k, 2)`` row indices ``(run, reference)``.

    Returns:
        ``(tested, hypothesis)``: the rows of ``pairs`` that are tested (first of each unordered pair, in order),
        and for every row the position in ``tested`` of its hypothesis.

    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    first: dict[tuple[int, int], int] = {}
    row_of = [first.setdefault((min(a, b), max(a, b)), k) for k, (a, b) in enumerate(pairs.tolist())]
    tested = np.array(sorted(set(row_of)), dtype=np.int64)
    return tested, np.searchsorted(tested, np.array(row_of, dtype=np.int64))


def compare_values(values: Mapping[Any, np.ndarray], names: Sequence[str], baselines: Sequence[str] | None = None,
                   *, all_pairs: bool = False, test: str | PairTest = "t", correction: str | None = None,
                   alpha: float = 0.05, trials: int = 10_000, seed: int | np.random.Generator | None = 0,
                   query_ids: Iterable[Any] | None = None, diff_level: float = 0.95,
                   diff_interval: str = "percentile", resamples: int = 10_000) -> pd.DataFrame:
    r"""Test runs against baselines (or all pairs) on every measure; one row per measure and pair.

    For each measure, each pair ``(run, reference)`` is tested on its common queries (see
    :func:`ir_rarity.stats.paired.paired_pvalues`) and the measure's p-values are corrected as one family
    (:func:`ir_rarity.stats.corrections.correct`) of the distinct unordered pairs (:func:`hypotheses`): with
    several baselines, ``(a, b)`` and its mirror ``(b, a)`` are one hypothesis, tested once (as listed first) and
    counted once; both rows carry its p-value. With the oriented differences
    :math:`\delta_q = \pm(s_{\text{run},q} - s_{\text{reference},q})` (the sign making positive mean *better*,
    lower for ASL), ``better`` and ``worse`` count the queries with :math:`\delta_q > 0` and :math:`\delta_q < 0`,
    and ``run_better`` says whether :math:`\sum_q \delta_q > 0`. With ``query_ids`` the queries are put in natural
    order of their ids before any seeded draw, so the result does not depend on the order the data came in;
    without them the matrices' columns are used in the order given (the caller orders them).

    ``diff`` (equal to ``difference``) is the mean of the :math:`\delta_q`; ``diff low`` and ``diff high`` its
    ``diff_level`` paired bootstrap interval over the common queries, exactly
    ``scipy.stats.bootstrap((delta,), np.mean, confidence_level=diff_level, n_resamples=resamples,
    method="percentile" | "BCa", rng=np.random.default_rng(seed))``; ``d_z`` is Cohen's :math:`\bar\delta / s_\delta`
    (``ddof=1``), NaN when all :math:`\delta_q` are equal (see :mod:`ir_rarity.stats.effects`).

    Args:
        values: Measure -> runs x queries matrix (rows in the order of ``names``).
        names: The runs.
        baselines: Runs to compare every other run with.
        all_pairs: Compare every pair of runs once instead.
        test: See :func:`ir_rarity.stats.paired.paired_pvalues`.
        correction: A :data:`~ir_rarity.stats.names.CORRECTIONS` method, or None.
        alpha: Significance level.
        trials: Random sign vectors of the randomization test.
        seed: Its seed.
        query_ids: The ids of the matrices' columns (e.g. ``Evaluation.query_ids``), or None.
        diff_level: Confidence level of the interval of the mean difference.
        diff_interval: ``"percentile"`` or ``"bca"``.
        resamples: Bootstrap resamples of the queries for that interval (seeded with ``seed``).

    Returns:
        Columns ``measure, run, reference, queries, better, worse, ties, difference`` (mean of the oriented
        differences), ``run_better, pvalue, pvalue_corrected, significant, diff, diff low, diff high, d_z``;
        ``attrs`` holds ``test``, ``correction``, ``alpha``, ``diff_level``, ``diff_interval``, ``resamples``
        and ``family`` (the hypotheses of each measure's family: the distinct unordered pairs).

    """
    pairs = comparison_pairs(names, baselines, all_pairs)
    position = {str(n): i for i, n in enumerate(names)}
    index = np.array([(position[a], position[b]) for a, b in pairs], dtype=np.int64).reshape(-1, 2)
    tested, hypothesis = hypotheses(index)  # a pair and its mirror: one hypothesis of the family
    parts = []
    order = None if query_ids is None else natural_order(query_ids)
    for measure, given in values.items():
        matrix = np.asarray(given, dtype=float)
        if order is not None:
            matrix = matrix[:, order]
        sign = 1.0 if higher_is_better(measure) else -1.0
        delta = sign * differences(matrix[index[:, 0]], matrix[index[:, 1]])  # a tie is exactly 0
        common = ~np.isnan(delta)
        n = common.sum(axis=1)
        family = paired_pvalues(matrix, index[tested], test, trials, seed)
        reject, corrected = correct(family, correction, alpha)
        p, reject, corrected = family[hypothesis], reject[hypothesis], corrected[hypothesis]
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_delta = np.where(common, delta, 0.0).sum(axis=1) / np.where(n > 0, n, np.nan)
        parts.append(pd.DataFrame({
            "measure": str(measure), "run": [a for a, _ in pairs], "reference": [b for _, b in pairs],
            "queries": n, "better": (delta > 0).sum(axis=1), "worse": (delta < 0).sum(axis=1),
            "ties": (delta == 0).sum(axis=1), "difference": mean_delta, "run_better": mean_delta > 0,
            "pvalue": p, "pvalue_corrected": corrected, "significant": reject,
            **paired_effects(delta, diff_level, resamples, diff_interval, seed), "diff": mean_delta,
        }))
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    frame.attrs.update({"test": test if isinstance(test, str) else getattr(test, "__name__", "custom"),
                        "correction": correction, "alpha": alpha, "diff_level": diff_level,
                        "diff_interval": diff_interval, "resamples": resamples, "family": len(tested)})
    return frame
