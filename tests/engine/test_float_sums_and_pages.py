"""Engine fast paths: float per-cell sums equal a plain loop; numpy's huge-page advice is off inside and restored."""

from __future__ import annotations

import numpy as np

from ir_rarity.engine.kernels import segmented_cumsum


def test_float_segmented_cumsum_is_a_plain_loop_per_cell() -> None:
    rng = np.random.default_rng(3)
    lengths = np.r_[rng.integers(1, 120, 300), [2500], rng.integers(1, 4, 50)]  # one cell far longer
    cell = np.repeat(np.arange(len(lengths)) * 2, lengths)  # cell numbers with gaps
    rank = np.concatenate([np.arange(n) for n in lengths])
    values = rng.random(len(cell)) * 10.0 ** rng.integers(-8, 8, len(cell))
    expected = np.empty_like(values)
    total = 0.0
    for k in range(len(values)):
        total = values[k] if k == 0 or cell[k] != cell[k - 1] else total + values[k]
        expected[k] = total
    assert np.array_equal(segmented_cumsum(values, cell), expected)
    assert np.array_equal(segmented_cumsum(values, cell, rank), expected)


def test_hugepage_advice_is_off_inside_and_restored_after() -> None:
    from ir_rarity.engine import pages

    if pages._SWITCH is None:  # a numpy without the switch: nothing to check
        return
    seen = []

    @pages.without_hugepage_advice
    def inside() -> None:
        seen.append(pages._SWITCH(False))  # returns the setting in force

    before = pages._SWITCH(True)
    try:
        inside()
        assert seen == [False]
        assert pages._SWITCH(True) is True  # restored
    finally:
        pages._SWITCH(before)


