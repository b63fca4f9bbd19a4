"""Meta-evaluation of measures: rank correlation, discriminative power, stability and pool robustness.

Türkmen, Lease & Kutlu, "New Metrics to Encourage Innovation and Diversity in Information Retrieval Approaches",
ECIR 2023, Sections 3 and 4.2-4.5, on any campaign:

* :mod:`~ir_rarity.meta.rankings`: system rankings by mean score (Section 4.2);
* :mod:`~ir_rarity.meta.curves`: per-query score tables and the Kendall tau vs. alpha curve (Figure 2);
* :mod:`~ir_rarity.meta.discriminative`: discriminative power (Section 4.3, Table 1);
* :mod:`~ir_rarity.meta.stability`: stability under topic subsampling (Section 4.4, Table 2);
* :mod:`~ir_rarity.meta.robustness`: the number of systems (Algorithm 1, Table 3) and the synthetic systems
  (Figure 1);
* :mod:`~ir_rarity.meta.plots` and :mod:`~ir_rarity.meta.summary`: the figures and the report.

The statistics themselves (Kendall's tau, tau_AP, the significance tests) live in :mod:`ir_rarity.stats`;
:func:`kendall_tau` and :func:`tau_ap` are offered here too.
"""

from __future__ import annotations

from ir_rarity.meta.curves import per_query_matrix, tau_alpha_curve
from ir_rarity.meta.discriminative import DiscriminativePowerResult, discriminative_power
from ir_rarity.meta.plots import plot_robustness, plot_synthetic, plot_tau_alpha
from ir_rarity.meta.rankings import system_ranking
from ir_rarity.meta.robustness import synthetic_rank_curve, system_count_robustness
from ir_rarity.meta.stability import StabilityResult, stability
from ir_rarity.meta.summary import MetaReport, compute_report, save_report, write_report
from ir_rarity.stats import kendall_tau, tau_ap

__all__ = [
    "DiscriminativePowerResult",
    "MetaReport",
    "StabilityResult",
    "compute_report",
    "discriminative_power",
    "kendall_tau",
    "per_query_matrix",
    "plot_robustness",
    "plot_synthetic",
    "plot_tau_alpha",
    "save_report",
    "stability",
    "synthetic_rank_curve",
    "system_count_robustness",
    "system_ranking",
    "tau_alpha_curve",
    "tau_ap",
    "write_report",
]
