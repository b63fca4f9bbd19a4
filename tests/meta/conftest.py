"""Fixtures shared by the meta-evaluation tests."""

from __future__ import annotations

import pandas as pd
import pytest

# ------------------------------------------------------------------------------------------------------
# Hand-computed fixture: 3 runs x 4 queries
#   A = [.9 .7 .8 .6]  mean .75   within-run SS .05
#   B = [.5 .6 .4 .3]  mean .45   within-run SS .05
#   C = [.2 .3 .1 .4]  mean .25   within-run SS .05
# ------------------------------------------------------------------------------------------------------


@pytest.fixture
def small() -> pd.DataFrame:
    return pd.DataFrame(
        [[0.9, 0.7, 0.8, 0.6], [0.5, 0.6, 0.4, 0.3], [0.2, 0.3, 0.1, 0.4]],
        index=["A", "B", "C"],
        columns=["q1", "q2", "q3", "q4"],
    )
