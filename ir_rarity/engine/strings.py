"""Ordering and finding strings by their bytes, 8 at a time: what docnos need at the scale of a campaign.

Strings compare by their UTF-8 bytes (code-point order, as Python and pyarrow compare them). Past the prefix that
all of a set of strings share, the next 8 bytes of each, padded with zero bytes, make one big-endian integer
that orders like the string (:func:`leading_bytes`). Sorting such integers is several times faster than sorting
strings; only strings that tie on them are compared whole. Where the integers tell every two strings apart
(:func:`keys_exact`: docnos mostly differ within their first 8 bytes past a shared prefix), strings can be rebuilt
from them (:func:`strings_of_keys`) and looked up among sorted ones by a binary search
(:func:`positions_in_sorted`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "Keyed",
    "chunks_of",
    "fixed_width",
    "grid_keys",
    "key_order",
    "keys_exact",
    "leading_bytes",
    "one_array",
    "positions_in_sorted",
    "shared_prefix",
    "string_order",
    "strings_of_keys",
]


def chunks_of(strings: Any) -> list[Any]:
    """The non-empty pyarrow Arrays of ``strings`` (an Array or a ChunkedArray)."""
    import pyarrow as pa

    return [c for c in (strings.chunks if isinstance(strings, pa.ChunkedArray) else [strings]) if len(c)]


def one_array(strings: Any) -> Any:
    """A pyarrow Array of ``strings`` (an Array or a ChunkedArray): a lone chunk as it is, several combined."""
    import pyarrow as pa

    if not isinstance(strings, pa.ChunkedArray):
        return strings
    return strings.chunk(0) if strings.num_chunks == 1 else strings.combine_chunks()


def string_order(strings: Any) -> np.ndarray:
    """Stable argsort of pyarrow ``strings`` by their UTF-8 bytes.

    Strings are compared by 8 bytes at a time first: past the prefix that all of them share (that of the smallest
    and the largest), the next 8 bytes of each, padded with zero bytes, as one big-endian integer
    (:func:`leading_bytes`). Only strings that tie on that integer, where it does not tell all strings apart,
    are compared whole, by pyarrow. Docnos of a campaign mostly differ within their first 8 bytes past a common
    prefix.
    """
    import pyarrow.compute as pc

    strings = one_array(strings)
    if len(strings) < 2 or strings.null_count:
        return pc.array_sort_indices(strings).to_numpy(zero_copy_only=False).astype(np.int64)
    keyed = leading_bytes(strings, len(shared_prefix(strings)))
    return key_order(strings, keyed.key, keys_exact([keyed], keyed.width))


def key_order(strings: Any, key: np.ndarray, exact: bool, stable: bool = True) -> np.ndarray:
    """Argsort of ``strings`` by their leading-bytes ``key``, ties compared whole unless ``exact``.

    Stable unless ``stable`` is False (then equal strings may come in any order).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    order = np.argsort(key, kind="stable" if stable else None)
    if exact:
        return order
    key = key[order]
    same = key[1:] == key[:-1]
    if same.any():
        n = len(key)
        tied = np.zeros(n, dtype=bool)
        tied[1:] = same
        tied[:-1] |= same
        rows = np.flatnonzero(tied)
        new_tie = np.ones(len(rows), dtype=bool)
        new_tie[1:] = ~same[rows[1:] - 1]
        members = order[rows]
        table = pa.table({"tie": np.cumsum(new_tie), "value": strings.take(pa.array(members))})
        within = pc.sort_indices(table, sort_keys=[("tie", "ascending"), ("value", "ascending")])
        order[rows] = members[within.to_numpy(zero_copy_only=False)]
    return order


def shared_prefix(strings: Any) -> bytes:
    """The bytes every one of (non-empty) ``strings`` starts with: the common prefix of the least and greatest."""
    import pyarrow.compute as pc

    low, high = (str(v.as_py()).encode() for v in pc.min_max(strings).values())
    return low[:_common_prefix(low, high)]


def _common_prefix(low: bytes, high: bytes) -> int:
    """The number of leading bytes ``low`` and ``high`` share."""
    shared = 0
    while shared < min(len(low), len(high)) and low[shared] == high[shared]:
        shared += 1
    return shared


@dataclass
class Keyed:
    """Leading-bytes keys of some strings (:func:`leading_bytes`), and what tells whether they are exact."""

    key: np.ndarray
    short: bool  # every string at most 8 bytes past the shared prefix
    zero: bool  # some string holds a zero byte
    width: int | None  # the length in bytes of every string, if they have one


def keys_exact(keyed: list[Keyed], width: int | None) -> bool:
    """Whether the keys tell every two distinct strings apart.

    They do when all strings are short, and either all have one ``width`` or none holds a zero byte (zero bytes
    pad the shorter).
    """
    return all(k.short for k in keyed) and (width is not None or not any(k.zero for k in keyed))


def _layout(strings: Any) -> tuple[np.ndarray, np.ndarray]:
    """The offsets (int64, ``len + 1``) and the data buffer (uint8) of a pyarrow string Array."""
    import pyarrow as pa

    n = len(strings)
    wide = pa.types.is_large_string(strings.type) or pa.types.is_large_binary(strings.type)
    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int64 if wide else np.int32)
    offsets = offsets[strings.offset:strings.offset + n + 1].astype(np.int64)
    buffer = strings.buffers()[2]
    return offsets, np.frombuffer(buffer, dtype=np.uint8) if buffer is not None else np.zeros(0, dtype=np.uint8)


def fixed_width(strings: Any) -> tuple[int | None, np.ndarray | None]:
    """The length in bytes all of (non-empty, null-free) pyarrow ``strings`` have, and their bytes.

    The bytes are a ``(len, width)`` uint8 view of the strings' buffer; ``(None, None)`` where lengths differ.
    """
    offsets, data = _layout(strings)
    lengths = np.diff(offsets)
    width = int(lengths[0])
    if not (lengths == width).all():
        return None, None
    return width, np.ndarray((len(strings), width), dtype=np.uint8, buffer=data, offset=int(offsets[0]))


def grid_keys(grid: np.ndarray, shared: int, native: bool = True) -> np.ndarray:
    """:func:`leading_bytes` keys of strings of one width, from their ``(len, width)`` bytes (:func:`fixed_width`).

    Without ``native``, the keys may be a big-endian view of the strings' own bytes (no copy), to be converted
    where they are copied anyway (``np.concatenate(..., dtype=np.uint64)``).
    """
    n, width = grid.shape
    taken = min(8, width - shared)
    if taken == 8 and grid.strides == (width, 1):  # 8 bytes of each, read in place as one big-endian integer
        layout = np.dtype({"names": ["k"], "formats": [">u8"], "offsets": [shared], "itemsize": width})
        view = np.ndarray((n,), dtype=layout, buffer=grid)["k"]
        return view.astype(np.uint64) if native else view
    padded = np.zeros((n, 8), dtype=np.uint8)
    if taken > 0:
        padded[:, :taken] = grid[:, shared:shared + taken]
    view = padded.view(">u8").reshape(n)
    return view.astype(np.uint64) if native else view


def leading_bytes(strings: Any, shared: int) -> Keyed:
    """The 8 bytes of each string after the first ``shared``, zero-padded, as big-endian uint64 (order-keeping)."""
    n = len(strings)
    offsets, data = _layout(strings)
    zero = bool((data[offsets[0]:offsets[-1]] == 0).any())
    width, grid = fixed_width(strings)
    if width is not None and grid is not None:  # one width: read the bytes of each in place
        return Keyed(grid_keys(grid, shared), width - shared <= 8, zero, width)
    lengths = np.diff(offsets)
    key = np.zeros(n, dtype=np.uint64)
    at = offsets[:-1] + shared
    last = len(data) - 1
    for j in range(8):
        byte = data[np.minimum(at + j, last)].astype(np.uint64)  # some string is longer than the prefix
        byte[lengths <= shared + j] = 0
        key <<= np.uint64(8)
        key |= byte
    return Keyed(key, int(lengths.max()) - shared <= 8, zero, None)


def strings_of_keys(keys: np.ndarray, prefix: bytes, width: int | None) -> Any:
    """The strings (pyarrow large_string) whose exact :func:`leading_bytes` after ``prefix`` are ``keys``.

    With one ``width``, each is the prefix and the first ``width - len(prefix)`` bytes of its key; otherwise the
    key's zero bytes are padding (exact keys of strings of several lengths hold no zero byte).
    """
    import pyarrow as pa

    n, shared = len(keys), len(prefix)
    body = keys.astype(">u8").view(np.uint8).reshape(n, 8)
    if width is not None:
        rows = np.empty((n, width), dtype=np.uint8)
        rows[:, shared:] = body[:, :width - shared]
        lengths = np.full(n, width, dtype=np.int64)
    else:
        rows = np.empty((n, shared + 8), dtype=np.uint8)
        rows[:, shared:] = body
        lengths = shared + (body != 0).sum(axis=1, dtype=np.int64)
    rows[:, :shared] = np.frombuffer(prefix, dtype=np.uint8)
    data = rows.reshape(-1) if width is not None else rows[np.arange(rows.shape[1]) < lengths[:, None]]
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return pa.Array.from_buffers(pa.large_string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def positions_in_sorted(vocabulary: Any, values: Any) -> np.ndarray | None:
    """Position of each of pyarrow ``values`` in the sorted, distinct pyarrow strings ``vocabulary`` (-1: absent).

    Found by a binary search of the values' leading-bytes keys among the vocabulary's, each hit checked whole. The
    keys are the 8 bytes past the prefix the first and last strings share, or for strings of one width the 8 bytes
    that end where they do (read in place), if those start within that prefix.
    Where the vocabulary's keys strictly increase, each of its strings has a key of its own, so a value in the
    vocabulary has its string's key and is found there; a value that is not is found nowhere (its hit is checked).
    Returns None where the keys do not strictly increase (strings that share a key, or a vocabulary that is not
    sorted): look the values up otherwise.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if not len(vocabulary) or vocabulary.null_count or values.null_count:
        return None
    first, last = (str(vocabulary[i].as_py()).encode() for i in (0, len(vocabulary) - 1))
    shared = _common_prefix(first, last)  # all strings' where the vocabulary is sorted
    width, grid = fixed_width(vocabulary)
    if width is not None and grid is not None:  # one width: 8 bytes that end where each string does, read in place
        shared = max(0, min(shared, width - 8))
        keys = grid_keys(grid, shared)
    else:
        keys = leading_bytes(vocabulary, shared).key
    if not (keys[1:] > keys[:-1]).all():  # keys that do not each belong to one string, in order
        return None
    if not len(values):
        return np.zeros(0, dtype=np.int64)
    sought = leading_bytes(values, shared).key  # a value outside the vocabulary may land anywhere: checked below
    at = np.minimum(np.searchsorted(keys, sought), len(vocabulary) - 1)
    same = pc.equal(vocabulary.take(pa.array(at)), values.cast(vocabulary.type)).to_numpy(zero_copy_only=False)
    return np.where(same, at, -1).astype(np.int64)
