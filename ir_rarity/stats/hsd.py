r"""Tukey's HSD, vectorized over all run pairs.

Tukey's honestly significant difference (Tukey, "The problem of multiple comparisons", unpublished manuscript,
Princeton University 1953; for unequal group sizes Kramer, "Extension of multiple range tests to group means with
unequal numbers of replications", Biometrics 1956) compares every pair of k groups through the studentized range
:math:`q_{ij} = |\bar x_i - \bar x_j| / \sqrt{MSE (1/n_i + 1/n_j) / 2}`. Two procedures of the discriminative power
analysis (:func:`ir_rarity.meta.discriminative.discriminative_power`) use it:

* **paper** (Türkmen, Lease & Kutlu, ECIR 2023, Section 4.3): the authors call statsmodels'
  ``pairwise_tukeyhsd`` on each pair of runs, the two runs' per-query scores as two groups. With two groups
  the studentized range statistic is :math:`q = |\bar x_i - \bar x_j| / \sqrt{s_p^2 (1/n_i + 1/n_j) / 2}
  = \sqrt 2\,|t|`, t the pooled-variance two-sample t on :math:`n_i + n_j - 2` degrees of freedom, and
  statsmodels rejects when :math:`q > q_{crit}`, :math:`q_{crit}` the :math:`1 - \alpha` quantile of the
  studentized range for 2 groups at those degrees of freedom. :func:`paper_hsd` computes every q at once and
  one :math:`q_{crit}` per distinct degrees of freedom (one when no score is missing), with scipy's
  ``studentized_range.ppf`` as statsmodels does, so the decisions are statsmodels' own.
* **tukey_hsd**: one Tukey HSD over all k runs (scipy's ``tukey_hsd``). Every pair's p-value is the survival
  function of *one* studentized range distribution (k groups, N - k degrees of freedom) at the pair's q.
  :func:`studentized_range_sf` evaluates that distribution at a few dozen Chebyshev nodes and interpolates,
  instead of integrating once per pair.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.stats as sps
from scipy.integrate import IntegrationWarning
from scipy.interpolate import BarycentricInterpolator

from ir_rarity.stats.scores import group_moments

__all__ = ["paper_hsd", "studentized_range_sf", "tukey_hsd_pvalues"]

_NEGLIGIBLE = 1e-9  # survival probability taken as 0 (and 1 - it as 1): far below the 1e-6 asked
_TOLERANCE = 1e-8  # interpolation error accepted at the check points


def paper_hsd(values: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    r"""The paper's per-pair two-group Tukey HSD for every pair ``i < j`` (``np.triu_indices`` order).

    For the pair's two groups (each run's scores, NaN dropped) :math:`q = \sqrt 2\,|t|`, t the pooled-variance
    two-sample t on :math:`df = n_i + n_j - 2` degrees of freedom, and the pair is rejected when
    :math:`q > q_{crit}(1 - \alpha; 2, df)`, the procedure of Türkmen, Lease & Kutlu (ECIR 2023, Section 4.3)
    with statsmodels' ``pairwise_tukeyhsd`` called on each pair.

    Args:
        values: Runs x queries scores (NaN: no score).
        alpha: The significance level.

    Returns:
        ``(p-values, reject)``. The p-value is :math:`2 P(T_{df} > |t|)`, which equals the two-group studentized
        range survival function at :math:`\sqrt 2 |t|` (statsmodels' p-value, up to its integration error);
        ``reject`` is statsmodels' decision :math:`q > q_{crit}(1 - \alpha; 2, df)`. Pairs with fewer than 3
        scores in all (statsmodels is not called on them in the paper's code) give NaN and False.

    """
    n, mean, ss = group_moments(values)
    i, j = np.triu_indices(values.shape[0], k=1)
    df = n[i] + n[j] - 2.0
    usable = (n[i] >= 1) & (n[j] >= 1) & (df >= 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        variance = (ss[i] + ss[j]) / df
        q = np.abs(mean[j] - mean[i]) / np.sqrt(variance * (1.0 / n[i] + 1.0 / n[j]) / 2.0)
    reject = np.zeros(len(i), dtype=bool)
    for value in np.unique(df[usable]):
        chosen = usable & (df == value)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IntegrationWarning)
            critical = float(sps.studentized_range.ppf(1.0 - alpha, 2, value))
        reject[chosen] = q[chosen] > critical  # NaN q (0/0) compares False, as in statsmodels
    pvalues = np.full(len(i), np.nan)
    ok = usable & ~np.isnan(q)
    pvalues[ok] = 2.0 * sps.t.sf(q[ok] / np.sqrt(2.0), df[ok])
    return pvalues, reject


def _chebyshev_nodes(lo: float, hi: float, count: int) -> np.ndarray:
    return (lo + hi) / 2.0 + (hi - lo) / 2.0 * np.cos(np.pi * (np.arange(count) + 0.5) / count)


def _sf(q: np.ndarray | float, k: int, df: float) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IntegrationWarning)
        return np.asarray(sps.studentized_range.sf(q, k, df), dtype=np.float64)


def _bracket(top: float, k: int, df: float) -> tuple[float, float]:
    """Where the survival function on ``[0, top]`` falls from 1 to 0 (beyond 1 - 1e-9 and 1e-9)."""
    lo, hi = 0.0, top
    for _ in range(2):  # two coarse grids, the second inside the first's bracket, narrow the fall down
        grid = np.linspace(lo, hi, 9)
        coarse = _sf(grid, k, df)
        one = np.flatnonzero(coarse >= 1.0 - _NEGLIGIBLE)
        zero = np.flatnonzero(coarse <= _NEGLIGIBLE)
        lo = float(grid[one[-1]]) if len(one) else lo
        hi = float(grid[zero[0]]) if len(zero) else hi
    return lo, hi


def _interpolant(lo: float, hi: float, k: int, df: float, nodes: int) -> BarycentricInterpolator:
    """The survival function interpolated at Chebyshev nodes of ``[lo, hi]``, doubled until within 1e-8."""
    while True:
        x = _chebyshev_nodes(lo, hi, nodes)
        interpolant = BarycentricInterpolator(x, _sf(x, k, df))
        check = _chebyshev_nodes(lo, hi, 3)
        if np.abs(interpolant(check) - _sf(check, k, df)).max() <= _TOLERANCE or nodes >= 1024:
            return interpolant
        nodes *= 2


def studentized_range_sf(q: np.ndarray, k: int, df: float, nodes: int = 48) -> np.ndarray:
    r"""Survival function :math:`P(Q_{k, df} > q)` of the studentized range at every ``q``.

    :math:`Q_{k, df} = (\max_g Z_g - \min_g Z_g) / \sqrt{\chi^2_{df} / df}` for k independent standard normal
    :math:`Z_g` (Tukey, Princeton 1953). scipy integrates the distribution anew for each value. Here it is
    evaluated on two coarse grids over :math:`[0, \max q]` to find where it falls from 1 to 0 (beyond 1 - 1e-9
    and 1e-9 it is taken as 1 and 0), then at ``nodes`` Chebyshev points of that stretch, and interpolated
    (barycentric form) at every q. The nodes are doubled until the interpolant agrees with scipy within 1e-8 at
    check points between them.

    Args:
        q: Values of the statistic (NaN gives NaN, infinity 0).
        k: Number of groups.
        df: Degrees of freedom of the variance estimate.
        nodes: Chebyshev nodes of the first interpolant.

    Returns:
        The survival probabilities, shaped as ``q``.

    """
    q = np.asarray(q, dtype=np.float64)
    out = np.full(q.shape, np.nan)
    finite = np.isfinite(q)
    out[np.isposinf(q)] = 0.0
    if not finite.any():
        return out
    lo, hi = _bracket(float(max(q[finite].max(), 1e-3)), k, df)
    interpolant = _interpolant(lo, hi, k, df, nodes)
    inside = finite & (q >= lo) & (q <= hi)
    out[inside] = np.clip(interpolant(q[inside]), 0.0, 1.0)
    out[finite & (q < lo)] = 1.0
    out[finite & (q > hi)] = 0.0
    return out


def tukey_hsd_pvalues(values: np.ndarray) -> np.ndarray:
    r"""p-values of one Tukey HSD over all runs (scipy's ``tukey_hsd``) for the pairs ``i < j``.

    :math:`q_{ij} = |\bar x_i - \bar x_j| / \sqrt{MSE (1/n_i + 1/n_j) / 2}`, MSE the within-run mean square on
    N - k degrees of freedom (Tukey, Princeton 1953; Kramer, Biometrics 1956);
    :math:`p_{ij} = P(Q_{k, N-k} > q_{ij})` from :func:`studentized_range_sf`. It controls the family-wise error
    rate over all pairs.

    Args:
        values: Runs x queries scores (NaN: no score; each run needs at least one).

    Returns:
        One p-value per pair in :func:`numpy.triu_indices` order.

    """
    n, mean, ss = group_moments(values)
    k = values.shape[0]
    df = float(n.sum() - k)
    i, j = np.triu_indices(k, k=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mse = ss.sum() / df
        q = np.abs(mean[i] - mean[j]) / np.sqrt((1.0 / n[i] + 1.0 / n[j]) * mse / 2.0)
    return studentized_range_sf(q, k, df)
