"""Meta-evaluation of measures: rank correlation, discriminative power, stability and pool robustness.

See :mod:`ir_rarity.meta.stats`, :mod:`~ir_rarity.meta.curves`, :mod:`~ir_rarity.meta.robustness`,
:mod:`~ir_rarity.meta.plots`, :mod:`~ir_rarity.meta.report` and Türkmen, Lease & Kutlu, ECIR 2023, Sections 4.2-4.4.
"""

from __future__ import annotations

from ir_rarity.meta.curves import per_query_matrix, tau_alpha_curve
from ir_rarity.meta.plots import plot_robustness, plot_synthetic, plot_tau_alpha
from ir_rarity.meta.report import write_report
from ir_rarity.meta.robustness import synthetic_rank_curve, system_count_robustness
from ir_rarity.meta.stats import (
    DiscriminativePowerResult,
    StabilityResult,
    discriminative_power,
    kendall_tau,
    stability,
    system_ranking,
    tau_ap,
)

__all__ = [
    "DiscriminativePowerResult",
    "StabilityResult",
    "discriminative_power",
    "kendall_tau",
    "per_query_matrix",
    "plot_robustness",
    "plot_synthetic",
    "plot_tau_alpha",
    "stability",
    "synthetic_rank_curve",
    "system_count_robustness",
    "system_ranking",
    "tau_alpha_curve",
    "tau_ap",
    "write_report",
]
