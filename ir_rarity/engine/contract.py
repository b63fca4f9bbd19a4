"""The contract between the engine and whatever a run is scored against (a *campaign*).

The engine needs little from a campaign: its vocabularies (to encode qrels and runs), S and S_d at a depth,
whether an evaluated run is one of its members (by content), and, for the novelty utility, the summed reading
probabilities of its runs. :class:`Campaign` says exactly that; :class:`~ir_rarity.Pool` (runs in memory or
loaded from ``.npz``), :class:`~ir_rarity.CountTable` (S_d only, from ``.parquet``) and a campaign joined by
the evaluated runs (:class:`~ir_rarity.engine.joined.JoinedCampaign`) implement it. :class:`MemberCampaign`
adds what only a campaign that keeps its runs can do: give the rows of all its members at once.

:class:`CampaignInfo` is what every table says about the campaign it was computed against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from ir_rarity.engine.codes import ScorePrecision
    from ir_rarity.engine.qrels import EncodedQrels
    from ir_rarity.engine.rows import Rows
    from ir_rarity.engine.runs import RankedRuns

__all__ = ["ASSUMED_MEMBER", "Campaign", "CampaignInfo", "MemberCampaign"]

ASSUMED_MEMBER = "(assumed member)"
"""What :meth:`Campaign.find_members` returns for a run the campaign takes on trust to be a member (a count table
without fingerprints, told ``assume_members=True``)."""


@dataclass(frozen=True)
class CampaignInfo:
    """What a campaign is, as every result table states it.

    Attributes:
        num_systems: S.
        systems: What S counts: ``"runs"`` or ``"teams"``.
        n_runs: Number of runs in the campaign (None when unknown: a count table).
        depths: Depths S_d is available at (None in the tuple: whole runs); empty when any depth is.
        source: A short description (``"pool"``, ``"count table"``...).
        scores: How scores are compared in trec_eval order: ``"float32"`` (pytrec_eval, ir_measures) or
            ``"float64"`` (trec_eval 10.0).
        joined: Evaluated runs joined to the campaign as new systems (``joint=True``), counted in
            ``num_systems``: S is the campaign's ``num_systems - joined`` plus them.

    """

    num_systems: int
    systems: str
    n_runs: int | None
    depths: tuple[int | None, ...] = ()
    source: str = "pool"
    scores: str = "float32"
    joined: int = 0

    def describe(self, depths: Sequence[int | None] = (), alone: bool = False) -> str:
        """One line stating the S the runs were scored with, e.g. ``pool: S = 143 runs; S_d at depth 100``.

        Args:
            depths: The depths S_d was counted at (default: the campaign's).
            alone: The runs were scored each as if it alone joined the campaign: S is stated as the campaign's
                plus the run itself (a run equal to a member is scored as that member, with the campaign's S).

        Returns:
            ``pool: S = 59 runs + the run itself (S = 60 for a run that is not a member; ...)`` when ``alone``,
            ``pool joined by 2 evaluated runs: S = 59 + 2 joined = 61 runs`` for a joined campaign.

        """
        runs = f" ({self.n_runs} runs)" if self.n_runs is not None and self.systems == "teams" else ""
        shown = list(dict.fromkeys(depths)) or list(self.depths)
        at = ", ".join("whole runs" if d is None else str(d) for d in shown)
        depth_text = f"; S_d at depth {at}" if shown else ""
        systems = self.systems[:-1] if self.num_systems == 1 else self.systems
        scores = "; scores compared as float64 (trec_eval 10.0)" if self.scores == "float64" else ""
        count = f"{self.num_systems - self.joined} + {self.joined} joined = " if self.joined else ""
        itself = (f" + the run itself (S = {self.num_systems + 1} for a run that is not a member; a run equal to a "
                  f"member is scored as that member, S = {self.num_systems})") if alone else ""
        return f"{self.source}: S = {count}{self.num_systems} {systems}{runs}{itself}{depth_text}{scores}"

    def as_dict(self, depths: Sequence[int | None] = ()) -> dict[str, object]:
        """The same facts as a plain dict (for ``DataFrame.attrs`` and JSON)."""
        return {"S": self.num_systems, "systems": self.systems, "runs": self.n_runs,
                "depths": list(dict.fromkeys(depths)) or list(self.depths), "source": self.source,
                "scores": self.scores, **({"joined": self.joined} if self.joined else {})}


@runtime_checkable
class Campaign(Protocol):
    """What the engine needs from the campaign a run is scored against."""

    @property
    def scores(self) -> ScorePrecision:
        """How scores were compared when the campaign's rankings were ordered; evaluated runs are ordered alike."""
        ...

    def vocabularies(self) -> tuple[pd.Index, pd.Index]:
        """Query-id and docno vocabularies; a code is a position in them."""
        ...

    def num_systems_at(self, depth: int | None) -> int:
        """S for S_d counted at ``depth``."""
        ...

    def count_keys(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        """S_d at ``depth`` of each (query, document) pair key (0 where no system retrieved it).

        Raises:
            ParameterError: S_d is not available at that depth.

        """
        ...

    def find_members(self, runs: RankedRuns, depth: int | None) -> list[str | None]:
        """For each run of ``runs``, the member whose ranked lists to ``depth`` are the same, or None."""
        ...

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int]:
        """Novelty: sorted pair keys, the sum over the campaign's runs of P(D=d|S=y) of each, and the run count.

        Raises:
            ParameterError: the campaign does not keep its runs.

        """
        ...

    def info(self) -> CampaignInfo:
        """What the campaign is (S, what it counts, its runs and depths)."""
        ...


@runtime_checkable
class MemberCampaign(Campaign, Protocol):
    """A campaign that keeps its runs, so its members can be scored all at once."""

    @property
    def names(self) -> list[str]:
        """Names of the member runs."""
        ...

    def member_rows(self, qrels: EncodedQrels, runs: slice | None = None) -> Rows:
        """Rows of every member within the qrels' queries, scored with the campaign's own S and S_d.

        With ``runs`` (a block of consecutive positions in :attr:`names`), the rows of those members only.
        """
        ...

    def member_blocks(self, max_rows: int) -> list[slice]:
        """The members in consecutive blocks (slices of :attr:`names`) of at most ``max_rows`` rows each.

        A member longer than that is a block of its own. A block is what one pass of the engine holds at a time.
        """
        ...

    def run(self, name: str) -> pd.DataFrame:
        """One member run as a frame ``query_id, doc_id, score, rank``."""
        ...
