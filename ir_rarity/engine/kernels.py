r"""Vectorized kernels: per-row gains in, one value per (run, query) cell out.

Every kernel takes rows sorted by cell and, within a cell, by rank (trec_eval order), already cut at the
measure's cutoff. ``cell`` holds each row's cell number in ``range(n_cells)``; ``rank`` the 0-based rank.
No kernel loops over rows or cells in Python.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "bounded_rarity",
    "cell_count",
    "cell_sum",
    "ordered_sum",
    "rarity",
    "rarity_average_precision",
    "rarity_precision",
    "segmented_cumsum",
]


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
            hold consecutive ranks); saves finding the cell starts from ``cell``.

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
    return _float_segmented_cumsum(values, cell, rank)


def _float_segmented_cumsum(values: np.ndarray, cell: np.ndarray, rank: np.ndarray | None) -> np.ndarray:
    """Per-cell running sums of floats, each cell added up on its own from its first row, in row order.

    Cells are laid out as rows of a zero-padded matrix and summed along rows (``np.cumsum`` adds one value after
    another), so every prefix is the plain sequence of additions a per-cell loop (trec_eval's) makes. Cells are
    grouped by length (powers of two) so that the padding stays below the data.
    """
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    start = np.empty(n, dtype=bool)
    start[0] = True
    start[1:] = cell[1:] != cell[:-1]
    starts = np.flatnonzero(start)
    if rank is not None and len(starts) == int((rank == 0).sum()) and bool((rank[starts] == 0).all()):
        position = rank.astype(np.int64, copy=False)
    else:
        position = np.arange(n) - np.repeat(starts, np.diff(np.append(starts, n)))
    lengths = np.diff(np.append(starts, n))
    segment = np.repeat(np.arange(len(starts)), lengths)
    width = int(lengths.max())
    if len(starts) * width <= 2 * n + 4096:  # cells of similar lengths: one matrix
        return _padded_cumsum(values, segment, position, len(starts), width)
    out = np.empty(n, dtype=np.float64)
    size_class = np.ceil(np.log2(lengths)).astype(np.int64)
    for c in np.unique(size_class):
        chosen = np.flatnonzero(size_class == c)
        local = np.full(len(starts), -1, dtype=np.int64)
        local[chosen] = np.arange(len(chosen))
        rows = np.flatnonzero(local[segment] >= 0) if len(chosen) < len(starts) else np.arange(n)
        out[rows] = _padded_cumsum(values[rows], local[segment[rows]], position[rows], len(chosen),
                                   int(lengths[chosen].max()))
    return out


def _padded_cumsum(values: np.ndarray, segment: np.ndarray, position: np.ndarray, n_segments: int, width: int
                   ) -> np.ndarray:
    """Running sums of segments laid out as the columns of a ``width x n_segments`` zero-padded matrix.

    ``np.cumsum`` down the rows adds row ``p`` to the sums of row ``p - 1`` for every segment at once (each
    segment's sums are still the plain one-after-another additions), and the flat index ``position * n_segments +
    segment`` scatters and gathers with one 1-D index instead of a pair.
    """
    flat = position.astype(np.int64) * n_segments + segment
    padded = np.zeros(width * n_segments, dtype=np.float64)
    padded[flat] = values
    matrix = padded.reshape(width, n_segments)
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
    hit = np.flatnonzero(relevant)
    precision_at_i = segmented_cumsum(gain[hit], cell[hit]) / (rank[hit] + 1.0)
    total = cell_sum(precision_at_i, cell[hit], n_cells)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n_relevant > 0, total / np.maximum(n_relevant, 1), 0.0)
