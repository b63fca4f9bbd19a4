"""What a campaign read from files keeps of each run: the rows its measures read, not whole runs.

Every measure the engine computes reads, of a run, at most three things: the rows within the depth S_d is
counted at (every run's, for the counts), the rows the qrels judge (a standard measure or a rarity-weighted one
scores relevant rows, ``bpref`` and ``judged_only`` read non-relevant ones too), and how many documents each
ranking returned (``NumRet``, ``Judged``, ASL's unretrieved documents). ``Judged@k`` also reads the rows that tie
(as float32 scores) with the k-th, since ir_measures' judged provider breaks those ties its own way. A
:class:`Retention` says which of these a campaign keeps; rows are kept with their rank in the whole run, so the
measures give the same values as on whole runs, with far less held in memory.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import ir_measures
import numpy as np
import pandas as pd

from ir_rarity.engine.codes import block_starts
from ir_rarity.engine.compute import s_d_depth
from ir_rarity.engine.judgments import Judgments
from ir_rarity.engine.standard import covers
from ir_rarity.measures.base import RarityMeasure, RarityWeightedMeasure

__all__ = ["JudgedPairs", "Retention", "required_depth", "required_rows"]


class JudgedPairs:
    """The (query id, docno) pairs a qrels table judges, looked up run by run without a string per row.

    A run's distinct docnos are looked up in the judged docnos (pyarrow's hash lookup, six times pandas' on a run's
    50,000 docnos); a row is judged when its (query, docno) codes make a judged pair key (a binary search in the
    sorted keys).
    """

    def __init__(self, qrels: pd.DataFrame) -> None:
        """``qrels``: a canonical qrels frame (``query_id``, ``doc_id``, ...); every listed pair counts as judged."""
        queries = pd.Index(pd.unique(qrels["query_id"].astype(str).to_numpy(dtype=object)))
        docs = pd.Index(pd.unique(qrels["doc_id"].astype(str).to_numpy(dtype=object)))
        query = queries.get_indexer(qrels["query_id"].astype(str).to_numpy(dtype=object)).astype(np.int64)
        doc = docs.get_indexer(qrels["doc_id"].astype(str).to_numpy(dtype=object)).astype(np.int64)
        self._queries = {str(q): i for i, q in enumerate(queries)}
        self._docs = docs
        self._keys = np.unique(query * len(docs) + doc)
        self._value_sets: dict[Any, Any] = {}  # the judged docnos as a pyarrow array, per string type

    def rows(self, query_ids: list[str], query: np.ndarray, doc_ids: Any, doc: np.ndarray) -> np.ndarray:
        """Whether each row is judged.

        Args:
            query_ids: A run's distinct query ids; ``query`` holds each row's position in them.
            query: Query code of each row.
            doc_ids: pyarrow array of the run's distinct docnos; ``doc`` holds each row's position in it.
            doc: Docno code of each row.

        """
        query_code = np.array([self._queries.get(q, -1) for q in query_ids], dtype=np.int64)  # a run's few ids
        doc_code = self._doc_codes(doc_ids)
        q, d = query_code[query], doc_code[doc]
        candidate = np.flatnonzero((q >= 0) & (d >= 0))
        key = q[candidate] * len(self._docs) + d[candidate]
        at = np.minimum(np.searchsorted(self._keys, key), max(len(self._keys) - 1, 0))
        judged = np.zeros(len(query), dtype=bool)
        if len(self._keys):
            judged[candidate] = self._keys[at] == key
        return judged

    def _doc_codes(self, doc_ids: Any) -> np.ndarray:
        """Position of each of ``doc_ids`` among the judged docnos, -1 for one not judged (pyarrow's hash lookup)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        values = self._value_sets.get(doc_ids.type)
        if values is None:
            values = self._value_sets[doc_ids.type] = pa.array(self._docs.to_numpy(dtype=object), type=doc_ids.type)
        return pc.index_in(doc_ids, value_set=values).fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


@dataclass(frozen=True)
class Retention:
    """Which rows of each run a campaign read from files keeps (see the module docstring).

    Attributes:
        depth: Every row ranked above this (0-based rank < ``depth``, trec_eval order); at least 1, so that every
            ranking keeps its first row.
        judged_depth: Also the rows the qrels judge ranked above this (``math.inf``: at any rank; 0: none).
        ties: For each ``k`` (``Judged@k``): also the rows whose float32 score is at least that of the row at
            rank ``min(k, n) - 1`` of their ranking (n its length).
        returned: Keep how many documents each ranking returned (a measure reads it, or rows are dropped).
        qrels: The judged pairs (needed when ``judged_depth > depth``).

    """

    depth: int
    judged_depth: float = 0.0
    ties: tuple[int, ...] = ()
    returned: bool = False
    qrels: JudgedPairs | None = field(default=None, compare=False)

    @property
    def cuts(self) -> bool:
        """Whether the runs are only cut at :attr:`depth` (no rows kept below it): their ranks stay 0, 1, 2..."""
        return self.judged_depth <= self.depth and not self.ties and not self.returned

    def keep(self, query: np.ndarray, rank: np.ndarray, single: np.ndarray,
             judged: Callable[[], np.ndarray] | None) -> np.ndarray:
        """Whether to keep each row of one run in trec_eval order (its rows grouped by query).

        Args:
            query: Query code of each row (rows grouped by query, in trec_eval order within each).
            rank: 0-based rank of each row.
            single: Each row's score as float32 (for :attr:`ties`).
            judged: ``() -> whether each row is judged``, called only when judged rows are kept.

        Raises:
            ValueError: judged rows are to be kept, and there is no ``judged``.

        """
        kept = rank < self.depth
        if self.judged_depth > self.depth:
            if judged is None:
                raise ValueError("keeping judged rows needs the qrels")
            within = rank < self.judged_depth if not math.isinf(self.judged_depth) else slice(None)
            kept[within] |= judged()[within]
        if self.ties:
            starts = np.flatnonzero(block_starts(query))
            sizes = np.diff(np.append(starts, len(query)))
            block = np.repeat(np.arange(len(starts)), sizes)
            for k in self.ties:
                floor = single[starts + np.minimum(k, sizes) - 1]
                kept |= single >= floor[block]
        return kept


def required_depth(measures: Sequence[ir_measures.Measure]) -> int | None:
    """The deepest rank any of ``measures`` reads (cutoff or S_d depth), or None if one needs whole runs.

    A measure without a cutoff (``AP``, ``Rprec``, ``AP_rare``...), one that removes unjudged documents before
    cutting (``judged_only=True``, whose top k may lie deeper in the run) and one whose provider orders a run its
    own way (:func:`_ranks_as_trec_eval`; ``Judged@k`` breaks score ties by docno ascending) need whole runs.
    """
    deepest = 0
    for measure in measures:
        if not _ranks_as_trec_eval(measure):
            return None
        params = measure.params
        cutoff = params.get("cutoff")
        if not isinstance(cutoff, int) or params.get("judged_only"):
            return None
        depth = params.get("depth")
        deepest = max(deepest, cutoff, depth if isinstance(depth, int) else 0)
    return deepest or None


def required_rows(measures: Sequence[ir_measures.Measure], judgments: Judgments, *, s_d_given: bool = False
                  ) -> Retention | None:
    """What of each run ``measures`` read, for a campaign of runs read from files (None: whole runs).

    Every measure the engine computes reads a run's rows within the depth S_d is counted at, some of its judged
    rows, and maybe how many documents each ranking returned (see :class:`Retention`):

    * rarity-weighted measures (``P_rare``, ``AP_rare``, ``nDCG_rare``, ``R_rare``): every row within their S_d
      depth (S_d at whole runs needs whole runs), and the judged rows within their cutoff;
    * ``U_novel@k``: the rows within k (without a cutoff, whole runs); ASL: the judged rows and the lengths;
    * standard measures: the judged rows within their cutoff (at any rank without one, or with
      ``judged_only``); ``NumRet`` and ``Judged`` the lengths; ``Judged@k`` also the rows tied with the k-th;
    * anything ir_measures computes (pytrec_eval...): whole runs.

    A finite judged depth is cut at (its rows are few): judged rows are looked up only when some measure reads
    them at any rank. With ``s_d_given`` the campaign's S_d comes from elsewhere (counted in the first pass of
    :mod:`ir_rarity.pool.stream`): the rarity-weighted measures then read their judged rows only, not every row
    within their S_d depth.
    """
    depth, judged, returned, ties = 1, 0.0, False, set[int]()
    for measure in measures:
        reads = _reads(measure, s_d_given)
        if reads is None:
            return None
        depth, judged = max(depth, reads.depth), max(judged, reads.judged_depth)
        returned, ties = returned or reads.returned, ties | set(reads.ties)
    if not math.isinf(judged):
        depth, judged = max(depth, int(judged)), 0.0
    return Retention(depth=depth, judged_depth=judged, ties=tuple(sorted(ties)), returned=returned,
                     qrels=JudgedPairs(judgments.frame) if judged > depth else None)


def _reads(measure: ir_measures.Measure, s_d_given: bool = False) -> Retention | None:
    """What of each run one measure reads (see :func:`required_rows`), or None for whole runs."""
    params = measure.params
    cutoff = params.get("cutoff")
    cutoff = cutoff if isinstance(cutoff, int) else None
    reach = math.inf if cutoff is None or params.get("judged_only") else float(cutoff)
    name = getattr(measure, "NAME", None)
    if isinstance(measure, RarityWeightedMeasure):
        if s_d_given:
            return Retention(depth=1, judged_depth=reach)
        counted = s_d_depth(measure)
        return None if counted is None else Retention(depth=counted, judged_depth=reach)
    if isinstance(measure, RarityMeasure):
        if name == "ASL":
            return Retention(depth=1, judged_depth=math.inf, returned=True)
        return None if cutoff is None else Retention(depth=cutoff)  # U_novel@k: the rows within k
    if not covers(measure):
        return None
    if name == "NumRet" and params.get("rel") is None:
        return Retention(depth=1, returned=True)
    if name == "Judged":
        if cutoff is None:
            return Retention(depth=1, judged_depth=math.inf, returned=True)
        return Retention(depth=1, ties=(cutoff,), returned=True)
    return Retention(depth=1, judged_depth=reach)


def _ranks_as_trec_eval(measure: ir_measures.Measure) -> bool:
    """Whether the top k of ``measure`` are the top k in trec_eval order.

    True for ir_rarity's measures, the standard measures the engine computes and those pytrec_eval computes; not
    for ``Judged@k``, whose top k ir_measures' judged provider takes in its own order (ties by docno ascending).
    """
    if getattr(measure, "NAME", None) == "Judged":
        return False
    if isinstance(measure, RarityMeasure) or covers(measure):
        return True
    try:
        return bool(ir_measures.pytrec_eval.supports(measure))
    except (AssertionError, ValueError, TypeError):  # ir_measures asserts on parameters it does not know
        return False
