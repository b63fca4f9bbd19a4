"""System rankings by mean score (Türkmen, Lease & Kutlu, ECIR 2023, Section 4.2): hand-checked cases."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ir_rarity.meta import system_ranking


def test_system_ranking_hand(small: pd.DataFrame) -> None:
    assert system_ranking(small).to_dict() == {"A": 1.0, "B": 2.0, "C": 3.0}
    assert system_ranking(small, higher_is_better=False).to_dict() == {"A": 3.0, "B": 2.0, "C": 1.0}


def test_system_ranking_ties_and_nan() -> None:
    means = pd.Series({"x": 0.5, "y": 0.7, "z": 0.5, "w": 0.1})
    assert system_ranking(means).to_dict() == {"x": 2.5, "y": 1.0, "z": 2.5, "w": 4.0}
    # NaN-aware mean: r1 = (0.5 + 0.1 + 0.3) / 3 = 0.3, r2 = (0.2 + 0.6) / 2 = 0.4 despite the missing query.
    frame = pd.DataFrame({"q1": [0.5, 0.2], "q2": [0.1, np.nan], "q3": [0.3, 0.6]}, index=["r1", "r2"])
    assert system_ranking(frame).to_dict() == {"r1": 2.0, "r2": 1.0}
