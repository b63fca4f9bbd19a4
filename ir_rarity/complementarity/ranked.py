"""A campaign's ranked lists as whole arrays: one row per (run, query, rank), the input of similarity and fusion.

Every run of a :class:`~ir_rarity.Pool` is taken as the pool holds it (trec_eval order: score descending, ties by
docno descending; cut to the depth the pool kept), its (query, document) pairs coded densely so that similarity and
fusion are gathers and bincounts over these arrays, never loops over rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ir_rarity.errors import ParameterError
from ir_rarity.pool import Pool

__all__ = ["RankedCampaign", "ranked_campaign"]


@dataclass(frozen=True)
class RankedCampaign:
    """Every run's ranked lists, coded.

    Attributes:
        run_names: The runs, in the pool's order; ``run`` values are positions in it.
        run_team: The team (system) of each run, as the pool counts them.
        team_names: The teams, in order of first appearance; ``team_of_run`` values are positions in it.
        team_of_run: Team position of each run.
        query_ids: The queries kept (sorted); ``query`` values are positions in it.
        run: Run of each row.
        query: Query of each row.
        rank: 1-based rank of each row in its ranking (trec_eval order).
        score: The run's score of each row, as given.
        key: Dense code of each row's (query, document) pair; keys are ordered by query, then docno descending
            (trec_eval's tie order), so the first of two tied keys of a query is the one trec_eval ranks first.
        key_query: Query position of each key.
        key_doc: Docno of each key.
        depth: The depth every run is held to (a pool read for some measures keeps every row only that deep);
            None: whole runs.

    """

    run_names: tuple[str, ...]
    run_team: tuple[str, ...]
    team_names: tuple[str, ...]
    team_of_run: np.ndarray
    query_ids: tuple[str, ...]
    run: np.ndarray
    query: np.ndarray
    rank: np.ndarray
    score: np.ndarray
    key: np.ndarray
    key_query: np.ndarray
    key_doc: np.ndarray
    depth: int | None = None

    @property
    def n_keys(self) -> int:
        """Number of distinct (query, document) pairs."""
        return len(self.key_query)


def ranked_campaign(pool: Pool, queries: list[str] | None = None) -> RankedCampaign:
    """The pool's runs as whole arrays, restricted to ``queries`` (default: every query a run retrieved for).

    A pool read for some measures only (``retention``: every row to a depth, judged rows below it) gives its runs
    to the depth it keeps every row; ``depth`` says which.

    Raises:
        ParameterError: no run retrieved anything for the queries, or a pool that keeps no whole ranking.

    """
    names = pool.names
    frames = [pool.run(name) for name in names]
    lengths = np.array([len(f) for f in frames], dtype=np.int64)
    long = pd.concat(frames, ignore_index=True)
    run = np.repeat(np.arange(len(names), dtype=np.int64), lengths)
    query_text = long["query_id"].astype(str).to_numpy(object)
    doc_text = long["doc_id"].astype(str).to_numpy(object)
    held = pool.encoded.kept_depth if pool.encoded.returned is not None else None
    if pool.encoded.returned is not None and held is None:
        raise ParameterError("this pool keeps only the rows its measures read, no whole ranking; build it from "
                             "whole runs (Pool.from_runs without retention)")
    keep = np.ones(len(run), dtype=bool) if held is None else long["rank"].to_numpy(np.int64) <= held
    if queries is not None:
        keep &= np.isin(query_text, np.asarray(sorted(set(queries)), dtype=object))
    if not keep.all():
        run, query_text, doc_text = run[keep], query_text[keep], doc_text[keep]
        long = long[keep]
    if len(run) == 0:
        raise ParameterError("no run retrieved a document for the queries analysed")
    query_ids = np.asarray(sorted(set(query_text)), dtype=object)
    query = np.searchsorted(query_ids, query_text)
    doc_ids = np.asarray(sorted(set(doc_text)), dtype=object)  # code points: bytes order for UTF-8
    doc = np.searchsorted(doc_ids, doc_text)
    # keys by query, then docno descending: pair code = query * n_docs + (n_docs - 1 - doc), made dense
    pair = query.astype(np.int64) * len(doc_ids) + (len(doc_ids) - 1 - doc)
    unique_pairs, key = np.unique(pair, return_inverse=True)
    key_query = unique_pairs // len(doc_ids)
    key_doc = doc_ids[len(doc_ids) - 1 - unique_pairs % len(doc_ids)]
    team_of = pool.teams
    run_team = tuple(str(team_of[n]) for n in names)
    team_codes, team_names = pd.factorize(pd.Series(run_team))
    return RankedCampaign(
        run_names=tuple(names), run_team=run_team, team_names=tuple(str(t) for t in team_names),
        team_of_run=np.asarray(team_codes, dtype=np.int64), query_ids=tuple(str(q) for q in query_ids),
        run=run, query=query.astype(np.int64), rank=long["rank"].to_numpy(np.int64),
        score=long["score"].to_numpy(np.float64), key=key.astype(np.int64), key_query=key_query.astype(np.int64),
        key_doc=key_doc, depth=held)
