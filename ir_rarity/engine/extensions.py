r"""Extensions of the rarity measures suggested in section 5.2 of Türkmen, Lease & Kutlu (ECIR 2023).

* **Graded gain** (``gain='graded'``): a relevant document contributes its relevance label instead of 1.
* **IDF-like rarity** (``weighting='log'``): :math:`R(d) = \log(S/S_d) / \log S`, in [0, 1].
* **Per-topic alpha** (``alpha_per_topic=True``): :math:`\alpha_q = 1/N_R(q)` (the authors' code does this when
  alpha is None), so that a rare document matters more for a topic with few relevant documents.
* **Rarity-weighted DCG** (``nDCG_rare``): the discounted cumulative gain of trec_eval's ``ndcg`` with each gain
  multiplied by the rarity weight.

Every function is vectorized over rows; none loops in Python.
"""

from __future__ import annotations

import numpy as np

from ir_rarity.engine import kernels
from ir_rarity.engine.codes import block_starts, ranks_within_blocks

__all__ = ["dcg", "ideal_dcg", "log_rarity", "row_alpha", "row_rarity"]


def log_rarity(s_d: np.ndarray, num_systems: float | np.ndarray) -> np.ndarray:
    r"""IDF-like rarity :math:`R(d) = \log(S / S_d) / \log(S)`, in [0, 1].

    1 for a document only one system retrieved, 0 for one every system retrieved: the same end points as the
    bounded :math:`R'(d)`, but, as IDF, it separates the rare documents more than the common ones.
    :math:`S_d` is taken as at least 1 (a document in the evaluated ranking is retrieved by at least that system;
    :math:`S_d = 0` occurs only when ``depth`` is smaller than the cutoff), which keeps the value finite.
    With a single system (:math:`S = 1`, where :math:`\log S = 0`) nothing is rarer than anything else:
    :math:`R(d) = 0`, as the linear rarity :math:`1 - S_d/S` gives for :math:`S_d = S = 1`.
    """
    s_d = np.maximum(np.asarray(s_d, dtype=np.float64), 1.0)
    n = np.broadcast_to(np.asarray(num_systems, dtype=np.float64), s_d.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.log(n / np.minimum(s_d, n)) / np.log(n)
    return np.where(n > 1, value, 0.0)


def row_rarity(s_d: np.ndarray, num_systems: float | np.ndarray, bounded: bool, weighting: str) -> np.ndarray:
    """Rarity of each row: ``'linear'`` gives R (eq. 2), or R' when ``bounded``; ``'log'`` gives :func:`log_rarity`."""
    if weighting == "log":
        return log_rarity(s_d, num_systems)
    return kernels.bounded_rarity(s_d, num_systems) if bounded else kernels.rarity(s_d, num_systems)


def row_alpha(alpha: float, per_topic: bool, n_relevant: np.ndarray, query: np.ndarray) -> float | np.ndarray:
    r"""Alpha of each row: the measure's ``alpha``, or with ``per_topic`` :math:`1/N_R` of the row's query.

    Args:
        alpha: The measure's alpha.
        per_topic: Use :math:`\alpha_q = 1/N_R(q)` (0 for a query without relevant documents).
        n_relevant: :math:`N_R` of each qrels query.
        query: Position of each row's query in the qrels' queries.

    """
    if not per_topic:
        return float(alpha)
    per_query = np.where(n_relevant > 0, 1.0 / np.maximum(n_relevant, 1), 0.0)
    return per_query[query]


def dcg(gain: np.ndarray, rank: np.ndarray, cell: np.ndarray, n_cells: int) -> np.ndarray:
    r"""Discounted cumulative gain per cell: :math:`\sum_i g_i / \log_2(i + 1)`, i the 1-based rank.

    This is trec_eval's ``ndcg`` discount (``gain / log2(i + 2)`` for its 0-based i), so rank 1 is not discounted.
    """
    return kernels.cell_sum(gain / np.log2(rank + 2.0), cell, n_cells)


def ideal_dcg(gain: np.ndarray, query: np.ndarray, n_queries: int, cutoff: int | None) -> np.ndarray:
    """DCG per query of the ideal ranking of the judged documents: all gains > 0, largest first.

    As trec_eval's ``ndcg`` (and ``ndcg_cut``), the ideal ranking holds every judged document of the query with
    a positive gain, retrieved or not, cut at ``cutoff`` when given.

    Args:
        gain: Gain of each judged (query, document) pair.
        query: Position of each pair's query.
        n_queries: Number of queries.
        cutoff: Keep the ideal ranking's top ``cutoff`` (None: all of it).

    """
    positive = gain > 0
    gain, query = gain[positive], query[positive]
    order = np.lexsort((-gain, query))
    gain, query = gain[order], query[order]
    rank = ranks_within_blocks(block_starts(query))
    if cutoff is not None:
        keep = rank < cutoff
        gain, query, rank = gain[keep], query[keep], rank[keep]
    return dcg(gain, rank, query, n_queries)
