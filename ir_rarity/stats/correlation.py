r"""Rank correlation between the system rankings of two measures: Kendall's tau and tau_AP.

* :func:`kendall_tau`: Kendall's tau-b (Kendall, "The treatment of ties in ranking problems", Biometrika 1945)
  or Stuart's tau-c between the rankings two measures' run means induce, aligned on their common runs and
  oriented by each measure's direction;
* :func:`kendall_tau_b`: the same tau-b of two plain score vectors, from one sign matrix per vector (fast for the
  many small samples of a robustness analysis);
* :func:`tau_ap`: the AP rank correlation of Yilmaz, Aslam & Robertson ("A new rank correlation coefficient for
  information retrieval", SIGIR 2008), which weighs swaps near the top more.

Türkmen, Lease & Kutlu (ECIR 2023, Section 4.2) compare the ranking of each rarity measure with that of its base
measure with Kendall's tau and report that tau_AP gives similar results.

Two runs tie in a ranking when their means tie under :mod:`ir_rarity.stats.ties`' rule (exactly rounded means
compared with a relative tolerance of 1e-12), so that runs with mathematically equal means are a tie whatever
the rounding of their per-query values.
"""

from __future__ import annotations

import math
from typing import Any, Literal, TypeAlias

import numpy as np
import pandas as pd

from ir_rarity.errors import InputError, ParameterError
from ir_rarity.stats.scores import direction_of, run_means
from ir_rarity.stats.ties import snap

__all__ = ["kendall_tau", "kendall_tau_b", "tau_ap"]

Direction: TypeAlias = bool | tuple[bool, bool] | None
"""One direction for both measures, one per measure, or None (read each input's ``attrs``)."""


def _directions(higher_is_better: Direction, a: Any = None, b: Any = None) -> tuple[bool, bool]:
    """Expand ``higher_is_better`` into one flag per compared measure (None: read each input's ``attrs``)."""
    if higher_is_better is None:
        return direction_of(a, None), direction_of(b, None)
    if isinstance(higher_is_better, tuple):
        if len(higher_is_better) != 2:
            raise ParameterError("higher_is_better must be a bool or a pair of bools")
        return bool(higher_is_better[0]), bool(higher_is_better[1])
    return bool(higher_is_better), bool(higher_is_better)


def _aligned_oriented_means(a: pd.DataFrame | pd.Series, b: pd.DataFrame | pd.Series,
                            higher_is_better: Direction) -> tuple[pd.Series, pd.Series]:
    """Run means of two measures on their common runs, sign-flipped so that larger is always better.

    Runs missing from either input, or whose mean is NaN in either, are dropped. Means that tie
    (:func:`ir_rarity.stats.ties.snap`) are made equal.
    """
    hib_a, hib_b = _directions(higher_is_better, a, b)
    mean_a = run_means(a)
    mean_b = run_means(b)
    common = mean_a.index.intersection(mean_b.index, sort=False)
    mean_a = mean_a.loc[common]
    mean_b = mean_b.loc[common]
    keep = mean_a.notna().to_numpy() & mean_b.notna().to_numpy()
    mean_a = mean_a[keep]
    mean_b = mean_b[keep]
    if len(mean_a) < 2:
        raise InputError(f"need at least 2 common runs with a defined mean, got {len(mean_a)}")
    mean_a = pd.Series(snap(mean_a.to_numpy()), index=mean_a.index)
    mean_b = pd.Series(snap(mean_b.to_numpy()), index=mean_b.index)
    return (mean_a if hib_a else -mean_a), (mean_b if hib_b else -mean_b)


def kendall_tau(
    a: pd.DataFrame | pd.Series,
    b: pd.DataFrame | pd.Series,
    variant: Literal["b", "c"] = "b",
    higher_is_better: Direction = None,
) -> float:
    """Kendall's tau between the system rankings induced by two measures.

    With ``P`` concordant pairs, ``Q`` discordant pairs, ``T`` pairs tied only in ``a`` and ``U`` pairs tied
    only in ``b``, tau-b (Kendall, Biometrika 1945) is ``(P - Q) / sqrt((P + Q + T) * (P + Q + U))``; with no
    ties it equals Kendall's tau-a ``(P - Q) / (n (n - 1) / 2)`` (Kendall, Biometrika 1938). Section 4.2 of
    Türkmen, Lease & Kutlu (ECIR 2023) reports this coefficient between the rankings of a rarity measure and its
    base measure. Computed with :func:`scipy.stats.kendalltau`; ``variant="c"`` gives Stuart's tau-c
    (Stuart, Biometrika 1953).

    Args:
        a: Runs x queries scores of the first measure (the NaN-aware mean over queries is taken), or a Series
            of run means.
        b: Same for the second measure. Both are aligned on their common runs; runs missing from either, or
            with a NaN mean in either, are left out.
        variant: ``"b"`` (default, handles ties) or ``"c"``.
        higher_is_better: Direction of both measures, or a pair ``(a_direction, b_direction)`` when the two
            measures point in opposite directions (e.g. AP vs. a search length).

    Returns:
        The coefficient in [-1, 1]; NaN if either ranking is constant.

    Raises:
        InputError: If fewer than 2 runs are common to both inputs.
        ParameterError: On an unknown ``variant``.

    """
    from scipy import stats as sps  # here: importing ir_rarity.stats loads no scipy

    if variant not in ("b", "c"):
        raise ParameterError(f"variant must be 'b' or 'c', got {variant!r}")
    mean_a, mean_b = _aligned_oriented_means(a, b, higher_is_better)
    result = sps.kendalltau(mean_a.to_numpy(), mean_b.to_numpy(), variant=variant)
    return float(result.statistic)


def kendall_tau_b(a: np.ndarray, b: np.ndarray) -> float:
    r"""Kendall's tau-b of two score vectors of the same systems (Kendall, Biometrika 1945).

    :math:`\tau_b = \sum_{i<j} s^a_{ij} s^b_{ij} / \sqrt{\sum_{i<j} |s^a_{ij}| \sum_{i<j} |s^b_{ij}|}` with
    :math:`s_{ij} = \mathrm{sign}(x_i - x_j)`: the numerator is ``P - Q`` and the two sums are ``P + Q + T`` and
    ``P + Q + U`` of :func:`kendall_tau`, so it is the statistic of :func:`scipy.stats.kendalltau` (equal within
    1e-14), computed from one sign matrix per vector (meant for at most a few hundred systems, as in the samples of
    :func:`ir_rarity.meta.robustness.system_count_robustness`). Identical non-constant vectors give exactly 1.
    Values that tie under :mod:`ir_rarity.stats.ties`' tolerance have sign 0.

    Args:
        a: One score per system (larger is better).
        b: The other measure's scores of the same systems, in the same order.

    Returns:
        The coefficient in [-1, 1]; NaN when either vector is constant (tau is undefined).

    """
    a = snap(np.asarray(a, dtype=np.float64))
    b = snap(np.asarray(b, dtype=np.float64))
    if np.all(a == a[0]) or np.all(b == b[0]):
        return math.nan
    i, j = np.triu_indices(len(a), k=1)
    sa, sb = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
    return float(np.dot(sa, sb) / math.sqrt(float(np.abs(sa).sum()) * float(np.abs(sb).sum())))


def _strict_positions(means: pd.Series) -> np.ndarray:
    """0-based positions (0 = best) under a strict order: larger mean first, ties by run name ascending."""
    names = np.array([str(name) for name in means.index], dtype=object)
    by_name = np.argsort(names, kind="stable")
    # Stable sort on descending mean, applied to the name-sorted order, breaks ties by name.
    order = by_name[np.argsort(-means.to_numpy()[by_name], kind="stable")]
    positions = np.empty(len(means), dtype=np.int64)
    positions[order] = np.arange(len(means))
    return positions


def _tau_ap_directed(pos_list: np.ndarray, pos_truth: np.ndarray) -> float:
    """tau_AP of the ranking given by ``pos_list`` against the reference ranking ``pos_truth``."""
    n = len(pos_list)
    order = np.argsort(pos_list)  # items from the top of the evaluated list down
    truth_rank = pos_truth[order]  # reference position of the item at each list position
    # above[i, j]: item at list position j (< i) is also above item i in the reference ranking.
    above = truth_rank[None, :] < truth_rank[:, None]
    correct = np.tril(above, k=-1).sum(axis=1)[1:]  # C(i) for list positions i = 2..N (1-based)
    return float(2.0 / (n - 1) * np.sum(correct / np.arange(1, n)) - 1.0)


def tau_ap(
    a: pd.DataFrame | pd.Series,
    b: pd.DataFrame | pd.Series,
    symmetric: bool = False,
    higher_is_better: Direction = None,
) -> float:
    """AP rank correlation tau_AP (Yilmaz, Aslam & Robertson, SIGIR 2008) of ranking ``a`` against ``b``.

    ``tau_AP(a, b) = 2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1) - 1``, where the N systems are visited in the
    order of ``a`` (best first), and ``C(i)`` is the number of systems ranked above position i in ``a`` that
    are also ranked above the system at position i in the reference ranking ``b``. Unlike Kendall's tau it
    penalises swaps near the top more than swaps near the bottom, and it is asymmetric: ``b`` is the
    reference ("true") ranking, e.g. the official measure, and ``a`` the ranking being assessed (e.g. the
    rarity measure), as in Section 4.2 of Türkmen, Lease & Kutlu (ECIR 2023). ``symmetric=True`` returns
    ``(tau_AP(a, b) + tau_AP(b, a)) / 2``. Identical rankings give 1, reversed rankings give -1.

    Ties: tau_AP is defined for strict rankings. Ties in either ranking are broken deterministically by run
    name (ascending ``str(run)``), in both rankings alike, so ``tau_ap(x, x) == 1`` even with ties. With many
    ties, prefer :func:`kendall_tau` (tau-b), which accounts for them.

    Args:
        a: Runs x queries scores (the NaN-aware mean is taken) or run means of the ranking assessed.
        b: Same for the reference ranking. Both are aligned on their common runs (runs missing from either, or
            with a NaN mean in either, are left out).
        symmetric: Average both directions instead of treating ``b`` as the reference.
        higher_is_better: Direction of both measures, or a pair ``(a_direction, b_direction)``.

    Returns:
        The coefficient in [-1, 1].

    Raises:
        InputError: If fewer than 2 runs are common to both inputs.

    """
    mean_a, mean_b = _aligned_oriented_means(a, b, higher_is_better)
    pos_a = _strict_positions(mean_a)
    pos_b = _strict_positions(mean_b)
    forward = _tau_ap_directed(pos_a, pos_b)
    if not symmetric:
        return forward
    return (forward + _tau_ap_directed(pos_b, pos_a)) / 2.0
