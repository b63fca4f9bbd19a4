"""Content fingerprints of ranked lists, numpy only: what recognises a campaign member by what it retrieved.

Per run and depth, a fingerprint is the number of (query, document, rank) rows within the depth and the wrapping
sum of their 64-bit hashes (:func:`content_hashes` of the string hashes of the query id and docno,
:func:`ir_rarity.engine.runs.string_hashes`). Kept apart from :mod:`ir_rarity.engine.runs` so that a reader of
stored fingerprints (the warm path of the ir_measures provider) needs numpy alone.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

__all__ = ["content_hashes", "match_fingerprints", "run_fingerprints"]

_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def content_hashes(query_hash: np.ndarray, doc_hash: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """A 64-bit hash per (query, document, rank) row from the string hashes of its query id and docno."""
    with np.errstate(over="ignore"):
        z = query_hash * _GOLDEN ^ doc_hash ^ (rank.astype(np.uint64) + np.uint64(1)) * _MIX2
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        return z ^ (z >> np.uint64(31))


def run_fingerprints(run: np.ndarray, rank: np.ndarray, row_hash: np.ndarray, n_runs: int, depth: int | None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Per run (rows sorted by run): rows within ``depth`` and the wrapping sum of their hashes."""
    within = np.ones(len(rank), dtype=bool) if depth is None else rank < depth
    sizes = np.bincount(run[within], minlength=n_runs).astype(np.int64)
    cum = np.zeros(len(run) + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        np.cumsum(np.where(within, row_hash, np.uint64(0)), dtype=np.uint64, out=cum[1:])
        ends = np.searchsorted(run, np.arange(n_runs), side="right")
        starts = np.searchsorted(run, np.arange(n_runs), side="left")
        sums = cum[ends] - cum[starts]
    return sizes, sums


def match_fingerprints(members: Mapping[tuple[int, int], str], sizes: np.ndarray, sums: np.ndarray
                       ) -> list[str | None]:
    """Per run, the member with its fingerprint ``(rows within the depth, hash sum)``, or None.

    Args:
        members: Fingerprint -> member name (of members with equal fingerprints, the one the mapping keeps).
        sizes: Rows within the depth of each run (:func:`run_fingerprints`).
        sums: The wrapping sum of their hashes.

    A run with no row within the depth is no member.
    """
    return [members.get((int(n), int(h))) if n > 0 else None for n, h in zip(sizes, sums, strict=True)]
