"""Encoding a campaign's docnos: codes that order like the docnos, and dense codes of (query, docno) pairs.

Docnos are dictionary-encoded one query at a time (:class:`DocEncoder`). A query's runs share most of their
documents, so its hash table holds some thousands of docnos and stays in the processor's cache; one table for a
whole campaign (a million docnos) would not, and probing it costs a cache miss a row. The queries' dictionaries
are then put together into the campaign's sorted docno vocabulary with one sort (:func:`distinct_sorted`), which
also numbers the campaign's (query, docno) pairs in sorted order. Where all runs are encoded in one batch and
every docno has one width at most 8 bytes past a prefix all share (CORD uids, numbered docnos), docnos are
handled as 8-byte integers instead of strings (:func:`_keyed_runs`), hashed per query by pandas and sorted as
integers; the vocabulary's strings are rebuilt from them. A campaign of many tiny rankings (hundreds of
thousands of queries of a few documents each) is encoded *flat* instead: each batch's docnos in one dictionary,
the batches' dictionaries unified and sorted once, and the (query, docno) pairs numbered by one sort of their
keys, so that no step loops over queries in Python (:meth:`DocEncoder._flush_flat`).

Strings are ordered by their UTF-8 bytes (code-point order, as Python and pyarrow compare them; see
:func:`~ir_rarity.engine.strings.string_order`).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.engine.codes import inverse_permutation, pair_keys
from ir_rarity.engine.pages import release_freed_memory, touch_pages
from ir_rarity.engine.strings import (
    chunks_of,
    fixed_width,
    grid_keys,
    key_order,
    keys_exact,
    leading_bytes,
    shared_prefix,
    string_order,
    strings_of_keys,
)

__all__ = ["DocEncoder", "EncodedDocs", "QueryBlocks", "distinct_sorted"]


@dataclass
class QueryBlocks:
    """One run's docnos, its rows grouped by query: what :class:`DocEncoder` encodes.

    Attributes:
        query_ids: The query id of each block.
        heads: First row of each block, and the number of rows after the last (``len(query_ids) + 1`` items).
        docs: pyarrow Array or ChunkedArray of the run's docnos (dropped once handed to an encoding job).

    """

    query_ids: list[str]
    heads: np.ndarray
    docs: Any


@dataclass
class _Part:
    """The rows of one query in one encoding job: their codes in the job's dictionary, and where they belong."""

    dictionary: Any  # pyarrow array of the distinct docnos
    codes: np.ndarray  # code of each row (int32; int64 as pandas gives them for keys), blocks one after the other
    run: np.ndarray  # run number of each block (the order runs were added)
    start: np.ndarray  # first row of each block within its run
    length: np.ndarray  # rows of each block


@dataclass
class EncodedDocs:
    """A campaign's docnos encoded (:meth:`DocEncoder.finish`).

    Attributes:
        docs: The sorted docno vocabulary.
        doc: Code in ``docs`` of every row (rows of run ``i`` from ``bounds[i]``).
        pair: Code of every row's (query, docno) pair in ``unique_keys``.
        unique_keys: The campaign's distinct (query, doc) pair keys (:func:`~ir_rarity.engine.codes.pair_keys`
            in the sorted query and docno vocabularies), sorted.

    """

    docs: pd.Index
    doc: np.ndarray
    pair: np.ndarray
    unique_keys: np.ndarray


class DocEncoder:
    """Docnos of runs dictionary-encoded query by query, a batch of runs at a time.

    Runs are added as they are read (:meth:`add`). Once the runs waiting hold ``BATCH_ROWS`` rows (twice as many
    for each batch before, up to ``MAX_BATCH_ROWS``; ``HELD_BATCH_ROWS`` for runs the caller holds anyway, whose
    strings encoding early would not free), their docnos are encoded on worker threads (pyarrow
    releases the interpreter while it hashes), in two jobs that share the batch's queries, while the next runs
    are read; the runs keep no strings then, so the strings of at most ``IN_FLIGHT`` batches and the one being
    filled are held. :meth:`finish` unifies each query's dictionaries across batches, sorts the union of all
    queries' dictionaries once, and gives every row its docno code and pair code. The only batch of a campaign
    may be encoded as integer keys (see the module's docstring).
    """

    BATCH_ROWS = 1 << 19
    MAX_BATCH_ROWS = 1 << 22
    HELD_BATCH_ROWS = 1 << 26
    IN_FLIGHT = 2
    FLAT_MIN_BLOCKS = 1 << 12
    """The first batch is encoded flat (and so every batch after it) when it holds at least this many (run,
    query) blocks of fewer than ``FLAT_BLOCK_ROWS`` rows on average: per-query dictionaries would cost a
    Python step and some objects per query for a handful of rows each."""
    FLAT_BLOCK_ROWS = 32

    def __init__(self, held: bool = False, release: bool = False) -> None:
        """Start with no runs; ``held``: the caller holds the runs' frames anyway (runs given in memory).

        ``release``: once the last runs' docnos are encoded, give the memory freed back to the system
        (:func:`~ir_rarity.engine.pages.release_freed_memory`) before the campaign's arrays are made; for runs cut
        as they were read, whose strings are then most of what was held.
        """
        self._held = held
        self._release = release
        self._pending: list[tuple[int, QueryBlocks]] = []
        self._rows = 0
        self._added = 0
        self._jobs: list[list[Future[dict[str, _Part]]]] = []
        self._worker: ThreadPoolExecutor | None = None
        self._keyed: tuple[bytes, int] | None = None  # (prefix, width) where docnos were encoded as keys
        self._flat: bool | None = None  # decided at the first batch
        self._flat_jobs: list[tuple[Future[tuple[Any, np.ndarray]], list[str], np.ndarray]] = []

    def __enter__(self) -> DocEncoder:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._worker is not None:
            self._worker.shutdown(wait=True, cancel_futures=True)

    def add(self, run: QueryBlocks) -> None:
        """Take one run (the ``n``-th added is run ``n`` in :meth:`finish`'s ``bounds``)."""
        self._pending.append((self._added, run))
        self._added += 1
        self._rows += int(run.heads[-1])
        limit = self.HELD_BATCH_ROWS if self._held else min(self.BATCH_ROWS << len(self._jobs), self.MAX_BATCH_ROWS)
        if self._rows >= limit:
            self._flush(last=False)

    def _flush(self, last: bool) -> None:
        """Start encoding the waiting runs: two jobs, each with about half of the batch's queries.

        The last batch is encoded at once: one job on a worker, the other on this thread.
        """
        if not self._pending:
            return
        if self._flat is None:
            blocks = sum(len(run.query_ids) for _, run in self._pending)
            rows = sum(int(run.heads[-1]) for _, run in self._pending)
            self._flat = blocks >= self.FLAT_MIN_BLOCKS and rows < self.FLAT_BLOCK_ROWS * blocks
        if self._flat:
            self._flush_flat()
            return
        keyed = _keyed_runs(self._pending) if last and not self._jobs else None  # the only batch
        if keyed is not None:
            self._keyed = keyed[:2]
            keys = keyed[2]
            halves = _split_queries(self._pending, lambda number, run, start, rows: _pieces(keys[number], start, rows))
            encode = _factorize_queries
        else:
            halves = _split_queries(self._pending, _docs_slice)
            encode = _encode_queries
        for _, run in self._pending:
            run.docs = None  # the jobs hold the slices they need
        self._pending, self._rows = [], 0
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=2, thread_name_prefix="ir_rarity-encode")
        if len(self._jobs) >= self.IN_FLIGHT:  # bound the strings held: wait for an older batch
            for job in self._jobs[-self.IN_FLIGHT]:
                job.result()
        first = self._worker.submit(encode, halves[0])
        if last:
            here: Future[dict[str, _Part]] = Future()
            here.set_result(encode(halves[1]))
            self._jobs.append([first, here])
        else:
            self._jobs.append([first, self._worker.submit(encode, halves[1])])

    def _worker_pool(self) -> ThreadPoolExecutor:
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=2, thread_name_prefix="ir_rarity-encode")
        return self._worker

    def _flush_flat(self) -> None:
        """Encode the waiting runs' docnos in one dictionary on a worker; keep each block's query id and length.

        The batch's rows are, in order, those of its runs one after the other: where the campaign's arrays hold
        them (runs are numbered in the order added).
        """
        import pyarrow as pa

        runs = [run for _, run in self._pending]
        chunks = [c for run in runs for c in chunks_of(run.docs)]
        kind = pa.large_string() if any(c.type != chunks[0].type for c in chunks) else None
        block_ids = list(chain.from_iterable(run.query_ids for run in runs))
        lengths = np.concatenate([np.diff(run.heads) for run in runs]).astype(np.int64)
        for run in runs:
            run.docs = None
        self._pending, self._rows = [], 0
        if len(self._flat_jobs) >= self.IN_FLIGHT:  # bound the strings held: wait for an older batch
            self._flat_jobs[-self.IN_FLIGHT][0].result()
        job = self._worker_pool().submit(_encode_flat, [c.cast(kind) for c in chunks] if kind else chunks)
        self._flat_jobs.append((job, block_ids, lengths))

    def _finish_flat(self, queries: pd.Index, bounds: np.ndarray) -> EncodedDocs:
        """:meth:`finish` of flat batches: unify and sort their dictionaries, then number the pairs by one sort."""
        import pyarrow as pa

        kind = pa.large_string()
        done = [(job.result(), ids, lengths) for job, ids, lengths in self._flat_jobs]
        self._flat_jobs = []
        if self._release:
            release_freed_memory()
        dictionaries = [d if d.type == kind else d.cast(kind) for (d, _), _, _ in done]
        if len(dictionaries) == 1:
            union, maps = dictionaries[0], [None]
        else:
            unified = pa.chunked_array(dictionaries, type=kind).dictionary_encode()
            union = unified.chunk(unified.num_chunks - 1).dictionary
            maps = [c.indices.to_numpy(zero_copy_only=False) for c in unified.chunks]
        docs, entry_doc = distinct_sorted(union) if len(union) else (pa.array([], type=kind), np.zeros(0, np.int32))
        doc = np.concatenate([entry_doc[codes if to_union is None else to_union[codes]]
                              for ((_, codes), _, _), to_union in zip(done, maps, strict=True)]).astype(np.int32)
        if len(doc) != int(bounds[-1]):
            raise ValueError("flat docno batches do not cover the campaign's rows")
        block_query = queries.get_indexer(pd.Index(list(chain.from_iterable(ids for _, ids, _ in done))))
        query = np.repeat(block_query.astype(np.int32), np.concatenate([lengths for _, _, lengths in done]))
        unique_keys, pair = np.unique(pair_keys(query, doc), return_inverse=True)
        vocabulary = pd.Index(docs.to_pandas()) if len(docs) else pd.Index(pa.array([], type=kind).to_pandas())
        return EncodedDocs(docs=vocabulary, doc=doc, pair=pair.reshape(-1).astype(np.int32), unique_keys=unique_keys)

    def _parts_by_query(self) -> dict[str, list[_Part]]:
        """Every finished job's parts, by query id (batches in order); the jobs' strings are freed by then."""
        by_query: dict[str, list[_Part]] = {}
        for batch in self._jobs:
            for job in batch:
                for qid, part in job.result().items():
                    by_query.setdefault(qid, []).append(part)
        self._jobs = []
        if self._release:  # the strings encoded last are freed: their pages go back before the campaign's arrays
            release_freed_memory()
        return by_query

    def finish(self, queries: pd.Index, bounds: np.ndarray, arrays: tuple[np.ndarray, ...] = ()) -> EncodedDocs:
        """Encode what is left, then code every row against the campaign's sorted vocabularies.

        Args:
            queries: The campaign's sorted query-id vocabulary (every query id of the runs added).
            bounds: First row of each run in the campaign's arrays, and the number of rows (runs in the order
                added).
            arrays: The caller's new campaign-sized arrays: their pages are mapped (:func:`touch_pages`) on a worker
                while this thread sorts the vocabulary, as are those of the arrays made here.

        """
        import pyarrow as pa

        self._flush(last=True)
        if self._flat:
            return self._finish_flat(queries, bounds)
        by_query = self._parts_by_query()
        doc = np.empty(int(bounds[-1]), dtype=np.int32)
        pair = np.empty(int(bounds[-1]), dtype=np.int32)
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=2, thread_name_prefix="ir_rarity-encode")
        mapped = self._worker.submit(touch_pages, doc, pair, *arrays)  # the workers are idle from here
        kind = pa.large_string()  # 64-bit offsets: the union of the dictionaries may pass 2 GiB of docnos
        ids = [str(q) for q in queries]
        unions, maps = _query_unions(by_query, ids, keyed=self._keyed is not None)
        sizes = np.array([len(u) for u in unions], dtype=np.int64)
        if self._keyed is not None:
            docs, entry_doc = _distinct_keys(np.concatenate(unions), *self._keyed)
        else:
            docs, entry_doc = distinct_sorted(pa.chunked_array(unions, type=kind))
        entry_query = np.repeat(np.arange(len(ids), dtype=np.int32), sizes)
        # A query's entries are distinct docnos: sorted by (query, docno), they are the sorted pair keys.
        by_pair = np.argsort(pair_keys(entry_query, entry_doc))
        entry_pair = inverse_permutation(by_pair)
        unique_keys = pair_keys(entry_query[by_pair], entry_doc[by_pair])
        offset = np.concatenate([[0], np.cumsum(sizes)])
        mapped.result()
        for q, qid in enumerate(ids):
            for part, to_union in zip(by_query.get(qid, []), maps[q], strict=True):
                entry = offset[q] + (np.arange(len(part.dictionary)) if to_union is None else to_union)
                part_doc, part_pair = entry_doc[entry][part.codes], entry_pair[entry][part.codes]
                at = 0
                for first, rows in zip((bounds[part.run] + part.start).tolist(), part.length.tolist(), strict=True):
                    doc[first:first + rows] = part_doc[at:at + rows]  # each block where its run's rows are
                    pair[first:first + rows] = part_pair[at:at + rows]
                    at += rows
        vocabulary = pd.Index(docs.to_pandas()) if len(docs) else pd.Index(pa.array([], type=kind).to_pandas())
        return EncodedDocs(docs=vocabulary, doc=doc, pair=pair, unique_keys=unique_keys)


def _query_unions(by_query: dict[str, list[_Part]], ids: list[str], keyed: bool
                  ) -> tuple[list[Any], list[list[np.ndarray | None]]]:
    """Each query's union of its parts' dictionaries, and per part the part's codes in that union.

    A query of one part (always so for integer keys: they come in one batch) keeps its dictionary as it is, and
    its part's codes need no map (None).
    """
    import pyarrow as pa  # pyarrow is loaded with the run readers already; deferred to keep this module light

    kind = pa.large_string()  # 64-bit offsets: the union of the dictionaries may pass 2 GiB of docnos
    unions: list[Any] = []
    maps: list[list[np.ndarray | None]] = []
    for qid in ids:
        parts = by_query.get(qid, [])
        if keyed or len(parts) <= 1:
            empty = np.zeros(0, dtype=np.uint64) if keyed else pa.array([], type=kind)
            union: Any = parts[0].dictionary if parts else empty
            if not keyed and union.type != kind:  # 32-bit offsets (pa.string) as given
                union = union.cast(kind)
            unions.append(union)
            maps.append([None] * len(parts))
            continue
        dictionaries = [p.dictionary if p.dictionary.type == kind else p.dictionary.cast(kind) for p in parts]
        union = pa.chunked_array(dictionaries, type=kind).dictionary_encode()
        unions.append(union.chunk(union.num_chunks - 1).dictionary)
        maps.append([c.indices.to_numpy(zero_copy_only=False) for c in union.chunks])
    return unions, maps


_Block = tuple[int, int, int, Any]  # (run number, first row, rows, what the job reads of them)


def _split_queries(runs: list[tuple[int, QueryBlocks]], read: Callable[[int, QueryBlocks, int, int], Any]
                   ) -> tuple[dict[str, list[_Block]], ...]:
    """The blocks of ``runs`` grouped by query id, the queries shared out in two halves of about equal rows.

    Each block is ``(run number, first row, rows, read(number, run, first row, rows))``: a zero-copy slice of
    the run's docnos, or of their keys.
    """
    groups: dict[str, list[_Block]] = {}
    rows: dict[str, int] = {}
    for number, run in runs:
        heads = run.heads.tolist()
        for k, qid in enumerate(run.query_ids):
            start, stop = heads[k], heads[k + 1]
            groups.setdefault(qid, []).append((number, start, stop - start, read(number, run, start, stop - start)))
            rows[qid] = rows.get(qid, 0) + stop - start
    halves: tuple[dict[str, list[_Block]], ...] = ({}, {})
    filled = [0, 0]
    for qid in sorted(groups, key=lambda q: -rows[q]):  # largest first, each to the lighter half
        side = 0 if filled[0] <= filled[1] else 1
        halves[side][qid] = groups[qid]
        filled[side] += rows[qid]
    return halves


def _docs_slice(number: int, run: QueryBlocks, start: int, rows: int) -> Any:
    return run.docs.slice(start, rows)


def _encode_queries(groups: dict[str, list[_Block]]) -> dict[str, _Part]:
    """Dictionary-encode each query's docnos on their own (a small hash table per query)."""
    import pyarrow as pa

    out = {}
    for qid, blocks in groups.items():
        chunks = [c for *_, docs in blocks for c in chunks_of(docs)]
        kind = chunks[0].type
        if any(c.type != kind for c in chunks):  # 32- and 64-bit offsets from different sources
            kind = pa.large_string()
            chunks = [c.cast(kind) for c in chunks]
        encoded = pa.chunked_array(chunks, type=kind).dictionary_encode()
        codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in encoded.chunks])
        dictionary = encoded.chunk(encoded.num_chunks - 1).dictionary  # the chunks share the whole dictionary
        out[qid] = _part(dictionary, codes.astype(np.int32, copy=False), blocks)
    return out


def _encode_flat(chunks: list[Any]) -> tuple[Any, np.ndarray]:
    """One dictionary of a flat batch's docnos and each row's code in it (int32)."""
    import pyarrow as pa

    if not chunks:
        return pa.array([], type=pa.large_string()), np.zeros(0, dtype=np.int32)
    encoded = pa.chunked_array(chunks).dictionary_encode()
    codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in encoded.chunks])
    return encoded.chunk(encoded.num_chunks - 1).dictionary, codes.astype(np.int32, copy=False)


def _part(dictionary: Any, codes: np.ndarray, blocks: list[_Block]) -> _Part:
    """A query's encoded rows: its dictionary, each row's code, and where its blocks belong."""
    meta = np.array([b[:3] for b in blocks], dtype=np.int64).reshape(-1, 3)
    return _Part(dictionary=dictionary, codes=codes, run=meta[:, 0], start=meta[:, 1], length=meta[:, 2])


def _factorize_queries(groups: dict[str, list[_Block]]) -> dict[str, _Part]:
    """Factorize each query's docno keys on their own (a small hash table of integers per query)."""
    out = {}
    for qid, blocks in groups.items():
        codes, distinct = pd.factorize(np.concatenate([piece for *_, pieces in blocks for piece in pieces],
                                                      dtype=np.uint64))
        out[qid] = _part(distinct, codes, blocks)
    return out


def _keyed_runs(runs: list[tuple[int, QueryBlocks]]) -> tuple[bytes, int, dict[int, list[np.ndarray]]] | None:
    """Exact leading-bytes keys of the runs' docnos, where all have one width at most 8 bytes past their prefix.

    Returns ``(the bytes before the keys, width, keys of each run's rows by run number)``, or None (then the
    docnos are encoded as strings). The shared prefix is found column by column on the docnos' bytes, as long
    as all agree. A run's keys are views of its docnos' bytes, one for each Arrow chunk where it can be
    (big-endian: converted when a query's are put together).
    """
    chunks = {number: chunks_of(run.docs) for number, run in runs}
    layouts = [fixed_width(c) for part in chunks.values() for c in part]
    grids = [grid for _, grid in layouts if grid is not None]
    widths = {width for width, _ in layouts}
    if not layouts or len(grids) < len(layouts) or len(widths) != 1:
        return None
    width = grids[0].shape[1]
    reference = grids[0][0]
    shared = width
    for grid in grids:  # the bytes all docnos share: each grid can only shorten the prefix
        column = 0
        while column < shared and (grid[:, column] == reference[column]).all():
            column += 1
        shared = column
    if width - shared > 8:
        return None
    # Keys may start before the end of the prefix (its bytes are the same in every docno): 8 bytes that end where
    # the docno does are read in place, with no padded copy.
    start = max(0, min(shared, width - 8))
    made = iter(grid_keys(grid, start, native=False) for grid in grids)  # the grids in the order of ``chunks``
    keys = {number: [next(made) for _ in part] for number, part in chunks.items()}
    return reference[:start].tobytes(), width, keys


def _pieces(chunks: list[np.ndarray], start: int, rows: int) -> list[np.ndarray]:
    """Rows ``start .. start + rows`` of a run whose keys come in ``chunks``: a view of each chunk they cross."""
    out, first = [], 0
    for chunk in chunks:
        lo, hi = max(start, first), min(start + rows, first + len(chunk))
        if lo < hi:
            out.append(chunk[lo - first:hi - first])
        first += len(chunk)
    return out


def _distinct_keys(keys: np.ndarray, prefix: bytes, width: int | None) -> tuple[Any, np.ndarray]:
    """:func:`distinct_sorted` of the strings whose exact keys after ``prefix`` are ``keys``.

    ``width`` is the strings' length if they have one (see :func:`~ir_rarity.engine.strings.strings_of_keys`).
    """
    order = np.argsort(keys)
    ordered = keys[order]
    new = np.ones(len(keys), dtype=bool)
    new[1:] = ordered[1:] != ordered[:-1]
    code = np.empty(len(keys), dtype=np.int32)
    code[order] = np.cumsum(new, dtype=np.int32) - 1
    return strings_of_keys(ordered[new], prefix, width), code


def distinct_sorted(strings: Any) -> tuple[Any, np.ndarray]:
    """The distinct values of pyarrow ``strings`` (Array or ChunkedArray) sorted, and each string's code (int32).

    Where the strings repeat (a campaign's documents retrieved for many queries), they are hashed and only the
    distinct ones sorted. Where nearly all are distinct (each query's documents its own), a hash table as large
    as the input would not stay in the processor's cache: all are sorted by their leading bytes instead
    (:func:`~ir_rarity.engine.strings.string_order`), and where those tell every two strings apart, the sorted
    strings are made from them rather than gathered.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = chunks_of(strings)
    n = sum(len(c) for c in chunks)
    if n == 0:
        return pa.array([], type=strings.type), np.zeros(0, dtype=np.int32)
    if strings.null_count or not _mostly_distinct(strings):
        encoded = pa.chunked_array(chunks, type=strings.type).dictionary_encode()
        dictionary = encoded.chunk(encoded.num_chunks - 1).dictionary
        order = string_order(dictionary)
        indices = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in encoded.chunks])
        return dictionary.take(pa.array(order)), inverse_permutation(order)[indices]
    prefix = shared_prefix(strings)
    keyed = [leading_bytes(c, len(prefix)) for c in chunks]
    key = np.concatenate([k.key for k in keyed])
    widths = {k.width for k in keyed}
    width = widths.pop() if len(widths) == 1 else None
    if keys_exact(keyed, width):  # equal keys, equal strings
        return _distinct_keys(key, prefix, width)
    order = key_order(strings, key, False, stable=False)  # equal strings get one code in any order
    ordered = strings.take(pa.array(order))
    new = np.ones(n, dtype=bool)  # the first of each run of equal strings in sorted order
    new[1:] = pc.not_equal(ordered.slice(1), ordered.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    code = np.empty(n, dtype=np.int32)
    code[order] = np.cumsum(new, dtype=np.int32) - 1
    return strings.take(pa.array(order[new])), code


_SAMPLE = 1 << 15


def _mostly_distinct(strings: Any) -> bool:
    """Whether nine in ten of an evenly spaced sample of ``strings`` are distinct (always false for few strings)."""
    import pyarrow as pa

    n = len(strings)
    if n <= 8 * _SAMPLE:
        return False
    spaced = np.linspace(0, n - 1, _SAMPLE).astype(np.int64)
    sample, start = [], 0
    for chunk in chunks_of(strings):  # each chunk its share
        mine = spaced[(spaced >= start) & (spaced < start + len(chunk))] - start
        sample.append(chunk.take(pa.array(mine)))
        start += len(chunk)
    return len(pa.chunked_array(sample, type=strings.type).unique()) > 0.9 * _SAMPLE
