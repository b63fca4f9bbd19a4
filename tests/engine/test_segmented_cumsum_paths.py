"""Every path of the float per-cell running sums equals a plain loop per cell, and AP_rare a hand-made loop."""

from __future__ import annotations

import numpy as np
import pytest

from ir_rarity.engine import kernels


def _loop_cumsum(values: np.ndarray, cell: np.ndarray) -> np.ndarray:
    """trec_eval's way: one running total per cell, one addition per row."""
    out = np.empty(len(values))
    total = 0.0
    for k in range(len(values)):
        total = values[k] if k == 0 or cell[k] != cell[k - 1] else total + values[k]
        out[k] = total
    return out


def _cells(lengths: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    cell = np.repeat(np.arange(len(lengths)) * 3 + 1, lengths)  # cell numbers with gaps
    values = rng.random(len(cell)) * 10.0 ** rng.integers(-8, 8, len(cell))
    return values, cell


@pytest.mark.parametrize("case", ["row additions", "np.cumsum", "length classes", "one cell"])
def test_each_path_is_a_plain_loop_per_cell(case: str) -> None:
    rng = np.random.default_rng(11)
    lengths = {
        "row additions": rng.integers(1, 60, 3 * kernels.ROW_ADDITIONS),  # one matrix, added row by row
        "np.cumsum": rng.integers(1, 60, kernels.ROW_ADDITIONS // 2),  # one matrix, np.cumsum down the columns
        # far longer cells among many short ones: one matrix per length class, one of them with many cells
        "length classes": np.r_[rng.integers(1, 8, 4 * kernels.ROW_ADDITIONS), [900, 3000], rng.integers(40, 64, 9)],
        "one cell": np.array([5000]),
    }[case]
    values, cell = _cells(lengths, rng)
    expected = _loop_cumsum(values, cell)
    assert np.array_equal(kernels.segmented_cumsum(values, cell), expected)
    if case == "length classes":  # the lengths do force the grouped path
        assert len(lengths) * lengths.max() > kernels.PADDING * len(values) + 4096


def test_block_rows_lists_each_block_in_the_given_order() -> None:
    starts, lengths = np.array([7, 0, 3]), np.array([2, 3, 0])
    assert kernels.block_rows(starts, lengths).tolist() == [7, 8, 0, 1, 2]


def test_rarity_average_precision_equals_a_loop_per_cell() -> None:
    rng = np.random.default_rng(5)
    lengths = rng.integers(1, 40, 2 * kernels.ROW_ADDITIONS)
    n_cells = len(lengths) + 3  # the last cells hold no row
    cell = np.repeat(np.arange(len(lengths)), lengths)
    rank = np.concatenate([np.arange(n) for n in lengths])
    relevant = rng.random(len(cell)) < 0.4
    gain = np.where(relevant, 1.0 + rng.random(len(cell)), 0.0)
    n_relevant = rng.integers(0, 30, n_cells).astype(np.float64)
    expected = np.zeros(n_cells)
    for c in range(n_cells):  # eq. 3 of Türkmen et al.: (1/N_R) sum over relevant i of (1/i) sum_{j<=i} g_j
        running, total = 0.0, 0.0
        for k in np.flatnonzero(cell == c):
            running += gain[k]
            if relevant[k]:
                total += running / (rank[k] + 1.0)
        expected[c] = total / n_relevant[c] if n_relevant[c] > 0 else 0.0
    got = kernels.rarity_average_precision(gain, relevant, rank, cell, n_cells, n_relevant)
    assert np.array_equal(got, expected)
