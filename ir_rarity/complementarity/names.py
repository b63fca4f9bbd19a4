"""The complementarity analysis's default measures and fusion methods (no heavy imports: the command line uses them)."""

from __future__ import annotations

from typing import Literal

__all__ = ["DEFAULT_MEASURES", "DEFAULT_RARITY", "METHODS", "Method"]

Method = Literal["rrf", "combsum", "combmnz"]
METHODS: tuple[Method, ...] = ("rrf", "combsum", "combmnz")
"""Fusion methods: reciprocal rank fusion, CombSUM and CombMNZ."""

DEFAULT_MEASURES = ("nDCG@10", "P@10", "AP@100", "P_rare(alpha=0.5)@10", "AP_rare(alpha=0.5)@100")
"""Measures the fused runs are evaluated with (the first is the one Shapley values are taken of)."""

DEFAULT_RARITY = ("P_rare(alpha=0.5)@10", "AP_rare(alpha=0.5)@100")
"""Rarity measures a team's rarity score is taken from."""
