"""The provider's warm path: a run scored against a campaign whose counts the disk cache holds, with numpy alone.

The stock command ``ir_measures QRELS RUN "P_rare(pool='runs/*.gz')@100"`` starts a new process per call. Once
the campaign's count table is in the disk cache (:mod:`ir_rarity.pool.cache`), scoring one run against it needs
little: the file listing and signatures (the key), the cached keys, S_d, vocabularies and member fingerprints
(:mod:`ir_rarity.pool.cachefile`), the run and qrels ranked and encoded, and the engine's kernels. This module does
that without importing pandas, pyarrow or scipy (what plain ``ir_measures ... P@100`` does not import either), so a
repeated call costs about what a standard measure costs.

It applies the evaluation rule of :mod:`ir_rarity.engine.evaluate` as it stands for one run against a count table:
a run whose ranked lists to the depth equal a member's (its fingerprint) scores as that member; any other run as
if it alone had joined (S + 1, its own documents within the depth added to S_d). Anything it does not handle --
no cached table yet (the first call, which counts and says so), an active pool, a saved pool or count table, a
measure that needs more than S_d, qrels or a run not as ir_measures reads them from files, a duplicate document,
a NaN score, a single-system campaign -- returns None, and the provider takes the ordinary path, which gives the
values, warnings and errors of :func:`ir_rarity.scoring.evaluate_campaign`. Values are the same either way (tests
compare them).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ir_rarity.engine.codes import KEY_SHIFT, block_starts, pair_keys, ranks_within_blocks, sorted_lookup, trec_order
from ir_rarity.engine.compute import compute, s_d_depth
from ir_rarity.engine.hashes import content_hashes
from ir_rarity.engine.members import report_members
from ir_rarity.engine.qrels import EncodedQrels, is_relevant
from ir_rarity.engine.rows import Rows, Selection
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.measures.base import RarityWeightedMeasure
from ir_rarity.pool.cachefile import CachedCounts, cache_dir, cache_key, cache_path, read_cached, touch
from ir_rarity.pool.context import active_pool
from ir_rarity.pool.paths import origin_of, run_files

if TYPE_CHECKING:
    import ir_measures
    import pandas as pd

__all__ = ["POOL_ENV", "Columns", "qrels_columns", "run_columns", "warm_values"]

POOL_ENV = "IR_RARITY_POOL"
_RUN_OPTIONS: dict[str, Any] = {"scores": "float32", "teams": None, "duplicates": "error", "keep_depth": None,
                                "split_by_tag": None}
"""What the provider resolves a named campaign with (``resolve_campaign(spec, counts=True, depth=...)``): the
options of the cache key it counts under."""
_TABLES: dict[str, CachedCounts] = {}
"""Cached tables read in this process, by key (a key names the files' signatures: a changed file, a new key)."""


class Columns:
    """Qrels or a run as columns: query ids and docnos (numpy unicode arrays) and relevance labels or scores.

    (A plain class: a ``NamedTuple`` compiles its annotations when the module is imported, a few ms the warm path
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
    """The campaign a measure is scored against when the warm path can take it: a name of files, else None."""
    if not isinstance(measure, RarityWeightedMeasure):
        return None
    own = measure.params.get("pool") if isinstance(measure.params, dict) else None
    if own:
        return str(own)
    if active_pool() is not None:
        return None
    return os.environ.get(POOL_ENV) or None


def _table(spec: str, depth: int | None) -> CachedCounts | None:
    """The cached counts of the run files ``spec`` names, at ``depth``, or None (not cached, not run files)."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        files = run_files(spec)
    except (InputError, OSError):
        return None
    # The key holds the files' signatures and their kind: a table under it was counted from these very files,
    # unchanged, read as run files (the ordinary path tells a saved pool or count table by its bytes, and keys
    # its counts as such), so their bytes need not be looked at again here.
    key = cache_key(origin_of(files, "runs"), depth, **_RUN_OPTIONS)
    if key is None:
        return None
    if key in _TABLES:
        return _TABLES[key]
    path = cache_path(folder, key)
    try:
        table = read_cached(path, key, depth)
    except InputError:  # the ordinary path removes it and counts again
        return None
    if table is None or table.scores != "float32" or table.num_systems < 2:
        return None
    touch(path)  # most recently used
    _TABLES[key] = table
    return table


def warm_values(measures: Sequence[ir_measures.Measure], qrels: Columns, run: Columns
                ) -> tuple[np.ndarray, dict[Any, np.ndarray]] | None:
    """Per-query values of ``measures`` for ``run``, each against the cached counts its campaign names.

    Args:
        measures: Rarity-weighted measures naming their campaign (``pool=`` or ``IR_RARITY_POOL``).
        qrels: The qrels (:func:`qrels_columns`).
        run: The evaluated run (:func:`run_columns`).

    Returns:
        The qrels' query ids (sorted) and, per measure, its value on each; or None when the warm path cannot
        give them (see the module docstring): then take the ordinary path.

    """
    groups: dict[tuple[str, int | None], list[Any]] = {}
    for measure in measures:
        spec = _spec(measure)
        if spec is None:
            return None
        groups.setdefault((spec, s_d_depth(measure)), []).append(measure)
    if np.isnan(run.value).any() or not len(run.query):
        return None
    tables = {group: _table(*group) for group in groups}
    if any(table is None for table in tables.values()):
        return None
    values: dict[Any, np.ndarray] = {}
    query_ids = np.zeros(0, dtype=str)
    for (spec, depth), group in groups.items():
        scored = _score(cast("CachedCounts", tables[(spec, depth)]), depth, group, qrels, run)
        if scored is None:
            return None
        query_ids = scored[0]  # the qrels' query ids, sorted, whichever campaign
        values.update(scored[1])
    return query_ids, values


class _Codes:
    """The run's and the qrels' strings of one kind (query ids or docnos) as codes of one extended vocabulary.

    A code is a position in the cached vocabulary, or past it in the sorted strings outside it (the run's and
    the qrels' together): the extension of :func:`ir_rarity.engine.codes.encode`.
    """

    __slots__ = ("extra", "qrels", "run", "run_known")

    def __init__(self, run: np.ndarray, qrels: np.ndarray, run_known: np.ndarray, extra: np.ndarray) -> None:
        self.run, self.qrels, self.run_known, self.extra = run, qrels, run_known, extra

    def strings(self, vocabulary: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """The strings of ``codes``."""
        inside = codes < len(vocabulary)
        out = np.empty(len(codes), dtype=np.result_type(vocabulary.dtype, self.extra.dtype))
        out[inside] = vocabulary[codes[inside]]
        out[~inside] = self.extra[codes[~inside] - len(vocabulary)]
        return out


def _find(vocabulary: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Position of each value in the sorted ``vocabulary`` (a binary search), and whether it is there.

    Values repeated in a row (a run's query ids, each query's documents listed together) are looked up once.
    """
    if not len(vocabulary) or not len(values):
        return np.zeros(len(values), dtype=np.int64), np.zeros(len(values), dtype=bool)
    head = np.flatnonzero(np.concatenate([[True], values[1:] != values[:-1]]))
    pos = np.minimum(np.searchsorted(vocabulary, values[head]), len(vocabulary) - 1)
    found = vocabulary[pos] == values[head]
    if len(head) == len(values):
        return pos, found
    repeat = np.diff(np.append(head, len(values)))
    return np.repeat(pos, repeat), np.repeat(found, repeat)


def _unique(values: np.ndarray) -> bool:
    """Whether the integers ``values`` are all different (a sort: cheaper than a hash for a few thousand)."""
    ordered = np.sort(values)
    return not (ordered[1:] == ordered[:-1]).any()


def _sorted_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct ``values``, and the position of each value among them.

    What ``np.unique(values, return_inverse=True)`` gives, by a sort: numpy's ``unique`` imports ``numpy.ma``
    (some 10 ms), which the stock command does not otherwise import.
    """
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    new = np.ones(len(ordered), dtype=bool)
    new[1:] = ordered[1:] != ordered[:-1]
    codes = np.empty(len(values), dtype=np.int64)
    codes[order] = np.cumsum(new) - 1
    return ordered[new], codes


def _codes(vocabulary: np.ndarray, run: np.ndarray, qrels: np.ndarray) -> _Codes:
    """:class:`_Codes` of the run's and the qrels' strings (only those outside the vocabulary are sorted)."""
    run_pos, run_known = _find(vocabulary, run)
    qrels_pos, qrels_known = _find(vocabulary, qrels)
    extra = _sorted_codes(np.concatenate([run[~run_known], qrels[~qrels_known]]))[0]
    run_pos[~run_known] = len(vocabulary) + np.searchsorted(extra, run[~run_known])
    qrels_pos[~qrels_known] = len(vocabulary) + np.searchsorted(extra, qrels[~qrels_known])
    return _Codes(run_pos.astype(np.int64), qrels_pos.astype(np.int64), run_known, extra)


def _score(table: CachedCounts, depth: int | None, measures: list[Any], qrels: Columns, run: Columns
           ) -> tuple[np.ndarray, dict[Any, np.ndarray]] | None:
    """The values of ``measures`` (of one campaign and depth) for ``run`` against ``table``, or None."""
    queries, docs = table.vocabulary("queries"), table.vocabulary("docs")
    if queries is None or docs is None:
        return None
    q, d = _codes(queries, run.query, qrels.query), _codes(docs, run.doc, qrels.doc)

    def doc_sort(rows: np.ndarray) -> np.ndarray:  # docnos compared only where scores tie (trec_order)
        return _sorted_codes(run.doc[rows])[1]

    order = trec_order(run.value, doc_sort, q.run, precision="float32")
    qcode, dcode, known = q.run[order], d.run[order], (q.run_known & d.run_known)[order]
    key = pair_keys(qcode, dcode)
    if not _unique(key):
        return None  # a document listed twice for a query: the ordinary path says so
    rank = ranks_within_blocks(block_starts(qcode))
    encoded = _qrels(qrels, q, d, queries)
    if encoded is None:
        return None
    counts = sorted_lookup(table.arrays["keys"], table.arrays["counts"], key, 0)
    member = _member(table, depth, qcode, dcode, known, rank, counts)
    position = np.full(int(max(qcode.max(), encoded.query_codes.max())) + 1, -1, dtype=np.int64)
    position[encoded.query_codes] = np.arange(len(encoded.query_codes))
    inside = position[qcode]
    keep = np.flatnonzero(inside >= 0)
    if len(keep) > 1 and (np.diff(inside[keep]) < 0).any():  # rows by qrels query, each ranking in rank order
        keep = keep[np.argsort(inside[keep], kind="stable")]
    present = np.zeros((1, len(encoded.query_codes)), dtype=bool)
    present[0, inside[keep]] = True
    source = _AgainstCounts(table, key[keep], counts[keep], rank[keep], encoded.lookup(key[keep]), member, depth)
    rows = Rows(run=np.zeros(len(keep), dtype=np.int64), query=inside[keep], rank=rank[keep], present=present,
                n_runs=1, qrels=encoded, source=source)
    values = {m: compute(m, rows)[0] for m in measures}
    if member is not None:
        report_members(["the evaluated run"], {depth: [member]})
    return cast("np.ndarray", encoded.query_ids), values


def _qrels(qrels: Columns, q: _Codes, d: _Codes, queries: np.ndarray) -> EncodedQrels | None:
    """The qrels encoded in the codes the run is encoded in (the table's vocabularies, then the rest)."""
    keys = pair_keys(q.qrels, d.qrels)
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    if len(keys) > 1 and (keys[1:] == keys[:-1]).any():
        return None  # a document judged twice: the ordinary path says so
    codes = np.flatnonzero(np.bincount(q.qrels))
    names = q.strings(queries, codes)
    by_name = np.argsort(names, kind="stable")  # the qrels' query ids, sorted: the columns of every result
    query_ids, query_codes = names[by_name], codes[by_name]
    position = np.zeros(int(query_codes.max()) + 1, dtype=np.int64)
    position[query_codes] = np.arange(len(query_codes))
    empty = cast("pd.Index", np.zeros(0, dtype=str))  # the extensions: read by the encoding of runs, not here
    return EncodedQrels(query_ids=cast("pd.Index", query_ids), query_codes=query_codes, keys=keys,
                        labels=qrels.value[order], key_query=position[keys >> KEY_SHIFT], doc_extra=empty,
                        query_extra=empty)


def _member(table: CachedCounts, depth: int | None, qcode: np.ndarray, dcode: np.ndarray, known: np.ndarray,
            rank: np.ndarray, counts: np.ndarray) -> str | None:
    """The member whose ranked lists to ``depth`` the run's are (by fingerprint), or None.

    A row within the depth that no member retrieved (S_d 0, or a query id or docno outside the vocabularies)
    makes the run a newcomer; otherwise its fingerprint is looked up among the members', the last of equal ones
    (as ``CountTable.find_members`` does).
    """
    within = np.ones(len(rank), dtype=bool) if depth is None else rank < depth
    if not within.any() or (counts[within] == 0).any() or not known[within].all():
        return None
    hashes = content_hashes(table.arrays["query_hash"][qcode[within]], table.arrays["doc_hash"][dcode[within]],
                            rank[within])
    with np.errstate(over="ignore"):
        total = np.sum(hashes, dtype=np.uint64)
    same = np.flatnonzero((table.arrays["sizes"] == int(within.sum())) & (table.arrays["sums"] == total))
    return table.strings("names")[int(same[-1])] if len(same) else None


class _AgainstCounts:
    """The :class:`~ir_rarity.engine.rows.RowSource` of one run scored against cached counts by the rule.

    The one-run case of :func:`ir_rarity.engine.evaluate.rows_against`: a member keeps the campaign's S_d and S, a
    newcomer adds one to the S_d of its own rows within the depth and to S.
    """

    def __init__(self, table: CachedCounts, key: np.ndarray, counts: np.ndarray, rank: np.ndarray,
                 label: np.ndarray, member: str | None, depth: int | None) -> None:
        self.table, self.counts, self.rank = table, counts, rank
        self.columns = {"key": key, "label": label}
        self.is_member, self.depth = member is not None, depth

    def _at(self, depth: int | None) -> None:
        if depth != self.depth:
            raise ParameterError(f"S_d was counted at depth {self.depth}, not {depth}")

    def _take(self, column: str, rows: Selection) -> np.ndarray:
        values = self.columns[column]
        return values if rows is None else values[rows]

    def s_d(self, depth: int | None, rows: Selection) -> tuple[np.ndarray, np.ndarray]:
        """The campaign's S_d, plus one for a newcomer's own rows within the depth; S, or S + 1 for a newcomer."""
        self._at(depth)
        chosen = slice(None) if rows is None else rows
        s_d = self.counts[chosen].astype(np.float64)
        if not self.is_member:
            s_d += np.ones(len(s_d)) if depth is None else self.rank[chosen] < depth
        return s_d, np.array([float(self.table.num_systems) + (0.0 if self.is_member else 1.0)])

    def labels(self, rows: Selection) -> np.ndarray:
        """The qrels' labels (:data:`~ir_rarity.engine.qrels.UNJUDGED` where not judged)."""
        return self._take("label", rows)

    def keys(self, rows: Selection) -> np.ndarray:
        """The rows' pair keys."""
        return self._take("key", rows)

    def relevant(self, rel: int) -> np.ndarray:
        """Whether every row is relevant at ``rel``, from its label."""
        return is_relevant(self.columns["label"], rel)

    def campaign_s_d(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        """The campaign's own S_d of any pair keys (0 where no member retrieved the pair)."""
        self._at(depth)
        return sorted_lookup(self.table.arrays["keys"], self.table.arrays["counts"], keys, 0)

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """Not available: cached counts hold S_d only."""
        raise ParameterError("cached counts hold S_d only; the novelty utility needs the runs themselves")
