"""``P_rare``: rarity-weighted precision at k."""

from __future__ import annotations

from ir_rarity.measures.base import RarityWeightedMeasure, rarity_params

__all__ = ["P_rare"]


class _P_rare(RarityWeightedMeasure):
    r"""Rarity-based precision at k, :math:`P@K_{Rareness}` of Türkmen, Lease & Kutlu (ECIR 2023), eq. 1.

    .. math:: P@k_{rare} = \frac{1}{k} \sum_{i=1}^{k} Rel(d_i)\,\bigl(1 + \alpha R(d_i)\bigr),
              \qquad R(d) = 1 - \frac{S_d}{S}

    :math:`S` is the number of runs in the pool and :math:`S_d` the number of them that retrieve :math:`d` in
    their top ``depth`` for the query (``depth`` defaults to the cutoff). ``alpha=0`` gives trec_eval's P@k
    exactly. With ``bounded=True`` the [0, 1]-bounded variant of section 5.2 (eq. 4) is used instead:

    .. math:: P'@k_{rare} = \frac{1}{k} \sum_{i=1}^{k} \bigl[(1-\alpha) Rel(d_i) + \alpha Rel(d_i) R'(d_i)\bigr],
              \qquad R'(d) = 1 - \frac{S_d - 1}{S - 1}

    Documents are ordered as trec_eval orders them (score descending, ties by docno descending); a relevant
    document has a label >= ``rel``; unjudged documents are non-relevant; the sum is divided by k even when the
    run retrieved fewer documents.
    ``alpha`` must lie in [0, 1e15] (:data:`~ir_rarity.measures.base.MAX_ALPHA`; a
    :class:`~ir_rarity.ParameterError` states the bound): values grow with alpha, and larger alphas overflow
    or lose the 1 of :math:`1 + \alpha R(d)` to rounding.

    .. cite:: Türkmen, Lease & Kutlu. New Metrics to Encourage Innovation and Diversity in Information
       Retrieval Approaches. ECIR 2023.
    """

    __name__ = "P_rare"
    NAME = __name__
    PRETTY_NAME = "Rarity-weighted precision at k"
    SHORT_DESC = "Precision at k where each relevant document also earns alpha times its rarity 1 - S_d/S."
    SUPPORTED_PARAMS = rarity_params(cutoff_required=True)
    BASE_MEASURE = "P"
    AFFINE_IN_SD = True
    BATCHES_SAMPLES = True
    ALPHA_CURVE = True


P_rare = _P_rare()
