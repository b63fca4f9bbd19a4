r"""Fusion of a campaign's runs, for any coalition of its teams at the cost of one matrix product.

For a document d of a query and the runs R of a coalition (each run r ranks d at :math:`rank_r(d)`, from 1, and
scores it :math:`s_r(d)`; a run that did not retrieve d adds nothing):

* **RRF** (reciprocal rank fusion; Cormack, Clarke & Buettcher, SIGIR 2009), k = 60:
  :math:`RRF(d) = \sum_{r \ni d} 1 / (k + rank_r(d))`;
* **CombSUM** (Fox & Shaw, TREC-2 1994) on per-query min-max normalised scores,
  :math:`s'_r(d) = (s_r(d) - \min_q s_r) / (\max_q s_r - \min_q s_r)` (1 when a run gives one score to all its
  documents of the query): :math:`CombSUM(d) = \sum_{r \ni d} s'_r(d)`;
* **CombMNZ** (Fox & Shaw 1994): :math:`CombMNZ(d) = |\{r \ni d\}| \cdot CombSUM(d)`.

All three are sums over runs, hence over teams: each team's part is computed once (:func:`fusion_parts`, one
bincount per team over the campaign's rows), and the fusion of any coalition is the sum of its teams' parts
(:func:`fuse`: one matrix product for a batch of coalitions). The fused ranking of a query holds every document
some run of the coalition retrieved, ordered as trec_eval orders a run (score descending, ties by docno
descending; scores compared as float32, as the evaluation compares them), cut at ``depth``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ir_rarity.complementarity.names import METHODS, Method
from ir_rarity.complementarity.ranked import RankedCampaign
from ir_rarity.errors import ParameterError

__all__ = ["FusionParts", "fuse", "fused_runs", "fusion_parts", "minmax"]


def minmax(score: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Scores min-max normalised within each group (a run's ranking of one query); 1 where a group is constant."""
    frame = pd.DataFrame({"g": group, "s": score})
    low = frame.groupby("g")["s"].transform("min").to_numpy(np.float64)
    high = frame.groupby("g")["s"].transform("max").to_numpy(np.float64)
    span = high - low
    return np.where(span > 0, (score - low) / np.where(span > 0, span, 1.0), 1.0)


@dataclass(frozen=True)
class FusionParts:
    """Each team's additive part of the fused scores, per (query, document) key.

    Attributes:
        ranked: The campaign's ranked lists.
        rrf: ``(n_teams, n_keys)``: sum of ``1 / (k + rank)`` over the team's runs.
        combsum: ``(n_teams, n_keys)``: sum of min-max normalised scores over the team's runs.
        count: ``(n_teams, n_keys)``: number of the team's runs that retrieved the key.
        k: RRF's constant.

    """

    ranked: RankedCampaign
    rrf: np.ndarray
    combsum: np.ndarray
    count: np.ndarray
    k: int


def fusion_parts(ranked: RankedCampaign, k: int = 60) -> FusionParts:
    """Each team's part of RRF (constant ``k``), CombSUM and the counts of CombMNZ, from the campaign's rows."""
    if k < 0:
        raise ParameterError(f"RRF's k must be >= 0, got {k}")
    n_teams, n_keys = len(ranked.team_names), ranked.n_keys
    team = ranked.team_of_run[ranked.run]
    cell = team * n_keys + ranked.key  # (team, key) of every row
    size = n_teams * n_keys
    normalised = minmax(ranked.score, ranked.run * len(ranked.query_ids) + ranked.query)
    return FusionParts(
        ranked=ranked,
        rrf=np.bincount(cell, weights=1.0 / (k + ranked.rank), minlength=size).reshape(n_teams, n_keys),
        combsum=np.bincount(cell, weights=normalised, minlength=size).reshape(n_teams, n_keys),
        count=np.bincount(cell, minlength=size).astype(np.float64).reshape(n_teams, n_keys),
        k=k)


def _top(negated: np.ndarray, depth: int) -> np.ndarray:
    """Per row, the positions of the ``depth`` smallest values in order, ties by position (docno descending).

    Each value and its position make one unique uint64 (the float32's bits mapped to an order-preserving
    unsigned integer, then the position), so a partial sort selects exactly what a stable full sort would.
    """
    bits = (negated + np.float32(0.0)).astype(np.float32).view(np.uint32)  # -0.0 becomes +0.0
    ordered = np.where(bits & np.uint32(0x80000000), ~bits, bits | np.uint32(0x80000000)).astype(np.uint64)
    composite = (ordered << np.uint64(32)) | np.arange(negated.shape[1], dtype=np.uint64)[None, :]
    if depth < negated.shape[1]:
        part = np.argpartition(composite, depth - 1, axis=1)[:, :depth]
        composite_top = np.take_along_axis(composite, part, axis=1)
        return np.take_along_axis(part, np.argsort(composite_top, axis=1), axis=1)
    return np.argsort(composite, axis=1)


def _scores(parts: FusionParts, coalitions: np.ndarray, method: Method) -> tuple[np.ndarray, np.ndarray]:
    """``(fused scores, retrieved)`` of a batch of coalitions, each ``(B, n_keys)``."""
    weights = coalitions.astype(np.float64)
    count = weights @ parts.count
    if method == "rrf":
        score = weights @ parts.rrf
    elif method == "combsum":
        score = weights @ parts.combsum
    elif method == "combmnz":
        score = (weights @ parts.combsum) * count
    else:
        raise ParameterError(f"fusion method must be one of {', '.join(METHODS)}, got {method!r}")
    return score, count > 0


def fuse(parts: FusionParts, coalitions: np.ndarray, method: Method = "rrf", depth: int = 100
         ) -> pd.DataFrame:
    """The fused runs of a batch of coalitions, as one long frame.

    Args:
        parts: The teams' parts (:func:`fusion_parts`).
        coalitions: ``(B, n_teams)`` booleans: the teams of each coalition.
        method: ``"rrf"``, ``"combsum"`` or ``"combmnz"``.
        depth: Documents kept per query of each fused run.

    Returns:
        ``coalition, query_id, doc_id, score, rank`` (rank from 1), each fused ranking in trec_eval order.

    """
    if depth < 1:
        raise ParameterError(f"depth must be >= 1, got {depth}")
    coalitions = np.atleast_2d(np.asarray(coalitions, dtype=bool))
    if coalitions.shape[1] != len(parts.ranked.team_names):
        raise ParameterError(f"coalitions need one column per team ({len(parts.ranked.team_names)}), "
                             f"got {coalitions.shape[1]}")
    score, retrieved = _scores(parts, coalitions, method)
    score = score.astype(np.float32)  # compared as the evaluation compares run scores
    key_query = parts.ranked.key_query
    bounds = np.searchsorted(key_query, np.arange(len(parts.ranked.query_ids) + 1))
    pieces = []
    for q in range(len(parts.ranked.query_ids)):  # one sort per query for the whole batch
        lo, hi = bounds[q], bounds[q + 1]
        if hi == lo:
            continue
        order = _top(np.where(retrieved[:, lo:hi], -score[:, lo:hi], np.float32(np.inf)), depth)
        kept = np.take_along_axis(retrieved[:, lo:hi], order, axis=1)
        b, position = np.nonzero(kept)
        local = order[b, position]
        pieces.append(pd.DataFrame({"coalition": b, "query": q, "key": lo + local,
                                    "score": score[b, lo + local], "rank": position + 1}))
    frame = pd.concat(pieces, ignore_index=True).sort_values(["coalition", "query", "rank"], kind="stable")
    query_ids = np.asarray(parts.ranked.query_ids, dtype=object)
    return pd.DataFrame({"coalition": frame["coalition"].to_numpy(np.int64),
                         "query_id": query_ids[frame["query"].to_numpy()],
                         "doc_id": parts.ranked.key_doc[frame["key"].to_numpy()],
                         "score": frame["score"].to_numpy(np.float64), "rank": frame["rank"].to_numpy(np.int64)})


def fused_runs(parts: FusionParts, coalitions: np.ndarray, method: Method = "rrf", depth: int = 100,
               names: list[str] | None = None, batch_cells: int = 8_000_000) -> Iterator[dict[str, pd.DataFrame]]:
    """The fused runs of many coalitions, in batches of ``name -> run`` (memory: about ``batch_cells`` scores).

    A coalition whose teams retrieved nothing gives no run (its name is absent from the batch).
    """
    coalitions = np.atleast_2d(np.asarray(coalitions, dtype=bool))
    labels = names if names is not None else [f"c{i}" for i in range(len(coalitions))]
    size = max(1, batch_cells // max(parts.ranked.n_keys, 1))
    for start in range(0, len(coalitions), size):
        long = fuse(parts, coalitions[start:start + size], method, depth)
        groups = long.groupby("coalition", sort=True)
        yield {labels[start + int(np.asarray(c).item())]: g[["query_id", "doc_id", "score"]].reset_index(drop=True)
               for c, g in groups}
