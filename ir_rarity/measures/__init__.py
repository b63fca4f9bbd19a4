"""Measure definitions (no computation: see :mod:`ir_rarity.engine`)."""

from ir_rarity.measures.ap_rare import AP_rare
from ir_rarity.measures.asl import ASL
from ir_rarity.measures.base import RarityMeasure, higher_is_better
from ir_rarity.measures.ndcg_rare import nDCG_rare
from ir_rarity.measures.novelty import U_novel
from ir_rarity.measures.p_rare import P_rare

__all__ = ["ASL", "AP_rare", "P_rare", "RarityMeasure", "U_novel", "higher_is_better", "nDCG_rare"]
