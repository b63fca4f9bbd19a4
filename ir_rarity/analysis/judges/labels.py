"""Several judges' qrels aligned on the (query, document) units they judged, and the rarity bucket of each unit.

A unit is a (query id, docno) pair; a judge's label of it is the qrels' relevance, NaN where that judge did not
judge it. The rarity of a unit is its S_d: how many of the campaign's S systems retrieved the document for the
query (Türkmen, Lease & Kutlu, "Measuring the rarity of relevant documents", ECIR 2023), counted at a stated depth.
Units fall in the buckets ``1``, ``2-5``, ``6-S/2`` and ``>S/2`` of S_d (a bucket whose range is empty for a small S
is left out; where they overlap the earlier keeps the S_d), and ``0`` for judged documents that no system retrieved
within the depth.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ir_rarity.errors import InputError, ParameterError

__all__ = ["JudgedUnits", "align_judges", "rarity_buckets"]


class JudgedUnits:
    """Units judged by at least one judge, with every judge's label (NaN: not judged) and their S_d.

    Attributes:
        keys: ``query_id, doc_id`` of each unit, sorted by query id then docno.
        labels: ``(n_units, n_judges)`` float labels, NaN where a judge did not judge the unit.
        names: The judges' names, one per column of ``labels``.

    """

    def __init__(self, keys: pd.DataFrame, labels: np.ndarray, names: list[str]) -> None:
        self.keys, self.labels, self.names = keys, labels, names

    def s_d(self, counts: pd.DataFrame) -> np.ndarray:
        """S_d of every unit from a campaign's count table ``query_id, doc_id, S_d`` (0 where no system has it)."""
        merged = self.keys.merge(counts[["query_id", "doc_id", "S_d"]], on=["query_id", "doc_id"], how="left")
        return merged["S_d"].fillna(0).to_numpy(np.int64)


def align_judges(frames: Sequence[pd.DataFrame], names: Sequence[str]) -> JudgedUnits:
    """Canonical qrels frames (``query_id, doc_id, relevance``) of several judges, aligned on their units.

    Raises:
        InputError: a judge lists a (query, document) twice (the message names the judge and the pair).
        ParameterError: a different number of names and judges, or a name given twice.

    """
    if len(frames) != len(names):
        raise ParameterError(f"{len(frames)} judges but {len(names)} names")
    if len(set(names)) != len(names):
        raise ParameterError(f"judge names must differ, got {list(names)}")
    parts = []
    for j, (frame, name) in enumerate(zip(frames, names, strict=True)):
        part = frame[["query_id", "doc_id", "relevance"]]
        twice = part.duplicated(["query_id", "doc_id"])
        if twice.any():
            row = part[twice].iloc[0]
            raise InputError(f"judges query {row['query_id']} document {row['doc_id']} twice", name)
        parts.append(part.assign(judge=j))
    long = pd.concat(parts, ignore_index=True)
    wide = long.pivot(index=["query_id", "doc_id"], columns="judge", values="relevance")
    wide = wide.reindex(columns=range(len(names))).sort_index()
    keys = wide.index.to_frame(index=False)
    return JudgedUnits(keys, wide.to_numpy(np.float64), list(names))


def rarity_buckets(s_d: np.ndarray, num_systems: int) -> tuple[np.ndarray, list[str]]:
    """The rarity bucket of each S_d: ``0``, ``1``, ``2-5``, ``6-S/2``, ``>S/2`` (S/2 rounded down).

    Args:
        s_d: S_d of each unit (0: no system retrieved it).
        num_systems: S, the campaign's number of systems.

    Returns:
        ``(bucket index per unit, bucket names)``; a bucket whose S_d range is empty for this S is not named and
        no unit falls in it; where ranges overlap for a small S the earlier bucket keeps the S_d (for S = 8: ``0``,
        ``1``, ``2-5``, ``6-8``).

    """
    if num_systems < 1:
        raise ParameterError(f"S must be at least 1, got {num_systems}")
    half = num_systems // 2
    # bucket edges: lower bounds 0, 1, 2, 6, S/2 + 1; each range clipped to [lower, next lower - 1]
    lowers = [0, 1, 2, 6, half + 1]
    uppers = [0, 1, 5, half, num_systems]
    names: list[str] = []
    bounds: list[tuple[int, int]] = []
    for lower, upper in zip(lowers, uppers, strict=True):
        low = max([lower, *[b[1] + 1 for b in bounds]]) if bounds else lower
        high = min(upper, num_systems)
        if low > high:
            continue
        bounds.append((low, high))
        names.append(str(low) if low == high else f"{low}-{high}")
    starts = np.array([b[0] for b in bounds], dtype=np.int64)
    index = np.searchsorted(starts, np.asarray(s_d, dtype=np.int64), side="right") - 1
    return index, names
