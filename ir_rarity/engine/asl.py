r"""Vectorized atomized search length (Alex, Hall & Metzler, eq. 1-5).

Rows come sorted by group and, within a group, in trec_eval order (see :mod:`ir_rarity.engine.kernels`). No
loop over rows or groups in Python: per-row counts are segmented cumulative sums, per-group values bincounts.
"""

from __future__ import annotations

import math

import numpy as np

from ir_rarity.engine.kernels import group_sum, segmented_cumsum
from ir_rarity.engine.ranking import group_starts, ranks_within_groups

__all__ = ["atomized_search_length", "per_row_search_length", "relevant_positions"]


def relevant_positions(relevant: np.ndarray, group: np.ndarray, rank: np.ndarray | None = None) -> np.ndarray:
    """1-based position of each row among its group's relevant rows up to and including it."""
    return segmented_cumsum(np.asarray(relevant, dtype=bool), group, rank)


def per_row_search_length(relevant: np.ndarray, group: np.ndarray, rank: np.ndarray | None = None) -> np.ndarray:
    r""":math:`ASL_{q,d} = irrel_{q,d} + 1` of every row (meaningful on relevant rows only).

    :math:`irrel_{q,d}` is the number of non-relevant rows above the row in its group. ``rank`` (optional, see
    :func:`ir_rarity.engine.kernels.segmented_cumsum`) saves finding the group starts.
    """
    irrelevant = (~np.asarray(relevant, dtype=bool)).astype(np.int64)
    return segmented_cumsum(irrelevant, group, rank) - irrelevant + 1


def atomized_search_length(
    relevant: np.ndarray,
    group: np.ndarray,
    n_groups: int,
    n_relevant: np.ndarray,
    first: int = 1,
    last: float = math.inf,
    after_last: bool = True,
    rank: np.ndarray | None = None,
    position: np.ndarray | None = None,
) -> np.ndarray:
    r"""Mean ASL per group over its ``first``-th to ``last``-th best-placed relevant documents.

    Relevant documents are placed in rank order, then the unretrieved ones, each of which scores
    :math:`irrel_q + 1` (``after_last``) or :math:`irrel_q` (eq. 3), :math:`irrel_q` being the number of
    non-relevant rows of the group. A group with fewer than ``first`` relevant documents (e.g. none) is NaN; a
    group with no rows but relevant documents has every one unretrieved (:math:`irrel_q = 0`).

    A retrieved relevant document at 0-based rank :math:`i`, the :math:`p`-th relevant one of its group, has
    :math:`i - (p - 1)` non-relevant documents above it, so :math:`ASL_{q,d} = i - p + 2`.

    Args:
        relevant: Per-row relevance indicator.
        group: Group number of each row.
        n_groups: Number of groups.
        n_relevant: Relevant documents of each group in the qrels, retrieved or not.
        first: A of the group range (1-based, >= 1).
        last: B of the group range (``inf``: all relevant documents).
        after_last: Place unretrieved relevant documents after the run's last document (else eq. 3 literally).
        rank: 0-based rank of each row within its group (groups hold whole rankings from the top); computed from
            ``group`` when not given.
        position: :func:`relevant_positions` of the rows, when already computed (it does not depend on the range).

    """
    relevant = np.asarray(relevant, dtype=bool)
    if rank is None:
        rank = ranks_within_groups(group_starts(group))
    if position is None:
        position = relevant_positions(relevant, group, rank)
    chosen = relevant & (position >= first) & (position <= last)
    retrieved_sum = group_sum(np.where(chosen, rank - position + 2, 0), group, n_groups)
    n_retrieved = np.bincount(group[relevant], minlength=n_groups)[:n_groups].astype(np.float64)
    n_irrelevant = np.bincount(group, minlength=n_groups)[:n_groups] - n_retrieved
    n_relevant = np.asarray(n_relevant, dtype=np.float64)
    top = np.minimum(n_relevant, last)
    size = top - first + 1  # documents in the range that exist
    n_unretrieved = np.maximum(top - np.maximum(first, n_retrieved + 1) + 1, 0)
    unretrieved_value = n_irrelevant + (1.0 if after_last else 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(size > 0, (retrieved_sum + n_unretrieved * unretrieved_value) / np.maximum(size, 1), np.nan)
