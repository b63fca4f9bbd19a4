"""The value type of a campaign's runs, ordered and encoded once: what a pool is made of and what storage saves.

Query ids and docnos are factorized into sorted vocabularies (``pd.Index``); every row is one (run, query,
document) with its score and 0-based rank in trec_eval order; rows are sorted by (run, query, rank). A *system*
is what S counts: each run is its own system, unless runs were grouped into teams.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ir_rarity.engine.codes import ScorePrecision, decode_keys, pair_keys

__all__ = ["EncodedRuns"]


@dataclass(frozen=True, eq=False)
class EncodedRuns:
    """A campaign's runs as integer arrays.

    Attributes:
        names: Run names, in the order given.
        queries: Sorted query-id vocabulary; a row's ``query`` is a position in it.
        docs: Sorted docno vocabulary; a row's ``doc`` is a position in it.
        run: Run index of each row.
        query: Query code of each row.
        doc: Document code of each row.
        score: Score of each row, as given.
        rank: 0-based rank of each row in its run's ranking for the query (trec_eval order); every ranking the
            campaign holds starts at rank 0 (members' rows tell which queries a run answered by their rank-0 row).
        system: System (team) code of each run; S is the number of distinct codes.
        system_names: Name of each system code.
        scores: How scores were compared when the rankings were ordered
            (:data:`~ir_rarity.engine.codes.ScorePrecision`: ``"float32"`` as pytrec_eval, ``"float64"`` as
            trec_eval 10.0).
        returned: When the runs were read keeping only the rows their measures read (see
            :class:`~ir_rarity.pool.build.retention.Retention`): how many documents each ranking returned, one per
            rank-0 row, in row order; ranks then count every row of the whole run. None: every row is kept.
        kept_depth: With ``returned``: the depth down to which every row is kept (S_d, fingerprints and reading
            probabilities are whole only to there).

    """

    names: tuple[str, ...]
    queries: pd.Index
    docs: pd.Index
    run: np.ndarray
    query: np.ndarray
    doc: np.ndarray
    score: np.ndarray
    rank: np.ndarray
    system: np.ndarray
    system_names: tuple[str, ...]
    scores: ScorePrecision = "float32"
    returned: np.ndarray | None = None
    kept_depth: int | None = None

    def __post_init__(self) -> None:
        n = len(self.run)
        if any(len(a) != n for a in (self.query, self.doc, self.score, self.rank)):
            raise ValueError("row arrays differ in length")
        if self.returned is not None and len(self.returned) != int(np.count_nonzero(self.rank == 0)):
            raise ValueError("one number returned per ranking (rank-0 row) is needed")
        if len(self.system) != len(self.names):
            raise ValueError("one system code per run is needed")

    @property
    def n_rows(self) -> int:
        """Number of rows."""
        return len(self.run)

    @property
    def num_systems(self) -> int:
        """S: the number of systems (runs, or teams)."""
        return len(self.system_names)

    @property
    def by_team(self) -> bool:
        """Whether S counts teams of several runs rather than runs."""
        return self.num_systems != len(self.names)

    def keys(self) -> np.ndarray:
        """The (query, document) pair key of every row."""
        return pair_keys(self.query, self.doc)

    def decode(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Query ids and docnos of pair keys in this vocabulary."""
        return decode_keys(self.queries, self.docs, keys)

    def run_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """First row and one past the last row of each run."""
        runs = np.arange(len(self.names), dtype=self.run.dtype)  # the same dtype: no converted copy of ``run``
        return np.searchsorted(self.run, runs, side="left"), np.searchsorted(self.run, runs, side="right")
