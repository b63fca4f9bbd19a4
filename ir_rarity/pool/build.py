"""Building a campaign's :class:`~ir_rarity.pool.encoded.EncodedRuns` from named run frames.

Every run is concatenated once, its query ids and docnos factorized into sorted vocabularies, put in trec_eval
order (score descending in single precision, ties by docno descending) and checked for duplicate documents.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from ir_rarity.engine.pages import without_hugepage_advice
from ir_rarity.engine.ranked import Duplicates, check_duplicates
from ir_rarity.engine.ranking import (
    block_starts,
    factorize_blocks,
    pair_keys,
    ranks_within_blocks,
    trec_order,
)
from ir_rarity.errors import InputError
from ir_rarity.pool.encoded import EncodedRuns

__all__ = ["encode_runs", "key_index", "system_codes", "top_k"]


@without_hugepage_advice
def encode_runs(named: Iterable[tuple[str, pd.DataFrame]], teams: Mapping[str, str] | None,
                duplicates: Duplicates) -> tuple[EncodedRuns, tuple[np.ndarray, np.ndarray]]:
    """Encode ``(name, canonical frame)`` pairs into one campaign.

    Returns:
        The encoded runs, and :func:`key_index` of their rows (computed on the way, kept by the pool).

    Raises:
        InputError: two runs with the same name, a NaN score, no runs, or a
            duplicate document (:class:`~ir_rarity.errors.DuplicateDocumentError`) with ``duplicates="error"``.

    """
    if duplicates not in ("error", "first"):
        raise InputError(f"duplicates must be 'error' or 'first', got {duplicates!r}")
    names: list[str] = []
    frames: list[pd.DataFrame] = []
    seen: set[str] = set()
    for name, frame in named:
        if name in seen:
            raise InputError(f"two runs are named {name!r}; run names must be unique")
        if np.isnan(frame["score"].to_numpy(np.float64)).any():
            raise InputError("NaN scores have no trec_eval order", name)
        seen.add(name)
        names.append(name)
        frames.append(frame)
    if not names:
        raise InputError("no runs given: a pool needs at least one run")
    lengths = np.array([len(f) for f in frames], dtype=np.int64)
    run = np.repeat(np.arange(len(names), dtype=np.int32), lengths)
    query, queries = factorize_blocks(pd.concat([f["query_id"] for f in frames], ignore_index=True))
    doc, docs = pd.factorize(pd.concat([f["doc_id"] for f in frames], ignore_index=True), sort=True)
    score = np.concatenate([f["score"].to_numpy(np.float64) for f in frames])
    del frames
    order = trec_order(score, doc, run, query)
    run, query, doc, score = run[order], query[order].astype(np.int32), doc[order].astype(np.int32), score[order]
    codes, unique_keys = key_index(query, doc, len(queries), len(docs))
    keep = check_duplicates(run, codes, duplicates, lambda i: (names[run[i]], queries[query[i]], docs[doc[i]]))
    if keep is not None:
        run, query, doc, score, codes = run[keep], query[keep], doc[keep], score[keep], codes[keep]
    rank = ranks_within_blocks(block_starts(run, query))
    system, system_names = system_codes(names, teams)
    encoded = EncodedRuns(names=tuple(names), queries=pd.Index(queries), docs=pd.Index(docs), run=run, query=query,
                          doc=doc, score=score, rank=rank, system=system, system_names=tuple(system_names))
    return encoded, (codes, unique_keys)


def system_codes(names: list[str], teams: Mapping[str, str] | None) -> tuple[np.ndarray, list[str]]:
    """System code of each run and the system names: each run its own system, or its team's.

    A run ``teams`` does not map is a team of its own (see :func:`~ir_rarity.pool.teams.assign_teams`).
    """
    if teams is None:
        return np.arange(len(names), dtype=np.int64), list(names)
    from ir_rarity.pool.teams import assign_teams

    codes, uniques = pd.factorize(pd.Series(assign_teams(names, teams)))
    return codes.astype(np.int64), [str(u) for u in uniques]


def top_k(frame: pd.DataFrame, k: int, name: str, duplicates: Duplicates) -> pd.DataFrame:
    """One run cut to its top ``k`` documents per query in trec_eval order (duplicates checked first)."""
    score = frame["score"].to_numpy(np.float64)
    if np.isnan(score).any():
        raise InputError("NaN scores have no trec_eval order", name)
    query, _ = pd.factorize(frame["query_id"])
    doc, docs = pd.factorize(frame["doc_id"], sort=True)
    order = trec_order(score, doc, query)
    query, doc = query[order], doc[order]
    keep = check_duplicates(np.zeros(len(order), dtype=np.int64), pair_keys(query, doc), duplicates,
                            lambda i: (name, frame["query_id"].iloc[order[i]], docs[doc[i]]))
    if keep is not None:
        order, query = order[keep], query[keep]
    rank = ranks_within_blocks(block_starts(query))
    return frame.iloc[order[rank < k]].reset_index(drop=True)


def key_index(query: np.ndarray, doc: np.ndarray, n_queries: int, n_docs: int) -> tuple[np.ndarray, np.ndarray]:
    """Dense codes of the rows' (query, doc) pairs into their sorted unique pair keys.

    Returns ``(code per row, sorted unique pair keys)``. When the grid of all (query, doc) pairs is not much
    larger than the rows (a campaign: tens of queries, tens of thousands of documents), it is marked directly in
    a boolean grid; otherwise the pair keys are hash-factorized and only the unique ones sorted.
    """
    if n_queries * n_docs <= max(4 * len(query), 1 << 22):
        flat = query.astype(np.int64) * n_docs + doc
        seen = np.zeros(n_queries * n_docs, dtype=bool)
        seen[flat] = True
        cells = np.flatnonzero(seen)
        code = np.cumsum(seen, dtype=np.int32)
        code -= 1
        return code[flat], pair_keys(cells // n_docs, cells % n_docs)
    codes, uniques = pd.factorize(pair_keys(query, doc))
    order = np.argsort(uniques)
    remap = np.empty(len(uniques), dtype=np.int32)
    remap[order] = np.arange(len(uniques), dtype=np.int32)
    return remap[codes], np.asarray(uniques)[order]
