"""Measure definitions (no computation: see :mod:`ir_rarity.engine`).

:data:`FAMILIES` is the one list of ir_rarity's measure families: registration with ir_measures, the package's
exports and the engine's kernel table are all derived from it, and a test checks that every family has a
kernel. A new measure is a module here, one entry in this list and one kernel in the engine's kernel table
(:mod:`ir_rarity.engine`); the common test (``tests/measures/test_common.py``) then checks it.
"""

from ir_rarity.measures.ap_rare import AP_rare
from ir_rarity.measures.asl import ASL
from ir_rarity.measures.base import RarityMeasure
from ir_rarity.measures.ndcg_rare import nDCG_rare
from ir_rarity.measures.novelty import U_novel
from ir_rarity.measures.p_rare import P_rare
from ir_rarity.measures.parse import higher_is_better
from ir_rarity.measures.r_rare import R_rare

__all__ = ["ASL", "FAMILIES", "AP_rare", "P_rare", "R_rare", "RarityMeasure", "U_novel", "higher_is_better",
           "nDCG_rare"]

FAMILIES: tuple[RarityMeasure, ...] = (P_rare, AP_rare, nDCG_rare, R_rare, ASL, U_novel)
"""Every measure family of ir_rarity, in the order they are documented."""
