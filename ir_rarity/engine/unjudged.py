r"""What a score rests on, unjudged documents: their share, and the bounds they leave open.

For a measure that reads the top :math:`m = \min(|run|, k)` documents of a ranking (its cutoff :math:`k`; the whole
ranking without one), the **unjudged share** of a (run, query) is :math:`u = |\{i \le m: d_i \notin qrels\}| / m`
(NaN for an empty ranking). The **bounds** are the measure's value under the two extreme readings of those
documents:

* ``low``: every unjudged document non-relevant, which is how every value is computed (trec_eval's rule): the
  value itself, exactly;
* ``high``: the qrels extended with every unjudged document the measure reads, at the lowest relevant grade
  (:func:`lowest_grade`): scored by the same kernel on the relabelled rows, with the query's normalisers (AP's
  :math:`N_R`, nDCG's ideal ranking) counting the added documents, and S_d as counted. The extension is the run's
  own: each run is scored against the qrels plus *its* unjudged documents, so the value equals trec_eval (or
  ir_measures) on those extended qrels.

For the rarity measures the share of the *rare* documents read (:math:`S_d \le 2`) that are judged says how much
of the rarity reward rests on labels (Türkmen, Lease & Kutlu, ECIR 2023, section 5.4: a new run against an old
pool). The measure's own reading of "documents read" (cutoff) is used throughout; a measure outside the engine's
kernels has no bounds here (:func:`supports`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from ir_measures.providers.base import NOT_PROVIDED

from ir_rarity.engine import kernels
from ir_rarity.engine.compute import compute, is_engine_measure, s_d_depth
from ir_rarity.engine.qrels import UNJUDGED, EncodedQrels, is_relevant
from ir_rarity.engine.rows import Rows, Selection, Subrows
from ir_rarity.engine.standard import compute_standard, covers
from ir_rarity.errors import ParameterError

__all__ = ["RARE", "check_whole", "high_values", "lowest_grade", "measure_cutoff", "rare_judged_share", "score",
           "supports", "unjudged_share"]

RARE = 2
r"""A document is *rare* when at most this many systems retrieved it (:math:`S_d \le 2`)."""


def supports(measure: Any) -> bool:
    """Whether the engine scores ``measure`` itself (rarity families and :func:`covered <covers>` standard ones)."""
    return bool(is_engine_measure(measure) or covers(measure))


def score(measure: Any, rows: Rows) -> np.ndarray:
    """``measure``'s ``(n_runs, n_queries)`` values on ``rows``, by the engine's kernel for it."""
    return compute(measure, rows) if is_engine_measure(measure) else compute_standard(measure, rows)


def _param(measure: Any, name: str) -> Any:
    if name not in measure.SUPPORTED_PARAMS:
        return None
    value = measure[name]
    return None if value is NOT_PROVIDED else value


def measure_cutoff(measure: Any) -> int | None:
    """The depth a measure reads a ranking to: its ``cutoff`` (``@k``), None for the whole ranking."""
    cutoff = _param(measure, "cutoff")
    return None if cutoff is None else int(cutoff)


def check_whole(rows: Rows, what: str, cutoff: int | None = None) -> None:
    """Refuse rows that leave out documents of a ranking within ``cutoff``.

    A campaign read keeping only the rows its measures read holds, below the depth S_d is counted at, the judged
    rows only (with gaps between them).

    Raises:
        ParameterError: some cell holds fewer rows ranked above ``cutoff`` (None: at all) than its ranking has there.

    """
    if rows.returned is None:
        return
    within = slice(None) if cutoff is None else rows.rank < cutoff
    held = np.bincount(rows.cell()[within], minlength=rows.n_cells)[:rows.n_cells]
    if np.any(held < (rows.returned if cutoff is None else np.minimum(rows.returned, cutoff))):
        raise ParameterError(f"{what} needs every document of each ranking, and the campaign keeps only the rows "
                             "its measures read: evaluate with unjudged=True / ties=True (ir-rarity eval "
                             "--unjudged / --ties), which reads whole runs")


def _read_rows(measure: Any, rows: Rows) -> np.ndarray | slice:
    cutoff = measure_cutoff(measure)
    return slice(None) if cutoff is None else rows.within(cutoff)


def _documents_read(measure: Any, rows: Rows) -> np.ndarray:
    read = rows.cell_sizes().astype(np.float64)
    cutoff = measure_cutoff(measure)
    return read if cutoff is None else np.minimum(read, float(cutoff))


def unjudged_share(measure: Any, rows: Rows) -> np.ndarray:
    r"""Per (run, query): :math:`u = |\{i \le m: d_i \text{ unjudged}\}| / m` (NaN where :math:`m = 0`).

    Counted as :math:`(m - \text{judged rows read}) / m`, which holds on rows that keep only the judged ones.
    """
    keep = _read_rows(measure, rows)
    judged = rows.labels()[keep] != UNJUDGED
    judged_read = kernels.cell_count(rows.cell()[keep][judged], rows.n_cells)
    read = _documents_read(measure, rows)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(read > 0, (read - judged_read) / np.where(read > 0, read, 1.0), np.nan)
    return share.reshape(rows.n_runs, rows.n_queries)


def rare_judged_share(measure: Any, rows: Rows) -> np.ndarray:
    r"""Per (run, query), of the rare documents read (:math:`S_d \le 2` at the measure's depth), the share judged.

    NaN where the ranking read holds no rare document, and for measures that do not count S_d.
    """
    if not (is_engine_measure(measure) and getattr(measure, "NEEDS_POOL", True)):
        return np.full((rows.n_runs, rows.n_queries), np.nan)
    check_whole(rows, "the judged share of rare documents", measure_cutoff(measure))
    cutoff = measure_cutoff(measure)
    keep = np.arange(len(rows.rank)) if cutoff is None else rows.within(cutoff)
    s_d, _ = rows.s_d(s_d_depth(measure), keep)
    rare = keep[s_d <= RARE]
    cell = rows.cell()[rare]
    judged = rows.labels(rare) != UNJUDGED
    n_rare = kernels.cell_count(cell, rows.n_cells)
    n_judged = kernels.cell_count(cell[judged], rows.n_cells)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n_rare > 0, n_judged / np.where(n_rare > 0, n_rare, 1.0), np.nan)
    return share.reshape(rows.n_runs, rows.n_queries)


def lowest_grade(measure: Any, qrels: EncodedQrels) -> int:
    r"""The label an unjudged document gets in ``high``: the lowest positive qrels label relevant to the measure.

    The smallest label :math:`\ge \max(rel, 1)` the qrels use (``rel`` the measure's threshold, 1 without one);
    :math:`\max(rel, 1)` when no judged document reaches it.
    """
    rel = _param(measure, "rel")
    floor = max(int(rel) if rel is not None else 1, 1)
    labels = qrels.labels[is_relevant(qrels.labels, floor)]
    return int(labels.min()) if len(labels) else floor


class _OneRun(Subrows):
    """Rows of one run of a parent :class:`Rows`, with labels of their own (scored as run 0)."""

    def __init__(self, parent: Rows, index: np.ndarray, labels: np.ndarray, run: int) -> None:
        super().__init__(parent, index)
        self.row_labels, self.run = labels, run

    def labels(self, rows: Selection) -> np.ndarray:
        """The relabelled rows' labels."""
        return self.row_labels if rows is None else self.row_labels[rows]

    def relevant(self, rel: int) -> np.ndarray:
        """Relevance of the relabelled rows."""
        return is_relevant(self.row_labels, rel)

    def s_d(self, depth: int | None, rows: Selection) -> tuple[np.ndarray, np.ndarray]:
        """S_d as the parent counts it; S of this run."""
        s_d, num_systems = self.parent.s_d(depth, self.rows_of_parent(rows))
        return s_d, num_systems[self.run:self.run + 1]

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """The parent's campaign; whether this run is one of its runs."""
        keys, summed, n, member = self.parent.source.reading_probabilities(cutoff)
        return keys, summed, n, member[self.run:self.run + 1]


def _extended(qrels: EncodedQrels, keys: np.ndarray, query: np.ndarray, grade: int) -> EncodedQrels:
    """``qrels`` with the pairs ``keys`` (not judged there; of queries at positions ``query``) judged ``grade``."""
    all_keys = np.concatenate([qrels.keys, keys])
    order = np.argsort(all_keys, kind="stable")
    labels = np.concatenate([qrels.labels, np.full(len(keys), grade, dtype=qrels.labels.dtype)])
    key_query = np.concatenate([qrels.key_query, query.astype(qrels.key_query.dtype)])
    return replace(qrels, keys=all_keys[order], labels=labels[order], key_query=key_query[order])


def high_values(measure: Any, rows: Rows,
                scorer: Callable[[Any, Rows], np.ndarray] = score) -> np.ndarray:
    """``high``: each run scored against the qrels extended with its unjudged documents read (see the module).

    Every run's rows are relabelled (its unjudged rows within the cutoff at :func:`lowest_grade`) and scored by
    ``scorer`` (the engine's kernel) against the extended qrels, one run at a time since each run extends the qrels
    with documents of its own.

    Returns:
        ``(n_runs, n_queries)`` values.

    Raises:
        ParameterError: the measure is not scored by the engine, or the rows leave documents out.

    """
    if not supports(measure):
        raise ParameterError(f"{measure}: bounds over unjudged documents need a measure the engine scores itself")
    check_whole(rows, f"{measure}'s high bound", measure_cutoff(measure))
    grade = lowest_grade(measure, rows.qrels)
    labels = rows.labels()
    cutoff = measure_cutoff(measure)
    opened = labels == UNJUDGED
    if cutoff is not None:
        opened &= rows.rank < cutoff
    bounds = np.searchsorted(rows.run, np.arange(rows.n_runs + 1))
    n_queries = rows.n_queries
    out = np.zeros((rows.n_runs, n_queries))
    for r in range(rows.n_runs):  # one run at a time: each run's extension of the qrels is its own
        index = np.arange(bounds[r], bounds[r + 1])
        own = opened[index]
        qrels = _extended(rows.qrels, rows.keys(index[own]), rows.query[index[own]], grade)
        relabelled = np.where(own, grade, labels[index])
        one = Rows(run=np.zeros(len(index), dtype=rows.run.dtype), query=rows.query[index], rank=rows.rank[index],
                   present=rows.present[r:r + 1], n_runs=1, qrels=qrels,
                   source=_OneRun(rows, index, relabelled, r),
                   returned=None if rows.returned is None else rows.returned[r * n_queries:(r + 1) * n_queries])
        out[r] = scorer(measure, one)[0]
        one.release()
    return out
