r"""Vectorized atomized search length (Alex, Hall & Metzler, eq. 1-5).

Rows come sorted by group and, within a group, in trec_eval order (see :mod:`ir_rarity.engine.kernels`). No
loop over rows or groups in Python: per-row counts are segmented cumulative sums, per-group values bincounts.
"""

from __future__ import annotations

import math

import numpy as np

from ir_rarity.engine.kernels import group_sum, segmented_cumsum

__all__ = ["atomized_search_length", "per_row_search_length"]


def per_row_search_length(relevant: np.ndarray, group: np.ndarray) -> np.ndarray:
    r""":math:`ASL_{q,d} = irrel_{q,d} + 1` of every row (meaningful on relevant rows only).

    :math:`irrel_{q,d}` is the number of non-relevant rows above the row in its group.
    """
    irrelevant = (~relevant).astype(np.int64)
    return segmented_cumsum(irrelevant, group) - irrelevant + 1


def atomized_search_length(
    relevant: np.ndarray,
    group: np.ndarray,
    n_groups: int,
    n_relevant: np.ndarray,
    first: int = 1,
    last: float = math.inf,
    after_last: bool = True,
) -> np.ndarray:
    r"""Mean ASL per group over its ``first``-th to ``last``-th best-placed relevant documents.

    Relevant documents are placed in rank order, then the unretrieved ones, each of which scores
    :math:`irrel_q + 1` (``after_last``) or :math:`irrel_q` (eq. 3), :math:`irrel_q` being the number of
    non-relevant rows of the group. A group with fewer than ``first`` relevant documents (e.g. none) is NaN; a
    group with no rows but relevant documents has every one unretrieved (:math:`irrel_q = 0`).

    Args:
        relevant: Per-row relevance indicator.
        group: Group number of each row.
        n_groups: Number of groups.
        n_relevant: Relevant documents of each group in the qrels, retrieved or not.
        first: A of the group range (1-based, >= 1).
        last: B of the group range (``inf``: all relevant documents).
        after_last: Place unretrieved relevant documents after the run's last document (else eq. 3 literally).

    """
    relevant = np.asarray(relevant, dtype=bool)
    search_length = per_row_search_length(relevant, group)
    position = segmented_cumsum(relevant.astype(np.int64), group)  # 1-based among the group's relevant rows
    chosen = relevant & (position >= first) & (position <= last)
    retrieved_sum = group_sum(np.where(chosen, search_length, 0), group, n_groups)
    n_irrelevant = group_sum((~relevant).astype(np.float64), group, n_groups)
    n_retrieved = group_sum(relevant.astype(np.float64), group, n_groups)
    n_relevant = np.asarray(n_relevant, dtype=np.float64)
    top = np.minimum(n_relevant, last)
    size = top - first + 1  # documents in the range that exist
    n_unretrieved = np.maximum(top - np.maximum(first, n_retrieved + 1) + 1, 0)
    unretrieved_value = n_irrelevant + (1.0 if after_last else 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(size > 0, (retrieved_sum + n_unretrieved * unretrieved_value) / np.maximum(size, 1), np.nan)
