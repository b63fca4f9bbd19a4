r"""When two scores are a tie: the one rule every statistic that compares means or per-query values applies.

Means are exactly rounded sums divided by a count (:func:`ir_rarity.engine.means.exact_means`), so runs whose
per-query values are the same multiset get the same float whatever the order of their queries. Two runs can still
have mathematically equal means through different per-query values (``0.4 + 0.5`` and ``0.45 + 0.45``), whose
floating-point representations differ in their last bits. So every comparison that decides a tie (ranks,
Kendall's tau-b, tau_AP, best marks, better/worse counts, leave-one-team-out rank drops, the zero differences
of Wilcoxon's test, the reusability of a pool) goes through this module, with one stated tolerance: two values
``x`` and ``y`` tie when

.. math:: |x - y| \le \varepsilon \cdot \max(1, |x|, |y|), \qquad \varepsilon = 10^{-12}.

The rounding noise of a mean of up to :math:`10^5` queries, each value a few operations from exact, is below
:math:`10^{-15}` relative; any real difference between two means a table can print is above :math:`10^{-12}`.

* :func:`snap` replaces values that tie by one representative (the smallest of their chain), so that exact
  comparisons (``==``, :func:`scipy.stats.rankdata`, :func:`scipy.stats.kendalltau`) see the ties;
* :func:`differences` gives per-query differences with those below the tolerance set to exactly 0;
* :func:`better` says whether one value beats another by more than the tolerance;
* :func:`rank` ranks values (1 = best) with ties under the tolerance.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

__all__ = ["TOLERANCE", "better", "differences", "rank", "snap", "tie"]

TOLERANCE = 1e-12
"""Relative tolerance: ``x`` and ``y`` tie when ``|x - y| <= TOLERANCE * max(1, |x|, |y|)``."""


def tie(x: np.ndarray | float, y: np.ndarray | float) -> np.ndarray:
    """Element-wise: whether ``x`` and ``y`` tie under :data:`TOLERANCE` (NaN never ties)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        scale = np.maximum(1.0, np.maximum(np.abs(x), np.abs(y)))
        return np.asarray((x == y) | (np.abs(x - y) <= TOLERANCE * scale))


def better(x: np.ndarray | float, y: np.ndarray | float, higher_is_better: bool = True) -> np.ndarray:
    """Element-wise: whether ``x`` is better than ``y`` (larger, or smaller when lower is better) and not a tie."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        beats = x > y if higher_is_better else x < y
    return np.asarray(beats & ~tie(x, y))


def snap(values: np.ndarray | pd.Series, axis: int = -1) -> np.ndarray:
    """Values with every chain of ties replaced by one value, along ``axis``.

    Sorted along ``axis``, neighbours that :func:`tie` form one group; each member takes the group's smallest
    value. Values that differ by more than the tolerance are unchanged, and their order is kept. NaN stays NaN.

    Args:
        values: Any array of floats (e.g. run means, or trials x runs means).
        axis: The axis along which values are compared.

    Returns:
        A float64 array of the same shape.

    """
    array = np.moveaxis(np.array(values, dtype=np.float64), axis, -1)
    if array.shape[-1] < 2:
        return np.moveaxis(array, -1, axis)
    order = np.argsort(array, axis=-1, kind="stable")  # NaN last
    ordered = np.take_along_axis(array, order, axis=-1)
    joined = tie(ordered[..., 1:], ordered[..., :-1])
    starts = np.concatenate([np.ones((*ordered.shape[:-1], 1), dtype=bool), ~joined], axis=-1)
    first = np.where(starts, np.arange(ordered.shape[-1]), 0)
    first = np.maximum.accumulate(first, axis=-1)  # position of each value's group start
    snapped = np.take_along_axis(ordered, first, axis=-1)
    snapped[np.isnan(ordered)] = np.nan
    out = np.empty_like(array)
    np.put_along_axis(out, order, snapped, axis=-1)
    return np.moveaxis(out, -1, axis)


def differences(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per-query differences ``a - b``, exactly 0 where ``a`` and ``b`` :func:`tie`; NaN where either is NaN."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        delta = a - b
    delta[tie(a, b)] = 0.0
    return delta


def rank(values: np.ndarray | pd.Series, higher_is_better: bool = True,
         method: Literal["average", "min", "max", "dense", "ordinal"] = "min", axis: int = -1) -> np.ndarray:
    """Ranks along ``axis``, 1 the best, with ties under the tolerance sharing a rank; NaN ranks NaN.

    Args:
        values: Scores (e.g. run means).
        higher_is_better: Rank larger values first.
        method: How tied values share ranks, as :func:`scipy.stats.rankdata` (``"min"``: competition ranks 1, 1, 3;
            ``"average"``: 1.5, 1.5, 3).
        axis: The axis along which values are ranked.

    Returns:
        Float ranks of the same shape.

    """
    from scipy.stats import rankdata

    snapped = snap(values, axis=axis)
    oriented = -snapped if higher_is_better else snapped
    return np.asarray(rankdata(oriented, method=method, axis=axis, nan_policy="omit"), dtype=np.float64)
