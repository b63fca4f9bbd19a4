"""Registration of ir_rarity's measures and provider with ir_measures (and PyTerrier's measure module).

Run once, at ``import ir_rarity``. Idempotent.
"""

from __future__ import annotations

import sys

import ir_measures

from ir_rarity.integrations.asl_syntax import install_group_syntax
from ir_rarity.integrations.ir_measures_provider import RarityProvider
from ir_rarity.measures import FAMILIES

__all__ = ["MEASURES", "PROVIDER", "register"]

MEASURES: dict[str, ir_measures.Measure] = {str(m.NAME): m for m in FAMILIES}
"""Name -> measure of every family in :data:`ir_rarity.measures.FAMILIES`."""
PROVIDER = RarityProvider()  # type: ignore[no-untyped-call]  # ir_measures.Provider.__init__ is untyped


def register() -> None:
    """Register the measures and the provider; expose the measures in ``pyterrier.measures`` if it is loaded.

    ``pyterrier.measures`` copies ir_measures' registry when it is first imported; when that happened before
    ``import ir_rarity``, the measures are added to it here.
    """
    for name, measure in MEASURES.items():
        if ir_measures.measures.registry.get(name) is not measure:
            if name in ir_measures.measures.registry:
                raise RuntimeError(f"another package already registered an ir_measures measure named {name!r}")
            ir_measures.measures.register(measure)
    install_group_syntax()  # ASL@g1-10
    if ir_measures.providers.registry.get(PROVIDER.NAME) is not PROVIDER:
        ir_measures.providers.register(PROVIDER)
    pipeline = ir_measures.DefaultPipeline.providers
    if not any(p is PROVIDER for p in pipeline):
        pipeline.append(PROVIDER)
    pt_measures = sys.modules.get("pyterrier.measures")
    if pt_measures is not None:
        for name, measure in MEASURES.items():
            setattr(pt_measures, name, measure)
