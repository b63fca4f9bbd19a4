"""What a judging strategy chooses from: every document the runs retrieved for the evaluated queries.

A :class:`Candidates` is built once from a pool and its qrels (the oracle of a simulation) and holds, as integer
arrays, the rows of the pool's runs within the qrels' queries (run, query, rank, pair key) and the distinct
(query, document) pairs they name, each with the label the qrels give it (``UNJUDGED`` outside the qrels: a
simulated assessor then answers "not relevant"). Strategies read these arrays only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.checks import check_depth
from ir_rarity.engine import UNJUDGED, EncodedQrels, is_relevant
from ir_rarity.errors import ParameterError
from ir_rarity.pool.pool import Pool

__all__ = ["Candidates"]


@dataclass(frozen=True, eq=False)
class Candidates:
    """The rows a judging strategy orders, and the documents they name, per query.

    Attributes:
        query_ids: The queries (the qrels' queries, sorted); ``query`` values are positions in it.
        run_names: The runs, in the pool's order; ``run`` values are positions in it.
        run: Run of each row.
        query: Query of each row.
        rank: 0-based rank of each row in its run's ranking for the query.
        doc: Index of each row's document in ``doc_key``.
        doc_key: Sorted pair keys (query, document) of the distinct documents retrieved.
        doc_ids: Docno of each document.
        doc_query: Query of each document.
        doc_label: Qrels label of each document (``UNJUDGED`` outside the qrels).
        n_relevant: Relevant documents per query in the qrels (retrieved or not), at ``rel``.
        rel: Minimum label counted as relevant.
        qrels: The encoded qrels (the oracle).

    """

    query_ids: pd.Index
    run_names: tuple[str, ...]
    run: np.ndarray
    query: np.ndarray
    rank: np.ndarray
    doc: np.ndarray
    doc_key: np.ndarray
    doc_ids: np.ndarray
    doc_query: np.ndarray
    doc_label: np.ndarray
    n_relevant: np.ndarray
    rel: int
    qrels: EncodedQrels

    @classmethod
    def from_pool(cls, pool: Pool, qrels: Any, depth: int | None = None, rel: int = 1) -> Candidates:
        """The candidates of ``pool`` for the queries of ``qrels``.

        Args:
            pool: The campaign's runs.
            qrels: Its judgments (any shape :meth:`Pool.evaluate` accepts), the oracle of the simulation.
            depth: Only each run's top ``depth`` documents are candidates (None: whole runs).
            rel: Minimum label counted as relevant.

        Raises:
            ParameterError: a bad depth or ``rel``, or no run retrieved anything for the qrels' queries.

        """
        depth = check_depth(depth, allow_none=True)
        if isinstance(rel, bool) or not isinstance(rel, (int, np.integer)) or rel < 0:
            raise ParameterError(f"rel must be a non-negative integer, got {rel!r}")
        encoded = pool.encode_qrels(qrels)
        rows = pool.labelled_rows(encoded)  # sorted by (run, query, rank); query = position in the qrels' queries
        keep = slice(None) if depth is None else rows.rank < depth
        run, query, rank, key = rows.run[keep], rows.query[keep], rows.rank[keep], rows.key[keep]
        if len(key) == 0:
            raise ParameterError("no run retrieved anything for the queries of the qrels")
        doc_key, doc = np.unique(key, return_inverse=True)
        doc_query = np.zeros(len(doc_key), dtype=np.int64)
        doc_query[doc] = query
        return cls(query_ids=encoded.query_ids, run_names=tuple(pool.names), run=run.astype(np.int64),
                   query=query.astype(np.int64), rank=rank.astype(np.int64), doc=doc.astype(np.int64),
                   doc_key=doc_key, doc_ids=pool.encoded.decode(doc_key)[1], doc_query=doc_query,
                   doc_label=encoded.lookup(doc_key),
                   n_relevant=encoded.n_relevant(int(rel)), rel=int(rel), qrels=encoded)

    @property
    def n_queries(self) -> int:
        """Number of queries."""
        return len(self.query_ids)

    @property
    def n_runs(self) -> int:
        """Number of runs."""
        return len(self.run_names)

    @property
    def n_docs(self) -> int:
        """Number of distinct (query, document) pairs retrieved."""
        return len(self.doc_key)

    def doc_relevant(self) -> np.ndarray:
        """Whether each document is relevant by the qrels (the oracle's answer; outside the qrels: no)."""
        return is_relevant(self.doc_label, self.rel)

    def doc_outside_qrels(self) -> np.ndarray:
        """Whether each document is absent from the qrels (a simulated judgment the real campaign lacks)."""
        return self.doc_label == UNJUDGED

    def docs_per_query(self) -> np.ndarray:
        """Number of distinct documents retrieved for each query."""
        return np.bincount(self.doc_query, minlength=self.n_queries)

    def retrieved_by(self) -> np.ndarray:
        """Number of runs retrieving each document (within the candidates' depth)."""
        return np.bincount(self.doc, minlength=self.n_docs)
