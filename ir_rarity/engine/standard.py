r"""trec_eval's standard measures as vectorized kernels over :class:`~ir_rarity.engine.rows.Rows`.

A campaign table holds standard measures beside the rarity ones. Computing them here, over all runs at once,
spares the run-by-run trip through ir_measures and pytrec_eval. Each kernel follows trec_eval 9 (as bundled in
pytrec_eval), which ir_measures calls for these measures:

* rows are ranked by float32 score, ties by docno descending (the engine's order already);
* a row is relevant at ``rel`` when its label is at least ``rel`` and not negative
  (:func:`~ir_rarity.engine.qrels.is_relevant`); :math:`N_R` counts the qrels' relevant documents;
* ``judged_only=True`` (trec_eval ``-J``) drops the rows without a non-negative label and ranks the rest again;
* P@k divides by k, R@k and AP by :math:`N_R` (0 when :math:`N_R = 0`); RR is 0 without a relevant row.

``Judged`` is ir_measures' ``judged`` provider's measure, not trec_eval's: the judged rows (any label in the
qrels, negative ones too) over the rows retrieved. ``Judged@k`` takes the top k in the provider's own order,
scores as given (double) descending and ties by docno *ascending* (``sorted(key=lambda x: (-x[1], x[0]))``),
not trec_eval's; the rows' sources give their scores and docno order for it (:class:`~ir_rarity.engine.rows.
TieOrder`), and it is divided by min(k, rows retrieved), as the provider divides.

:func:`covers` says which measures (with their parameters) are computed here; others go through ir_measures.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from ir_measures import Measure
from ir_measures.providers.base import NOT_PROVIDED

from ir_rarity.engine import extensions, kernels
from ir_rarity.engine.asl import relevant_positions
from ir_rarity.engine.codes import block_starts, ranks_within_blocks
from ir_rarity.engine.qrels import UNJUDGED, is_relevant
from ir_rarity.engine.rbp import rank_biased_precision
from ir_rarity.engine.rows import Rows, TieOrder
from ir_rarity.errors import ParameterError

__all__ = ["STANDARD_KERNELS", "compute_standard", "covers"]


def _param(measure: Measure, name: str) -> Any:
    """A parameter of ``measure``, None where not provided (ir_measures marks those with ``NOT_PROVIDED``)."""
    value = measure[name]
    return None if value is NOT_PROVIDED else value


class _View:
    """The rows a measure sees: all of them, or (``judged_only``) the judged ones ranked again."""

    def __init__(self, rows: Rows, judged_only: bool) -> None:
        self.rows = rows
        labels = rows.labels()
        if judged_only:
            keep = labels >= 0
            self.label = labels[keep]
            self.cell = rows.cell()[keep]
            self.rank = kernels.segmented_cumsum(keep, rows.cell(), rows.positions())[keep] - 1
            self.position = self.rank
        else:
            self.label, self.cell, self.rank = labels, rows.cell(), rows.rank
            self.position = rows.positions()  # of each row among its cell's rows held: its rank if all are

    def relevant(self, rel: int) -> np.ndarray:
        return is_relevant(self.label, rel)

    def n_relevant(self, rel: int) -> np.ndarray:
        """:math:`N_R` of each cell."""
        return np.tile(self.rows.qrels.n_relevant(rel), self.rows.n_runs)


def _view(measure: Measure, rows: Rows) -> _View:
    judged_only = bool(measure["judged_only"]) if "judged_only" in measure.SUPPORTED_PARAMS else False
    return rows.shared(("standard_view", judged_only), lambda: _View(rows, judged_only))


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator``, 0 where the denominator is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), 0.0)


def _relevant_within(measure: Measure, view: _View, cutoff: int | None) -> np.ndarray:
    relevant = view.relevant(measure["rel"])
    return relevant if cutoff is None else relevant & (view.rank < cutoff)


def precision(measure: Measure, rows: Rows) -> np.ndarray:
    r"""trec_eval ``P_k``: :math:`P@k = |\{i \le k: rel(d_i)\}| / k`, divided by k even when fewer were retrieved."""
    view = _view(measure, rows)
    hits = _relevant_within(measure, view, measure["cutoff"])
    return kernels.cell_count(view.cell[hits], rows.n_cells) / float(measure["cutoff"])


def recall(measure: Measure, rows: Rows) -> np.ndarray:
    r"""trec_eval ``recall_k``: :math:`R@k = |\{i \le k: rel(d_i)\}| / N_R` (0 when :math:`N_R = 0`)."""
    view = _view(measure, rows)
    hits = kernels.cell_count(view.cell[_relevant_within(measure, view, measure["cutoff"])], rows.n_cells)
    return _divide(hits, view.n_relevant(measure["rel"]))


def average_precision(measure: Measure, rows: Rows) -> np.ndarray:
    r"""trec_eval ``map`` / ``map_cut_k``.

    .. math:: AP = \frac{1}{N_R}\sum_{i:\,rel(d_i)} \frac{|\{j \le i: rel(d_j)\}|}{i}

    The precisions are added in rank order (``np.bincount`` adds in row order), as trec_eval adds them.
    """
    view = _view(measure, rows)
    cutoff = _param(measure, "cutoff")
    found, so_far = relevant_positions(view.relevant(measure["rel"]), view.cell)  # relevant rows, j counted
    rank = view.rank[found]
    within = slice(None) if cutoff is None else rank < cutoff
    terms = so_far[within] / (rank[within] + 1.0)
    return _divide(kernels.cell_sum(terms, view.cell[found][within], rows.n_cells), view.n_relevant(measure["rel"]))


def _gains(measure: Measure, labels: np.ndarray) -> np.ndarray:
    """The nDCG gain of each label: the label (or its ``gains`` mapping); 0 for unjudged or negative labels."""
    mapping = _param(measure, "gains")
    labels = np.asarray(labels)
    gain = labels.astype(np.float64)
    if mapping:
        judged = labels != UNJUDGED
        for level, value in mapping.items():
            gain[judged & (labels == int(level))] = float(value)
    return np.where((labels >= 0) & (gain > 0), gain, 0.0)


def ndcg(measure: Measure, rows: Rows) -> np.ndarray:
    r"""trec_eval ``ndcg`` / ``ndcg_cut_k``: :math:`DCG / IDCG`, :math:`DCG = \sum_i g_i / \log_2(i + 1)`.

    :math:`g_i` is the label of the i-th row (or its ``gains`` mapping); the ideal ranking holds every judged
    document with a positive gain, cut at k; 0 when that ideal is 0.
    """
    view = _view(measure, rows)
    cutoff = _param(measure, "cutoff")
    gain = _gains(measure, view.label)
    if cutoff is not None:
        gain = np.where(view.rank < cutoff, gain, 0.0)
    scored = gain > 0
    dcg = extensions.dcg(gain[scored], view.rank[scored].astype(np.float64), view.cell[scored], rows.n_cells)
    qrels = rows.qrels
    ideal = np.tile(extensions.ideal_dcg(_gains(measure, qrels.labels), qrels.key_query, rows.n_queries, cutoff),
                    rows.n_runs)
    return _divide(dcg, ideal)


def reciprocal_rank(measure: Measure, rows: Rows) -> np.ndarray:
    r"""trec_eval ``recip_rank``: :math:`1 / i` of the first relevant row, 0 without one."""
    view = _view(measure, rows)
    relevant = view.relevant(measure["rel"])
    first = np.full(rows.n_cells, np.inf)
    np.minimum.at(first, view.cell[relevant], view.rank[relevant].astype(np.float64))
    return np.where(np.isfinite(first), 1.0 / (first + 1.0), 0.0)


def r_precision(measure: Measure, rows: Rows) -> np.ndarray:
    r"""trec_eval ``Rprec``: precision at rank :math:`N_R`, :math:`|\{i \le N_R: rel(d_i)\}| / N_R`."""
    view = _view(measure, rows)
    n_rel = view.n_relevant(measure["rel"])
    hits = view.relevant(measure["rel"]) & (view.rank < n_rel[view.cell])
    return _divide(kernels.cell_sum(hits.astype(np.float64), view.cell, rows.n_cells), n_rel)


def bpref(measure: Measure, rows: Rows) -> np.ndarray:
    r"""trec_eval ``bpref`` (Buckley & Voorhees, SIGIR 2004), over judged rows only.

    .. math:: bpref = \frac{1}{R} \sum_{r} \Big(1 - \frac{\min(n_r, R)}{\min(N, R)}\Big)

    r runs over the retrieved relevant rows, :math:`n_r` counts the judged non-relevant rows (label in
    ``[0, rel)``) above r, R is :math:`N_R` and N the query's judged non-relevant documents. Unjudged rows and
    negative labels are skipped; a term with :math:`n_r = 0` is 1.
    """
    view = _view(measure, rows)
    rel = measure["rel"]
    relevant = view.relevant(rel)
    nonrelevant = (view.label >= 0) & ~relevant
    above = kernels.segmented_cumsum(nonrelevant, view.cell, view.position)[relevant]
    qrels = rows.qrels
    n_rel = view.n_relevant(rel).astype(np.float64)
    judged_nonrel = np.bincount(qrels.key_query[(qrels.labels >= 0) & ~is_relevant(qrels.labels, rel)],
                                minlength=rows.n_queries)
    cell = view.cell[relevant]
    bound = np.minimum(np.tile(judged_nonrel, rows.n_runs), n_rel)[cell]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(above > 0, 1.0 - np.minimum(above, n_rel[cell]) / bound, 1.0)
    return _divide(kernels.cell_sum(terms, cell, rows.n_cells), n_rel)


def judged(measure: Measure, rows: Rows) -> np.ndarray:
    r"""ir_measures' ``Judged@k``: the judged rows among the top k over :math:`\min(k, n)`, n the rows retrieved.

    The top k are the provider's (ir_measures' ``judged``): scores as given, descending, ties by docno
    ascending. Without a cutoff, every row retrieved (no order matters). A row is judged when the qrels hold any
    label for it, negative ones too.

    Raises:
        ParameterError: ``Judged@k`` on rows whose source cannot order them so (:class:`TieOrder`).

    """
    cutoff = _param(measure, "cutoff")
    cell = rows.cell()
    n_retrieved = rows.cell_sizes().astype(np.float64)
    is_judged = (rows.labels() != UNJUDGED).astype(np.float64)
    if cutoff is None:
        return _divide(kernels.cell_sum(is_judged, cell, rows.n_cells), n_retrieved)
    if not isinstance(rows.source, TieOrder):
        raise ParameterError(f"{measure}: these rows cannot be put in ir_measures' judged order")
    score, doc = rows.source.tie_keys()
    score = np.asarray(score, dtype=np.float64)
    # The provider's top k hold the k largest scores, so no score below the k-th largest: with scores rounded to
    # float32 (rounding keeps order), rows below the float32 score at trec_eval rank min(k, n) - 1 cannot enter.
    with np.errstate(over="ignore"):
        single = score.astype(np.float32)
    last = rows.rank == np.minimum(float(cutoff), n_retrieved[cell]) - 1
    floor = np.full(rows.n_cells, -np.inf, dtype=np.float32)
    floor[cell[last]] = single[last]
    candidates = np.flatnonzero(single >= floor[cell])
    order = candidates[np.lexsort((doc[candidates], -score[candidates], cell[candidates]))]  # docno ascending
    top = order[ranks_within_blocks(block_starts(cell[order])) < cutoff]
    hits = np.bincount(cell[top], weights=is_judged[top], minlength=rows.n_cells)
    return _divide(hits, np.minimum(n_retrieved, float(cutoff)))


def num_retrieved(measure: Measure, rows: Rows) -> np.ndarray:
    """trec_eval ``num_ret`` (rows retrieved), or with ``rel`` ``num_rel_ret`` (relevant rows retrieved)."""
    rel = _param(measure, "rel")
    cell = rows.cell()
    if rel is None:
        return rows.cell_sizes().astype(np.float64)
    return kernels.cell_sum(rows.relevant(rel).astype(np.float64), cell, rows.n_cells)


Kernel = Callable[[Any, Rows], np.ndarray]

STANDARD_KERNELS: dict[str, Kernel] = {
    "P": precision,
    "R": recall,
    "AP": average_precision,
    "nDCG": ndcg,
    "RR": reciprocal_rank,
    "Rprec": r_precision,
    "Bpref": bpref,
    "Judged": judged,
    "NumRet": num_retrieved,
    "RBP": rank_biased_precision,
}
"""ir_measures measure name -> kernel, for the parameter combinations :func:`covers` accepts."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def covers(measure: Measure) -> bool:
    """Whether the engine computes ``measure`` (an ir_measures measure, with its parameters) as trec_eval does.

    Covered: P@k, R@k, AP and AP@k, nDCG and nDCG@k (``dcg='log2'``, ``gains`` an int -> int mapping), RR
    without a cutoff, Rprec, Bpref, Judged and Judged@k (in ir_measures' judged order), NumRet and NumRet(rel=r)
    (``NumRelRet``), each with any integer ``rel`` and ``judged_only``; ``RBP(p=...)`` (and ``@k``) by
    :mod:`~ir_rarity.engine.rbp`. Everything else goes through ir_measures.
    """
    name = getattr(measure, "NAME", None)
    if name not in STANDARD_KERNELS or getattr(measure, "__module__", "").startswith("ir_rarity"):
        return False
    try:
        measure.validate_params()
    except (AssertionError, ValueError, TypeError):  # ir_measures asserts (``P`` without its required cutoff)
        return False
    params = measure.SUPPORTED_PARAMS
    if "rel" in params and _param(measure, "rel") is not None and not _is_int(measure["rel"]):
        return False
    if "cutoff" in params and _param(measure, "cutoff") is not None and not (
            _is_int(measure["cutoff"]) and measure["cutoff"] > 0):
        return False
    if name == "RBP" and not 0.0 < float(_param(measure, "p") or 0.8) < 1.0:
        return False
    if name == "RR" and _param(measure, "cutoff") is not None:
        return False  # trec_eval has no recip_rank cutoff (ir_measures takes RR@k from another provider)
    if name == "nDCG":
        gains = _param(measure, "gains")
        if measure["dcg"] != "log2" or (gains is not None and not all(
                _is_int(k) and _is_int(v) for k, v in gains.items())):
            return False
    return not (name in ("P", "R") and _param(measure, "cutoff") is None)


def compute_standard(measure: Measure, rows: Rows) -> np.ndarray:
    """Values of a :func:`covered <covers>` standard measure as an ``(n_runs, n_queries)`` matrix.

    A query a run retrieved nothing for scores 0, as ir_measures fills in queries missing from a run.
    """
    values = STANDARD_KERNELS[str(measure.NAME)](measure, rows).reshape(rows.n_runs, rows.n_queries)
    return np.where(rows.present, values, 0.0)
