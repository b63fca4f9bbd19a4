"""The names of the tests, corrections and interval methods (no heavy imports: the command line's options use them)."""

from __future__ import annotations

from ir_rarity.stats.names import CORRECTIONS, INTERVALS, TESTS

__all__ = ["CORRECTIONS", "INTERVALS", "TESTS", "TEST_NAMES"]

TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
              "randomization": "paired randomization test"}
"""How tables name each test."""
