r"""The size of a paired difference: its mean with a bootstrap confidence interval, and Cohen's :math:`d_z`.

For two runs scored on the same queries, with the per-query differences :math:`d_q` (queries both have a value):

* **mean difference** :math:`\bar d = \frac1n \sum_q d_q` with a paired bootstrap confidence interval over the
  queries (Efron & Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall 1993): the differences are
  resampled with replacement (resampling queries keeps each query's pair together) and the interval is either the
  ``percentile`` interval or the bias-corrected and accelerated ``bca`` interval (Efron, JASA 1987, ch. 14 of the
  book). It *is* :func:`scipy.stats.bootstrap` ``((d,), np.mean, confidence_level=level, n_resamples=resamples,
  method="percentile" | "BCa", rng=np.random.default_rng(seed))``, called on the differences (in blocks of
  resamples, which draws the same numbers), so the two agree exactly. The generator is the one the interval of
  each mean uses (:func:`ir_rarity.stats.intervals.bootstrap_interval`): a :class:`numpy.random.Generator` made
  by :func:`numpy.random.default_rng` from the seed, not the legacy ``RandomState`` that scipy makes of an int
  ``random_state``;
* **Cohen's** :math:`d_z = \bar d / s_d` (Cohen, *Statistical Power Analysis for the Behavioral Sciences*, 2nd
  ed. 1988, sec. 2.3.5), :math:`s_d` the standard deviation of the differences with ``ddof=1``; NaN when
  :math:`s_d = 0` (all differences equal: no spread to measure the mean against; "equal" up to rounding,
  :math:`s_d \le 10^{-12} \max_q |d_q|`, so that ``(a + 0.1) - a`` over queries gives NaN, not 1e16) or fewer
  than two queries.

The bootstrap draws query *positions*: the caller puts the queries in a canonical order first
(:func:`ir_rarity.stats.scores.natural_order`, as :func:`ir_rarity.compare.significance.compare_values` does),
so that the interval does not depend on the order the data came in. An interval needs two queries (NaN
otherwise); a BCa interval of differences that are all equal is NaN (its acceleration is 0/0: scipy warns and
gives NaN, a warning silenced here), the percentile interval is then that one value.
"""

from __future__ import annotations

import inspect
import warnings
from functools import cache
from typing import Any

import numpy as np

from ir_rarity.checks import check_draws
from ir_rarity.errors import ParameterError
from ir_rarity.stats.names import DIFF_INTERVALS

__all__ = ["DIFF_INTERVALS", "cohens_dz", "mean_difference_interval", "paired_effects"]

_BLOCK = 2_000_000  # float64 elements of one block of resamples (16 MB)
_SCIPY_METHOD = {"percentile": "percentile", "bca": "BCa"}


@cache
def _generator_keyword(bootstrap: Any) -> str:
    """The keyword by which ``scipy.stats.bootstrap`` takes a generator: ``rng`` (scipy >= 1.15), else ``random_state``.

    Both use a :class:`numpy.random.Generator` given to them as it is, so the draws are the same either way.
    """
    return "rng" if "rng" in inspect.signature(bootstrap).parameters else "random_state"


def _method(method: str) -> str:
    key = str(method).lower()
    if key not in _SCIPY_METHOD:
        raise ParameterError(f"unknown interval method {method!r}: use one of {', '.join(DIFF_INTERVALS)}")
    return _SCIPY_METHOD[key]


def cohens_dz(diffs: np.ndarray) -> float:
    """Cohen's paired effect size ``mean(d) / std(d, ddof=1)`` of differences (NaN left out).

    Returns:
        NaN when the standard deviation is 0 (all differences equal, up to rounding: ``sd <= 1e-12 * max|d|``) or
        there are fewer than two differences.

    """
    d = np.asarray(diffs, dtype=float).ravel()
    d = d[~np.isnan(d)]
    if len(d) < 2:
        return float("nan")
    sd = float(np.std(d, ddof=1))
    return float(np.mean(d)) / sd if sd > 1e-12 * float(np.abs(d).max()) else float("nan")


def mean_difference_interval(diffs: np.ndarray, level: float = 0.95, resamples: int = 10_000,
                             method: str = "percentile", seed: int | np.random.Generator | None = 0
                             ) -> tuple[float, float]:
    """Paired bootstrap interval of the mean difference: :func:`scipy.stats.bootstrap` on the differences.

    Args:
        diffs: Per-query differences (NaN left out), queries in the caller's (canonical) order.
        level: Confidence level, e.g. 0.95.
        resamples: Bootstrap resamples of the queries.
        method: ``"percentile"`` or ``"bca"``.
        seed: Made a generator by :func:`numpy.random.default_rng` (a generator given is used and advanced) and
            passed to scipy as ``rng``.

    Returns:
        ``(low, high)``; NaN with fewer than two differences, and for a BCa interval of equal differences.

    Raises:
        ParameterError: A level outside (0, 1), fewer than 2 resamples or more than a draw may take
            (:func:`~ir_rarity.checks.check_draws`), or an unknown method.

    """
    from scipy import stats as sps  # here: importing ir_rarity.stats loads no scipy

    how = _method(method)
    if not 0.0 < float(level) < 1.0:
        raise ParameterError(f"the confidence level must be in (0, 1), got {level}")
    resamples = check_draws(resamples, "resamples", 1, minimum=2, each="means")  # scipy keeps every resample's mean
    d = np.asarray(diffs, dtype=float).ravel()
    d = d[~np.isnan(d)]
    if len(d) < 2:
        return float("nan"), float("nan")
    generator = {_generator_keyword(sps.bootstrap): np.random.default_rng(seed)}
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", sps.DegenerateDataWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        ci = sps.bootstrap((d,), np.mean, confidence_level=float(level), n_resamples=int(resamples),
                           method=how, batch=max(1, _BLOCK // len(d)), **generator).confidence_interval
    return float(ci.low), float(ci.high)


def paired_effects(delta: np.ndarray, level: float = 0.95, resamples: int = 10_000, method: str = "percentile",
                   seed: int | np.random.Generator | None = 0) -> dict[str, np.ndarray]:
    """Mean difference, its bootstrap interval and Cohen's d_z of each row of pairs x queries differences.

    Each row is one pair's differences, NaN where a query lacks a value for either run (left out of that pair
    only). With an int ``seed`` every row is resampled as scipy would with ``rng=np.random.default_rng(seed)``,
    a new generator for each row (so a row's interval does not depend on the rows before it).

    Returns:
        ``{"diff", "diff low", "diff high", "d_z"}``, one value per row.

    """
    rows = np.atleast_2d(np.asarray(delta, dtype=float))
    out = {key: np.full(len(rows), np.nan) for key in ("diff", "diff low", "diff high", "d_z")}
    for i, row in enumerate(rows):
        d = row[~np.isnan(row)]
        if len(d):
            out["diff"][i] = float(np.mean(d))
        out["diff low"][i], out["diff high"][i] = mean_difference_interval(d, level, resamples, method, seed)
        out["d_z"][i] = cohens_dz(d)
    return out
