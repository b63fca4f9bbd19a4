"""ir_measures' qrels and run tuples scored against a campaign's cached counts: the stock command's quick way.

``ir_measures QRELS RUN "P_rare(pool='runs/*.gz')@100"`` reads the qrels and the run as lists of ``Qrel`` and
``ScoredDoc`` tuples. This module reads them as numpy columns, finds the count table of the campaign the measure
names in the disk cache (:mod:`ir_rarity.pool.store.cachefile`: the files' signatures are the key, so their bytes
are not read again), and hands both to the engine's one-run path (:func:`ir_rarity.engine.one_run.score_run`), which
scores the run by the evaluation rule with numpy alone. Anything it does not take -- no cached table yet (the first
call, which counts and says so), an active pool, a saved pool or count table, a measure that needs more than S_d,
qrels or a run not as ir_measures reads them from files, a duplicate document, a NaN score, a single-system campaign
-- returns None, and the provider takes the ordinary path (:func:`ir_rarity.evaluation.evaluate_campaign`), with its
values, warnings and errors. Values are the same either way (tests compare them).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from ir_rarity.engine import s_d_depth, score_run
from ir_rarity.errors import InputError
from ir_rarity.measures.base import RarityWeightedMeasure
from ir_rarity.pool import cached_campaign
from ir_rarity.pool.context import POOL_ENV, active_pool

if TYPE_CHECKING:
    import ir_measures

__all__ = ["POOL_ENV", "RUN_NAME", "Columns", "cached_values", "qrels_columns", "run_columns"]

RUN_NAME = "the evaluated run"
"""What the provider calls the run it scores (in the member notice and in errors), whichever way it scores it."""
class Columns:
    """Qrels or a run as columns: query ids and docnos (numpy unicode arrays) and relevance labels or scores.

    (A plain class: a ``NamedTuple`` compiles its annotations when the module is imported, a few ms the quick way
    should not spend.)
    """

    __slots__ = ("doc", "query", "value")

    def __init__(self, query: np.ndarray, doc: np.ndarray, value: np.ndarray) -> None:
        self.query, self.doc, self.value = query, doc, value


def _columns(rows: Sequence[Any], value: str, kinds: tuple[type, ...]) -> Columns | None:
    """Columns of ir_measures' namedtuples (``Qrel``, ``ScoredDoc``), or None if they are not plain ones.

    The rows must all be of one namedtuple type whose first fields are ``query_id, doc_id`` and ``value``, and
    hold strings, strings and ``kinds``; each column is gathered in C (``map(itemgetter)``), not row by row.
    """
    if not rows:
        return None
    kind = type(rows[0])
    if getattr(kind, "_fields", ())[:3] != ("query_id", "doc_id", value) or set(map(type, rows)) != {kind}:
        return None
    query_ids, doc_ids, values = (list(map(itemgetter(i), rows)) for i in range(3))
    if set(map(type, query_ids)) != {str} or set(map(type, doc_ids)) != {str} or not set(map(type, values)) <= set(
            kinds):
        return None
    strings = []
    for column in (query_ids, doc_ids):
        lengths = np.fromiter(map(len, column), dtype=np.int64, count=len(column))
        array = np.array(column, dtype=f"U{max(int(lengths.max()), 1)}")
        if (np.char.str_len(array) != lengths).any():
            return None  # a string ending with NUL: numpy strings would drop it
        strings.append(array)
    kind_of_value = np.float64 if value == "score" else np.int64
    return Columns(strings[0], strings[1], np.fromiter(values, dtype=kind_of_value, count=len(values)))


def qrels_columns(qrels: Sequence[Any]) -> Columns | None:
    """Qrels as ir_measures reads them (``Qrel`` tuples of str, str, int) as :class:`Columns`, else None."""
    return _columns(qrels, "relevance", (int,))


def run_columns(run: Sequence[Any]) -> Columns | None:
    """A run as ir_measures reads it (``ScoredDoc`` tuples of str, str, float) as :class:`Columns`, else None."""
    return _columns(run, "score", (float, int))


def _spec(measure: Any) -> str | None:
    """The campaign a measure is scored against when the quick way can take it: a name of files, else None."""
    if not isinstance(measure, RarityWeightedMeasure):
        return None
    own = measure.params.get("pool") if isinstance(measure.params, dict) else None
    if own:
        return str(own)
    if active_pool() is not None:
        return None
    return os.environ.get(POOL_ENV) or None


def cached_values(measures: Sequence[ir_measures.Measure], qrels: Columns, run: Columns
                  ) -> tuple[np.ndarray, dict[Any, np.ndarray]] | None:
    """Per-query values of ``measures`` for ``run``, each against the cached counts its campaign names.

    Args:
        measures: Rarity-weighted measures naming their campaign (``pool=`` or ``IR_RARITY_POOL``).
        qrels: The qrels (:func:`qrels_columns`).
        run: The evaluated run (:func:`run_columns`).

    Returns:
        The qrels' query ids (sorted) and, per measure, its value on each; or None when the quick way cannot
        give them (see the module docstring): then take the ordinary path.

    """
    groups: dict[tuple[str, int | None], list[Any]] = {}
    for measure in measures:
        spec = _spec(measure)
        if spec is None:
            return None
        groups.setdefault((spec, s_d_depth(measure)), []).append(measure)
    campaigns = {group: cached_campaign(*group) for group in groups}
    values: dict[Any, np.ndarray] = {}
    query_ids = np.zeros(0, dtype=str)
    for group, campaign in campaigns.items():
        if campaign is None or any(other is None for other in campaigns.values()):
            return None
        try:
            query_ids, scored = score_run(campaign, groups[group], (qrels.query, qrels.doc, qrels.value),
                                          (run.query, run.doc, run.value), RUN_NAME)
        except InputError:  # a NaN score, a duplicate document or judgment: the ordinary path says so
            return None
        values.update(scored)
    return query_ids, values
