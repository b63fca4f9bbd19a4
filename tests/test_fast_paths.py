"""Faster paths equal the computations they replace: per-cell float sums, Kendall's tau-b."""

from __future__ import annotations

import numpy as np
import scipy.stats as sps

from ir_rarity.engine.kernels import segmented_cumsum
from ir_rarity.meta.robustness import _tau


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


def test_tau_b_equals_scipy() -> None:
    rng = np.random.default_rng(5)
    for n in (2, 3, 7, 40, 143):
        for _ in range(20):
            a = rng.integers(0, 4, n).astype(float)
            b = np.round(rng.normal(size=n), 1)
            if np.all(a == a[0]) or np.all(b == b[0]):
                assert np.isnan(_tau(a, b))
                continue
            assert abs(_tau(a, b) - sps.kendalltau(a, b).statistic) < 1e-14


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
