"""Rows of runs scored against a campaign by the evaluation rule: the one row source of "runs given".

:func:`rows_against` turns runs ranked and encoded against a campaign (:class:`~ir_rarity.engine.runs.RankedRuns`)
into the :class:`~ir_rarity.engine.rows.Rows` the kernels read, counted by the rule of
:mod:`ir_rarity.engine.rule`: a run equal to a member (asked of the campaign,
:meth:`~ir_rarity.engine.contract.Campaign.find_members`) keeps the campaign's S and S_d; any other run scores as
if it alone had joined, S + 1 and its own rows within the depth added to S_d. :func:`ir_rarity.evaluate` (through
:func:`~ir_rarity.engine.rule.apply_rule`) and the provider's one-run path (:mod:`ir_rarity.engine.one_run`)
both score runs here. numpy alone: the one-run path must not import pandas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ir_rarity.engine.qrels import EncodedQrels, is_relevant
from ir_rarity.engine.rows import Rows, Selection

if TYPE_CHECKING:
    from ir_rarity.engine.contract import Campaign
    from ir_rarity.engine.runs import RankedRuns

__all__ = ["query_positions", "rows_against"]


def query_positions(n_queries: int, qrels: EncodedQrels) -> np.ndarray:
    """Map from query code (a vocabulary of ``n_queries``, then the qrels extension) to qrels position, or -1."""
    position = np.full(n_queries + len(qrels.query_extra), -1, dtype=np.int64)
    position[qrels.query_codes] = np.arange(len(qrels.query_codes))
    return position


class _RunsAgainst:
    """The :class:`~ir_rarity.engine.rows.RowSource` of runs scored against a campaign by the rule.

    At each depth, a run equal to a member (by content) is that member: S and the campaign's S_d. Any other run
    is a newcomer: :math:`S + 1`, and its own rows within the depth add one to their S_d.
    """

    def __init__(self, campaign: Campaign, ranked: RankedRuns, run: np.ndarray, rank: np.ndarray, key: np.ndarray,
                 label: np.ndarray, kept: np.ndarray) -> None:
        self.campaign, self.ranked = campaign, ranked
        self.run, self.rank, self.key, self.label, self.kept = run, rank, key, label, kept
        self.membership: dict[int | None, list[str | None]] = {}

    def member(self, depth: int | None) -> np.ndarray:
        """Whether each run is a member at ``depth`` (asked of the campaign once per depth)."""
        if depth not in self.membership:
            self.membership[depth] = self.campaign.find_members(self.ranked, depth)
        return np.array([m is not None for m in self.membership[depth]], dtype=bool)

    def s_d(self, depth: int | None, rows: Selection) -> tuple[np.ndarray, np.ndarray]:
        """The campaign's S_d, plus one for a newcomer's own rows within ``depth``; S, or S + 1 for a newcomer."""
        is_member = self.member(depth)
        chosen = slice(None) if rows is None else rows
        run, rank = self.run[chosen], self.rank[chosen]
        s_d = self.campaign.count_keys(self.key[chosen], depth).astype(np.float64)
        own = ~is_member[run] if depth is None else ~is_member[run] & (rank < depth)
        num_systems = float(self.campaign.num_systems_at(depth))
        return s_d + own, np.where(is_member, num_systems, num_systems + 1.0)

    def labels(self, rows: Selection) -> np.ndarray:
        """The qrels' labels, looked up once for all rows."""
        return self.label if rows is None else self.label[rows]

    def keys(self, rows: Selection) -> np.ndarray:
        """The pair keys of the encoded runs."""
        return self.key if rows is None else self.key[rows]

    def relevant(self, rel: int) -> np.ndarray:
        """Relevance of every row, from its label."""
        return is_relevant(self.label, rel)

    def tie_keys(self) -> tuple[np.ndarray, np.ndarray]:
        """The runs' scores as given and their docnos' order among these runs (:class:`TieOrder`)."""
        return self.ranked.score[self.kept], self.ranked.doc_order[self.kept]

    def campaign_s_d(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        """The campaign's own S_d."""
        return self.campaign.count_keys(keys, depth)

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """The campaign's summed reading probabilities, and which runs are members at ``cutoff``."""
        return (*self.campaign.reading_probabilities(cutoff), self.member(cutoff))


def rows_against(campaign: Campaign, ranked: RankedRuns, qrels: EncodedQrels
                 ) -> tuple[Rows, dict[int | None, list[str | None]]]:
    """Rows of ``ranked`` (encoded against the campaign, then the qrels) scored against ``campaign`` by the rule.

    Returns:
        The rows, and the membership found so far per depth (filled as measures ask for depths).

    """
    n_vocab = len(campaign.vocabularies()[0])
    positions = query_positions(n_vocab, qrels)
    inside = ranked.query < len(positions)
    position = np.where(inside, positions[np.where(inside, ranked.query, 0)], -1)
    keep = np.flatnonzero(position >= 0)
    cell = ranked.run[keep] * len(qrels.query_ids) + position[keep]
    if len(cell) > 1 and (np.diff(cell) < 0).any():  # keep rows sorted by (run, qrels query), rank order kept
        keep = keep[np.argsort(cell, kind="stable")]
    run, query, rank, key = ranked.run[keep], position[keep], ranked.rank[keep], ranked.key[keep]
    present = np.zeros((ranked.n_runs, len(qrels.query_ids)), dtype=bool)
    present[run, query] = True
    source = _RunsAgainst(campaign, ranked, run, rank, key, qrels.lookup(key), keep)
    rows = Rows(run=run, query=query, rank=rank, present=present, n_runs=ranked.n_runs, qrels=qrels, source=source)
    return rows, source.membership
