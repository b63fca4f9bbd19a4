r"""Vectorized kernels: per-row gains in, one value per (run, query) cell out.

Every kernel takes rows sorted by cell and, within a cell, by rank (trec_eval order), already cut at the
measure's cutoff. ``cell`` holds each row's cell number in ``range(n_cells)``; ``rank`` the 0-based rank.
No kernel loops over rows or cells in Python.
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = [
    "block_rows",
    "bounded_rarity",
    "cell_count",
    "cell_sum",
    "ordered_sum",
    "rarity",
    "rarity_average_precision",
    "rarity_precision",
    "segmented_cumsum",
]


def block_rows(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Row numbers of blocks of consecutive rows (``starts[b]`` to ``starts[b] + lengths[b] - 1``), block after block.

    E.g. the rows of some runs of a table sorted by run, in the order the runs are given.
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    return np.repeat(np.asarray(starts, dtype=np.int64) - (np.cumsum(lengths) - lengths), lengths) + \
        np.arange(int(lengths.sum()), dtype=np.int64)


def rarity(s_d: np.ndarray, num_systems: float | np.ndarray) -> np.ndarray:
    r"""Document rarity of Türkmen, Lease & Kutlu (ECIR 2023), eq. 2: :math:`R(d) = 1 - S_d / S`."""
    return 1.0 - s_d / num_systems


def bounded_rarity(s_d: np.ndarray, num_systems: float | np.ndarray) -> np.ndarray:
    r"""Rescaled rarity of the same paper, section 5.2: :math:`R'(d) = 1 - (S_d - 1)/(S - 1)`, in [0, 1].

    :math:`S_d` is taken as at least 1 (a document in the evaluated ranking is retrieved by at least that
    system), which keeps :math:`R'` in [0, 1] when ``depth`` is smaller than the cutoff.
    """
    return 1.0 - (np.maximum(s_d, 1.0) - 1.0) / (num_systems - 1.0)


def cell_sum(values: np.ndarray, cell: np.ndarray, n_cells: int) -> np.ndarray:
    """Sum of ``values`` per cell (``np.bincount``), zero for empty cells."""
    return np.bincount(cell, weights=values, minlength=n_cells)[:n_cells]


def cell_count(cell: np.ndarray, n_cells: int) -> np.ndarray:
    """Rows of each cell among rows whose cells are ``cell``, as floats (exact integer counts)."""
    return np.bincount(cell, minlength=n_cells)[:n_cells].astype(np.float64)


def ordered_sum(values: np.ndarray, segment: np.ndarray, n_segments: int) -> np.ndarray:
    """Sum of ``values`` per segment (e.g. per query), added up in increasing order of value within each.

    Floating-point addition depends on order; the judged documents of a query come in an order that depends on
    how a campaign happened to encode its docnos (a pool read whole or cut at a depth, a count table). Adding
    them by value makes such sums the same, to the last digit, whatever the campaign's encoding.
    """
    order = np.lexsort((values, segment))
    return np.bincount(segment[order], weights=values[order], minlength=n_segments)[:n_segments]


def segmented_cumsum(values: np.ndarray, cell: np.ndarray, rank: np.ndarray | None = None) -> np.ndarray:
    """Running sum of ``values`` restarted at each cell, added up in rank order within the cell.

    Integer values use one global ``np.cumsum`` minus the total before each cell's first row, which is exact
    for integers. Float values are added up cell by cell (:func:`_float_segmented_cumsum`): one global float
    cumsum minus offsets would carry rounding error from all earlier cells and break exact agreement with
    trec_eval (pandas' grouped cumsum compensates its sums, which trec_eval does not).

    Args:
        values: Per-row values, rows sorted by cell.
        cell: Cell number of each row.
        rank: Optional 0-based position of each row within its cell (cells then start where ``rank`` is 0 and
            hold consecutive ranks); saves finding the cell starts of integer values from ``cell``.

    """
    if np.issubdtype(values.dtype, np.integer) or values.dtype == bool:
        n = len(values)
        before = np.zeros(n + 1, dtype=np.int64)  # before[i]: total of rows 0 .. i-1
        np.cumsum(values, dtype=np.int64, out=before[1:])
        if rank is None:
            start = np.empty(n, dtype=bool)
            if n:
                start[0] = True
                start[1:] = cell[1:] != cell[:-1]
            first = np.maximum.accumulate(np.where(start, np.arange(n), 0))
        else:
            first = np.arange(n) - rank
        return before[1:] - before[first]
    return _float_segmented_cumsum(values, cell)


def _float_segmented_cumsum(values: np.ndarray, cell: np.ndarray) -> np.ndarray:
    """Per-cell running sums of floats, each cell added up on its own from its first row, in row order.

    Cells are laid out as the columns of a zero-padded matrix whose rows are then added up one after another
    (:func:`_padded_cumsum`), so every prefix is the plain sequence of additions a per-cell loop (trec_eval's)
    makes. Cells of very different lengths are grouped by length (powers of two) so that the padding stays
    within :data:`PADDING` times the data.
    """
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    start = np.empty(n, dtype=bool)
    start[0] = True
    np.not_equal(cell[1:], cell[:-1], out=start[1:])
    starts = np.flatnonzero(start)
    lengths = np.diff(starts, append=n)
    width = int(lengths.max())
    if len(starts) * width <= PADDING * n + 4096:  # cells of similar lengths: one matrix
        return _padded_cumsum(values, starts, lengths, width)
    out = np.empty(n, dtype=np.float64)
    size_class = np.ceil(np.log2(lengths)).astype(np.int64)
    order = np.argsort(size_class, kind="stable")  # cells grouped by class, each class's in row order
    ordered = lengths[order]
    rows = block_rows(starts[order], ordered)
    grouped, row_start = values[rows], np.cumsum(ordered) - ordered
    _, class_start = np.unique(size_class[order], return_index=True)
    for first, last in itertools.pairwise([*class_start.tolist(), len(starts)]):  # one matrix per class (a few)
        local = ordered[first:last]
        lo, hi = int(row_start[first]), int(row_start[last - 1] + local[-1])
        out[rows[lo:hi]] = _padded_cumsum(grouped[lo:hi], row_start[first:last] - lo, local, int(local.max()))
    return out


PADDING = 4
"""Bound on the zero padding of :func:`_float_segmented_cumsum`'s matrices, in multiples of the data."""

ROW_ADDITIONS = 512
"""Cells from which :func:`_padded_cumsum` adds the matrix's rows one numpy addition each (below: ``np.cumsum``)."""


def _padded_cumsum(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray, width: int) -> np.ndarray:
    """Running sums of consecutive cells (rows ``starts[c]`` to ``starts[c] + lengths[c] - 1``) in a padded matrix.

    Cell c is column c of a ``width x cells`` zero-padded matrix, its row p the cell's p-th value (flat index
    ``p * cells + c``, one 1-D scatter and gather). Adding row ``p - 1`` to row ``p`` for p = 1, 2, ... makes
    every column its running sums, each still the plain one-after-another additions of its cell; with many cells
    each addition is one contiguous numpy addition of a whole row (``np.cumsum`` down the columns walks the
    matrix column by column, several times slower), with few ``np.cumsum`` is used.
    """
    n_cells = len(starts)
    flat = np.repeat(np.arange(n_cells) - starts * n_cells, lengths)
    flat += np.arange(len(values)) * n_cells  # (row - its cell's start) * n_cells + cell
    padded = np.zeros(width * n_cells, dtype=np.float64)
    padded[flat] = values
    matrix = padded.reshape(width, n_cells)
    if n_cells >= ROW_ADDITIONS:
        for p in range(1, width):  # one addition per rank position (at most the longest cell), not per row
            np.add(matrix[p], matrix[p - 1], out=matrix[p])
    else:
        np.cumsum(matrix, axis=0, out=matrix)
    return padded[flat]


def rarity_precision(gain: np.ndarray, cell: np.ndarray, n_cells: int, cutoff: int) -> np.ndarray:
    r"""Rarity-weighted precision at ``cutoff`` (eq. 1 of Türkmen et al., ECIR 2023).

    .. math:: P@k_{rare} = \frac{1}{k} \sum_{i=1}^{k} g_i, \qquad
              g_i = Rel(d_i)\,(1 + \alpha R(d_i))

    Like trec_eval's P@k, the sum is divided by ``cutoff`` even when fewer documents were retrieved.

    Args:
        gain: Per-row gain :math:`g_i` (zero for non-relevant rows), rows within the cutoff only.
        cell: Cell number of each row.
        n_cells: Number of cells.
        cutoff: The rank cutoff k.

    """
    return cell_sum(gain, cell, n_cells) / float(cutoff)


def rarity_average_precision(
    gain: np.ndarray,
    relevant: np.ndarray,
    rank: np.ndarray,
    cell: np.ndarray,
    n_cells: int,
    n_relevant: np.ndarray,
) -> np.ndarray:
    r"""Rarity-weighted average precision (eq. 3 of Türkmen et al., ECIR 2023).

    .. math:: AP_{rare} = \frac{1}{N_R} \sum_{i} Rel(d_i)\, P@i_{rare}
              = \frac{1}{N_R} \sum_{i:\,Rel(d_i)=1} \frac{1}{i} \sum_{j \le i} g_j

    :math:`N_R` counts every relevant document of the query in the qrels, retrieved or not (as trec_eval's
    ``map``); a query without relevant documents scores 0.

    Args:
        gain: Per-row gain :math:`g_j`, rows within the cutoff only.
        relevant: Per-row relevance indicator.
        rank: 0-based rank of each row.
        cell: Cell number of each row.
        n_cells: Number of cells.
        n_relevant: :math:`N_R` of each cell.

    """
    # Gains of non-relevant rows are 0, and x + 0.0 == x: running sums over the relevant rows alone are the same
    # numbers, from a tenth of the rows.
    if not relevant.all():  # (rows of relevant documents only, as a sample's batch, are taken as they are)
        hit = np.flatnonzero(relevant)
        gain, rank, cell = gain[hit], rank[hit], cell[hit]
    precision_at_i = segmented_cumsum(gain, cell) / (rank + 1.0)
    total = cell_sum(precision_at_i, cell, n_cells)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n_relevant > 0, total / np.maximum(n_relevant, 1), 0.0)
