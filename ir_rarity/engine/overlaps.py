r"""Scores of samples of a campaign's runs from one table of misses per pair of runs.

For the measures :mod:`ir_rarity.engine.affine` writes as affine functions of S_d, the value of run r for query
q in a sample T of the campaign's runs needs two sums over r's scored rows j (relevant, within the cutoff):
:math:`A_{r,q} = \sum_j u_j \ell_j`, which no sample changes, and

.. math:: B^{(T)}_{r,q} = \sum_j u_j \ell_j\,(|T| - S^{(T)}_{d_j}) = \sum_{r' \in T} V_{r,r',q},
          \qquad V_{r,r',q} = \sum_j u_j \ell_j\,[r' \text{ does not retrieve } d_j \text{ within the depth}].

:class:`MissTable` computes V once (a product of the runs' weighted rows with the complement of the runs x
pairs incidence matrix), then scores a chunk of trials by gathering each trial's N x N block of V: the
samples of Algorithm 1 of Türkmen, Lease & Kutlu (ECIR 2023) cost N x N x queries additions each, however many
rows the runs hold. Each sum over :math:`r' \in T` adds the terms in the order of the runs' positions in the
pool, so a sample's scores do not depend on the order it was drawn in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import scipy.sparse as sparse
from ir_measures import Measure

from ir_rarity.engine.affine import affine_values, position_weights
from ir_rarity.engine.compute import s_d_depth
from ir_rarity.engine.qrels import EncodedQrels

__all__ = ["GATHER_ELEMENTS", "TABLE_ELEMENTS", "MissTable"]

TABLE_ELEMENTS = 1 << 24
"""Largest V (runs x runs x queries values, 128 MiB) a :class:`MissTable` is made for; larger campaigns are
scored row by row (:meth:`ir_rarity.engine.samples.SubsetScorer.batch_scores`)."""

GATHER_ELEMENTS = 1 << 21
"""Bound on the trials x N x N x queries values gathered from V at once, and on the dense block of the
complement incidence matrix made at once while V is built."""


class MissTable:
    r"""V and A of :mod:`ir_rarity.engine.overlaps` for one measure's rows: any sample's scores from them.

    The table depends on the measure's family, ``rel``, cutoff, S_d depth and ``gain`` only (:meth:`key`):
    measures that differ in ``alpha``, ``bounded`` or ``alpha_per_topic`` alone are scored from one table.

    Args:
        measure: A measure :func:`ir_rarity.engine.affine.is_affine` accepts (its position weights are used).
        qrels: The encoded qrels.
        run: Pool position of each scored row (relevant at the measure's ``rel``, within its cutoff).
        query: Query position of each scored row.
        rank: 0-based rank of each scored row; rows sorted by run, query, rank.
        labels: Label of each scored row.
        column: Column of each scored row's (query, document) pair in ``incidence``.
        incidence: Runs x the scored rows' pairs, non-zero where the run retrieves the pair within the measure's
            S_d depth.
        present: ``(runs, queries)``: whether each run retrieved anything for each query.

    """

    def __init__(self, measure: Measure, qrels: EncodedQrels, run: np.ndarray, query: np.ndarray, rank: np.ndarray,
                 labels: np.ndarray, column: np.ndarray, incidence: sparse.csc_matrix, present: np.ndarray) -> None:
        self.qrels, self.present = qrels, present
        n_runs, n_queries = present.shape
        cell = run.astype(np.int64) * n_queries + query
        weight = position_weights(measure, rank, cell, labels)
        self.base = np.bincount(cell, weights=weight, minlength=n_runs * n_queries).reshape(n_runs, n_queries)
        misses = _misses(weight, cell, column, incidence, n_runs * n_queries).reshape(n_runs, n_queries, n_runs)
        self.misses = np.ascontiguousarray(misses.transpose(0, 2, 1))  # [r, r', q]: a trial's block, query last

    @staticmethod
    def fits(n_runs: int, n_queries: int) -> bool:
        """Whether the table of a campaign of ``n_runs`` runs and ``n_queries`` queries stays within bounds."""
        return n_runs * n_runs * n_queries <= TABLE_ELEMENTS

    @staticmethod
    def key(measure: Measure) -> tuple[object, ...]:
        """What the table depends on: measures of one key are scored from one table."""
        return (measure.NAME, measure["rel"], measure["cutoff"], s_d_depth(measure), measure["gain"])

    def scores(self, measure: Measure, picked: np.ndarray, done: Callable[[int], None] | None = None
               ) -> np.ndarray:
        """Per-query values ``(trials, N, n_queries)`` of the samples ``picked`` (``trials x N`` pool positions).

        Args:
            measure: A measure of the table's :meth:`key` that :func:`~ir_rarity.engine.affine.is_affine` accepts
                for samples of N systems.
            picked: One sample per row, N distinct runs each.
            done: Called with the number of trials scored after each chunk.

        """
        trials, n = picked.shape
        n_queries = self.base.shape[1]
        out = np.empty((trials, n, n_queries))
        order = np.argsort(picked, axis=1, kind="stable")
        ordered = np.take_along_axis(picked, order, axis=1)  # each trial's runs by pool position
        for chunk in _chunks(trials, n * n * n_queries):
            runs = ordered[chunk]
            # misses[r, r', q] for r, r' in the trial: (trials, N, N, queries), added up over r' in pool order
            spread = self.misses[runs[:, :, None], runs[:, None, :]].sum(axis=2)
            values = affine_values(measure, self.qrels, self.base[runs], spread, n)
            values = np.where(self.present[runs], values, measure.DEFAULT)
            np.put_along_axis(out[chunk], order[chunk][:, :, None], values, axis=1)
            if done is not None:
                done(len(runs))
        return out


def _chunks(trials: int, per_trial: int) -> Iterator[slice]:
    """Consecutive trials, at most :data:`GATHER_ELEMENTS` values gathered at once (one trial at least)."""
    size = max(1, GATHER_ELEMENTS // max(per_trial, 1))
    for first in range(0, trials, size):
        yield slice(first, first + size)


def _misses(weight: np.ndarray, cell: np.ndarray, column: np.ndarray, incidence: sparse.csc_matrix, n_cells: int
            ) -> np.ndarray:
    r"""``(cells, runs)``: :math:`\sum_j w_j [r' \text{ misses the pair of } j]` of each cell's rows j, per run r'.

    The weighted rows (cells x pairs, sparse) times the complement of the incidence matrix (pairs x runs, made
    dense a block of pairs at a time): sums of non-negative terms, with no cancellation.
    """
    n_runs, n_pairs = incidence.shape
    rows = sparse.csc_matrix((weight, (cell, column)), shape=(n_cells, n_pairs))
    out = np.zeros((n_cells, n_runs))
    step = max(1, GATHER_ELEMENTS // max(n_runs, 1))
    for first in range(0, n_pairs, step):
        block = slice(first, first + step)
        missed = 1.0 - (incidence[:, block].toarray() > 0)  # runs x block pairs
        out += rows[:, block] @ missed.T
    return out
