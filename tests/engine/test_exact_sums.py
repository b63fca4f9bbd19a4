"""exact_sums: the vectorized double-double pass gives math.fsum's float on every row, hard rows included.

Expected values are math.fsum's and, where cheap, exact rational sums (fractions.Fraction) rounded once.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ir_rarity.engine import means
from ir_rarity.engine.means import FSUM_ROWS, exact_sums


def _fsum_rows(values: np.ndarray) -> np.ndarray:
    return np.array([math.fsum(row) for row in values.tolist()])


def _assert_same_floats(got: np.ndarray, want: np.ndarray) -> None:
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))  # zeros of the same sign too


def _hard_rows(rng: np.random.Generator) -> np.ndarray:
    """Rows whose sums sit on or next to a rounding boundary, cancel to zero or nearly, or span every exponent."""
    n = 12
    rows = []
    for _ in range(40):
        row = np.zeros(n)
        row[0], row[1] = 1.0, 2.0**-53  # exactly half an ulp of 1: ties to even
        row[2] = rng.choice([0.0, 2.0**-106, -(2.0**-106), 2.0**-160])  # just off the midpoint, or not
        rows.append(rng.permutation(row))
    for _ in range(40):  # just below a power of two, where the floats are twice as dense
        row = np.zeros(n)
        row[0], row[1] = 2.0 ** rng.integers(-3, 4), 0.0
        row[1] = -row[0] * 2.0**-54  # half the spacing below row[0]: ties to row[0] itself
        row[2] = rng.choice([-1.0, 1.0]) * row[0] * 2.0**-200  # which decides it
        rows.append(rng.permutation(row))
    for _ in range(40):
        half = rng.random(n // 2) * 10.0 ** rng.integers(-20, 20, n // 2)
        row = np.concatenate([half, -half])
        row[0] += rng.choice([0.0, 1e-30, 5e-324])  # exact cancellation, or a tiny remainder
        rows.append(rng.permutation(row))
    for _ in range(40):
        rows.append(rng.standard_normal(n) * 2.0 ** rng.integers(-1070, 1000, n))
    for _ in range(40):
        rows.append(rng.choice([-1.0, 1.0], n) * 2.0 ** rng.integers(-1074, -1000, n))  # subnormal sums
    return np.array(rows)


def test_hard_rows_equal_fsum_and_exact_fractions() -> None:
    values = _hard_rows(np.random.default_rng(3))
    want = _fsum_rows(values)
    _assert_same_floats(exact_sums(values), want)
    exact = [float(sum(map(Fraction, row))) for row in values.tolist()]
    assert want.tolist() == exact


def test_the_vectorized_pass_proves_most_rows_and_leaves_hard_ones_to_fsum(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(4)
    easy = rng.random((5000, 30))
    sums, proven = means._proven_sums(np.ascontiguousarray(easy.T))
    assert proven.mean() > 0.999
    _assert_same_floats(sums[proven], _fsum_rows(easy[proven]))
    midpoints = np.zeros((100, 30))
    midpoints[:, 0], midpoints[:, 1] = 1.0, 2.0**-53  # exactly on a boundary, errors added up exactly: proven
    sums, proven = means._proven_sums(np.ascontiguousarray(midpoints.T))
    assert proven.all() and (sums == 1.0).all()  # ties to even
    midpoints[:, 2] = 2.0**-160  # the errors' sum rounds, and the result is within B of the boundary: not shown
    assert not means._proven_sums(np.ascontiguousarray(midpoints.T))[1].any()
    calls: list[int] = []
    fsums = means._fsums
    monkeypatch.setattr(means, "_fsums", lambda v: calls.append(len(v)) or fsums(v))
    _assert_same_floats(exact_sums(np.vstack([easy, midpoints])), _fsum_rows(np.vstack([easy, midpoints])))
    assert 100 <= sum(calls) < 200


def test_nan_inf_and_zeros_are_fsum_s() -> None:
    values = np.random.default_rng(5).random((200, 6))
    values[3, 2] = np.nan
    values[4, 1] = np.inf
    values[5, :] = -0.0
    values[6, :] = 0.0
    values[7, :3], values[7, 3:] = [1.0, 2.0, 3.0], [-1.0, -2.0, -3.0]
    _assert_same_floats(exact_sums(values), _fsum_rows(values))
    values[8, :2] = [np.inf, -np.inf]
    with pytest.raises(ValueError):  # as math.fsum: inf - inf has no sum
        exact_sums(values)


def test_blocks_of_rows_and_few_rows_agree() -> None:
    values = np.random.default_rng(6).standard_normal((3 * FSUM_ROWS, 2000)) * 1e3
    whole = exact_sums(values)
    _assert_same_floats(whole, _fsum_rows(values))
    _assert_same_floats(np.concatenate([exact_sums(values[i:i + 5]) for i in range(0, len(values), 5)]), whole)


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(FSUM_ROWS, 3 * FSUM_ROWS), st.integers(1, 40)),
                  elements=st.floats(allow_nan=False, allow_infinity=False, width=64)))
def test_any_finite_rows_equal_fsum(values: np.ndarray) -> None:
    try:
        want = _fsum_rows(values)
    except OverflowError:  # fsum's intermediate overflow: exact_sums raises the same
        with pytest.raises(OverflowError):
            exact_sums(values)
        return
    _assert_same_floats(exact_sums(values), want)
