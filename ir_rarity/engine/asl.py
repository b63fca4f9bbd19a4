r"""Vectorized atomized search length (Alex, Hall & Metzler, eq. 1-5).

Rows come sorted by cell and, within a cell, in trec_eval order (see :mod:`ir_rarity.engine.kernels`). No
loop over rows or cells in Python: per-row counts are segmented cumulative sums, per-cell values bincounts.
"""

from __future__ import annotations

import math

import numpy as np

from ir_rarity.engine.codes import block_starts, ranks_within_blocks
from ir_rarity.engine.kernels import cell_count, cell_sum, segmented_cumsum

__all__ = ["atomized_search_length", "per_row_search_length", "relevant_positions"]


def relevant_positions(relevant: np.ndarray, cell: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row numbers of the relevant rows, and each one's 1-based position among its cell's relevant rows.

    Only the relevant rows are touched after one scan for them: they are a small share of a campaign's rows.
    """
    rows = np.flatnonzero(relevant)
    return rows, ranks_within_blocks(block_starts(cell[rows])) + 1


def per_row_search_length(relevant: np.ndarray, cell: np.ndarray, rank: np.ndarray | None = None) -> np.ndarray:
    r""":math:`ASL_{q,d} = irrel_{q,d} + 1` of every row (meaningful on relevant rows only).

    :math:`irrel_{q,d}` is the number of non-relevant rows above the row in its cell. ``rank`` (optional, see
    :func:`ir_rarity.engine.kernels.segmented_cumsum`) saves finding the cell starts.
    """
    irrelevant = (~np.asarray(relevant, dtype=bool)).astype(np.int64)
    return segmented_cumsum(irrelevant, cell, rank) - irrelevant + 1


def atomized_search_length(
    relevant: np.ndarray,
    cell: np.ndarray,
    n_cells: int,
    n_relevant: np.ndarray,
    first: int = 1,
    last: float = math.inf,
    after_last: bool = True,
    rank: np.ndarray | None = None,
    position: tuple[np.ndarray, np.ndarray] | None = None,
    cell_sizes: np.ndarray | None = None,
    length: int | None = None,
) -> np.ndarray:
    r"""Mean ASL per cell over its ``first``-th to ``last``-th best-placed relevant documents.

    Relevant documents are placed in rank order, then the unretrieved ones, each of which scores
    :math:`irrel_q + 1` (``after_last``) or :math:`irrel_q` (eq. 3), :math:`irrel_q` being the number of
    non-relevant rows of the cell. A cell with fewer than ``first`` relevant documents (e.g. none) is NaN; a
    cell with no rows but relevant documents has every one unretrieved (:math:`irrel_q = 0`).

    A retrieved relevant document at 0-based rank :math:`i`, the :math:`p`-th relevant one of its cell, has
    :math:`i - (p - 1)` non-relevant documents above it, so :math:`ASL_{q,d} = i - p + 2`.

    With a nominal run length ``length`` :math:`= N`, every ranking is taken cut at :math:`N` and padded with
    non-relevant documents to :math:`N`: only rows of rank :math:`i < N` count as retrieved, and
    :math:`irrel_q = N - r_q^N` with :math:`r_q^N` the relevant rows among them (a cell with no rows has
    :math:`irrel_q = N`).

    Args:
        relevant: Per-row relevance indicator.
        cell: Cell number of each row.
        n_cells: Number of cells.
        n_relevant: Relevant documents of each cell in the qrels, retrieved or not.
        first: A of the group range gA-B (1-based, >= 1).
        last: B of the group range (``inf``: all relevant documents).
        after_last: Place unretrieved relevant documents after the run's last document (else eq. 3 literally).
        rank: 0-based rank of each row within its cell (cells hold whole rankings from the top); computed from
            ``cell`` when not given.
        position: :func:`relevant_positions` of the rows, when already computed (it does not depend on the range).
        cell_sizes: Rows of each cell (``np.bincount(cell, minlength=n_cells)``), when already computed.
        length: Nominal run length N (rankings cut at N, padded with non-relevant documents to N), or None for
            the rankings as they are (the paper's rule).

    """
    relevant = np.asarray(relevant, dtype=bool)
    if rank is None:
        rank = ranks_within_blocks(block_starts(cell))
    rows, place = relevant_positions(relevant, cell) if position is None else position
    if length is not None:  # relevant rows below N are not retrieved; N - r_q^N non-relevant documents
        within = rank[rows] < length
        rows, place = rows[within], place[within]
    in_range = (place >= first) & (place <= last)
    rel_cell = cell[rows]
    retrieved_sum = cell_sum((rank[rows] - place + 2)[in_range].astype(np.float64), rel_cell[in_range], n_cells)
    n_retrieved = cell_count(rel_cell, n_cells)
    if length is not None:
        sizes: np.ndarray | float = float(length)
    else:
        sizes = cell_count(cell, n_cells) if cell_sizes is None else cell_sizes
    n_irrelevant = sizes - n_retrieved
    n_relevant = np.asarray(n_relevant, dtype=np.float64)
    top = np.minimum(n_relevant, last)
    size = top - first + 1  # documents in the range that exist
    n_unretrieved = np.maximum(top - np.maximum(first, n_retrieved + 1) + 1, 0)
    unretrieved_value = n_irrelevant + (1.0 if after_last else 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(size > 0, (retrieved_sum + n_unretrieved * unretrieved_value) / np.maximum(size, 1), np.nan)
