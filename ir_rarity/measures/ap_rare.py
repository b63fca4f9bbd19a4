"""``AP_rare``: rarity-weighted average precision."""

from __future__ import annotations

from ir_rarity.measures.base import RarityWeightedMeasure, rarity_params

__all__ = ["AP_rare"]


class _AP_rare(RarityWeightedMeasure):
    r"""Rarity-based average precision, :math:`AP_{Rareness}` of Türkmen, Lease & Kutlu (ECIR 2023), eq. 3.

    .. math:: AP_{rare} = \frac{1}{N_R} \sum_{i=1}^{k} Rel(d_i)\; P@i_{rare}

    where :math:`P@i_{rare}` is ``P_rare`` at rank i (same ``alpha``, ``rel``, ``bounded`` and rarity),
    :math:`N_R` the number of relevant documents of the query in the qrels (retrieved or not) and k the cutoff
    (default: the whole run). ``alpha=0`` gives trec_eval's AP (``map``, or ``map_cut_k`` with a cutoff)
    exactly. S_d counts the pool runs that retrieve d in their top ``depth`` (default: the cutoff, else each
    run's full length).
    ``alpha`` must lie in [0, 1e15] (:data:`~ir_rarity.measures.base.MAX_ALPHA`; a
    :class:`~ir_rarity.ParameterError` states the bound): values grow with alpha, and larger alphas overflow
    or lose the 1 of :math:`1 + \alpha R(d)` to rounding.

    .. cite:: Türkmen, Lease & Kutlu. New Metrics to Encourage Innovation and Diversity in Information
       Retrieval Approaches. ECIR 2023.
    """

    __name__ = "AP_rare"
    NAME = __name__
    PRETTY_NAME = "Rarity-weighted average precision"
    SHORT_DESC = "Average precision in which each precision is the rarity-weighted P_rare at that rank."
    SUPPORTED_PARAMS = rarity_params(cutoff_required=False)
    BASE_MEASURE = "AP"
    AFFINE_IN_SD = True
    BATCHES_SAMPLES = True
    ALPHA_CURVE = True


AP_rare = _AP_rare()
