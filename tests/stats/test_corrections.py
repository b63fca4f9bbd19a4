"""Multiple-testing corrections: hand-computed Bonferroni and Holm values, NaN outside the family."""

from __future__ import annotations

import numpy as np
import pytest

from ir_rarity.errors import ParameterError
from ir_rarity.stats import CORRECTIONS, correct


def test_bonferroni_and_holm_by_hand() -> None:
    p = np.array([0.01, 0.04, np.nan, 0.03])
    reject, corrected = correct(p, "bonferroni", 0.05)
    # m = 3 defined p-values: min(1, 3 p).
    np.testing.assert_allclose(corrected, [0.03, 0.12, np.nan, 0.09])
    assert reject.tolist() == [True, False, False, False]
    # Holm: sorted .01 .03 .04 -> 3 * .01, max(.03, 2 * .03), max(.06, 1 * .04).
    reject, corrected = correct(p, "holm", 0.05)
    np.testing.assert_allclose(corrected, [0.03, 0.06, np.nan, 0.06])
    assert reject.tolist() == [True, False, False, False]


def test_no_correction_and_bad_input() -> None:
    p = np.array([0.01, 0.2, np.nan])
    reject, corrected = correct(p, None, 0.05)
    assert reject.tolist() == [True, False, False]
    np.testing.assert_array_equal(corrected, p)
    assert "holm" in CORRECTIONS and "fdr_bh" in CORRECTIONS
    with pytest.raises(ParameterError):
        correct(p, "holm", 1.5)
    with pytest.raises(ParameterError):
        correct(p, "tukey")
