"""Evaluated runs put in trec_eval order and encoded against a campaign's vocabularies, all runs in one pass.

Also the content fingerprint that recognises a campaign member by what it retrieved, whatever its name: per
run and depth, the number of (query, document, rank) rows within the depth and the wrapping sum of their
64-bit hashes. Hashes are taken of the query id and docno *strings* (:func:`string_hashes`), so a pool, a saved
pool and a count table compute the same fingerprint for the same ranked lists whatever their vocabularies.

pandas is imported by the functions that read frames (:func:`rank_runs`, :func:`string_hashes`...), not with the
module: :func:`rank_columns` ranks runs given as numpy columns against numpy vocabularies with numpy alone, the
one ranking the provider's one-run path (:mod:`ir_rarity.engine.one_run`) shares with every other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ir_rarity.engine.codes import (
    ScorePrecision,
    block_starts,
    encode,
    pair_keys,
    ranks_within_blocks,
    sorted_codes,
    trec_order,
)
from ir_rarity.engine.hashes import content_hashes, run_fingerprints
from ir_rarity.errors import DuplicateDocumentError, InputError
from ir_rarity.io.raw import short

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Duplicates",
    "RankedRuns",
    "check_duplicates",
    "content_hashes",
    "rank_columns",
    "rank_runs",
    "ranked_as_scores",
    "run_fingerprints",
    "string_hashes",
    "without_duplicates",
]

Duplicates = Literal["error", "first"]

_HASH_KEY = "ir_rarity:fp:v1."  # 16 bytes: the SipHash key of pandas' hash_array, fixed so fingerprints persist


def string_hashes(values: pd.Index | np.ndarray | Sequence[str]) -> np.ndarray:
    """A stable 64-bit hash of each string (SipHash-2-4 of its UTF-8 bytes under a fixed key)."""
    import pandas as pd

    array = pd.Index(values).astype(str).to_numpy(dtype=object)
    if len(array) == 0:
        return np.zeros(0, dtype=np.uint64)
    return pd.util.hash_array(array, encoding="utf8", hash_key=_HASH_KEY, categorize=False)


def check_duplicates(run: np.ndarray | None, key: np.ndarray, duplicates: Duplicates,
                     describe: Callable[[int], tuple[Any, Any, Any]]) -> np.ndarray | None:
    """Find rows repeating a (run, query, doc); raise, or return the mask keeping first occurrences.

    Args:
        run: Run of each row (None: the rows are of one run).
        key: The (query, doc) pair of each row: pair keys, or their dense codes.
        duplicates: ``"error"`` (as trec_eval, which refuses such runs) or ``"first"``.
        describe: Row index -> ``(run name, query id, docno)``, for the error message.

    Returns:
        None when no row repeats; else the mask of first occurrences (with ``"first"``).

    """
    if duplicates not in ("error", "first"):
        raise InputError(f"duplicates must be 'error' or 'first', got {duplicates!r}")
    combined = key.astype(np.int64) if run is None else key.astype(np.int64) * (
        int(run.max()) + 1 if len(run) else 1) + run
    ordered = np.sort(combined)  # a sort beats a hash table of millions of entries
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    import pandas as pd

    dup = pd.Index(combined).duplicated(keep="first")
    if duplicates == "error":
        name, qid, docno = describe(int(np.flatnonzero(dup)[0]))
        raise DuplicateDocumentError(
            f"run {short(name)} lists document {short(docno)} more than once for query {short(qid)} (trec_eval "
            "refuses such runs; pass duplicates='first' to keep the highest-scored occurrence)")
    return ~dup


def ranked_as_scores(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each score replaced by ``n - position``, positions in trec_eval 10.0's order per query.

    trec_eval 10.0 orders a query's documents by their score as a double, descending, then by docno descending.
    The new scores are distinct whole numbers (exact in a C float up to 2**24 documents a query), so any version
    of trec_eval, pytrec_eval's included, ranks the documents in that same order.

    Raises:
        InputError: a query with 2**24 documents or more (their ranks would not be exact as C floats).

    """
    import pandas as pd

    query, _ = pd.factorize(frame["query_id"], sort=True)
    doc, _ = pd.factorize(frame["doc_id"].astype(str), sort=True)
    order = trec_order(frame["score"].to_numpy(np.float64), doc, query, precision="float64")
    starts = block_starts(query[order])
    position = ranks_within_blocks(starts).astype(np.int64)
    sizes = np.diff(np.append(np.flatnonzero(starts), len(order)))
    if len(sizes) and sizes.max() >= 2**24:
        raise InputError("a query of 2**24 documents or more cannot be ranked exactly for pytrec_eval")
    size = np.repeat(sizes, sizes)
    ranked = np.empty(len(order), dtype=np.float64)
    ranked[order] = size - position
    out = frame.copy()
    out["score"] = ranked
    return out


def without_duplicates(name: str, frame: pd.DataFrame, duplicates: Duplicates, scores: ScorePrecision = "float32"
                       ) -> pd.DataFrame:
    """One run frame (``query_id, doc_id, score``) as the engine scores it: each document once per query.

    What a run given to ir_measures must be, so that its measures see the ranking the engine's measures see:
    ``"error"`` refuses a repeated document (as trec_eval does), ``"first"`` keeps its highest-scored occurrence
    (the first in trec_eval order). A frame without repeats is returned as it is.

    Raises:
        DuplicateDocumentError: a repeated document with ``duplicates="error"``.

    """
    import pandas as pd

    repeated = frame.duplicated(["query_id", "doc_id"], keep=False).to_numpy()
    if not repeated.any():
        return frame
    ordered = frame.iloc[np.argsort(-frame["score"].to_numpy(np.dtype(scores)), kind="stable")]
    keep = check_duplicates(None, pd.factorize(pd.MultiIndex.from_frame(ordered[["query_id", "doc_id"]]))[0],
                            duplicates, lambda i: (name, ordered["query_id"].iloc[i], ordered["doc_id"].iloc[i]))
    return frame if keep is None else ordered[keep].sort_index()


@dataclass(frozen=True)
class RankedRuns:
    """Runs being evaluated, in trec_eval order, encoded against a chain of vocabularies.

    Rows are sorted by (run, query id, rank). Codes of queries and documents follow the vocabularies the runs
    were encoded against (a campaign's, then the qrels' extensions); ids in none of them get codes after all,
    shared by every run of the set.

    Attributes:
        names: Run names, in the order given.
        run: Run index of each row.
        query: Query code of each row.
        key: (query, document) pair key of each row.
        rank: 0-based rank of each row in its ranking.
        row_hash: :func:`content_hashes` of each row.
        query_extra: Query ids in none of the vocabularies (their codes follow all of them).
        doc_extra: Docnos in none of the vocabularies, likewise.
        score: Score of each row, as given (double precision).
        doc_order: A code of each row's docno that orders like the docno strings (within these runs).

    """

    names: tuple[str, ...]
    run: np.ndarray
    query: np.ndarray
    key: np.ndarray
    rank: np.ndarray
    row_hash: np.ndarray
    query_extra: pd.Index
    doc_extra: pd.Index
    score: np.ndarray
    doc_order: np.ndarray

    @property
    def n_runs(self) -> int:
        """Number of runs."""
        return len(self.names)

    def fingerprints(self, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Per run: rows within ``depth`` and the wrapping sum of their content hashes."""
        return run_fingerprints(self.run, self.rank, self.row_hash, self.n_runs, depth)

    def rows_of(self, i: int, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
        """``(pair keys, ranks)`` of run ``i`` within ``depth``, in row order."""
        lo, hi = np.searchsorted(self.run, [i, i + 1])
        key, rank = self.key[lo:hi], self.rank[lo:hi]
        if depth is not None:
            key, rank = key[rank < depth], rank[rank < depth]
        return key, rank


def rank_runs(frames: Mapping[str, pd.DataFrame], query_vocabs: Sequence[pd.Index], doc_vocabs: Sequence[pd.Index],
              duplicates: Duplicates = "error", scores: ScorePrecision = "float32") -> RankedRuns:
    """Order and encode runs (canonical frames ``query_id, doc_id, score``) for evaluation, all in one pass.

    Args:
        frames: Run name -> canonical run frame.
        query_vocabs: Query vocabularies to encode against, in order (a campaign's, then the qrels' extension).
        doc_vocabs: Document vocabularies likewise.
        duplicates: What to do with a document listed twice for a query (see :func:`check_duplicates`).
        scores: How scores are compared (:data:`~ir_rarity.engine.codes.ScorePrecision`): as pytrec_eval
            (``"float32"``) or as trec_eval 10.0 (``"float64"``).

    Raises:
        InputError: a NaN score, or a duplicate document (:class:`DuplicateDocumentError`).

    """
    import pandas as pd

    names = tuple(str(n) for n in frames)
    parts = list(frames.values())
    for name, frame in zip(names, parts, strict=True):
        if np.isnan(frame["score"].to_numpy(np.float64)).any():
            raise InputError("NaN scores have no trec_eval order", name)
    lengths = np.array([len(f) for f in parts], dtype=np.int64)
    run = np.repeat(np.arange(len(parts), dtype=np.int64), lengths)
    if parts:
        qids = pd.concat([f["query_id"] for f in parts], ignore_index=True).to_numpy()
        docnos = pd.concat([f["doc_id"] for f in parts], ignore_index=True).to_numpy()
        score = np.concatenate([f["score"].to_numpy(np.float64) for f in parts])
    else:
        qids = docnos = np.zeros(0, dtype=object)
        score = np.zeros(0)
    local_query, local_queries = pd.factorize(qids, sort=True)
    local_doc, local_docs = pd.factorize(docnos, sort=True)
    return _ranked(names, run, score, (local_query, local_queries), (local_doc, local_docs), query_vocabs,
                   doc_vocabs, duplicates, scores, (_hashed, _hashed))


def _hashed(strings: Any, codes: np.ndarray) -> np.ndarray:
    """:func:`string_hashes` of ``strings`` (their codes not needed)."""
    return string_hashes(strings)


def rank_columns(name: str, query: np.ndarray, doc: np.ndarray, score: np.ndarray, query_vocabs: Sequence[np.ndarray],
                 doc_vocabs: Sequence[np.ndarray], hashes: tuple[np.ndarray, np.ndarray],
                 duplicates: Duplicates = "error", scores: ScorePrecision = "float32") -> RankedRuns:
    """:func:`rank_runs` of one run given as numpy columns, against sorted numpy vocabularies: numpy alone.

    The same order, codes, ranks and duplicate check as :func:`rank_runs` (both go through one path once the
    strings are coded); only the row hashes are taken from the campaign rather than hashed again: a string of the
    first vocabularies (the campaign's) has the hash the campaign stores for it, and any other string the hash 0.
    No member retrieved a row with such a string, so it changes no member's fingerprint; a campaign whose
    :meth:`~ir_rarity.engine.contract.Campaign.find_members` reads these fingerprints refuses a run with a row
    within the depth it never counted before comparing them (:class:`~ir_rarity.engine.one_run.CountsCampaign`).

    Args:
        name: The run's name (in error messages).
        query: Query id of each row (numpy unicode array).
        doc: Docno of each row (numpy unicode array).
        score: Score of each row.
        query_vocabs: Sorted numpy query vocabularies to encode against, in order (the campaign's, then the qrels'
            extension).
        doc_vocabs: Docno vocabularies likewise.
        hashes: :func:`string_hashes` of ``query_vocabs[0]`` and of ``doc_vocabs[0]``.
        duplicates: See :func:`check_duplicates`.
        scores: See :func:`rank_runs`.

    Raises:
        InputError: a NaN score, or a duplicate document (:class:`DuplicateDocumentError`).

    """
    score = np.asarray(score, dtype=np.float64)
    if np.isnan(score).any():
        raise InputError("NaN scores have no trec_eval order", name)
    query_sorted, query_codes = sorted_codes(query)
    doc_sorted, doc_codes = sorted_codes(doc)
    return _ranked((str(name),), np.zeros(len(score), dtype=np.int64), score, (query_codes, query_sorted),
                   (doc_codes, doc_sorted), query_vocabs, doc_vocabs, duplicates, scores,
                   (_stored(hashes[0]), _stored(hashes[1])))


def _stored(of_vocabulary: np.ndarray) -> Callable[[Any, np.ndarray], np.ndarray]:
    """Hashes of strings by their codes: ``of_vocabulary``'s for codes in that vocabulary, 0 past it."""
    def hashes(strings: Any, codes: np.ndarray) -> np.ndarray:
        inside = codes < len(of_vocabulary)
        out = np.zeros(len(codes), dtype=np.uint64)
        out[inside] = of_vocabulary[codes[inside]]
        return out
    return hashes


def _ranked(names: tuple[str, ...], run: np.ndarray, score: np.ndarray, queries: tuple[np.ndarray, Any],
            docs: tuple[np.ndarray, Any], query_vocabs: Sequence[Any], doc_vocabs: Sequence[Any],
            duplicates: Duplicates, scores: ScorePrecision,
            hash_strings: tuple[Callable[[Any, np.ndarray], np.ndarray], Callable[[Any, np.ndarray], np.ndarray]]
            ) -> RankedRuns:
    """Rows in trec_eval order, encoded, checked for duplicates, ranked and hashed: what both rankings share.

    Args:
        names: The run names.
        run: Run of each row.
        score: Score of each row.
        queries: Code of each row's query id among the sorted distinct ones, and those ids.
        docs: The same of the docnos.
        query_vocabs: Query vocabularies to encode against (:func:`~ir_rarity.engine.codes.encode`).
        doc_vocabs: Docno vocabularies likewise.
        duplicates: See :func:`check_duplicates`.
        scores: How scores are compared.
        hash_strings: For query ids, then docnos: ``(sorted distinct strings, their codes) -> hash of each``.

    """
    (local_query, local_queries), (local_doc, local_docs) = queries, docs
    order = trec_order(score, local_doc, run, local_query, precision=scores)
    query, query_extra = encode(local_queries, query_vocabs)
    doc, doc_extra = encode(local_docs, doc_vocabs)
    run, local_query, local_doc = run[order], local_query[order], local_doc[order]
    key = pair_keys(query[local_query], doc[local_doc])

    def describe(i: int) -> tuple[str, Any, Any]:
        return names[run[i]], local_queries[local_query[i]], local_docs[local_doc[i]]

    keep = check_duplicates(run, key, duplicates, describe)
    if keep is not None:
        run, local_query, local_doc, key = run[keep], local_query[keep], local_doc[keep], key[keep]
    rank = ranks_within_blocks(block_starts(run, local_query))
    row_hash = content_hashes(hash_strings[0](local_queries, query)[local_query],
                              hash_strings[1](local_docs, doc)[local_doc], rank)
    return RankedRuns(names=names, run=run, query=query[local_query], key=key, rank=rank, row_hash=row_hash,
                      score=score[order] if keep is None else score[order][keep],
                      doc_order=local_doc,
                      query_extra=query_extra, doc_extra=doc_extra)
