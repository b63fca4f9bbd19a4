"""Meta-evaluation of measures: rank correlation, discriminative power and stability.

See :mod:`ir_rarity.meta.stats` and Türkmen, Lease & Kutlu, ECIR 2023, Sections 4.2-4.4.
"""

from __future__ import annotations

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
    "stability",
    "system_ranking",
    "tau_ap",
]
