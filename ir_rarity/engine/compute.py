"""From rows to per-query values: one kernel per measure family, looked up in a table built from the family list.

:func:`compute` turns one measure into an ``(n_runs, n_queries)`` matrix. The table :data:`KERNELS` is keyed by
the names in :data:`ir_rarity.measures.FAMILIES`; building it fails at import if a family has no kernel, and a
test checks the same for every registered measure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from ir_measures import Measure

from ir_rarity.engine import asl as asl_kernel
from ir_rarity.engine import extensions, kernels, novelty
from ir_rarity.engine.families import ENGINE_FAMILIES, is_engine_measure
from ir_rarity.engine.qrels import EncodedQrels, is_relevant
from ir_rarity.engine.rows import Rows
from ir_rarity.errors import ParameterError
from ir_rarity.measures.asl import ASL
from ir_rarity.measures.base import RarityMeasure

__all__ = ["KERNELS", "compute", "ideal_dcg_rare", "is_engine_measure", "row_gain", "s_d_depth"]

Kernel = Callable[[Any, Rows], np.ndarray]


def s_d_depth(measure: Measure) -> int | None:
    """The depth a rarity measure counts S_d at: its ``depth``, else its cutoff, else None (whole rankings)."""
    depth = measure["depth"] if "depth" in measure.SUPPORTED_PARAMS else None
    return depth if depth is not None else measure["cutoff"]


Weights = Callable[[RarityMeasure, Rows, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _rarity_gain(measure: RarityMeasure, rows: Rows, keep: np.ndarray | slice, weights: Weights | None = None
                 ) -> np.ndarray:
    """Per-row gain of the rarity-weighted measures for the rows ``keep`` (:func:`_cut`; 0 where not relevant).

    S_d and labels are read for the relevant rows only: the gain of the others is 0. ``weights`` gives the
    rarity weight of rows (default :func:`_row_weights`).
    """
    relevant = rows.relevant(measure["rel"])[keep]
    chosen = np.flatnonzero(relevant) if isinstance(keep, slice) else keep[relevant]
    s_d, num_systems = rows.s_d(s_d_depth(measure), chosen)
    if measure["bounded"]:  # the check of every run with a row read, relevant or not
        _check_bounded(measure, num_systems[rows.run[keep]])
    weight = (weights or _row_weights)(measure, rows, s_d, num_systems[rows.run[chosen]], rows.query[chosen])
    if measure["gain"] == "graded":
        weight = weight * rows.labels(chosen).astype(np.float64)
    gain = np.zeros(len(relevant))
    gain[relevant] = weight
    return gain


def row_gain(measure: RarityMeasure, rows: Rows) -> np.ndarray:
    r"""Every row's gain in a rarity-weighted measure (``P_rare``, ``AP_rare``, ``nDCG_rare``), cutoff ignored.

    The gain the kernels add up (:math:`Rel(d)(1 + \alpha R(d))`, or its bounded or graded form; 0 where not
    relevant), for analyses that reorder rows (tie orders) or weigh them (expected values).
    """
    return _rarity_gain(measure, rows, slice(None))


def _row_weights(measure: RarityMeasure, rows: Rows, s_d: np.ndarray, num_systems: np.ndarray, query: np.ndarray
                 ) -> np.ndarray:
    bounded = measure["bounded"]
    if bounded:
        _check_bounded(measure, num_systems)
    alpha = extensions.row_alpha(measure["alpha"], measure["alpha_per_topic"],
                                 rows.qrels.n_relevant(measure["rel"]), query)
    rarity = extensions.row_rarity(s_d, num_systems, bounded, measure["weighting"])
    return (1.0 - alpha) + alpha * rarity if bounded else 1.0 + alpha * rarity


def _recall_weights(measure: RarityMeasure, rows: Rows, s_d: np.ndarray, num_systems: np.ndarray,
                    query: np.ndarray) -> np.ndarray:
    r"""R_rare's weights scaled by :math:`1/(1 + \alpha)`: :math:`w'(d) = (1 + \alpha R(d))/(1 + \alpha)`, in [0, 1].

    R_rare is a ratio of sums of weights, which the common factor leaves unchanged; unscaled, the sums of weights
    near :math:`\alpha` overflow for :math:`\alpha` near the largest float (inf/inf = NaN), scaled they cannot.
    :math:`1 + \alpha R(d) \le 1 + \alpha` never overflows itself. The bounded variant's weights lie in [0, 1].
    """
    weight = _row_weights(measure, rows, s_d, num_systems, query)
    if measure["bounded"]:
        return weight
    alpha = extensions.row_alpha(measure["alpha"], measure["alpha_per_topic"],
                                 rows.qrels.n_relevant(measure["rel"]), query)
    return weight / (1.0 + alpha)


def _check_bounded(measure: RarityMeasure, num_systems: np.ndarray) -> None:
    """The bounded variant divides by S - 1: refuse S < 2."""
    if len(num_systems) and num_systems.min() < 2:
        raise ParameterError(f"{measure}: the bounded variant divides by S - 1 and needs at least 2 systems; "
                             f"the pool has S = {num_systems.min():g}")


def _cut(measure: RarityMeasure, rows: Rows) -> np.ndarray | slice:
    """The rows within the measure's cutoff: their row numbers (:meth:`Rows.within`), or every row (no cutoff)."""
    cutoff = measure["cutoff"]
    return slice(None) if cutoff is None else rows.within(cutoff)


def _p_rare(measure: RarityMeasure, rows: Rows) -> np.ndarray:
    keep = _cut(measure, rows)
    gain = _rarity_gain(measure, rows, keep)
    return kernels.rarity_precision(gain, rows.cell()[keep], rows.n_cells, measure["cutoff"])


def _ap_rare(measure: RarityMeasure, rows: Rows) -> np.ndarray:
    keep = _cut(measure, rows)
    gain = _rarity_gain(measure, rows, keep)
    n_rel = np.tile(rows.qrels.n_relevant(measure["rel"]), rows.n_runs)
    return kernels.rarity_average_precision(gain, rows.relevant(measure["rel"])[keep], rows.rank[keep],
                                            rows.cell()[keep], rows.n_cells, n_rel)


def _ndcg_rare(measure: RarityMeasure, rows: Rows) -> np.ndarray:
    keep = _cut(measure, rows)
    gain = _rarity_gain(measure, rows, keep)
    dcg = extensions.dcg(gain, rows.rank[keep].astype(np.float64), rows.cell()[keep], rows.n_cells)
    ideal = np.tile(ideal_dcg_rare(measure, rows.qrels), rows.n_runs)
    return np.where(ideal > 0, dcg / np.where(ideal > 0, ideal, 1.0), 0.0)


def ideal_dcg_rare(measure: Measure, qrels: EncodedQrels) -> np.ndarray:
    """The normaliser of ``nDCG_rare`` per query: the DCG of the ideal ranking of the judged relevant documents.

    The gains are the labels (``gain='graded'``) or 1, unweighted by rarity, cut at the measure's cutoff.
    """
    judged_relevant = is_relevant(qrels.labels, measure["rel"])
    ideal_gain = qrels.labels.astype(np.float64) if measure["gain"] == "graded" else np.ones(len(qrels.labels))
    return extensions.ideal_dcg(np.where(judged_relevant, ideal_gain, 0.0), qrels.key_query,
                                len(qrels.query_ids), measure["cutoff"])


def _r_rare(measure: RarityMeasure, rows: Rows) -> np.ndarray:
    r"""Rarity-weighted recall: retrieved relevant weight over the weight of every relevant document.

    The denominator of run r and query q is the sum of w(d) over the query's relevant documents, each with the
    S_d r is scored with: the row's S_d for the documents r retrieved (at any rank), the campaign's S_d for the
    others. It is computed as a per-query base with campaign counts, corrected on r's own relevant rows. Weights
    are scaled by :math:`1/(1 + \alpha)` (:func:`_recall_weights`), so any finite alpha gives a finite value.
    """
    keep = _cut(measure, rows)
    gain = _rarity_gain(measure, rows, keep, _recall_weights)
    numerator = kernels.cell_sum(gain, rows.cell()[keep], rows.n_cells)
    own = rows.relevant(measure["rel"])  # r's own relevant rows, at any rank
    s_d, num_systems = rows.s_d(s_d_depth(measure), own)
    denominator = _r_rare_base(measure, rows, num_systems) + _r_rare_correction(measure, rows, own, s_d, num_systems)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), 0.0)


def _label_gain(measure: RarityMeasure, labels: Callable[[], np.ndarray], n: int) -> np.ndarray:
    """The gain factor of ``n`` relevant documents: their labels (graded gain), else ones."""
    return labels().astype(np.float64) if measure["gain"] == "graded" else np.ones(n)


def _r_rare_base(measure: RarityMeasure, rows: Rows, num_systems: np.ndarray) -> np.ndarray:
    """Per cell, the weight of every relevant document of the query with the campaign's S_d (run-major)."""
    qrels = rows.qrels
    judged = is_relevant(qrels.labels, measure["rel"])
    keys, query = qrels.keys[judged], qrels.key_query[judged]
    label = _label_gain(measure, lambda: qrels.labels[judged], len(keys))
    campaign = rows.source.campaign_s_d(keys, s_d_depth(measure)).astype(np.float64)
    base = np.zeros((rows.n_runs, rows.n_queries))
    for s in np.unique(num_systems):  # one base per distinct S (members, newcomers): at most a few
        w = _recall_weights(measure, rows, campaign, np.full(len(keys), s), query) * label
        base[num_systems == s] = kernels.ordered_sum(w, query, rows.n_queries)
    return base.reshape(-1)


def _r_rare_correction(measure: RarityMeasure, rows: Rows, own: np.ndarray, s_d: np.ndarray, num_systems: np.ndarray
                       ) -> np.ndarray:
    """Per cell, the weight of r's own relevant rows with the row's S_d minus with the campaign's S_d."""
    run, query = rows.run[own], rows.query[own]
    label = _label_gain(measure, lambda: rows.labels(own), int(own.sum()))
    row_s = num_systems[run]
    campaign = rows.source.campaign_s_d(rows.keys(own), s_d_depth(measure)).astype(np.float64)
    delta = (_recall_weights(measure, rows, s_d, row_s, query)
             - _recall_weights(measure, rows, campaign, row_s, query)) * label
    return kernels.cell_sum(delta, rows.cell()[own], rows.n_cells)


def _asl(measure: RarityMeasure, rows: Rows) -> np.ndarray:
    if not isinstance(measure, type(ASL)):
        raise ParameterError(f"{measure} is not an ASL measure")
    first, last = measure.group_range()
    rel = measure["rel"]
    n_rel = np.tile(rows.qrels.n_relevant(rel), rows.n_runs)
    return asl_kernel.atomized_search_length(rows.relevant(rel), rows.cell(), rows.n_cells, n_rel, first, last,
                                             after_last=measure["unretrieved"] == "after_last", rank=rows.rank,
                                             position=rows.relevant_positions(rel), cell_sizes=rows.cell_sizes(),
                                             length=measure["length"])


def _u_novel(measure: RarityMeasure, rows: Rows) -> np.ndarray:
    return novelty.utility(rows, measure["cutoff"], measure["rel"], float(measure["epsilon"]))


_BY_NAME: dict[str, Kernel] = {
    "P_rare": _p_rare,
    "AP_rare": _ap_rare,
    "nDCG_rare": _ndcg_rare,
    "R_rare": _r_rare,
    "ASL": _asl,
    "U_novel": _u_novel,
}


def _kernel_table() -> dict[str, Kernel]:
    missing = sorted(ENGINE_FAMILIES - set(_BY_NAME))
    if missing:
        raise ImportError(f"ir_rarity measure families without an engine kernel: {missing}")
    return {n: k for n, k in _BY_NAME.items() if n in ENGINE_FAMILIES}


KERNELS: dict[str, Kernel] = _kernel_table()
"""Measure family name -> kernel, one entry per family of :data:`ir_rarity.measures.FAMILIES`
(:data:`~ir_rarity.engine.families.ENGINE_FAMILIES`)."""


def compute(measure: Measure, rows: Rows) -> np.ndarray:
    """Values of ``measure`` as an ``(n_runs, n_queries)`` matrix.

    Cells of queries a run did not retrieve anything for hold ``measure.DEFAULT`` (0 for P_rare and AP_rare,
    as trec_eval and ir_measures score them), except for measures with ``SCORES_EMPTY_RANKINGS`` (ASL), whose
    kernel computes those cells too. NaN marks queries without a value (ASL without relevant documents).

    Raises:
        ParameterError: the measure is not one of ir_rarity's families, or a parameter is out of range.

    """
    if not is_engine_measure(measure) or not isinstance(measure, RarityMeasure):
        raise ParameterError(f"{measure} is not an ir_rarity measure; the engine computes {sorted(KERNELS)}")
    measure.validate_params()
    if "judged_only" in measure.SUPPORTED_PARAMS and measure["judged_only"]:
        rows = rows.judged_only()
    values = KERNELS[str(measure.NAME)](measure, rows).reshape(rows.n_runs, rows.n_queries)
    if getattr(measure, "SCORES_EMPTY_RANKINGS", False):
        return values
    return np.where(rows.present, values, measure.DEFAULT)
