"""Strings coded in the order they first appear, across the blocks of a campaign read in two passes.

Pass 1 of :mod:`ir_rarity.pool.stream` meets a campaign's query ids and docnos block by block; a code given to a
string must never change, so the counts of every block can be added as they come. A :class:`Vocabulary` finds a
block's distinct strings among those seen so far by integer searches, never a string comparison per step, with one
of two keys:

* **exact keys**, when every string is a shared prefix and at most 8 more bytes with no zero byte (CORD uids,
  MS MARCO passage ids, ``doc000638``): those 8 bytes, zero-padded, read as one big-endian integer. Two distinct
  such strings have distinct keys, so no string is ever compared. The prefix is fixed by the first block (its
  strings' shared prefix, less what the longest needs past it).
* **64-bit hashes** otherwise (:func:`~ir_rarity.engine.runs.string_hashes`, SipHash-2-4, in C). A hash found is
  checked against the string it stands for (Arrow's comparison), so two strings of one hash are an error, never a
  wrong count. A block with a string the exact keys do not cover moves the vocabulary to hashes for good (the
  strings seen so far are hashed once).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.engine.runs import string_hashes
from ir_rarity.engine.strings import leading_bytes, one_array, shared_prefix
from ir_rarity.errors import InputError

__all__ = ["COLLISION", "Vocabulary", "search_sorted"]

COLLISION = ("two docnos or query ids of the campaign have one 64-bit hash (SipHash-2-4): score it in memory "
             "(stream=False)")

_UNSET = b"\x00unset"


def search_sorted(table: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``np.searchsorted(table, values)``, the values searched in sorted order.

    Each search then starts where the last ended: a few cache lines, not a walk down a table of megabytes per value.
    """
    order = np.argsort(values)
    at = np.empty(len(values), dtype=np.int64)
    at[order] = np.searchsorted(table, values[order])
    return at


class Vocabulary:
    """Strings coded in the order they first appear, found by exact keys or by 64-bit hashes (see the module).

    Args:
        exact: Try exact keys first (False: hashes from the start).

    """

    def __init__(self, exact: bool = True) -> None:
        self.hashes = np.zeros(0, dtype=np.uint64)  # sorted keys (exact keys or hashes)
        self.codes = np.zeros(0, dtype=np.int64)  # the code of each key
        self.chunks: list[Any] = []  # the strings, in code order (pyarrow arrays)
        self.size = 0
        self._prefix: bytes | None = _UNSET if exact else None  # None: hashes

    @property
    def exact(self) -> bool:
        """Whether the strings are keyed exactly (no hash, no comparison)."""
        return self._prefix is not None

    def _exact_keys(self, values: Any) -> np.ndarray | None:
        """Exact keys of ``values`` (pyarrow large strings), or None where the exact scheme does not cover them."""
        import pyarrow.compute as pc

        if self._prefix is None:
            return None
        if self._prefix == _UNSET:
            longest = int(pc.max(pc.binary_length(values)).as_py())
            shared = shared_prefix(values)
            prefix = shared[:max(0, longest - 8)] if len(shared) >= longest - 8 else b""
            self._prefix = prefix.decode("utf-8", "ignore").encode("utf-8")  # whole characters only
        prefix = self._prefix
        if prefix and not pc.all(pc.starts_with(values, prefix.decode("utf-8"))).as_py():
            return None
        if int(pc.max(pc.binary_length(values)).as_py()) - len(prefix) > 8:
            return None
        keyed = leading_bytes(values, len(prefix))
        return None if keyed.zero else keyed.key

    def _exact_lookup(self, values: Any) -> np.ndarray:
        """The code of each of ``values`` by exact keys, -1 for one the exact keys do not cover (never added).

        A lookup that changes nothing: a campaign's vocabulary is read by several blocks at once (Dask's threads),
        which must never see it half moved to hashes.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        prefix = self._prefix or b""
        lengths = pc.binary_length(values).to_numpy(zero_copy_only=False)
        covered = (pc.starts_with(values, prefix.decode("utf-8")).to_numpy(zero_copy_only=False)
                   & (lengths - len(prefix) <= 8)
                   & ~pc.match_substring(values, "\x00").to_numpy(zero_copy_only=False))
        codes = np.full(len(values), -1, dtype=np.int64)
        rows = np.flatnonzero(covered)
        if len(rows) and len(self.hashes):
            keys = leading_bytes(values.take(pa.array(rows)), len(prefix)).key
            at = np.minimum(search_sorted(self.hashes, keys), len(self.hashes) - 1)
            found = self.hashes[at] == keys
            codes[rows[found]] = self.codes[at[found]]
        return codes

    def _to_hashes(self) -> None:
        """Key every string seen so far by its hash from now on.

        Raises:
            InputError: two of them have one hash.

        """
        self._prefix = None
        if not self.size:
            return
        hashes = string_hashes(self.strings())
        order = np.argsort(hashes)
        self.hashes, self.codes = hashes[order], order.astype(np.int64)
        if (self.hashes[1:] == self.hashes[:-1]).any():
            raise InputError(COLLISION)

    def coded(self, strings: pd.Index, add: bool = True) -> np.ndarray:
        """The code of each of a block's distinct strings: new strings get the next codes (-1 without ``add``).

        Without ``add`` the vocabulary is only read (its keys stay as they are), so lookups may run at once.

        Raises:
            InputError: two strings of one hash.

        """
        import pyarrow as pa
        import pyarrow.compute as pc

        if not len(strings):
            return np.zeros(0, dtype=np.int64)
        values = one_array(pa.array(strings.array if isinstance(strings.dtype, pd.StringDtype) else  # Arrow's own
                                    np.asarray(strings, dtype=object)).cast(pa.large_string()))
        hashes = self._exact_keys(values)
        if hashes is None and self._prefix is not None and not add:  # a lookup never moves the keys to hashes
            return self._exact_lookup(values)
        if hashes is None:
            if self._prefix is not None:
                self._to_hashes()
            hashes = string_hashes(strings)
        exact = self._prefix is not None
        at = np.minimum(search_sorted(self.hashes, hashes), max(len(self.hashes) - 1, 0))
        known = (self.hashes[at] == hashes) if len(self.hashes) else np.zeros(len(hashes), dtype=bool)
        codes = np.full(len(hashes), -1, dtype=np.int64)
        codes[known] = self.codes[at[known]]
        if known.any() and not exact:
            if len(self.chunks) > 32:  # a few chunks are taken from as they are; many are joined now and then
                self.chunks = [pa.concat_arrays(self.chunks)]
            same = pc.equal(pa.chunked_array(self.chunks, type=pa.large_string()).take(pa.array(codes[known])),
                            values.filter(pa.array(known)))
            if not pc.all(same).as_py():
                raise InputError(COLLISION)
        fresh = np.flatnonzero(~known)
        if add and len(fresh):
            order = np.argsort(hashes[fresh])
            ordered = hashes[fresh][order]
            if (ordered[1:] == ordered[:-1]).any():  # two new strings of one key (sorted once, not again by unique)
                raise InputError(COLLISION)
            codes[fresh] = self.size + np.arange(len(fresh))
            where = np.searchsorted(self.hashes, ordered)
            self.hashes = np.insert(self.hashes, where, ordered)
            self.codes = np.insert(self.codes, where, codes[fresh][order])
            self.chunks.append(values.take(pa.array(fresh)))
            self.size += len(fresh)
        return codes

    def strings(self) -> pd.Index:
        """Every string, in code order."""
        import pyarrow as pa

        if not self.chunks:
            return pd.Index([], dtype="str")
        return pd.Index(pa.concat_arrays(self.chunks).to_pandas(types_mapper=pd.ArrowDtype).astype("str"))
