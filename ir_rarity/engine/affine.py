r"""Rarity measures as affine functions of the counts S_d: what lets many samples of one campaign be scored at once.

With the linear rarity of Türkmen, Lease & Kutlu (ECIR 2023), eq. 2, :math:`R(d) = 1 - S_d/S = (S - S_d)/S`, the
gain of a relevant row j of a cell (one run, one query) in a campaign of S systems is

.. math:: g_j = \ell_j\,(1 + \alpha R(d_j)) = \ell_j + \frac{\alpha}{S}\,\ell_j\,(S - S_{d_j}),

:math:`\ell_j` the row's label with ``gain='graded'``, else 1. With the bounded rarity of Section 5.2,
:math:`R'(d) = (S - S_d)/(S - 1)` for :math:`S_d \ge 1`, it is
:math:`g_j = (1 - \alpha)\,\ell_j + \frac{\alpha}{S - 1}\,\ell_j\,(S - S_{d_j})`. ``P_rare``, ``AP_rare`` and
``nDCG_rare`` weigh a cell's gains by position and scale the sum, so that

.. math:: v = f\Bigl(c_0 \sum_j u_j \ell_j + c_1 \sum_j u_j \ell_j\,(S - S_{d_j})\Bigr)

with :math:`u_j = 1` and :math:`f(x) = x/k` (``P_rare``, eq. 1), :math:`u_j = \sum_{i \ge j,\ Rel(d_i)} 1/i`
and :math:`f(x) = x/N_R` (``AP_rare``, eq. 3, the sum of the precisions at each relevant rank i, regrouped by
the gain each one adds up), :math:`u_j = 1/\log_2(j + 1)` and :math:`f(x) = x/\mathrm{IDCG}` (``nDCG_rare``), j
and i 1-based ranks. :math:`S - S_{d_j}` is the number of the campaign's systems that do not retrieve
:math:`d_j` within the depth: a sum over systems of terms that do not depend on which other systems take part.
:mod:`ir_rarity.engine.overlaps` tabulates those terms once per pair of runs and scores any sample of runs from
them.

Both sums are of non-negative terms, so the value is as accurate as the engine's row-by-row sum (a few units in
the last place: equal to :func:`ir_rarity.engine.compute.compute` to 1e-13 relative, tested, far inside the
tolerance at which :mod:`ir_rarity.stats.ties` calls two scores a tie).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ir_measures import Measure

from ir_rarity.engine import extensions, kernels
from ir_rarity.engine.compute import ideal_dcg_rare, s_d_depth
from ir_rarity.engine.qrels import EncodedQrels
from ir_rarity.measures import FAMILIES

__all__ = ["AFFINE_FAMILIES", "affine_values", "is_affine", "position_weights"]

AFFINE_FAMILIES: frozenset[str] = frozenset(str(m.NAME) for m in FAMILIES if m.AFFINE_IN_SD)
"""Families whose values :func:`affine_values` gives from the two sums (with the conditions of :func:`is_affine`):
those that declare :attr:`~ir_rarity.measures.base.RarityMeasure.AFFINE_IN_SD`."""


def _ap_weights(rank: np.ndarray, cell: np.ndarray) -> np.ndarray:
    """AP_rare: the sum of 1/i over the cell's relevant rows at or below each row, added from the bottom up."""
    return kernels.segmented_cumsum((1.0 / (rank + 1.0))[::-1], cell[::-1])[::-1]


_POSITION_WEIGHTS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "P_rare": lambda rank, cell: np.ones(len(rank)),
    "nDCG_rare": lambda rank, cell: 1.0 / np.log2(rank + 2.0),
    "AP_rare": _ap_weights,
}
""":math:`u_j` of each affine family, from the rows' 0-based ranks and cells (the family's kernel in this form)."""
if set(_POSITION_WEIGHTS) != AFFINE_FAMILIES:  # a family declared AFFINE_IN_SD needs its weights here
    raise ImportError(f"ir_rarity.engine.affine: position weights for {sorted(AFFINE_FAMILIES)}, "
                      f"defined for {sorted(_POSITION_WEIGHTS)}")


def is_affine(measure: Measure, n_systems: int) -> bool:
    r"""Whether ``measure`` in a campaign of ``n_systems`` systems is affine in S_d as this module writes it.

    True for ``P_rare``, ``AP_rare`` and ``nDCG_rare`` with linear rarity, scoring every row
    (not ``judged_only``); with ``bounded=True`` only where every scored row is counted in its own S_d (S_d
    counted at least as deep as the cutoff, so :math:`S_d \ge 1`) and :math:`S \ge 2`.
    """
    if str(getattr(measure, "NAME", "")) not in AFFINE_FAMILIES:
        return False
    if measure["weighting"] != "linear" or measure["judged_only"]:
        return False
    cutoff, depth = measure["cutoff"], s_d_depth(measure)
    if measure["bounded"]:
        counted = depth is None or (cutoff is not None and depth >= cutoff)
        return counted and n_systems >= 2
    return True


def position_weights(measure: Measure, rank: np.ndarray, cell: np.ndarray, labels: np.ndarray) -> np.ndarray:
    r""":math:`u_j \ell_j` of each row: a cell's rows relevant at the measure's ``rel`` and within its cutoff.

    Args:
        measure: A measure :func:`is_affine` accepts.
        rank: 0-based rank of each row.
        cell: Cell of each row; rows are sorted by cell, then rank.
        labels: Label of each row (read with ``gain='graded'``).

    """
    weight = _POSITION_WEIGHTS[str(measure.NAME)](rank, cell)
    if measure["gain"] == "graded":
        weight = weight * labels.astype(np.float64)
    return weight


def affine_values(measure: Measure, qrels: EncodedQrels, base: np.ndarray, misses: np.ndarray,
                  n_systems: int) -> np.ndarray:
    r""":math:`f(c_0 A + c_1 B)` of cells in a campaign of ``n_systems`` systems; the last axis is the query.

    Args:
        measure: A measure :func:`is_affine` accepts.
        qrels: The encoded qrels (:math:`N_R`, the ideal DCG and per-topic alpha).
        base: :math:`A = \sum_j u_j \ell_j` of each cell.
        misses: :math:`B = \sum_j u_j \ell_j (S - S_{d_j})` of each cell.
        n_systems: S.

    """
    n_relevant = qrels.n_relevant(measure["rel"])
    alpha = extensions.row_alpha(measure["alpha"], measure["alpha_per_topic"], n_relevant,
                                 np.arange(len(qrels.query_ids)))
    if measure["bounded"]:
        total = (1.0 - alpha) * base + (alpha / (n_systems - 1.0)) * misses
    else:
        total = base + (alpha / float(n_systems)) * misses
    if measure.NAME == "P_rare":
        return total / float(measure["cutoff"])
    scale = n_relevant.astype(np.float64) if measure.NAME == "AP_rare" else ideal_dcg_rare(measure, qrels)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(scale > 0, total / np.where(scale > 0, scale, 1.0), 0.0)
