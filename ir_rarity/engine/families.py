"""Which measures the engine computes with kernels of its own: ir_rarity's measure families.

:data:`ENGINE_FAMILIES` is derived from :data:`ir_rarity.measures.FAMILIES`; the engine's kernel table is keyed by
the same names and refuses to build if one has no kernel, so a measure this module accepts always has one.
"""

from __future__ import annotations

from ir_measures import Measure

from ir_rarity.measures import FAMILIES

__all__ = ["ENGINE_FAMILIES", "is_engine_measure"]

ENGINE_FAMILIES: frozenset[str] = frozenset(str(m.NAME) for m in FAMILIES)
"""Names of the measure families the engine computes (``P_rare``, ``AP_rare``, ..., ``U_novel``)."""


def is_engine_measure(measure: Measure) -> bool:
    """Whether the engine computes ``measure`` with its own kernel (one of ir_rarity's families)."""
    return getattr(measure, "NAME", None) in ENGINE_FAMILIES
