"""Qrels encoded against a campaign's vocabularies, and the one relevance test every measure uses.

A document is relevant at threshold ``rel`` when its label is at least ``rel`` and not negative (trec_eval's
``rel_level``); unjudged documents carry :data:`UNJUDGED`, below every threshold, so they are never relevant.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ir_rarity.engine.codes import KEY_SHIFT, encode, pair_keys, sorted_codes, sorted_lookup
from ir_rarity.errors import InputError
from ir_rarity.io.raw import short

if TYPE_CHECKING:
    import pandas as pd

# pandas is imported by encode_qrels, not with the module: encode_qrels_columns encodes qrels given as numpy columns
# with numpy alone (the provider's one-run path, ir_rarity.engine.one_run).

__all__ = ["UNJUDGED", "EncodedQrels", "encode_qrels", "encode_qrels_columns", "is_relevant"]

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

    _n_relevant: dict[int, np.ndarray] = field(default_factory=dict, init=False, repr=False, compare=False)

    def n_relevant(self, rel: int) -> np.ndarray:
        """:math:`N_R` per query: judged documents with label >= ``rel`` (negative labels never count).

        Counted once per ``rel`` (kernels ask for it on every block of rows); the array is read-only.
        """
        counts = self._n_relevant.get(rel)
        if counts is None:
            counts = np.bincount(self.key_query[is_relevant(self.labels, rel)], minlength=len(self.query_ids))
            counts.setflags(write=False)
            self._n_relevant[rel] = counts
        return counts

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


def is_relevant(labels: np.ndarray, rel: int) -> np.ndarray:
    """Whether each label counts as relevant at threshold ``rel``: ``label >= rel`` and never a negative label.

    Unjudged rows (:data:`UNJUDGED`) and NaN labels compare False, so they are never relevant.
    """
    labels = np.asarray(labels)
    return (labels >= rel) & (labels >= 0)


def encode_qrels(qrels: pd.DataFrame, query_vocab: pd.Index, doc_vocab: pd.Index,
                 source: str = "qrels") -> EncodedQrels:
    """Encode a canonical qrels frame (``query_id, doc_id, relevance``) against a pool's vocabularies.

    Raises:
        InputError: the qrels judge the same document twice for a query (trec_eval refuses such qrels too).

    """
    if len(qrels) == 0:
        raise InputError("the qrels are empty", source)
    import pandas as pd

    query_ids = pd.Index(pd.unique(qrels["query_id"].to_numpy())).sort_values()

    def describe(i: int) -> tuple[Any, Any]:
        row = qrels.iloc[i]
        return row["query_id"], row["doc_id"]

    return _encoded(query_ids, qrels["query_id"].to_numpy(), qrels["doc_id"].to_numpy(),
                    qrels["relevance"].to_numpy(np.int64), query_vocab, doc_vocab, source, describe)


def encode_qrels_columns(query: np.ndarray, doc: np.ndarray, labels: np.ndarray, query_vocab: np.ndarray,
                         doc_vocab: np.ndarray, source: str = "qrels") -> EncodedQrels:
    """:func:`encode_qrels` of qrels given as numpy columns, against sorted numpy vocabularies: numpy alone.

    The same codes and checks; ``query_ids`` and the extensions are numpy unicode arrays.

    Args:
        query: Query id of each judgment (numpy unicode array).
        doc: Docno of each judgment (numpy unicode array).
        labels: Relevance label of each judgment (integers).
        query_vocab: The campaign's sorted query-id vocabulary (numpy unicode array).
        doc_vocab: Its sorted docno vocabulary.
        source: What the qrels are called in error messages.

    Raises:
        InputError: empty qrels, or a document judged twice for a query.

    """
    if len(query) == 0:
        raise InputError("the qrels are empty", source)
    return _encoded(sorted_codes(query)[0], query, doc, np.asarray(labels, dtype=np.int64), query_vocab, doc_vocab,
                    source, lambda i: (query[i], doc[i]))


def _encoded(query_ids: Any, query: Any, doc: Any, labels: np.ndarray, query_vocab: Any, doc_vocab: Any, source: str,
             describe: Callable[[int], tuple[Any, Any]]) -> EncodedQrels:
    """The :class:`EncodedQrels` of judgments (columns) with these sorted query ids: what both encodings share."""
    query_codes, qextra = encode(query_ids, [query_vocab])
    qcodes, _ = encode(query, [query_vocab, qextra])
    dcodes, dextra = encode(doc, [doc_vocab])
    keys = pair_keys(qcodes, dcodes)
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    dup = np.flatnonzero(keys[1:] == keys[:-1])
    if len(dup):
        query_id, doc_id = describe(int(order[dup[0] + 1]))
        raise InputError(f"query {short(query_id)} judges document {short(doc_id)} twice "
                         "(trec_eval rejects duplicate qrels too)", source)
    position = np.zeros(int(query_codes.max()) + 1, dtype=np.int64)
    position[query_codes] = np.arange(len(query_codes))
    return EncodedQrels(
        query_ids=query_ids,
        query_codes=query_codes,
        keys=keys,
        labels=labels[order],
        key_query=position[keys >> KEY_SHIFT],
        doc_extra=dextra,
        query_extra=qextra,
    )
