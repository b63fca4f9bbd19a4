"""The names of the paired tests, corrections and interval methods (no heavy imports: command-line options use them)."""

from __future__ import annotations

__all__ = ["CORRECTIONS", "DIFF_INTERVALS", "INTERVALS", "TESTS"]

TESTS = ("t", "wilcoxon", "randomization")
"""The paired tests of :func:`ir_rarity.stats.paired.paired_pvalues` by name."""

CORRECTIONS = ("bonferroni", "sidak", "holm-sidak", "holm", "simes-hochberg", "hommel", "fdr_bh", "fdr_by",
               "fdr_tsbh", "fdr_tsbky")
"""The correction methods of :func:`statsmodels.stats.multitest.multipletests`."""

INTERVALS = ("bootstrap", "t")
"""The interval methods by name (:mod:`ir_rarity.stats.intervals`)."""

DIFF_INTERVALS = ("percentile", "bca")
"""The bootstrap intervals of a paired mean difference by name (:mod:`ir_rarity.stats.effects`)."""
