"""``R_rare``: rarity-weighted recall at k."""

from __future__ import annotations

from ir_rarity.measures.base import RarityWeightedMeasure, rarity_params

__all__ = ["R_rare"]


class _R_rare(RarityWeightedMeasure):
    r"""Rarity-weighted recall at k, the recall measure of Türkmen, Lease & Kutlu (ECIR 2023), section 5.1.

    Section 5.1 suggests repurposing recall measures to promote innovation: a system is credited more for
    finding the relevant documents that few other systems found.

    .. math:: R@k_{rare} = \frac{\sum_{i \le k} Rel(d_i)\, w(d_i)}{\sum_{d \in Rel(q)} w(d)}, \qquad
              w(d) = 1 + \alpha R(d), \quad R(d) = 1 - \frac{S_d}{S}

    The denominator sums the weights of every relevant document of the query in the qrels, retrieved by the run
    or not; a relevant document that no system retrieved has :math:`S_d = 0`, so :math:`R(d) = 1`. Each
    document's :math:`S_d` is the one the run is scored with (a newcomer's own retrieval counts, as for the
    numerator). ``alpha=0`` gives trec_eval's ``recall_k`` (ir_measures ``R@k``) exactly; a query without
    relevant documents scores 0, as there. ``bounded=True`` uses :math:`w(d) = (1 - \alpha) + \alpha R'(d)`,
    ``weighting='log'`` the IDF-like rarity and ``gain='graded'`` multiplies each weight by the label, in the
    numerator and the denominator alike, so values always lie in [0, 1]. Without a cutoff, the whole ranking.
    Any finite alpha >= 0 is accepted: the weights are computed divided by :math:`1 + \alpha` (which leaves the
    ratio unchanged) so that no sum overflows; as :math:`\alpha \to \infty`, :math:`w(d) \to R(d)`.

    .. cite:: Türkmen, Lease & Kutlu. New Metrics to Encourage Innovation and Diversity in Information
       Retrieval Approaches. ECIR 2023.
    """

    __name__ = "R_rare"
    NAME = __name__
    PRETTY_NAME = "Rarity-weighted recall at k"
    SHORT_DESC = "Recall at k where each relevant document weighs 1 + alpha times its rarity 1 - S_d/S."
    SUPPORTED_PARAMS = rarity_params(cutoff_required=False)
    BASE_MEASURE = "R"
    MAX_ALPHA = float("inf")  # any finite alpha: a ratio of scaled weights


R_rare = _R_rare()
