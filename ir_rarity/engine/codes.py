"""Ordering and integer encoding of runs: the first step of every evaluation.

All later steps work on integer codes. Query ids and docnos are factorized once into sorted vocabularies
(``pd.Index``), so that a document code orders like its docno string, and a (query, document) pair is the
64-bit key ``query_code << 32 | doc_code``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast

import numpy as np

from ir_rarity.engine.strings import one_array, positions_in_sorted
from ir_rarity.errors import ParameterError

if TYPE_CHECKING:
    import pandas as pd

# pandas is imported by the functions that make vocabularies (encode), not with the module: the ranking and key
# functions here are what the ir_measures provider's warm path needs, and it must not pay for importing pandas.

__all__ = [
    "KEY_SHIFT",
    "SCORE_PRECISIONS",
    "ScorePrecision",
    "block_starts",
    "check_precision",
    "decode_keys",
    "encode",
    "inverse_permutation",
    "pair_keys",
    "ranks_within_blocks",
    "sorted_codes",
    "sorted_lookup",
    "trec_order",
]

KEY_SHIFT = 32

ScorePrecision: TypeAlias = Literal["float32", "float64"]
"""How run scores are compared when rankings are put in order.

``"float32"`` follows pytrec_eval and ir_measures (trec_eval 9, whose ``TEXT_RESULTS.sim`` is a C ``float``): two
scores that round to the same single-precision float are a tie, broken by docno. ``"float64"`` follows trec_eval
10.0, which reads and compares scores as C ``double`` (NIST's change of 2023). Ties left at that precision are
broken by docno descending in both.
"""

SCORE_PRECISIONS: tuple[ScorePrecision, ...] = ("float32", "float64")


def check_precision(scores: str) -> ScorePrecision:
    """``scores`` if it names a :data:`ScorePrecision`; else a one-line :class:`~ir_rarity.ParameterError`."""
    if scores not in SCORE_PRECISIONS:
        raise ParameterError(f"scores must be 'float32' (pytrec_eval, ir_measures) or 'float64' (trec_eval 10.0), "
                             f"got {scores!r}")
    return scores


def pair_keys(query_codes: np.ndarray, doc_codes: np.ndarray) -> np.ndarray:
    """Combine query and document codes into one sortable int64 key per row."""
    return (query_codes.astype(np.int64) << KEY_SHIFT) | doc_codes.astype(np.int64)


def decode_keys(queries: pd.Index, docs: pd.Index, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Query ids and docnos (object arrays of str) of pair keys made by :func:`pair_keys` in these vocabularies."""
    keys = np.asarray(keys, dtype=np.int64)
    query = queries.take(keys >> KEY_SHIFT).astype(str).to_numpy(dtype=object)
    doc = docs.take(keys & ((1 << KEY_SHIFT) - 1)).astype(str).to_numpy(dtype=object)
    return query, doc


def sorted_lookup(table_keys: np.ndarray, table_values: np.ndarray, keys: np.ndarray, missing: Any) -> np.ndarray:
    """``table_values`` of each of ``keys`` in the sorted, unique ``table_keys``; ``missing`` where absent."""
    if len(table_keys) == 0:
        return np.full(len(keys), missing, dtype=np.result_type(table_values.dtype, np.asarray(missing).dtype))
    pos = np.minimum(np.searchsorted(table_keys, keys), len(table_keys) - 1)
    return np.where(table_keys[pos] == keys, table_values[pos], missing)


def sorted_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct ``values``, and the position of each value among them.

    What ``np.unique(values, return_inverse=True)`` (or ``pd.factorize(values, sort=True)``) gives, by one stable
    sort: numpy's ``unique`` imports ``numpy.ma`` (some 10 ms), which the stock ``ir_measures`` command does not
    otherwise import.
    """
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    new = np.ones(len(ordered), dtype=bool)
    new[1:] = ordered[1:] != ordered[:-1]
    codes = np.empty(len(values), dtype=np.int64)
    codes[order] = np.cumsum(new) - 1
    return ordered[new], codes


def encode(values: pd.Series | np.ndarray, known: Sequence[pd.Index]) -> tuple[np.ndarray, pd.Index]:
    """Map strings to codes in a chain of vocabularies, appending the unseen ones.

    The vocabularies in ``known`` are laid end to end: a value found in the j-th one gets its position there plus
    the lengths of the ones before it. Values found in none get codes after all of them, in sorted order.

    Values given as a numpy unicode array, with vocabularies that are all sorted numpy unicode arrays, are
    encoded with numpy alone (binary searches; the extension is then a numpy array too): the same codes, without
    importing pandas.

    Args:
        values: The strings to encode.
        known: Vocabularies (unique ``pd.Index``, or sorted unique numpy unicode arrays) to look values up in, in
            order.

    Returns:
        The int64 codes, and the index of the values that were in no vocabulary (the extension).

    """
    if isinstance(values, np.ndarray) and values.dtype.kind == "U" and all(
            isinstance(vocab, np.ndarray) for vocab in known):
        return _encode_sorted(values, cast("Sequence[np.ndarray]", known))
    import pandas as pd

    arr = pd.Index(values)
    codes = np.full(len(arr), -1, dtype=np.int64)
    offset = 0
    for vocab in known:
        missing = codes < 0
        if not missing.any():
            break
        found = _positions_in(vocab, arr[missing])
        hit = found >= 0
        idx = np.flatnonzero(missing)
        codes[idx[hit]] = found[hit] + offset
        offset += len(vocab)
    missing = codes < 0
    if missing.any():
        extra_codes, extra = pd.factorize(arr[missing], sort=True)
        codes[missing] = extra_codes + offset
        return codes, pd.Index(extra)
    return codes, pd.Index([], dtype=arr.dtype)


def _encode_sorted(values: np.ndarray, known: Sequence[np.ndarray]) -> tuple[np.ndarray, Any]:
    """:func:`encode` of a numpy unicode array in sorted numpy vocabularies (numpy alone)."""
    codes = np.full(len(values), -1, dtype=np.int64)
    offset = 0
    for vocab in known:
        missing = np.flatnonzero(codes < 0)
        if not len(missing):
            break
        found = _positions_in_sorted_array(vocab, values[missing])
        codes[missing[found >= 0]] = found[found >= 0] + offset
        offset += len(vocab)
    missing = np.flatnonzero(codes < 0)
    extra, extra_codes = sorted_codes(values[missing])
    codes[missing] = extra_codes + offset
    return codes, extra


def _positions_in_sorted_array(vocab: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Position of each of ``values`` in the sorted, unique ``vocab`` (a binary search), -1 where absent.

    Values repeated in a row (a run's query ids, each query's documents listed together) are looked up once.
    """
    if not len(vocab) or not len(values):
        return np.full(len(values), -1, dtype=np.int64)
    head = np.flatnonzero(np.concatenate([[True], values[1:] != values[:-1]]))
    pos = np.minimum(np.searchsorted(vocab, values[head]), len(vocab) - 1)
    found = np.where(vocab[pos] == values[head], pos, -1).astype(np.int64)
    return found if len(head) == len(values) else np.repeat(found, np.diff(np.append(head, len(values))))


def _positions_in(vocab: pd.Index, values: pd.Index) -> np.ndarray:
    """Position of each of ``values`` in the unique ``vocab``, -1 where absent (``vocab.get_indexer(values)``).

    A large Arrow-backed vocabulary (a campaign's sorted docnos) is searched by a binary search of the values'
    leading bytes (:func:`~ir_rarity.engine.strings.positions_in_sorted`); where those do not tell its docnos
    apart, pyarrow hashes the values sought and probes them with the vocabulary. Either spares pandas'
    conversion of every docno to a Python object for its hash table.
    """
    to_arrow = getattr(vocab.array, "__arrow_array__", None)
    if to_arrow is None or len(vocab) < 1 << 12 or vocab.dtype == object:  # (46,316 docnos: 2.3 ms against 4.6)
        return vocab.get_indexer(values)
    import pyarrow as pa
    import pyarrow.compute as pc

    table = one_array(to_arrow())
    sought = pa.array(np.asarray(values.astype(str), dtype=object), type=table.type)
    found = positions_in_sorted(table, sought)  # a campaign's sorted docnos: a binary search of leading bytes
    if found is not None:
        return found
    wanted = sought.dictionary_encode()
    # Hash the few values sought and probe them with the vocabulary: a table as large as the vocabulary would
    # not stay in the processor's cache.
    hit = pc.index_in(table, value_set=wanted.dictionary).fill_null(-1).to_numpy(zero_copy_only=False)
    where = np.full(len(wanted.dictionary), -1, dtype=np.int64)
    rows = np.flatnonzero(hit >= 0)
    where[hit[rows]] = rows
    return where[wanted.indices.to_numpy(zero_copy_only=False)]


def _descending_score_keys(score: np.ndarray) -> np.ndarray:
    """uint32 keys that sort ascending as the float32 scores sort descending (ties stay ties)."""
    with np.errstate(over="ignore"):  # beyond float32 range: +-inf, as trec_eval's C float
        single = score.astype(np.float32)
    single += np.float32(0.0)  # -0.0 becomes +0.0: they compare equal in C
    bits = single.view(np.int32)
    # IEEE order as uint32 is bits | 0x80000000 for a positive float, ~bits for a negative one; its complement
    # flips the 31 low bits of a positive float and none of a negative one (in place: no temporaries)
    flip = bits >> 31  # 0, or -1 for a negative float
    np.invert(flip, out=flip)
    flip &= np.int32(0x7FFFFFFF)
    flip ^= bits
    return flip.view(np.uint32)


def _combined_keys(blocks: Sequence[np.ndarray]) -> np.ndarray:
    """One integer per row that sorts like the tuple of block keys (mixed radix), below 2**32.

    When the mixed-radix number would not fit 32 bits, the blocks that occur are renumbered densely (in the same
    order) with a sort of their distinct values.
    """
    n = len(blocks[0])
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    sizes = [int(key.max()) + 1 for key in blocks]
    if len(blocks) == 1 and sizes[0] < 2**32:  # one key: the number is the key itself
        return blocks[0].astype(np.uint64)
    if float(np.prod(np.asarray(sizes, dtype=np.float64))) >= 2.0**32:
        codes = np.unique(np.stack([np.asarray(key, dtype=np.int64) for key in blocks]), axis=1,
                          return_inverse=True)[1]
        return np.asarray(codes, dtype=np.uint64).reshape(n)
    combined = np.zeros(n, dtype=np.uint64)
    for key, size in zip(blocks, sizes, strict=True):
        combined *= np.uint64(size)
        combined += key.astype(np.uint64)
    return combined


def trec_order(score: np.ndarray, doc_sort: np.ndarray | Callable[[np.ndarray], np.ndarray], *blocks: np.ndarray,
               precision: ScorePrecision = "float32") -> np.ndarray:
    """Permutation that puts rows in trec_eval order within their blocks.

    Rows are sorted by the block keys (first key most significant), then by score descending, then by docno
    descending, as trec_eval does (``comp_sim_docno`` in its ``form_res_rels.c``). ``doc_sort`` must order like
    the docno strings (codes of a sorted vocabulary do), be non-negative and below 2**32; or be a function that,
    given row numbers, returns such codes for those rows only: docnos are then compared only where a score ties.

    Scores are compared in single precision by default, because trec_eval 9 (and so pytrec_eval and ir_measures)
    stores them as a C ``float`` (``TEXT_RESULTS.sim`` in ``trec_format.h``): two scores that round to the same
    float32 are a tie, broken by docno. With ``precision="float64"`` they are compared as trec_eval 10.0 compares
    them, as C ``double``: rows tied in single precision are ordered by their double score before their docno
    (rounding to float32 never reverses an order, so the single-precision sort stays valid around them). The
    scores themselves are not changed.

    Two stable sorts of packed 64-bit keys, both nearly sorted already for runs read from files (a run file
    lists each query's documents together, mostly by score), which numpy's stable sort (timsort) exploits:
    first by (block, score), then only the rows whose (block, score) ties with a neighbour, by (tie, docno).
    """
    if len(score) == 0:
        return np.zeros(0, dtype=np.int64)
    if blocks:
        key = _combined_keys(blocks)
        key <<= np.uint64(32)
        key |= _descending_score_keys(score)
    else:
        key = _descending_score_keys(score).astype(np.uint64)
    order = np.argsort(key, kind="stable")
    key = key[order]
    same = key[1:] == key[:-1]
    if not same.any():
        return order
    tied = np.zeros(len(key), dtype=bool)  # rows sharing (block, score) with a neighbour
    tied[1:] = same
    tied[:-1] |= same
    rows = np.flatnonzero(tied)
    new_tie = np.ones(len(rows), dtype=bool)  # the first row of each run of equal (block, score)
    new_tie[1:] = ~same[rows[1:] - 1]
    tie = np.cumsum(new_tie, dtype=np.uint64)
    members = order[rows]
    docno = doc_sort(members) if callable(doc_sort) else doc_sort[members]
    by_docno = (tie << np.uint64(32)) | (np.uint64(0xFFFFFFFF) - docno.astype(np.uint64))
    if precision == "float64":  # (tie, double score descending, docno descending)
        order[rows] = members[np.lexsort((by_docno, -np.asarray(score, dtype=np.float64)[members], tie))]
    else:
        order[rows] = members[np.argsort(by_docno, kind="stable")]
    return order


def block_starts(*sorted_keys: np.ndarray) -> np.ndarray:
    """Boolean mask marking the first row of each block of equal keys in already sorted arrays."""
    n = len(sorted_keys[0])
    start = np.zeros(n, dtype=bool)
    if n:
        start[0] = True
        for key in sorted_keys:
            start[1:] |= key[1:] != key[:-1]
    return start


def ranks_within_blocks(start: np.ndarray) -> np.ndarray:
    """0-based position (int32) of each row within its block, given the block-start mask of sorted rows."""
    n = len(start)
    heads = np.flatnonzero(start)
    if n and (not len(heads) or heads[0] != 0):  # rows before the first start: a block from row 0
        heads = np.concatenate([[0], heads])
    kind = np.int32 if n < 1 << 31 else np.int64
    rank = np.arange(n, dtype=kind)
    rank -= np.repeat(heads.astype(kind), np.diff(np.append(heads, n)))
    return rank.astype(np.int32, copy=False)


def inverse_permutation(order: np.ndarray) -> np.ndarray:
    """The inverse of the permutation ``order`` (int32): where each item lands once put in that order."""
    position = np.empty(len(order), dtype=np.int32)
    position[order] = np.arange(len(order), dtype=np.int32)
    return position
