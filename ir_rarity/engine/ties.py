r"""What a score rests on, ties: the range of a score over every order of its tied documents, and its mean.

trec_eval orders a ranking by score (descending) and breaks ties by docno (descending); that order stays every
value's. Any other order of the documents that share a score is as consistent with the run. Within each group of
tied rows (same run, query and score, compared at the campaign's precision):

* **range**: the measure is scored (by its own kernel) on the ranking with each group ordered by gain ascending
  and on the one ordered by gain descending; ``ties low`` and ``ties high`` are the smaller and the larger value.
  For the measures of :data:`MONOTONE` this is exact: each is a sum over relevant positions of terms that do not
  grow with the rank (P@k, R@k, nDCG@k, DCG-type and RBP by the rearrangement inequality; AP and AP_rare since
  :math:`\sum_{i \ge j} 1/i` falls with :math:`j`; RR; Bpref and ASL count the documents above each relevant
  one; R_rare and Rprec count what lies within a depth), so moving a higher gain up never lowers the value (tested
  against every permutation of small groups for P@k, nDCG@k, AP, RR, P_rare, AP_rare, Bpref and R_rare).
  The gain is the measure's own: the rarity-weighted gain for :data:`GAINED`, the label otherwise (an nDCG
  ``gains`` mapping is assumed to grow with the label).
* **expected value** over the :math:`\prod_g n_g!` equally likely orders (McSherry & Najork, ECIR 2008): for a
  measure linear in positions, :math:`\sum_i g_i \bar\delta_{G(i)}` with :math:`\bar\delta_G` the mean discount of
  group G's positions (P@k, R@k, nDCG@k, RBP, P_rare, nDCG_rare, and Rprec as P at the query's own cutoff
  :math:`N_R`); for AP and AP_rare, with :math:`r` relevant rows
  of total gain :math:`W` in a group of :math:`n` at positions :math:`s+1..s+n`, :math:`B` the gain above it,

  .. math:: E\Bigl[\frac{Rel_i}{i}\sum_{j \le i} g_j\Bigr] = \frac{1}{i}\Bigl(\frac{W}{n} + \frac{r}{n}B +
            \frac{t(r-1)W}{n(n-1)}\Bigr), \quad i = s + t + 1;

  for RR, :math:`\sum_t P(\text{first relevant at } t) / (s + t + 1)` in the first group holding a relevant row,
  :math:`P = \binom{n-1-t}{r-1} / \binom{n}{r}`. Other measures (and ``judged_only``) have no expected value here
  (NaN).

.. cite:: McSherry & Najork. Computing information retrieval performance measures efficiently in the presence of
   tied scores. ECIR 2008.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from ir_measures.providers.base import NOT_PROVIDED

from ir_rarity.engine import extensions, kernels
from ir_rarity.engine.compute import ideal_dcg_rare, is_engine_measure, row_gain
from ir_rarity.engine.qrels import UNJUDGED, is_relevant
from ir_rarity.engine.rbp import persistence
from ir_rarity.engine.rows import Rows, Subrows, TieOrder
from ir_rarity.engine.unjudged import check_whole, measure_cutoff, score, supports
from ir_rarity.errors import ParameterError

__all__ = ["GAINED", "MONOTONE", "TieGroups", "expected_value", "tie_groups", "tie_orders", "tie_range"]

MONOTONE = frozenset({"P", "R", "AP", "nDCG", "RR", "Rprec", "Bpref", "RBP", "P_rare", "AP_rare", "nDCG_rare",
                      "R_rare", "ASL"})
"""Measures whose range over tie orders is the one of the two gain orders (see the module)."""

GAINED = frozenset({"P_rare", "AP_rare", "nDCG_rare", "R_rare"})
"""Rarity families whose rows are ordered by their rarity-weighted gain (:func:`~ir_rarity.engine.compute.row_gain`)."""


class TieGroups:
    """The groups of tied rows of :class:`Rows` (same cell and score at the campaign's precision), contiguous.

    Attributes:
        group: Group number of each row (0, 1, ... in row order).
        size: Rows in each group.
        start: Row number of each group's first row.
        offset: Each row's 0-based place in its group.

    """

    def __init__(self, rows: Rows, precision: str = "float32") -> None:
        source = rows.source
        if not isinstance(source, TieOrder):
            raise ParameterError("tie orders need the runs' scores; these rows do not carry them")
        check_whole(rows, "the range over tie orders")
        scores = np.asarray(source.tie_keys()[0])
        scores = scores.astype(np.float32 if precision == "float32" else np.float64)
        cell = rows.cell()
        first = np.ones(len(cell), dtype=bool)
        first[1:] = (cell[1:] != cell[:-1]) | (scores[1:] != scores[:-1])
        self.start = np.flatnonzero(first)
        self.group = np.cumsum(first) - 1
        self.size = np.diff(np.r_[self.start, len(cell)])
        self.offset = np.arange(len(cell)) - self.start[self.group]

    @property
    def tied(self) -> np.ndarray:
        """Whether each row shares its score with another row of its ranking."""
        return np.asarray(self.size[self.group] > 1)


def tie_groups(rows: Rows, precision: str = "float32") -> TieGroups:
    """The :class:`TieGroups` of ``rows`` (kept with them: every measure reads the same groups)."""
    return rows.shared(("tie groups", precision), lambda: TieGroups(rows, precision))


def _gain(measure: Any, rows: Rows) -> np.ndarray:
    """The gain each row brings the measure: what tie orders sort by, and what expected values weigh."""
    if str(measure.NAME) in GAINED:
        return row_gain(measure, rows)
    labels = rows.labels()
    return np.where(labels == UNJUDGED, -1.0, labels.astype(np.float64))  # unjudged below judged non-relevant


def tie_orders(measure: Any, rows: Rows, precision: str = "float32") -> tuple[Rows, Rows]:
    """``rows`` with each group of tied rows ordered by the measure's gain ascending, and descending.

    The rows keep their S_d, labels and keys; only their ranks within each group change (stable: equal gains keep
    trec_eval's order).
    """
    groups = tie_groups(rows, precision)
    gain = _gain(measure, rows)
    out = []
    for sign in (1.0, -1.0):
        order = np.lexsort((sign * gain, groups.group))
        out.append(Rows(run=rows.run[order], query=rows.query[order], rank=rows.rank, present=rows.present,
                        n_runs=rows.n_runs, qrels=rows.qrels, source=Subrows(rows, order), returned=rows.returned))
    return out[0], out[1]


def tie_range(measure: Any, rows: Rows, precision: str = "float32",
              scorer: Callable[[Any, Rows], np.ndarray] = score) -> tuple[np.ndarray, np.ndarray]:
    """``(ties low, ties high)``: the measure's min and max over every order of tied rows (exact for MONOTONE).

    Raises:
        ParameterError: a measure outside :data:`MONOTONE` or not scored by the engine.

    """
    if str(measure.NAME) not in MONOTONE or not supports(measure):
        raise ParameterError(f"{measure}: the range over tie orders is computed for "
                             f"{', '.join(sorted(MONOTONE))} (scored by the engine)")
    ascending, descending = tie_orders(measure, rows, precision)
    a, b = scorer(measure, ascending), scorer(measure, descending)
    ascending.release()
    descending.release()
    return np.minimum(a, b), np.maximum(a, b)


def _given(measure: Any, name: str) -> Any:
    value = measure[name] if name in measure.SUPPORTED_PARAMS else None
    return None if value is NOT_PROVIDED else value


def _group_mean(values: np.ndarray, groups: TieGroups) -> np.ndarray:
    """Each row's group's mean of ``values`` (one per row)."""
    sums = np.bincount(groups.group, weights=values, minlength=len(groups.size))
    return (sums / groups.size)[groups.group]


def _linear(gain: np.ndarray, discount: np.ndarray, rows: Rows, groups: TieGroups) -> np.ndarray:
    return kernels.cell_sum(gain * _group_mean(discount, groups), rows.cell(), rows.n_cells)


def _within(rows: Rows, cutoff: int | None) -> np.ndarray:
    return np.ones(len(rows.rank), dtype=bool) if cutoff is None else rows.rank < cutoff


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), 0.0)


def _average_precision(gain: np.ndarray, relevant: np.ndarray, cutoff: int | None, rows: Rows,
                       groups: TieGroups, n_relevant: np.ndarray) -> np.ndarray:
    n = groups.size[groups.group].astype(np.float64)
    t = groups.offset.astype(np.float64)
    w = np.bincount(groups.group, weights=gain, minlength=len(groups.size))[groups.group]
    r = np.bincount(groups.group, weights=relevant.astype(np.float64), minlength=len(groups.size))[groups.group]
    before = np.cumsum(gain) - gain  # gain above each row, from the first row of all
    cell = rows.cell()
    cell_first = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]]) if len(cell) else np.zeros(0, dtype=np.int64)
    first_of_row = cell_first[np.cumsum(np.r_[True, cell[1:] != cell[:-1]]) - 1] if len(cell) else cell_first
    above = before[groups.start[groups.group]] - before[first_of_row]
    pairs = np.where(n > 1, t * (r - 1.0) * w / np.where(n > 1, n * (n - 1.0), 1.0), 0.0)
    term = (w / n + r / n * above + pairs) / (rows.rank + 1.0)
    term = np.where(_within(rows, cutoff), term, 0.0)
    return _divide(kernels.cell_sum(term, cell, rows.n_cells), np.tile(n_relevant, rows.n_runs))


def _reciprocal_rank(relevant: np.ndarray, rows: Rows, groups: TieGroups) -> np.ndarray:
    from scipy.special import gammaln  # here: scipy loads only when tie ranges are asked for

    r = np.bincount(groups.group, weights=relevant.astype(np.float64), minlength=len(groups.size))
    cell = rows.cell()
    group_cell = cell[groups.start]
    holds = np.flatnonzero(r > 0)
    chosen = np.full(rows.n_cells, len(groups.size), dtype=np.int64)
    np.minimum.at(chosen, group_cell[holds], holds)
    in_first = chosen[cell] == groups.group
    g = groups.group[in_first]
    n, k, t = groups.size[g].astype(np.float64), r[g], groups.offset[in_first].astype(np.float64)
    possible = n - 1.0 - t >= k - 1.0
    log_p = np.where(possible, gammaln(np.maximum(n - t, 1.0)) - gammaln(k) - gammaln(np.maximum(n - t - k + 1.0,
                     1.0)) - (gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)), -np.inf)
    return kernels.cell_sum(np.exp(log_p) / (rows.rank[in_first] + 1.0), cell[in_first], rows.n_cells)


def expected_value(measure: Any, rows: Rows, precision: str = "float32") -> np.ndarray:
    """The measure's mean over every order of tied rows, ``(n_runs, n_queries)`` (see the module); NaN if none."""
    name = str(measure.NAME)
    nan = np.full((rows.n_runs, rows.n_queries), np.nan)
    if ("judged_only" in measure.SUPPORTED_PARAMS and bool(measure["judged_only"])) or not supports(measure):
        return nan
    groups = tie_groups(rows, precision)
    cutoff = measure_cutoff(measure)
    within = _within(rows, cutoff)
    rank = rows.rank.astype(np.float64)
    rel = int(_given(measure, "rel") or 1)
    relevant = is_relevant(rows.labels(), rel)
    if name in ("P", "R"):
        hits = _linear(relevant.astype(np.float64), within.astype(np.float64), rows, groups)
        value = hits / float(cutoff or 1) if name == "P" else _divide(hits, np.tile(rows.qrels.n_relevant(rel),
                                                                                        rows.n_runs))
    elif name == "Rprec":  # P at the query's own cutoff R = N_R: a linear measure too
        n_rel = rows.qrels.n_relevant(rel)
        reads = (rank < n_rel[rows.query]).astype(np.float64)
        value = _divide(_linear(relevant.astype(np.float64), reads, rows, groups), np.tile(n_rel, rows.n_runs))
    elif name == "RBP":
        p, rel, _ = persistence(measure)
        relevant = is_relevant(rows.labels(), rel)
        value = _linear(relevant.astype(np.float64), np.where(within, (1.0 - p) * np.power(p, rank), 0.0), rows,
                        groups)
    elif name == "nDCG" and not is_engine_measure(measure) and _given(measure, "gains") is None:
        labels = rows.labels()
        gain = np.where(labels > 0, labels, 0).astype(np.float64)
        dcg = _linear(gain, np.where(within, 1.0 / np.log2(rank + 2.0), 0.0), rows, groups)
        qrels = rows.qrels
        ideal = extensions.ideal_dcg(np.where(qrels.labels > 0, qrels.labels, 0).astype(np.float64),
                                     qrels.key_query, rows.n_queries, cutoff)
        value = _divide(dcg, np.tile(ideal, rows.n_runs))
    elif name == "P_rare":
        value = _linear(row_gain(measure, rows), within.astype(np.float64), rows, groups) / float(cutoff or 1)
    elif name == "nDCG_rare":
        dcg = _linear(row_gain(measure, rows), np.where(within, 1.0 / np.log2(rank + 2.0), 0.0), rows, groups)
        value = _divide(dcg, np.tile(ideal_dcg_rare(measure, rows.qrels), rows.n_runs))
    elif name in ("AP", "AP_rare"):
        gain = row_gain(measure, rows) if name == "AP_rare" else relevant.astype(np.float64)
        value = _average_precision(gain, relevant, cutoff, rows, groups, rows.qrels.n_relevant(rel))
    elif name == "RR":
        value = _reciprocal_rank(relevant, rows, groups)
    else:
        return nan
    return np.where(rows.present, value.reshape(rows.n_runs, rows.n_queries), 0.0)
