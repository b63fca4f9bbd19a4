r"""Confidence intervals of each run's mean over queries: a percentile bootstrap and Student's t-interval.

Both treat the queries as a sample from a population of queries and the run's score as their mean. A measure
that :func:`skips undefined queries <ir_rarity.engine.aggregate.skips_undefined>` (ASL) is averaged over the
queries with a value, in every resample as in the table.

* **Bootstrap** (Efron & Tibshirani, *An Introduction to the Bootstrap*, 1993, ch. 13): ``resamples`` draws of
  the queries with replacement, the same draws for every run (so that intervals of different runs are comparable
  and one matrix product gives all resampled means at once); the interval is the
  :math:`(1 \pm \text{level}) / 2` percentiles of the resampled means. Its draws are those of
  :func:`scipy.stats.bootstrap` with ``method="percentile"`` and the same generator, so the two agree.
* **t-interval**: :math:`\bar x \pm t_{(1 + \text{level})/2,\, n - 1}\, s / \sqrt n` over the run's ``n`` queries
  with a value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from ir_rarity.compare.names import INTERVALS
from ir_rarity.engine.aggregate import skips_undefined
from ir_rarity.errors import ParameterError

__all__ = ["INTERVALS", "add_intervals", "bootstrap_interval", "interval_columns", "t_interval"]


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


def bootstrap_interval(values: np.ndarray, level: float = 0.95, resamples: int = 10_000,
                       seed: int | np.random.Generator | None = 0, skip_undefined: bool = False
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of each run's mean, vectorized over runs and resamples.

    Args:
        values: Runs x queries per-query values.
        level: Confidence level, e.g. 0.95.
        resamples: Number of bootstrap resamples of the queries.
        seed: Seed or generator; the same seed gives the same intervals.
        skip_undefined: Average over the queries with a value (NaN left out) instead of all queries.

    Returns:
        ``(lower, upper)``, one bound per run (NaN for a run whose every resample has no value).

    """
    level = _check_level(level)
    if resamples < 2:
        raise ParameterError(f"resamples must be >= 2, got {resamples}")
    filled, defined = _prepared(values, skip_undefined)
    n_runs, n_queries = filled.shape
    if n_queries == 0:
        return np.full(n_runs, np.nan), np.full(n_runs, np.nan)
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, n_queries, size=(resamples, n_queries))  # the draws of scipy.stats.bootstrap
    means = np.empty((resamples, n_runs))
    step = max(1, _BLOCK // max(n_queries, n_runs))
    for start in range(0, resamples, step):
        block = drawn[start:start + step]
        # How often each query is drawn in each resample: resampled sums are then one matrix product.
        weight = np.zeros((len(block), n_queries))
        np.add.at(weight, (np.repeat(np.arange(len(block)), n_queries), block.reshape(-1)), 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            means[start:start + step] = (weight @ filled.T) / (weight @ defined.T.astype(float))
    tail = (1.0 - level) / 2.0
    with np.errstate(invalid="ignore"):
        lower = np.nanpercentile(means, 100.0 * tail, axis=0) if skip_undefined else np.percentile(
            means, 100.0 * tail, axis=0)
        upper = np.nanpercentile(means, 100.0 * (1.0 - tail), axis=0) if skip_undefined else np.percentile(
            means, 100.0 * (1.0 - tail), axis=0)
    return np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)


def t_interval(values: np.ndarray, level: float = 0.95, skip_undefined: bool = False
               ) -> tuple[np.ndarray, np.ndarray]:
    r"""Student's t-interval :math:`\bar x \pm t_{(1+\text{level})/2,\,n-1}\, s/\sqrt n` of each run's mean.

    Returns:
        ``(lower, upper)`` per run; NaN for a run with fewer than two queries with a value.

    """
    level = _check_level(level)
    filled, defined = _prepared(values, skip_undefined)
    n = defined.sum(axis=1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = filled.sum(axis=1) / n
        sd = np.sqrt(np.where(defined, (filled - mean[:, None]) ** 2, 0.0).sum(axis=1) / (n - 1.0))
        half = sps.t.ppf((1.0 + level) / 2.0, np.maximum(n - 1.0, 1.0)) * sd / np.sqrt(n)
    half = np.where(n >= 2, half, np.nan)
    return mean - half, mean + half


def interval_columns(measure: Any) -> tuple[str, str]:
    """Column names of a measure's interval bounds: ``"<measure> ci low"``, ``"<measure> ci high"``."""
    return f"{measure} ci low", f"{measure} ci high"


def add_intervals(table: pd.DataFrame, values: dict[Any, np.ndarray], measures: Sequence[Any], level: float,
                  method: str = "bootstrap", resamples: int = 10_000, seed: int | None = 0) -> pd.DataFrame:
    """``table`` (one row per run, in the order of the matrices' rows) with interval bound columns after each measure.

    Args:
        table: One row per run, one column per measure (``str(measure)``), as ``Evaluation.table()``.
        values: Measure -> runs x queries matrix, rows in the table's order.
        measures: The measures to give intervals for.
        level: Confidence level.
        method: ``"bootstrap"`` or ``"t"``.
        resamples: Bootstrap resamples.
        seed: Bootstrap seed.

    Returns:
        A new table; ``attrs["interval"]`` records the method, level, resamples and seed.

    """
    if method not in INTERVALS:
        raise ParameterError(f"unknown interval method {method!r}; choose from {', '.join(INTERVALS)}")
    out = table.copy()
    for m in measures:
        skip = skips_undefined(m)
        if method == "bootstrap":
            low, high = bootstrap_interval(values[m], level, resamples, seed, skip)
        else:
            low, high = t_interval(values[m], level, skip)
        at = out.columns.get_loc(str(m)) + 1
        lo_name, hi_name = interval_columns(m)
        out.insert(at, lo_name, low)
        out.insert(at + 1, hi_name, high)
    out.attrs = {**table.attrs, "interval": {"method": method, "level": level, "resamples": resamples,
                                             "seed": seed}}
    return out
