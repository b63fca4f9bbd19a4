"""The names of the tests, corrections and interval methods (no heavy imports: the command line's options use them)."""

from __future__ import annotations

__all__ = ["CORRECTIONS", "INTERVALS", "TESTS", "TEST_NAMES"]

TESTS = ("t", "wilcoxon", "randomization")
"""The paired tests by name."""

TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
              "randomization": "paired randomization test"}
"""How tables name each test."""

CORRECTIONS = ("bonferroni", "sidak", "holm-sidak", "holm", "simes-hochberg", "hommel", "fdr_bh", "fdr_by",
               "fdr_tsbh", "fdr_tsbky")
"""The correction methods of :func:`statsmodels.stats.multitest.multipletests`."""

INTERVALS = ("bootstrap", "t")
"""The interval methods by name."""
