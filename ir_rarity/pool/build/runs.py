"""Building a campaign's :class:`~ir_rarity.pool.build.encoded.EncodedRuns` from named run frames.

Every run is reduced as it is read to its scores and its query and docno codes; the codes are mapped into the
campaign's sorted vocabularies once all runs are read, and each run is put in trec_eval order (score descending
in single precision, ties by docno descending) and checked for duplicate documents on its own (see
:func:`encode_runs`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.engine.codes import (
    ScorePrecision,
    block_starts,
    inverse_permutation,
    pair_keys,
    ranks_within_blocks,
    trec_order,
)
from ir_rarity.engine.pages import release_freed_memory, without_hugepage_advice
from ir_rarity.engine.runs import Duplicates, check_duplicates
from ir_rarity.engine.strings import chunks_of, fixed_width, grid_keys, one_array, string_order
from ir_rarity.errors import InputError
from ir_rarity.pool.build.docnos import DocEncoder, QueryBlocks
from ir_rarity.pool.build.encoded import EncodedRuns
from ir_rarity.pool.build.retention import Retention
from ir_rarity.pool.teams import assign_teams

__all__ = ["encode_runs", "key_index", "run_taker", "system_codes", "top_k"]


@without_hugepage_advice
def encode_runs(named: Iterable[tuple[str, Any]], teams: Mapping[str, str] | None,
                duplicates: Duplicates, keep: Retention | None = None, held: bool = False,
                scores: ScorePrecision = "float32") -> tuple[EncodedRuns, tuple[np.ndarray, np.ndarray]]:
    """Encode ``(name, canonical frame)`` pairs into one campaign (or ``(name, pyarrow Table)``, of the same columns).

    Each frame is reduced as it arrives to what the campaign needs: its scores, its query ids as codes into the
    run's few distinct ids, and its docnos, its rows grouped by query (:func:`_take_run`; with ``keep``, the run is
    ordered and only the rows it names are kept, each with its rank in the whole run). Docnos are dictionary-encoded
    query by query, a batch of runs at a time on worker threads (:class:`~.docnos.DocEncoder`), so the
    strings of at most three batches are held while files are read; the queries' dictionaries are then put together
    and sorted, so a document code orders like its docno, and every row gets the code of its (query, docno) pair on
    the way. Each run is put in trec_eval order and checked for duplicate documents on its own, so no temporary
    array spans the whole campaign.

    With ``held`` (the caller holds the frames: runs given in memory), docnos are encoded in one batch (of up to
    ``DocEncoder.HELD_BATCH_ROWS`` rows) once all runs are taken, since encoding early frees no strings.
    ``scores`` says how scores are compared in trec_eval order (:data:`~ir_rarity.engine.codes.ScorePrecision`).

    Returns:
        The encoded runs, and :func:`key_index` of their rows (computed on the way, kept by the pool).

    Raises:
        InputError: two runs with the same name, a NaN score, no runs, or a
            duplicate document (:class:`~ir_rarity.errors.DuplicateDocumentError`) with ``duplicates="error"``.

    """
    if duplicates not in ("error", "first"):
        raise InputError(f"duplicates must be 'error' or 'first', got {duplicates!r}")
    with DocEncoder(held, release=keep is not None) as encoder:
        names, runs = _take_runs(named, duplicates, keep, encoder, scores)
        lengths = np.array([len(r.score) for r in runs], dtype=np.int64)
        bounds = np.concatenate([[0], np.cumsum(lengths)])
        queries, query_maps = _query_vocabulary(runs)
        large = bounds[-1] >= _LARGE
        if keep is not None:  # runs cut as read: what was read and dropped is freed; return it before encoding
            release_freed_memory()
        query = np.empty(0 if large else bounds[-1], dtype=np.int32)  # a large campaign's: once strings are gone
        score = np.empty(0 if large else bounds[-1], dtype=np.float64)
        encoded_docs = encoder.finish(queries, bounds, (query, score))
    docs, doc, pair = encoded_docs.docs, encoded_docs.doc, encoded_docs.pair
    if large:  # the frames and strings read are gone: return their pages before the campaign's arrays are made
        release_freed_memory()
        query = np.empty(bounds[-1], dtype=np.int32)
        score = np.empty(bounds[-1], dtype=np.float64)
    first_rows = np.ones(bounds[-1], dtype=bool) if duplicates == "first" else None
    thin = keep is not None and not keep.cuts  # rows kept with their rank in the whole run
    rank = np.empty(bounds[-1], dtype=np.int32) if thin else None
    returned = np.concatenate([r.returned for r in runs if r.returned is not None]) if thin else None
    repeats = _RepeatFinder(len(encoded_docs.unique_keys), int(lengths.max()))
    for i, name in enumerate(names):  # run by run into the campaign's arrays, in trec_eval order: each run's own
        lo, hi = bounds[i], bounds[i + 1]  # arrays are freed once copied, every temporary is one run long
        first = _copy_in_trec_order(runs[i], query_maps[i], (query[lo:hi], doc[lo:hi], score[lo:hi], pair[lo:hi]),
                                    repeats, duplicates, name, (queries, docs), scores)
        if first is not None and first_rows is not None:
            first_rows[lo:hi] = first
        if rank is not None:
            rank[lo:hi] = runs[i].rank
        runs[i] = _FREED
    del runs, query_maps
    if large or keep is not None:  # (runs cut as read: most of what was read is freed by now)
        release_freed_memory()
    run = np.repeat(np.arange(len(names), dtype=np.int32), lengths)
    if first_rows is not None and not first_rows.all():
        run, query, doc, score, pair = run[first_rows], query[first_rows], doc[first_rows], score[first_rows], \
            pair[first_rows]
    del first_rows
    if rank is None:
        rank = ranks_within_blocks(block_starts(run, query))
    system, system_names = system_codes(names, teams)
    encoded = EncodedRuns(names=tuple(names), queries=queries, docs=docs, run=run, query=query, doc=doc,
                          score=score, rank=rank, system=system, system_names=tuple(system_names), scores=scores,
                          returned=returned, kept_depth=keep.depth if thin and keep is not None else None)
    return encoded, (pair, encoded_docs.unique_keys)


def _take_runs(named: Iterable[tuple[str, Any]], duplicates: Duplicates, keep: Retention | None,
               encoder: DocEncoder, scores: ScorePrecision) -> tuple[list[str], list[_TakenRun]]:
    """Take every run as it arrives (:func:`_take_run`), its docnos handed to ``encoder``; names must be unique."""
    names: list[str] = []
    runs: list[_TakenRun] = []
    seen: set[str] = set()
    read = 0
    for name, frame in named:
        if name in seen:
            raise InputError(f"two runs are named {name!r}; run names must be unique")
        seen.add(name)
        names.append(name)
        runs.append(frame if isinstance(frame, _TakenRun) else _take_run(name, frame, duplicates, keep, scores))
        read += runs[-1].read
        del frame
        encoder.add(runs[-1].blocks())
        if keep is not None and read >= _RELEASE_ROWS:  # runs cut as read free most of what was read: give the
            release_freed_memory()  # pages back now and then, or they stay resident (readers' arenas, pyarrow's
            read = 0  # pool) and add to the peak of what follows
    if not names:
        raise InputError("no runs given: a pool needs at least one run")
    return names, runs


def _copy_in_trec_order(r: _TakenRun, query_map: np.ndarray, out: tuple[np.ndarray, ...], repeats: _RepeatFinder,
                        duplicates: Duplicates, name: str, vocabularies: tuple[pd.Index, pd.Index],
                        scores: ScorePrecision) -> np.ndarray | None:
    """Copy one run into its slices ``out`` = (query, doc, score, pair) of the campaign's arrays, in trec_eval order.

    ``doc`` and ``pair`` already hold the run's codes in its own row order; they are reordered in place.

    Returns:
        The rows to keep (the first of each repeated document) when ``duplicates="first"`` found repeats, else
        None.

    Raises:
        DuplicateDocumentError: a repeated document with ``duplicates="error"``.

    """
    q, d, s, p = out
    if r.ordered:
        q[:], s[:] = query_map[r.query], r.score
        return None
    # one block of rows per query (see _take_run): query codes by block, not row by row
    block_query, lengths = query_map[r.query[r.heads[:-1]]], np.diff(r.heads)
    order = trec_order(r.score, d, np.repeat(block_query, lengths), precision=scores)
    by_code = np.argsort(block_query, kind="stable")  # trec_eval order puts the blocks in query code order
    q[:] = np.repeat(block_query[by_code], lengths[by_code])
    np.take(r.score, order, out=s)
    d[:], p[:] = d[order], p[order]
    if not repeats.any(p):
        return None
    return check_duplicates(None, p, duplicates, _describer(name, q, d, *vocabularies))


class _RepeatFinder:
    """Whether a run lists a (query, docno) pair twice, from the pairs' dense codes, without a sort.

    Each row writes its own row number at its pair's slot of one array (kept across runs); a pair listed twice
    has one of its rows read back another's number. Rows read only slots written for their own run.
    """

    def __init__(self, n_pairs: int, longest: int) -> None:
        self.slot = np.empty(n_pairs, dtype=np.int32)
        self.ramp = np.arange(longest, dtype=np.int32)

    def any(self, pair: np.ndarray) -> bool:
        rows, at = self.ramp[:len(pair)], pair.astype(np.intp)  # one index array for the write and the read
        self.slot[at] = rows
        return bool((self.slot[at] != rows).any())


_RELEASE_ROWS = 1 << 22
"""Rows read between two returns of freed memory while runs are cut as they are read (every 4 M rows: the command
line's allocator bounds what it keeps on its own (:func:`~ir_rarity.engine.pages.tune_allocator`); returning it
every 1 M rows made each next file fault its pages in again, 0.05 s of a 6.3 M-row campaign's 1.6 s, for no lower
peak)."""

_LARGE = 1 << 23
"""Rows from which building returns freed memory to the system between its phases (below, the pages are
better kept for reuse: giving them back costs the next phase page faults)."""


def _describer(name: str, query: np.ndarray, doc: np.ndarray, queries: pd.Index, docs: pd.Index
               ) -> Callable[[int], tuple[str, str, str]]:
    """Row -> (run name, query id, docno), for the error naming a duplicate document."""
    return lambda j: (name, str(queries[query[j]]), str(docs[doc[j]]))


@dataclass
class _TakenRun:
    """What a campaign keeps of one run frame until all runs are read: its rows grouped by query."""

    query: np.ndarray  # code of each row's query id in ``query_ids``
    query_ids: list[str]  # the run's distinct query ids
    heads: np.ndarray  # first row of each query's rows, then the number of rows
    docs: Any  # pyarrow Array (or ChunkedArray) of each row's docno, until handed to the encoder
    score: np.ndarray
    ordered: bool  # rows already in trec_eval order, duplicates checked (cut at a depth)
    rank: np.ndarray | None = None  # rank of each row in the whole run, when rows below the depth are kept
    returned: np.ndarray | None = None  # rows of each query's ranking in the whole run (with ``rank``)
    read: int = 0  # rows of the run as read

    def blocks(self) -> QueryBlocks:
        """The run's docnos for the encoder (which takes them over)."""
        block_ids = np.asarray(self.query_ids, dtype=object)[self.query[self.heads[:-1]]].tolist()  # no Python loop
        blocks = QueryBlocks(query_ids=block_ids, heads=self.heads, docs=self.docs)
        self.docs = None
        return blocks


_FREED = _TakenRun(np.zeros(0, dtype=np.int32), [], np.zeros(1, dtype=np.int64), None, np.zeros(0), True)


def _take_run(name: str, frame: Any, duplicates: Duplicates, keep: Retention | None,
              scores: ScorePrecision) -> _TakenRun:
    """Scores, query codes and docnos of one canonical run frame, its rows grouped by query.

    A run whose queries' rows are not each together is put in query order first (stably: the rows of a query
    keep their order, so the first of two duplicates stays first). With ``keep``, the run is ordered and only
    the rows it names are kept (:meth:`Retention.keep`); unless it only cuts the run, with their ranks and the
    length of each ranking.
    """
    query_strings, docs, score = _run_columns(frame)
    if np.isnan(score).any():
        raise InputError("NaN scores have no trec_eval order", name)
    query, query_ids, heads = _query_codes(query_strings)
    if keep is None:
        if len(heads) > len(query_ids) + 1:  # a query's rows come in several blocks
            import pyarrow as pa

            together = np.argsort(query, kind="stable")
            query, score, docs = query[together], score[together], docs.take(pa.array(together))
            heads = _heads(query)
        return _TakenRun(query=query, query_ids=query_ids, heads=heads, docs=docs, score=score, ordered=False,
                         read=len(score))
    # Cut while reading, so that memory stays flat however long the runs are. Duplicates are found before the
    # cut (trec_eval refuses a run with one, wherever it is); docnos are compared only where scores tie.
    by_id = np.argsort(np.array(query_ids, dtype=object)).astype(np.int32)  # queries in id order, as the campaign
    query_ids = [query_ids[i] for i in by_id]
    query = inverse_permutation(by_id)[query]
    if keep.cuts:
        keys = _docno_keys(docs)
        if keys is not None and not _pairs_may_repeat(query, keys):  # no duplicate: the docnos' keys order ties
            order = trec_order(score, lambda rows: np.unique(keys[rows], return_inverse=True)[1].reshape(-1),
                               query, precision=scores)
            return _cut(order, query, query_ids, docs, score, keep.depth)
    doc, doc_ids = _dictionary(docs)
    order = trec_order(score, lambda rows: _tie_codes(doc_ids, doc[rows]), query, precision=scores)
    first = check_duplicates(None, pair_keys(query[order], doc[order]), duplicates,
                             lambda i: (name, query_ids[int(query[order[i]])], doc_ids[int(doc[order[i]])].as_py()))
    if first is not None:
        order = order[first]
    ordered_query = query[order]
    rank = ranks_within_blocks(block_starts(ordered_query))
    if keep.cuts:
        return _cut(order, query, query_ids, docs, score, keep.depth, rank)
    qrels = keep.qrels
    with np.errstate(over="ignore"):
        single = score[order].astype(np.float32)
    judged = None if qrels is None else (lambda: qrels.rows(query_ids, ordered_query, doc_ids, doc[order]))
    kept = np.flatnonzero(keep.keep(ordered_query, rank, single, judged))
    returned = np.diff(_heads(ordered_query))
    order = order[kept]
    query = ordered_query[kept]
    return _TakenRun(query=query, query_ids=query_ids, heads=_heads(query), docs=docs.take(order),
                     score=score[order], ordered=True, rank=rank[kept].astype(np.int32), returned=returned,
                     read=len(score))


def run_taker(duplicates: Duplicates, keep: Retention | None = None, scores: ScorePrecision = "float32"
              ) -> Callable[[str, Any], Any]:
    """What :func:`encode_runs` makes of one run, as a function to run where the run is read.

    ``taker(name, frame or Table)`` reduces the run as :func:`encode_runs` would (ordered, cut or thinned to
    ``keep``, duplicates checked); :func:`encode_runs` then takes the result as it is. A campaign's files are read
    on two threads (:func:`~ir_rarity.pool.build.sources.iter_run_tables`), and each thread reduces the runs it reads:
    only the reduced runs wait for the encoder, and the work is shared by both cores.
    """
    return lambda name, frame: _take_run(name, frame, duplicates, keep, scores)


def _cut(order: np.ndarray, query: np.ndarray, query_ids: list[str], docs: Any, score: np.ndarray, depth: int,
         rank: np.ndarray | None = None) -> _TakenRun:
    """The run's top ``depth`` rows per query, ``order`` being its trec_eval order (``rank``: the rows' ranks in it)."""
    if rank is None:
        rank = ranks_within_blocks(block_starts(query[order]))
    order = order[rank < depth]
    kept = query[order]
    return _TakenRun(query=kept, query_ids=query_ids, heads=_heads(kept), docs=docs.take(order), score=score[order],
                     ordered=True, read=len(score))


def _docno_keys(docs: Any) -> np.ndarray | None:
    """Keys (uint64) that order a run's docnos and tell them apart, or None where none are cheap.

    Where every docno has one width and at most 8 bytes past a prefix all share (CORD uids, numbered docnos),
    those bytes read as one big-endian integer are such a key (:func:`~ir_rarity.engine.strings.grid_keys`),
    found without hashing the strings.
    """
    strings = one_array(docs)
    if len(strings) == 0 or strings.null_count:
        return None
    width, grid = fixed_width(strings)
    if width is None or grid is None:
        return None
    varies = np.flatnonzero(~(grid == grid[0]).all(axis=0))  # the columns of bytes that are not all one
    shared = int(varies[0]) if len(varies) else width
    return grid_keys(grid, shared) if width - shared <= 8 else None


def _pairs_may_repeat(query: np.ndarray, keys: np.ndarray) -> bool:
    """Whether two rows may list one (query, docno): False proves they do not (``keys`` tell docnos apart).

    The pairs are mixed into one 64-bit integer each and sorted: equal pairs give equal integers, so no two equal
    integers means no two equal pairs; equal integers of unequal pairs (about n^2 / 2^65 for n rows) only send the
    run the exact way (its docnos dictionary-encoded).
    """
    with np.errstate(over="ignore"):
        mixed = keys * np.uint64(0x9E3779B97F4A7C15) ^ (query.astype(np.uint64) + np.uint64(1)) * np.uint64(
            0xC2B2AE3D27D4EB4F)
    mixed.sort()
    return bool((mixed[1:] == mixed[:-1]).any())


def _heads(query: np.ndarray) -> np.ndarray:
    """First row of each block of equal codes, then the number of rows (int64)."""
    return np.append(np.flatnonzero(block_starts(query)), len(query)) if len(query) else np.zeros(1, np.int64)


def _query_codes(strings: Any) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Codes (int32) of a run's query ids into its distinct ids (in order of first appearance), and block heads.

    The heads are the first row of each block of equal neighbouring ids, then the number of rows. A run lists
    each query's documents together, so only the first id of each block is looked at (pyarrow's run-end
    encoding finds the blocks; unless they are short: then pyarrow hashes all ids).
    """
    import pyarrow.compute as pc

    n = len(strings)
    starts: list[np.ndarray] = []
    head_ids: list[str] = []
    first = 0
    for chunk in chunks_of(strings):
        blocks = pc.run_end_encode(chunk)
        ends = blocks.run_ends.to_numpy()
        if len(head_ids) + len(ends) > max(1024, n // 8):  # short blocks: hash every id instead
            codes, dictionary = _dictionary(strings)
            return codes, dictionary.to_pylist(), np.append(np.flatnonzero(block_starts(codes)), n)
        ids = blocks.values.to_pylist()
        chunk_starts = first + np.concatenate([[0], ends[:-1]]).astype(np.int64)
        if head_ids and ids[0] == head_ids[-1]:  # a block that goes on from the previous chunk
            ids, chunk_starts = ids[1:], chunk_starts[1:]
        starts.append(chunk_starts)
        head_ids.extend(ids)
        first += len(chunk)
    heads = np.concatenate(starts) if starts else np.zeros(0, dtype=np.int64)
    bounds = np.append(heads, n)
    distinct = list(dict.fromkeys(head_ids))  # a few ids: numbered in Python
    number = {q: i for i, q in enumerate(distinct)}
    head_codes = np.fromiter((number[q] for q in head_ids), dtype=np.int32, count=len(head_ids))
    return np.repeat(head_codes, np.diff(bounds)), distinct, bounds


def _query_vocabulary(runs: list[_TakenRun]) -> tuple[pd.Index, list[np.ndarray]]:
    """The sorted query-id vocabulary of all runs, and for each run the code in it of each of its own ids.

    One hash of all runs' ids and one lookup, not a Python step per query (a run may hold 100,000s of them).
    """
    import pyarrow as pa

    given = pd.Index(list(chain.from_iterable(r.query_ids for r in runs)), dtype=object)
    ids = given.unique().sort_values()  # Python orders str by code point: as UTF-8 bytes
    codes = ids.get_indexer(given).astype(np.int32)
    maps = np.split(codes, np.cumsum([len(r.query_ids) for r in runs])[:-1])
    return pd.Index(pa.array(ids.tolist(), type=pa.large_string()).to_pandas()), maps


def _run_columns(run: Any) -> tuple[Any, Any, np.ndarray]:
    """A canonical run frame's, or a pyarrow Table's, query ids and docnos (pyarrow strings) and scores (float64).

    A Table (a run file as :func:`~.sources.iter_run_tables` reads it) gives its columns as they are.
    """
    if isinstance(run, pd.DataFrame):
        return _arrow_strings(run["query_id"]), _arrow_strings(run["doc_id"]), run["score"].to_numpy(np.float64)
    score = run.column("score")
    return run.column("query_id"), run.column("doc_id"), (
        score.chunk(0).to_numpy() if score.num_chunks == 1 else score.to_numpy()).astype(np.float64, copy=False)


def _arrow_strings(values: pd.Series) -> Any:
    """A string column as pyarrow strings, without a copy where it already is one (an Array or a ChunkedArray)."""
    import pyarrow as pa

    to_arrow = getattr(values.array, "__arrow_array__", None)
    return to_arrow() if to_arrow is not None else pa.array(values.to_numpy(dtype=object), type=pa.large_string())


def _dictionary(strings: Any) -> tuple[np.ndarray, Any]:
    """Codes (int32) of pyarrow ``strings`` into their distinct values (in order of first appearance)."""
    encoded = one_array(strings).dictionary_encode()
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False), encoded.dictionary


def _tie_codes(doc_ids: Any, codes: np.ndarray) -> np.ndarray:
    """Codes ordering tied rows like their docnos (``codes`` index the run's distinct ``doc_ids``).

    A docno listed twice gets one code, so the stable sort keeps such rows in the order given.
    """
    distinct, inverse = np.unique(codes, return_inverse=True)
    return inverse_permutation(string_order(doc_ids.take(distinct)))[inverse.reshape(-1)]


def system_codes(names: list[str], teams: Mapping[str, str] | None) -> tuple[np.ndarray, list[str]]:
    """System code of each run and the system names: each run its own system, or its team's.

    A run ``teams`` does not map is a team of its own (see :func:`~ir_rarity.pool.teams.assign_teams`).
    """
    if teams is None:
        return np.arange(len(names), dtype=np.int64), list(names)
    codes, uniques = pd.factorize(pd.Series(assign_teams(names, teams)))
    return codes.astype(np.int64), [str(u) for u in uniques]


def top_k(frame: pd.DataFrame, k: int, name: str, duplicates: Duplicates, scores: ScorePrecision = "float32"
          ) -> pd.DataFrame:
    """One run cut to its top ``k`` documents per query in trec_eval order (duplicates checked first).

    The cut a pool makes while reading (:func:`_take_run`), given back as a canonical run frame.
    """
    import pyarrow as pa

    taken = _take_run(name, frame, duplicates, Retention(depth=k), scores)
    docs = one_array(taken.docs)
    return pd.DataFrame({"query_id": pd.Series(pa.array(taken.query_ids, type=docs.type).take(taken.query)
                                               .to_pandas()),
                         "doc_id": pd.Series(docs.to_pandas()), "score": taken.score})


def key_index(query: np.ndarray, doc: np.ndarray, n_queries: int, n_docs: int) -> tuple[np.ndarray, np.ndarray]:
    """Dense codes of the rows' (query, doc) pairs into their sorted unique pair keys.

    Returns ``(code per row (int32), sorted unique pair keys)``. When the grid of all (query, doc) pairs is not
    much larger than the rows (a campaign: tens of queries, tens of thousands of documents), the pairs are marked
    in a boolean grid, a slice of rows at a time (no temporary as long as the rows), packed to bits; a pair's code
    is the number of marked cells before it (set bits counted per byte, then within its byte). Otherwise the pair
    keys are hash-factorized and only the unique ones sorted.
    """
    n = len(query)
    if n_queries * n_docs <= max(16 * n, 1 << 22):
        seen = np.zeros(n_queries * n_docs, dtype=bool)
        for lo in range(0, n, _SLICE):
            seen[_flat(query, doc, n_docs, lo)] = True
        cells = np.flatnonzero(seen)
        packed = np.packbits(seen, bitorder="little")  # cell i of a byte is its bit i
        del seen
        before = np.zeros(len(packed) + 1, dtype=np.int32)  # pairs in the bytes before each byte
        np.cumsum(_POPCOUNT[packed], out=before[1:])
        code = np.empty(n, dtype=np.int32)
        for lo in range(0, n, _SLICE):
            flat = _flat(query, doc, n_docs, lo)
            byte = flat >> 3
            below = (np.uint8(1) << (flat & 7).astype(np.uint8)) - np.uint8(1)  # the bits of the cells before
            np.add(before[byte], _POPCOUNT[packed[byte] & below], out=code[lo:lo + _SLICE], casting="unsafe")
        return code, pair_keys(cells // n_docs, cells % n_docs)
    codes, uniques = pd.factorize(pair_keys(query, doc))
    order = np.argsort(uniques)
    return inverse_permutation(order)[codes], np.asarray(uniques)[order]


_SLICE = 1 << 20  # rows per slice where a whole-campaign temporary is not needed
_POPCOUNT = np.array([bin(b).count("1") for b in range(256)], dtype=np.uint8)  # set bits of each byte


def _flat(query: np.ndarray, doc: np.ndarray, n_docs: int, lo: int) -> np.ndarray:
    """Grid positions ``query * n_docs + doc`` of rows ``lo .. lo + _SLICE``."""
    flat = query[lo:lo + _SLICE].astype(np.int64)
    flat *= n_docs
    flat += doc[lo:lo + _SLICE]
    return flat
