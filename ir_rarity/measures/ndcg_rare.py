"""``nDCG_rare``: rarity-weighted normalized discounted cumulative gain."""

from __future__ import annotations

from ir_rarity.measures.base import RarityWeightedMeasure, rarity_params

__all__ = ["nDCG_rare"]


class _nDCG_rare(RarityWeightedMeasure):
    r"""Rarity-weighted nDCG: trec_eval's ``ndcg`` with each gain weighted by rarity as in ``P_rare``.

    .. math:: nDCG_{rare} = \frac{1}{IDCG} \sum_{i=1}^{k} \frac{g(d_i)\,\bigl(1 + \alpha R(d_i)\bigr)}{\log_2(i + 1)}

    :math:`g(d)` is the relevance label of a relevant document (label >= ``rel``; ``gain='binary'`` makes it 1)
    and 0 otherwise; :math:`R(d) = 1 - S_d/S` (or the bounded mixture :math:`(1-\alpha) g + \alpha g R'(d)`
    with ``bounded=True``, or the IDF-like rarity with ``weighting='log'``). IDCG is the DCG of the ideal ranking
    of all judged relevant documents of the query, retrieved or not, by decreasing gain, cut at k -- *without*
    rarity, as P_rare divides by k and AP_rare by N_R: the normaliser stays the standard one, so ``alpha=0`` is
    trec_eval's ``ndcg`` (``nDCG``) and ``ndcg_cut_k`` (``nDCG@k``) exactly, and values lie in [0, 1 + alpha)
    (in [0, 1] when bounded), like P_rare in [0, 2). A query without relevant documents scores 0, as in
    trec_eval. The rank discount is trec_eval's: rank 1 is not discounted, rank i by :math:`\log_2(i + 1)`.

    Section 6 of Türkmen, Lease & Kutlu (ECIR 2023) names nDCG and graded relevance as the next measures to
    extend; this is that extension, with the same mixture as eq. 1.
    ``alpha`` must lie in [0, 1e15] (:data:`~ir_rarity.measures.base.MAX_ALPHA`; a
    :class:`~ir_rarity.ParameterError` states the bound): values grow with alpha, and larger alphas overflow
    or lose the 1 of :math:`1 + \alpha R(d)` to rounding.
    """

    __name__ = "nDCG_rare"
    NAME = __name__
    PRETTY_NAME = "Rarity-weighted nDCG"
    SHORT_DESC = "nDCG in which each relevant document's gain is multiplied by 1 + alpha times its rarity."
    SUPPORTED_PARAMS = rarity_params(cutoff_required=False, gain_default="graded")
    BASE_MEASURE = "nDCG"
    AFFINE_IN_SD = True
    BATCHES_SAMPLES = True


nDCG_rare = _nDCG_rare()
