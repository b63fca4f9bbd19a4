"""Kendall's tau-b of the robustness analysis equals scipy's."""

from __future__ import annotations

import numpy as np
import scipy.stats as sps

from ir_rarity.meta.robustness import _tau


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
