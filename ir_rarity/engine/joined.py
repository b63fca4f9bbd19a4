r"""A campaign joined by a set of runs: the ``joint=True`` case of the evaluation rule.

At every depth, the joining runs that are not members of the campaign at that depth (by content) are new
systems: :math:`S' = S + k_{new}`, and each one's documents within the depth are added to :math:`S_d`. A
joining run that equals a member is that member and adds nothing. Scoring the joining runs against this
campaign with the usual rule then scores each as a member of the joined campaign; with a single joining run it
gives exactly what scoring that run alone against the campaign gives.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.engine.codes import KEY_SHIFT, ScorePrecision, sorted_lookup
from ir_rarity.engine.contract import Campaign, CampaignInfo
from ir_rarity.engine.novelty import probability_table
from ir_rarity.engine.runs import Duplicates, RankedRuns, rank_runs

__all__ = ["JoinedCampaign"]


class JoinedCampaign:
    """``campaign`` with the runs of ``frames`` joined to it (see the module docstring).

    Args:
        campaign: The campaign.
        frames: Run name -> canonical run frame of the joining runs.
        duplicates: ``"error"`` or ``"first"``, for documents listed twice.

    """

    def __init__(self, campaign: Campaign, frames: Mapping[str, pd.DataFrame], duplicates: Duplicates = "error"
                 ) -> None:
        self.campaign = campaign
        queries, docs = campaign.vocabularies()
        self.joining: RankedRuns = rank_runs(frames, [queries], [docs], duplicates, scores=campaign.scores)
        self._queries = queries.append(self.joining.query_extra)
        self._docs = docs.append(self.joining.doc_extra)
        self._new: dict[int | None, np.ndarray] = {}
        self._extra: dict[int | None, tuple[np.ndarray, np.ndarray]] = {}

    @property
    def scores(self) -> ScorePrecision:
        """The campaign's score precision (the joining runs were ordered with it)."""
        return self.campaign.scores

    def __repr__(self) -> str:
        return f"JoinedCampaign({self.campaign!r} + {self.joining.n_runs} runs)"

    def _is_new(self, depth: int | None) -> np.ndarray:
        """Whether each joining run is a new system at ``depth`` (not a campaign member there)."""
        if depth not in self._new:
            self._new[depth] = np.array([m is None for m in self.campaign.find_members(self.joining, depth)])
        return self._new[depth]

    def _within(self, depth: int | None) -> np.ndarray:
        rows = self._is_new(depth)[self.joining.run]
        return rows if depth is None else rows & (self.joining.rank < depth)

    def _extra_counts(self, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
        if depth not in self._extra:
            self._extra[depth] = np.unique(self.joining.key[self._within(depth)], return_counts=True)
        return self._extra[depth]

    # ------------------------------------------------------------------ the Campaign contract
    def vocabularies(self) -> tuple[pd.Index, pd.Index]:
        """The campaign's vocabularies extended by the joining runs' unseen ids."""
        return self._queries, self._docs

    def num_systems_at(self, depth: int | None) -> int:
        """S of the campaign plus the joining runs that are new at ``depth``."""
        return self.campaign.num_systems_at(depth) + int(self._is_new(depth).sum())

    def count_keys(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        """The campaign's S_d plus the new joining runs that retrieve each key within ``depth``."""
        extra_keys, extra_counts = self._extra_counts(depth)
        return self.campaign.count_keys(keys, depth) + sorted_lookup(extra_keys, extra_counts, keys, 0)

    def find_members(self, runs: RankedRuns, depth: int | None) -> list[str | None]:
        """A campaign member first; else a new joining run with the same ranked lists to ``depth``."""
        found = self.campaign.find_members(runs, depth)
        new = np.flatnonzero(self._is_new(depth))
        sizes, sums = self.joining.fingerprints(depth)
        run_sizes, run_sums = runs.fingerprints(depth)
        for i, member in enumerate(found):
            if member is not None:
                continue
            key, rank = runs.rows_of(i, depth)
            for j in new[(sizes[new] == run_sizes[i]) & (sums[new] == run_sums[i])]:
                other_key, other_rank = self.joining.rows_of(int(j), depth)
                if np.array_equal(key, other_key) and np.array_equal(rank, other_rank):
                    found[i] = self.joining.names[j]
                    break
        return found

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int]:
        """The campaign's summed reading probabilities plus those of the joining runs new at ``cutoff``."""
        keys, sums, n_runs = self.campaign.reading_probabilities(cutoff)
        new_rows = self._is_new(cutoff)[self.joining.run]
        query = self.joining.key[new_rows] >> KEY_SHIFT
        own_keys, own_sums = probability_table(self.joining.key[new_rows], self.joining.rank[new_rows],
                                               self.joining.run[new_rows], query, cutoff)
        merged, inverse = np.unique(np.concatenate([keys, own_keys]), return_inverse=True)
        total = np.bincount(inverse.reshape(-1), weights=np.concatenate([sums, own_sums]), minlength=len(merged))
        return merged, total, n_runs + int(self._is_new(cutoff).sum())

    def info(self) -> CampaignInfo:
        """The campaign's description, with the joining runs that are new systems (at its first depth) counted."""
        base = self.campaign.info()
        n_new = int(self._is_new(base.depths[0] if base.depths else None).sum())
        runs: Any = None if base.n_runs is None else base.n_runs + n_new
        return CampaignInfo(num_systems=base.num_systems + n_new, systems=base.systems, n_runs=runs,
                            depths=base.depths, source=f"{base.source} joined by {self.joining.n_runs} evaluated runs",
                            scores=base.scores, joined=base.joined + n_new)
