"""From a runs x queries matrix to one value per run, as each measure's own aggregator would give it."""

from __future__ import annotations

import math

import ir_measures
import numpy as np
from ir_measures import Measure

from ir_rarity.measures.base import ExactMeanAgg

__all__ = ["aggregate", "exact_means", "exact_sums", "skips_undefined"]


FSUM_ROWS = 64
"""Fewer rows than this are summed by :func:`math.fsum` alone (the vectorized pass would not pay for itself)."""

_BLOCK_VALUES = 1 << 16
"""Values of a block of rows :func:`_proven_sums` works on at once (columns laid out contiguously)."""


def exact_sums(values: np.ndarray) -> np.ndarray:
    r"""Row sums of a 2-D array, each exactly rounded (as :func:`math.fsum`, Shewchuk's algorithm); NaN in a row: NaN.

    The sum of a row is the float nearest to the exact sum of its values, so rows holding the same values in
    any order get the same float (a left-to-right or pairwise sum depends on the order).

    Rows are first summed all at once in double-double arithmetic (Sum2 of Ogita, Rump & Oishi, SIAM J. Sci.
    Comput. 2005: error-free TwoSum steps, their errors added up). Let :math:`r = fl(s + \sigma)` and
    :math:`s + \sigma = r + t` exactly; the exact sum lies within :math:`B = 2 (n u)^2 \sum |v| + n\,\eta` of
    :math:`s + \sigma` (u the unit roundoff, :math:`\eta` the smallest subnormal). r is the exactly rounded sum
    when :math:`|t| + B` is below half the spacing of the floats next to r, and when the errors were added up
    without rounding (:math:`s + \sigma` is then the exact sum, r its rounding, ties to even as fsum). The few
    rows where neither holds (a sum within B of a rounding boundary, zeros, infinities, NaN) are summed by
    :func:`math.fsum`. Either way the float is the same (tested against fsum and exact fractions).
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"exact_sums expects a 2-D array, got {values.ndim}-D")
    n_rows, n_cols = values.shape
    if n_rows < FSUM_ROWS or n_cols < 2:
        return _fsums(values)
    out = np.empty(n_rows)
    step = max(1, _BLOCK_VALUES // n_cols)
    for first in range(0, n_rows, step):
        block = values[first:first + step]
        sums, proven = _proven_sums(np.ascontiguousarray(block.T))
        sums[~proven] = _fsums(block[~proven])
        out[first:first + step] = sums
    return out


def _fsums(values: np.ndarray) -> np.ndarray:
    return np.fromiter(map(math.fsum, values.tolist()), dtype=np.float64, count=values.shape[0])


def _proven_sums(columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sum2 of each column of ``columns`` (``(n, rows)``), and whether it is shown to be the exactly rounded sum."""
    n = columns.shape[0]
    s = columns[0].copy()
    sigma = np.zeros_like(s)
    inexact = np.zeros(s.shape, dtype=bool)  # whether adding up the errors rounded
    with np.errstate(over="ignore", invalid="ignore"):
        for p in columns[1:]:  # TwoSum(s, p): t + q == s + p exactly
            t = s + p
            z = t - s
            q = (s - (t - z)) + (p - z)
            added = sigma + q
            back = added - sigma
            inexact |= ((sigma - (added - back)) + (q - back)) != 0  # TwoSum's error of that addition
            sigma = added
            s = t
        r = s + sigma
        z = r - s
        tail = (s - (r - z)) + (sigma - z)  # r + tail == s + sigma exactly
        u = np.finfo(np.float64).eps / 2
        bound = 2.0 * (n * u) ** 2 * np.abs(columns).sum(axis=0) + n * np.finfo(np.float64).smallest_subnormal
        magnitude = np.abs(r)
        half = np.spacing(magnitude) / 2
        half[np.frexp(magnitude)[0] == 0.5] /= 2  # below a power of two the floats are twice as dense
        # errors added up exactly: s + sigma is the exact sum, and r its rounding (ties to even, as fsum)
        proven = ((np.abs(tail) + bound < half) | ~inexact) & (r != 0) & np.isfinite(r)
    return r, proven


def exact_means(values: np.ndarray, skipna: bool = False) -> np.ndarray:
    """Row means ``(1 / n) * sum_q v_q`` of a 2-D array, the sum exactly rounded (:func:`exact_sums`).

    Equal multisets of values give equal means, whatever their order. With ``skipna`` the mean is over each
    row's non-NaN values (NaN for a row without any); otherwise a NaN value makes the mean NaN.
    """
    values = np.asarray(values, dtype=np.float64)
    missing = np.isnan(values)
    counts = (~missing).sum(axis=1) if skipna else np.full(values.shape[0], values.shape[1])
    with np.errstate(invalid="ignore", divide="ignore"):
        means = exact_sums(np.where(missing, 0.0, values) if skipna else values) / counts
    means[counts == 0] = np.nan
    return means


def skips_undefined(measure: Measure) -> bool:
    """Whether the measure's mean leaves out queries without a value (NaN), e.g. ASL without relevant documents.

    ir_rarity measures declare it with ``SKIPS_UNDEFINED``; ir_measures' own measures never skip.
    """
    return bool(getattr(measure, "SKIPS_UNDEFINED", False))


def aggregate(measure: Measure, values: np.ndarray) -> np.ndarray:
    """Per-run aggregate of an ``(n_runs, n_queries)`` matrix, with the measure's aggregator semantics.

    A mean over all queries (ir_measures' ``MeanAgg``); the mean over the queries that have a value for measures
    that :func:`skip undefined queries <skips_undefined>` (NaN for a run with none); a sum for ir_measures'
    ``SumAgg`` (``NumRet``...). Any other aggregator is applied value by value.

    Sums are exactly rounded (:func:`exact_sums`): two runs whose per-query values are the same multiset get the
    same mean, whatever the order of their queries, so ties between runs are exact (see
    :mod:`ir_rarity.stats.ties` for means that are equal through different values). ir_rarity's measures give
    the same number through the ``ir_measures`` command and ``pt.Experiment``, since their aggregator
    (:class:`ExactMeanAgg`) sums the same way; ir_measures' own aggregator adds left to right, which can differ
    in the last bit.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.shape[1] == 0:
        return np.full(values.shape[0], np.nan)
    if skips_undefined(measure):
        return exact_means(values, skipna=True)
    aggregator = measure.aggregator()
    if type(aggregator) in (ir_measures.measures.base.MeanAgg, ExactMeanAgg):
        return exact_means(values)
    if type(aggregator) is ir_measures.measures.base.SumAgg:
        return exact_sums(values)
    out = np.empty(values.shape[0])
    for r in range(values.shape[0]):  # an aggregator we do not know: its own add/result, per run
        agg = measure.aggregator()
        for v in values[r]:
            agg.add(float(v))
        out[r] = agg.result()
    return out
