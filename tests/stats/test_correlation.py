"""Kendall's tau-b, the fast tau-b of score vectors and tau_AP: hand-checked, against naive counts and scipy."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps

from ir_rarity.errors import InputError, ParameterError
from ir_rarity.stats import kendall_tau, kendall_tau_b, tau_ap

# ``small`` (tests/conftest.py): 3 runs x 4 queries, means A .75, B .45, C .25.


# ------------------------------------------------------------------------------------------------------
# kendall_tau
# ------------------------------------------------------------------------------------------------------


def naive_tau_b(x: list[float], y: list[float]) -> float:
    """(P - Q) / sqrt((P + Q + T) (P + Q + U)) by enumerating pairs (T: tied only in x, U: only in y)."""
    p = q = t = u = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            t += 1
        elif dy == 0:
            u += 1
        elif dx == dy:
            p += 1
        else:
            q += 1
    return (p - q) / math.sqrt((p + q + t) * (p + q + u))


def test_kendall_tau_hand(small: pd.DataFrame) -> None:
    # Measure 1 orders A > B > C (means .75 .45 .25); measure 2 orders B > A > C.
    other = pd.Series({"A": 0.3, "B": 0.6, "C": 0.1})
    # Pairs: (A,B) discordant, (A,C) concordant, (B,C) concordant -> (2 - 1) / 3.
    assert kendall_tau(small, other) == pytest.approx(1 / 3)
    assert kendall_tau(small, small) == pytest.approx(1.0)
    # A lower-is-better second measure with the reversed means is the same ranking.
    assert kendall_tau(small, -small, higher_is_better=(True, False)) == pytest.approx(1.0)
    assert kendall_tau(small, -small) == pytest.approx(-1.0)


def test_kendall_tau_alignment_and_ties() -> None:
    a = pd.Series({"r1": 0.1, "r2": 0.4, "r3": 0.4, "r4": 0.9, "extra": 0.5})
    b = pd.Series({"r4": 0.8, "r3": 0.2, "r2": 0.3, "r1": 0.3, "other": 0.0})
    runs = ["r1", "r2", "r3", "r4"]
    expected = naive_tau_b([a[r] for r in runs], [b[r] for r in runs])
    assert kendall_tau(a, b) == pytest.approx(expected)
    # Hand: pairs (r1,r2) a<, b= -> U; (r1,r3) a< b> -> Q; (r1,r4) P; (r2,r3) a= b> -> T; (r2,r4) P; (r3,r4) P
    # P=3 Q=1 T=1 U=1: (3 - 1) / sqrt(5 * 5) = 0.4
    assert expected == pytest.approx(0.4)


def test_kendall_tau_needs_two_common_runs() -> None:
    with pytest.raises(InputError):
        kendall_tau(pd.Series({"a": 1.0, "b": 2.0}), pd.Series({"a": 1.0, "c": 2.0}))
    with pytest.raises(ParameterError):
        kendall_tau(pd.Series({"a": 1.0, "b": 2.0}), pd.Series({"a": 1.0, "b": 2.0}), variant="a")  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------------
# kendall_tau_b (score vectors)
# ------------------------------------------------------------------------------------------------------


def test_tau_b_equals_scipy() -> None:
    rng = np.random.default_rng(5)
    for n in (2, 3, 7, 40, 143):
        for _ in range(20):
            a = rng.integers(0, 4, n).astype(float)
            b = np.round(rng.normal(size=n), 1)
            if np.all(a == a[0]) or np.all(b == b[0]):
                assert np.isnan(kendall_tau_b(a, b))
                continue
            assert abs(kendall_tau_b(a, b) - sps.kendalltau(a, b).statistic) < 1e-14


# ------------------------------------------------------------------------------------------------------
# tau_ap
# ------------------------------------------------------------------------------------------------------


def ranking(order: str) -> pd.Series:
    """Means that rank the single-letter systems in ``order`` best first."""
    return pd.Series({name: float(len(order) - k) for k, name in enumerate(order)})


def test_tau_ap_top_weighted() -> None:
    truth = ranking("abcd")
    # Swap at the bottom, list a b d c: C(2)=1/1, C(3)=2/2, C(4)=2/3 -> 2/3 * 8/3 - 1 = 7/9.
    assert tau_ap(ranking("abdc"), truth) == pytest.approx(7 / 9)
    # Swap at the top, list b a c d: C(2)=0/1, C(3)=2/2, C(4)=3/3 -> 2/3 * 2 - 1 = 1/3.
    assert tau_ap(ranking("bacd"), truth) == pytest.approx(1 / 3)
    # Kendall's tau cannot tell the two apart.
    assert kendall_tau(ranking("abdc"), truth) == pytest.approx(kendall_tau(ranking("bacd"), truth))
    assert tau_ap(truth, truth) == pytest.approx(1.0)
    assert tau_ap(ranking("dcba"), truth) == pytest.approx(-1.0)


def test_tau_ap_asymmetric() -> None:
    a, b = ranking("abcd"), ranking("bcad")
    # tau_AP(a, b): list a b c d vs truth b c a d: C(2)=0/1, C(3)=1/2, C(4)=3/3 -> 2/3 * 1.5 - 1 = 0.
    assert tau_ap(a, b) == pytest.approx(0.0)
    # tau_AP(b, a): list b c a d vs truth a b c d: C(2)=1/1, C(3)=0/2, C(4)=3/3 -> 2/3 * 2 - 1 = 1/3.
    assert tau_ap(b, a) == pytest.approx(1 / 3)
    assert tau_ap(a, b, symmetric=True) == pytest.approx(1 / 6)
    assert tau_ap(b, a, symmetric=True) == pytest.approx(1 / 6)


def test_tau_ap_ties_and_direction(small: pd.DataFrame) -> None:
    tied = pd.Series({"A": 1.0, "B": 1.0, "C": 0.0})
    # Ties broken by name: list A B C against truth B A C -> C(2)=0/1, C(3)=2/2 -> 2/2 * 1 - 1 = 0.
    assert tau_ap(tied, pd.Series({"A": 0.5, "B": 0.9, "C": 0.1})) == pytest.approx(0.0)
    assert tau_ap(tied, tied) == pytest.approx(1.0)
    assert tau_ap(small, -small, higher_is_better=(True, False)) == pytest.approx(1.0)
    assert tau_ap(small, small, higher_is_better=False) == pytest.approx(1.0)


def test_tau_ap_random_matches_naive() -> None:
    rng = np.random.default_rng(7)
    names = [f"s{i}" for i in range(12)]
    a = pd.Series(rng.random(12), index=names)
    b = pd.Series(rng.random(12), index=names)
    list_order = list(a.sort_values(ascending=False).index)
    truth_pos = {name: k for k, name in enumerate(b.sort_values(ascending=False).index)}
    total = 0.0
    for i in range(1, len(list_order)):
        above = list_order[:i]
        total += sum(truth_pos[x] < truth_pos[list_order[i]] for x in above) / i
    expected = 2.0 / (len(names) - 1) * total - 1.0
    assert tau_ap(a, b) == pytest.approx(expected)
    # Run order in the input does not matter.
    assert tau_ap(a.iloc[::-1], b.sample(frac=1.0, random_state=1)) == pytest.approx(expected)
