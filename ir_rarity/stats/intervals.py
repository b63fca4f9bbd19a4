r"""Confidence intervals of each run's mean over queries: a percentile bootstrap and Student's t-interval.

Both treat the queries as a sample from a population of queries and the run's score as their mean. With
``skip_undefined`` a run is averaged over its queries with a value (NaN left out), in every resample as in the
mean itself (as for Atomized Search Length).

* **Bootstrap** (Efron & Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall 1993, ch. 13):
  ``resamples`` draws of the queries with replacement, the same draws for every run (so that intervals of
  different runs are comparable and all runs' resampled means come from one gather per block); the interval is
  the :math:`(1 \pm \text{level}) / 2` quantiles (Hyndman & Fan's definition 7, "linear") of the resampled
  means. Each run's interval *is* ``scipy.stats.bootstrap((x,), np.mean, n_resamples=resamples,
  confidence_level=level, method="percentile", rng=np.random.default_rng(seed))`` on that run's values ``x``
  (``np.nanmean`` with ``skip_undefined``): the same generator, the same draws, the same sums and the same
  quantile arithmetic, equal to the last digit (scipy 1.15 and later; before, scipy took numpy's percentile,
  equal up to rounding).
* **t-interval** (Student, "The probable error of a mean", Biometrika 1908):
  :math:`\bar x \pm t_{(1 + \text{level})/2,\, n - 1}\, s / \sqrt n` over the run's ``n`` queries with a value.

The bootstrap draws query *positions*: given an array without ids it keeps the queries in the order given, and
the caller puts them in a canonical order first (:func:`ir_rarity.stats.scores.natural_order`; the campaign
table's :func:`ir_rarity.compare.intervals.add_intervals` does), so the same data in another column order gives
the same interval.
"""

from __future__ import annotations

import numpy as np

from ir_rarity.checks import check_draws
from ir_rarity.errors import ParameterError

__all__ = ["bootstrap_interval", "bootstrap_ratio_interval", "t_interval"]


_BLOCK = 2_000_000  # float64 elements of one block of resampled sums (16 MB)


def _check_level(level: float) -> float:
    if not 0.0 < float(level) < 1.0:
        raise ParameterError(f"the confidence level must be in (0, 1), got {level}")
    return float(level)


def _prepared(values: np.ndarray, skip_undefined: bool) -> tuple[np.ndarray, np.ndarray]:
    values = np.asarray(values, dtype=float)
    if values.ndim != 2:
        raise ParameterError("values must be a runs x queries matrix")
    defined = ~np.isnan(values) if skip_undefined else np.ones(values.shape, dtype=bool)
    return np.where(defined, values, 0.0), defined


def _resampled_means(filled: np.ndarray, defined: np.ndarray, drawn: np.ndarray, skip_undefined: bool
                     ) -> np.ndarray:
    """Runs x resamples means of the queries ``drawn`` (resamples x queries indices), one block at a time.

    Each mean is the sum of the drawn values along the last axis divided by their count, the arithmetic of
    ``np.mean`` (and ``np.nanmean``) over one resample, so that the means are scipy's to the last digit.
    """
    n_runs, n_queries = filled.shape
    means = np.empty((n_runs, len(drawn)))
    step = max(1, _BLOCK // max(n_queries * n_runs, 1))
    for start in range(0, len(drawn), step):
        block = drawn[start:start + step]
        with np.errstate(invalid="ignore", divide="ignore"):
            # np.take gives C order (fancy indexing would not), so each resample is summed as np.mean sums it
            count = np.take(defined, block, axis=1).sum(axis=-1) if skip_undefined else n_queries
            means[:, start:start + step] = np.take(filled, block, axis=1).sum(axis=-1) / count
    return means


def _quantiles(samples: np.ndarray, p: float) -> np.ndarray:
    r"""The ``p`` quantile of each row (Hyndman & Fan's definition 7), NaN left out; NaN for a row of NaN only.

    :math:`j + g = p\,n + 1 - p` (1-based) and the quantile is :math:`(1 - g)\, y_{(j)} + g\, y_{(j + 1)}`,
    in the arithmetic of :func:`scipy.stats.quantile` (which :func:`scipy.stats.bootstrap` uses).
    """
    y = np.sort(samples, axis=-1)  # NaN sort last
    n = (~np.isnan(y)).sum(axis=-1).astype(float)
    jg = p * n + (1.0 - p)
    j = jg // 1 - 1.0
    g = np.where(j < 0, 0.0, jg % 1)
    top = np.maximum(n - 1.0, 0.0)
    lo = np.clip(j, 0.0, top).astype(np.int64)[:, None]
    hi = np.clip(jg // 1, 0.0, top).astype(np.int64)[:, None]
    out = (1.0 - g) * np.take_along_axis(y, lo, axis=-1)[:, 0] + g * np.take_along_axis(y, hi, axis=-1)[:, 0]
    return np.where(n > 0, out, np.nan)


def bootstrap_interval(values: np.ndarray, level: float = 0.95, resamples: int = 10_000,
                       seed: int | np.random.Generator | None = 0, skip_undefined: bool = False
                       ) -> tuple[np.ndarray, np.ndarray]:
    r"""Percentile bootstrap interval of each run's mean, vectorized over runs and resamples.

    With :math:`\bar x^{*b}_r` the mean of run r over the b-th resample of the queries (drawn with replacement,
    the same draws for every run), the interval is :math:`[P_{(1 - \text{level})/2}, P_{(1 + \text{level})/2}]`
    of :math:`\{\bar x^{*b}_r\}_b` (Efron & Tibshirani, Chapman & Hall 1993, ch. 13).

    The draws are positions of the queries, taken in the order given: the caller puts the columns in a canonical
    order first (``values[:, natural_order(query_ids)]``, :func:`ir_rarity.stats.scores.natural_order`) for an
    interval that does not depend on the order the data came in.

    Args:
        values: Runs x queries per-query values, queries in the caller's (canonical) order.
        level: Confidence level, e.g. 0.95.
        resamples: Number of bootstrap resamples of the queries.
        seed: Seed or generator, made a generator by :func:`numpy.random.default_rng` (a generator given is
            used and advanced); the same seed gives the same intervals.
        skip_undefined: Average over the queries with a value (NaN left out) instead of all queries.

    Returns:
        ``(lower, upper)``, one bound per run. With ``skip_undefined`` a resample that draws only queries
        without a value has no mean and is left out of the quantiles (scipy's interval would be NaN); NaN for a
        run whose every resample has no value.

    Raises:
        ParameterError: A level outside (0, 1), fewer than 2 resamples or more than a draw may take
            (:func:`~ir_rarity.checks.check_draws`), or values that are not a matrix.

    """
    level = _check_level(level)
    filled, defined = _prepared(values, skip_undefined)
    n_runs, n_queries = filled.shape  # the draw: resamples x queries positions, then resamples x runs means
    resamples = check_draws(resamples, "resamples", max(n_queries, n_runs), minimum=2, each="queries")
    if n_queries == 0:
        return np.full(n_runs, np.nan), np.full(n_runs, np.nan)
    rng = np.random.default_rng(seed)  # the one generator: scipy.stats.bootstrap(..., rng=default_rng(seed))
    drawn = rng.integers(0, n_queries, size=(resamples, n_queries))  # the draws of scipy.stats.bootstrap
    means = _resampled_means(filled, defined, drawn, skip_undefined)
    tail = (1.0 - level) / 2.0
    with np.errstate(invalid="ignore"):
        return _quantiles(means, tail), _quantiles(means, 1.0 - tail)


def bootstrap_ratio_interval(numerator: np.ndarray, denominator: np.ndarray, level: float = 0.95,
                             resamples: int = 10_000, seed: int | np.random.Generator | None = 0
                             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Each run's ratio of two means over the same queries, :math:`\bar x_r / \bar y_r`, with a bootstrap interval.

    The queries are drawn as in :func:`bootstrap_interval` (the same generator and draws, the same for every run
    and for both measures: a paired resample); each resample's ratio is :math:`\bar x^{*b}_r / \bar y^{*b}_r`
    and the interval is its :math:`(1 \pm \text{level})/2` percentiles (Efron & Tibshirani, *An Introduction to
    the Bootstrap*, Chapman & Hall 1993, ch. 13). It is ``scipy.stats.bootstrap((x, y), lambda x, y:
    x.mean(-1) / y.mean(-1), paired=True, method="percentile")`` per run. A resample whose denominator mean is 0
    has no ratio and is left out.

    Args:
        numerator: Runs x queries values of the numerator measure (e.g. P_rare@100), queries in canonical order.
        denominator: The same runs and queries of the denominator measure (e.g. P@100).
        level: Confidence level, e.g. 0.95.
        resamples: Number of bootstrap resamples of the queries.
        seed: Seed or generator (:func:`numpy.random.default_rng`).

    Returns:
        ``(ratio, lower, upper)`` per run; NaN where the denominator's mean is 0.

    Raises:
        ParameterError: matrices of different shapes, a level outside (0, 1) or a bad number of resamples.

    """
    level = _check_level(level)
    top, defined = _prepared(numerator, False)
    bottom, _ = _prepared(denominator, False)
    if top.shape != bottom.shape:
        raise ParameterError(f"numerator and denominator differ in shape: {top.shape} and {bottom.shape}")
    n_runs, n_queries = top.shape
    resamples = check_draws(resamples, "resamples", max(n_queries, n_runs), minimum=2, each="queries")
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(bottom.sum(axis=1) != 0, top.sum(axis=1) / bottom.sum(axis=1), np.nan)
    if n_queries == 0:
        return ratio, np.full(n_runs, np.nan), np.full(n_runs, np.nan)
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, n_queries, size=(resamples, n_queries))
    upper_means = _resampled_means(top, defined, drawn, False)
    lower_means = _resampled_means(bottom, defined, drawn, False)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = np.where(lower_means != 0, upper_means / lower_means, np.nan)
    tail = (1.0 - level) / 2.0
    with np.errstate(invalid="ignore"):
        return ratio, _quantiles(ratios, tail), _quantiles(ratios, 1.0 - tail)


def t_interval(values: np.ndarray, level: float = 0.95, skip_undefined: bool = False
               ) -> tuple[np.ndarray, np.ndarray]:
    r"""Student's t-interval :math:`\bar x \pm t_{(1+\text{level})/2,\,n-1}\, s/\sqrt n` of each run's mean.

    ``s`` is the sample standard deviation of the run's ``n`` values (Student, Biometrika 1908), as
    :func:`scipy.stats.t.interval` with the standard error :func:`scipy.stats.sem`.

    Args:
        values: Runs x queries per-query values.
        level: Confidence level, e.g. 0.95.
        skip_undefined: Use the queries with a value (NaN left out) instead of all queries.

    Returns:
        ``(lower, upper)`` per run; NaN for a run with fewer than two queries with a value.

    Raises:
        ParameterError: A level outside (0, 1), or values that are not a matrix.

    """
    from scipy import stats as sps  # here: importing ir_rarity.stats loads no scipy

    level = _check_level(level)
    filled, defined = _prepared(values, skip_undefined)
    n = defined.sum(axis=1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = filled.sum(axis=1) / n
        sd = np.sqrt(np.where(defined, (filled - mean[:, None]) ** 2, 0.0).sum(axis=1) / (n - 1.0))
        half = sps.t.ppf((1.0 + level) / 2.0, np.maximum(n - 1.0, 1.0)) * sd / np.sqrt(n)
    half = np.where(n >= 2, half, np.nan)
    return mean - half, mean + half
