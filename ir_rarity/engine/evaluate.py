"""From encoded rows to per-query values: relevance lookup, S_d lookup and the measure kernels.

:class:`EncodedQrels` holds qrels keyed like the pool. :class:`Rows` holds the rows of the runs being evaluated
(pool members or a newcomer), restricted to the queries of the qrels, with their labels and a way to get S_d at
any depth. :func:`compute` turns one measure into a runs x queries matrix.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.engine import asl as asl_kernel
from ir_rarity.engine import extensions, kernels, novelty
from ir_rarity.engine.ranking import encode, pair_keys, sorted_lookup
from ir_rarity.errors import InputError, ParameterError

__all__ = ["EncodedQrels", "Rows", "compute", "encode_qrels", "supported_names"]

UNJUDGED = np.iinfo(np.int64).min
"""Label given to retrieved documents absent from the qrels: below every threshold, so never relevant."""


@dataclass(frozen=True)
class EncodedQrels:
    """Qrels encoded against a pool's vocabularies.

    Attributes:
        query_ids: The qrels' query ids, sorted: the queries every measure is averaged over.
        query_codes: Code of each of those queries in the pool's query vocabulary (extended by ``query_extra``).
        keys: Sorted (query, document) pair keys of the judged documents.
        labels: Relevance label of each key.
        key_query: Position in ``query_ids`` of each key's query.
        doc_extra: Judged docnos that no pool run retrieved (their codes follow the pool's vocabulary).
        query_extra: Qrels query ids that no pool run has.

    """

    query_ids: pd.Index
    query_codes: np.ndarray
    keys: np.ndarray
    labels: np.ndarray
    key_query: np.ndarray
    doc_extra: pd.Index
    query_extra: pd.Index

    def n_relevant(self, rel: int) -> np.ndarray:
        """:math:`N_R` per query: judged documents with label >= ``rel`` (negative labels never count)."""
        relevant = (self.labels >= rel) & (self.labels >= 0)
        return np.bincount(self.key_query[relevant], minlength=len(self.query_ids))

    def labels_of_keys(self, keys: np.ndarray) -> np.ndarray:
        """Label of each of the sorted, unique ``keys`` (:data:`UNJUDGED` where not judged).

        Gathering from this array by key code is how a pool labels its own rows without a search per row.
        """
        out = np.full(len(keys), UNJUDGED, dtype=np.int64)
        if len(keys) and len(self.keys):
            pos = np.minimum(np.searchsorted(keys, self.keys), len(keys) - 1)
            found = keys[pos] == self.keys
            out[pos[found]] = self.labels[found]
        return out

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        """Labels of rows with pair ``keys``; :data:`UNJUDGED` where the pair is not judged."""
        return sorted_lookup(self.keys, self.labels, keys, UNJUDGED)


def encode_qrels(qrels: pd.DataFrame, query_vocab: pd.Index, doc_vocab: pd.Index,
                 source: str = "qrels") -> EncodedQrels:
    """Encode a canonical qrels frame (``query_id, doc_id, relevance``) against a pool's vocabularies.

    Raises:
        InputError: the qrels judge the same document twice for a query (trec_eval refuses such qrels too).

    """
    if len(qrels) == 0:
        raise InputError("the qrels are empty", source)
    query_ids = pd.Index(pd.unique(qrels["query_id"].to_numpy())).sort_values()
    query_codes, qextra = encode(query_ids, [query_vocab])
    qcodes, _ = encode(qrels["query_id"].to_numpy(), [query_vocab, qextra])
    dcodes, dextra = encode(qrels["doc_id"].to_numpy(), [doc_vocab])
    keys = pair_keys(qcodes, dcodes)
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    dup = np.flatnonzero(keys[1:] == keys[:-1])
    if len(dup):
        row = qrels.iloc[order[dup[0] + 1]]
        raise InputError(f"query {row['query_id']!r} judges document {row['doc_id']!r} twice "
                         "(trec_eval rejects duplicate qrels too)", source)
    position = np.zeros(int(query_codes.max()) + 1, dtype=np.int64)
    position[query_codes] = np.arange(len(query_codes))
    return EncodedQrels(
        query_ids=query_ids,
        query_codes=query_codes,
        keys=keys,
        labels=qrels["relevance"].to_numpy(np.int64)[order],
        key_query=position[keys >> 32],
        doc_extra=dextra,
        query_extra=qextra,
    )


@dataclass
class Rows:
    """Rows of the evaluated runs within the qrels' queries, sorted by (run, query, rank).

    Each (run, query) group holds a whole ranking from its top: ``rank`` runs 0, 1, 2, ... within the group. The
    kernels rely on it to find where groups start without comparing group numbers.

    Attributes:
        run: Index of the evaluated run (0 .. n_runs-1) of each row.
        query: Position of each row's query in ``qrels.query_ids``.
        rank: 0-based rank of each row in its ranking (trec_eval order).
        key: (query, document) pair key in the pool's codes.
        label: Relevance label of each row (:data:`UNJUDGED` if not judged).
        present: ``present[r, q]`` is True when run r retrieved anything for query q.
        n_runs: Number of evaluated runs.
        qrels: The encoded qrels.
        counts_at: Returns ``(S_d per row, S)`` for a depth (None: each run's full length).
        probabilities_at: For novelty (``U_novel``): returns, for a cutoff, ``(sorted pair keys, sum over the
            pool's runs of P(D=d|S=y) of each, number of pool runs, whether the evaluated runs are pool members)``.

    """

    run: np.ndarray
    query: np.ndarray
    rank: np.ndarray
    key: np.ndarray
    label: np.ndarray
    present: np.ndarray
    n_runs: int
    qrels: EncodedQrels
    counts_at: Callable[[int | None], tuple[np.ndarray, float]]
    probabilities_at: Callable[[int | None], tuple[np.ndarray, np.ndarray, int, bool]] | None = None
    _cache: dict[tuple[object, ...], Any] = field(default_factory=dict, repr=False)

    @property
    def n_queries(self) -> int:
        """Number of qrels queries (columns of every result matrix)."""
        return len(self.qrels.query_ids)

    def _cached(self, key: tuple[object, ...], make: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def counts(self, depth: int | None) -> tuple[np.ndarray, float]:
        """``(S_d per row, S)`` at ``depth``, computed once per depth."""
        return self._cached(("counts", depth), lambda: self.counts_at(depth))

    def group(self) -> np.ndarray:
        """Group number ``run * n_queries + query`` of each row (computed once)."""
        return self._cached(("group",), lambda: self.run.astype(np.int64) * self.n_queries + self.query)

    def relevant(self, rel: int) -> np.ndarray:
        """Whether each row is relevant at threshold ``rel`` (label >= rel, never a negative label)."""
        return self._cached(("relevant", rel), lambda: _relevant(self.label, rel))

    def relevant_positions(self, rel: int) -> np.ndarray:
        """1-based position of each row among its group's relevant rows at ``rel`` (shared by the ASL family)."""
        return self._cached(("positions", rel), lambda: asl_kernel.relevant_positions(
            self.relevant(rel), self.group(), self.rank))


def _relevant(label: np.ndarray, rel: int) -> np.ndarray:
    return (label >= rel) & (label >= 0)


def _rarity_gain(measure, rows: Rows, keep: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """Per-row gain of P_rare / AP_rare / nDCG_rare for the rows selected by ``keep``.

    ``gain`` (1 or the label), ``weighting`` (the rarity function) and ``alpha_per_topic`` (1/N_R) are the
    extensions of :mod:`ir_rarity.engine.extensions`; their defaults give eq. 1-4 of the paper unchanged.
    """
    depth = measure["depth"] if measure["depth"] is not None else measure["cutoff"]
    s_d, n_systems = rows.counts(depth)
    s_d = s_d[keep]
    bounded = measure["bounded"]
    if bounded and n_systems < 2:
        raise ParameterError(f"{measure}: the bounded variant divides by S - 1 and needs at least 2 systems; "
                             f"the pool has S = {n_systems:g}")
    alpha = extensions.row_alpha(measure["alpha"], measure["alpha_per_topic"],
                                 rows.qrels.n_relevant(measure["rel"]), rows.query[keep])
    rarity = extensions.row_rarity(s_d, n_systems, bounded, measure["weighting"])
    weight = (1.0 - alpha) + alpha * rarity if bounded else 1.0 + alpha * rarity
    if measure["gain"] == "graded":
        weight = weight * np.where(relevant, rows.label[keep], 0).astype(np.float64)
    return np.where(relevant, weight, 0.0)


def _cut(measure, rows: Rows) -> np.ndarray:
    cutoff = measure["cutoff"]
    return np.ones(len(rows.rank), dtype=bool) if cutoff is None else rows.rank < cutoff


def _p_rare(measure, rows: Rows) -> np.ndarray:
    keep = _cut(measure, rows)
    relevant = _relevant(rows.label[keep], measure["rel"])
    gain = _rarity_gain(measure, rows, keep, relevant)
    n_groups = rows.n_runs * rows.n_queries
    return kernels.rarity_precision(gain, rows.group()[keep], n_groups, measure["cutoff"])


def _ap_rare(measure, rows: Rows) -> np.ndarray:
    keep = _cut(measure, rows)
    relevant = _relevant(rows.label[keep], measure["rel"])
    gain = _rarity_gain(measure, rows, keep, relevant)
    n_groups = rows.n_runs * rows.n_queries
    n_rel = np.tile(rows.qrels.n_relevant(measure["rel"]), rows.n_runs)
    return kernels.rarity_average_precision(gain, relevant, rows.rank[keep], rows.group()[keep], n_groups, n_rel)


def _asl(measure, rows: Rows) -> np.ndarray:
    first, last = measure.group_range()
    n_rel = np.tile(rows.qrels.n_relevant(measure["rel"]), rows.n_runs)
    rel = measure["rel"]
    return asl_kernel.atomized_search_length(rows.relevant(rel), rows.group(), rows.n_runs * rows.n_queries, n_rel,
                                             first, last, after_last=measure["unretrieved"] == "after_last",
                                             rank=rows.rank, position=rows.relevant_positions(rel))


def _ndcg_rare(measure, rows: Rows) -> np.ndarray:
    keep = _cut(measure, rows)
    relevant = _relevant(rows.label[keep], measure["rel"])
    gain = _rarity_gain(measure, rows, keep, relevant)
    n_groups = rows.n_runs * rows.n_queries
    dcg = extensions.dcg(gain, rows.rank[keep].astype(np.float64), rows.group()[keep], n_groups)
    qrels = rows.qrels
    judged_relevant = _relevant(qrels.labels, measure["rel"])
    ideal_gain = qrels.labels.astype(np.float64) if measure["gain"] == "graded" else np.ones(len(qrels.labels))
    ideal = extensions.ideal_dcg(np.where(judged_relevant, ideal_gain, 0.0), qrels.key_query, rows.n_queries,
                                 measure["cutoff"])
    ideal = np.tile(ideal, rows.n_runs)
    return np.where(ideal > 0, dcg / np.where(ideal > 0, ideal, 1.0), 0.0)


def _u_novel(measure, rows: Rows) -> np.ndarray:
    if rows.probabilities_at is None:
        raise ParameterError(f"{measure}: these rows carry no pool probabilities (build them with a Pool)")
    return novelty.utility(rows, measure["cutoff"], measure["rel"], float(measure["epsilon"]))


_KERNELS: dict[str, Callable[..., np.ndarray]] = {
    "P_rare": _p_rare,
    "AP_rare": _ap_rare,
    "ASL": _asl,
    "nDCG_rare": _ndcg_rare,
    "U_novel": _u_novel,
}


def supported_names() -> frozenset[str]:
    """Names of the measures the engine computes."""
    return frozenset(_KERNELS)


def compute(measure, rows: Rows) -> np.ndarray:
    """Values of ``measure`` as an ``(n_runs, n_queries)`` matrix.

    Cells of queries a run did not retrieve anything for hold ``measure.DEFAULT`` (0 for P_rare and AP_rare,
    as trec_eval and ir_measures score them), except for measures with ``SCORES_EMPTY_RANKINGS`` (ASL), whose
    kernel computes those cells too. NaN marks queries without a value (ASL without relevant documents).
    """
    measure.validate_params()
    values = _KERNELS[measure.NAME](measure, rows).reshape(rows.n_runs, rows.n_queries)
    if getattr(measure, "SCORES_EMPTY_RANKINGS", False):
        return values
    return np.where(rows.present, values, measure.DEFAULT)
