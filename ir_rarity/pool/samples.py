r"""Scores against changed campaigns made from a pool: samples of its runs, and the pool joined by one more system.

Both are the computational core of the robustness experiments of Türkmen, Lease & Kutlu (ECIR 2023):

* :class:`SubsetScorer` scores any sample of a pool's runs with S and S_d counted on the sample alone, as
  :meth:`Pool.subset <ir_rarity.Pool.subset>` would give them (Algorithm 1 / Table 3, Section 4.5), without
  building a pool per sample.
* :func:`newcomer_prefix_scores` scores a newcomer's top n documents, n = 1, 2, ..., and the pool's runs with that
  newcomer taking part (:math:`S + 1`, its documents counted in :math:`S_d`): the synthetic experiment of
  Section 3 / Figure 1, without re-encoding the newcomer for every n.

Every result is a per-query matrix; :mod:`ir_rarity.meta.robustness` turns them into the paper's tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from ir_measures import Measure

from ir_rarity.engine.codes import sorted_lookup
from ir_rarity.engine.compute import compute
from ir_rarity.engine.evaluate import rows_for_runs
from ir_rarity.engine.novelty import probability_table
from ir_rarity.engine.qrels import EncodedQrels
from ir_rarity.engine.rows import Rows, Selection, Subrows
from ir_rarity.errors import ParameterError
from ir_rarity.pool.pool import Pool

__all__ = ["PrefixScores", "SubsetScorer", "newcomer_prefix_scores"]


def _encoded(pool: Pool, qrels: Any) -> EncodedQrels:
    return qrels if isinstance(qrels, EncodedQrels) else pool.encode_qrels(qrels)


class SubsetScorer:
    """Scores of any sample of a pool's runs with S and S_d counted on the sample only.

    The pool's rows within the qrels' queries, their labels and dense (query, document) pair ids are made once;
    a sample then gathers its runs' rows and counts S_d with one ``bincount`` per depth. The values equal those of
    ``evaluate_campaign(pool.subset(names), qrels, [measure])`` (tested), several times faster. A pool built with
    teams (S counts the distinct teams of the sample) is scored through :meth:`Pool.subset <ir_rarity.Pool.subset>`.

    Args:
        pool: The campaign.
        qrels: Its qrels, in any shape :meth:`Pool.evaluate <ir_rarity.Pool.evaluate>` accepts, or encoded.

    """

    def __init__(self, pool: Pool, qrels: Any) -> None:
        self.pool = pool
        self.qrels = _encoded(pool, qrels)
        self.full = pool.member_rows(self.qrels)
        runs = np.arange(len(pool))
        self.start = np.searchsorted(self.full.run, runs, side="left")
        self.end = np.searchsorted(self.full.run, runs, side="right")
        self.unique_keys, pair = np.unique(self.full.keys(), return_inverse=True)
        self.pair = pair.reshape(-1)
        self._relevant_rows: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def scores(self, measure: Measure, picked: Sequence[int] | np.ndarray) -> np.ndarray:
        """Per-query values ``(len(picked), n_queries)`` of the runs ``picked`` (pool positions), pooled alone.

        Raises:
            ParameterError: the measure is not one of ir_rarity's, or a parameter is out of range.

        """
        picked = np.asarray(picked, dtype=np.int64)
        if self.pool.encoded.by_team:
            names = [self.pool.names[i] for i in picked]
            return compute(measure, self.pool.subset(names).member_rows(self.qrels))
        return compute(measure, self._rows(measure, picked))

    def _rows(self, measure: Measure, picked: np.ndarray) -> Rows:
        full, n = self.full, len(picked)
        sample = _rows_of(self.start, self.end, picked)
        sample_run = np.repeat(np.arange(n), self.end[picked] - self.start[picked])
        # Measures that score relevant rows only see the sample's relevant rows (S_d still counts all its rows).
        if getattr(measure, "RELEVANT_ROWS_ONLY", False) and not measure["judged_only"]:
            chosen, start, end = self._relevant(measure["rel"])
            kept = chosen[_rows_of(start, end, picked)]
            run = np.repeat(np.arange(n), end[picked] - start[picked])
        else:
            kept, run = sample, sample_run
        source = _Sample(self, sample, sample_run, kept, n)
        return Rows(run=run, query=full.query[kept], rank=full.rank[kept], present=full.present[picked], n_runs=n,
                    qrels=self.qrels, source=source)

    def _relevant(self, rel: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pool's rows relevant at ``rel``, and each run's first and past-last position among them."""
        if rel not in self._relevant_rows:
            chosen = np.flatnonzero(self.full.relevant(rel))
            runs, run_of = np.arange(len(self.pool)), self.full.run[chosen]
            self._relevant_rows[rel] = (chosen, np.searchsorted(run_of, runs, side="left"),
                                        np.searchsorted(run_of, runs, side="right"))
        return self._relevant_rows[rel]


def _rows_of(start: np.ndarray, end: np.ndarray, picked: np.ndarray) -> np.ndarray:
    """Row numbers of runs ``picked`` (in that order), runs holding rows ``start[r]`` to ``end[r]`` - 1."""
    lengths = end[picked] - start[picked]
    offsets = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.repeat(start[picked], lengths) + offsets


class _Sample(Subrows):
    """Rows ``kept`` of the pool (labels and keys read there), with S and S_d counted on the sample's rows alone.

    ``sample`` are all the sample's rows (what S_d counts), ``sample_run`` the position of each one's run in the
    sample; ``kept`` the rows scored (all of ``sample``, or its relevant rows only); ``n_runs`` the sample's size.
    """

    def __init__(self, scorer: SubsetScorer, sample: np.ndarray, sample_run: np.ndarray, kept: np.ndarray,
                 n_runs: int) -> None:
        super().__init__(scorer.full, kept)
        self.scorer, self.sample, self.sample_run, self.n_runs = scorer, sample, sample_run, n_runs
        self.kept_pair = scorer.pair[kept]
        self.tables: dict[int | None, np.ndarray] = {}

    def _table(self, depth: int | None) -> np.ndarray:
        """S_d at ``depth`` of every pair key of the pool, counted on the sample's rows."""
        if depth not in self.tables:
            pair = self.scorer.pair[self.sample]
            within = pair if depth is None else pair[self.scorer.full.rank[self.sample] < depth]
            self.tables[depth] = np.bincount(within, minlength=len(self.scorer.unique_keys))
        return self.tables[depth]

    def s_d(self, depth: int | None, rows: Selection) -> tuple[np.ndarray, np.ndarray]:
        """S_d counted on the sample; S = the sample's size."""
        pair = self.kept_pair if rows is None else self.kept_pair[rows]
        return self._table(depth)[pair].astype(np.float64), np.full(self.n_runs, float(self.n_runs))

    def campaign_s_d(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        """S_d of any pair keys counted on the sample (0 outside it)."""
        return sorted_lookup(self.scorer.unique_keys, self._table(depth), keys, 0)

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """The sample's runs' summed reading probabilities; every sampled run is a member."""
        full = self.scorer.full
        keys, sums = probability_table(full.keys(self.sample), full.rank[self.sample], self.sample_run,
                                       full.query[self.sample], cutoff)
        return keys, sums, self.n_runs, np.ones(self.n_runs, dtype=bool)


class PrefixScores(NamedTuple):
    """Result of :func:`newcomer_prefix_scores` for one measure."""

    newcomer: np.ndarray
    """``(len(lengths), n_queries)``: the newcomer's top-n ranking, scored as if it alone had joined the pool."""
    members: np.ndarray
    """``(len(lengths), len(pool), n_queries)``: the pool's runs, scored with that newcomer taking part."""


def newcomer_prefix_scores(pool: Pool, qrels: Any, measures: Sequence[Any], run: pd.DataFrame,
                           lengths: Sequence[int]) -> dict[Any, PrefixScores]:
    r"""Scores of a newcomer cut to its top n documents, and of the pool's runs with it, for each n of ``lengths``.

    The hypothetical system of the synthetic experiment of Türkmen, Lease & Kutlu (ECIR 2023), Section 3, takes
    part "as if it had participated with the real participants": :math:`S + 1` systems, and each of its documents
    within the depth S_d is counted at adds one to :math:`S_d`, for its own score (as the evaluation rule scores a
    newcomer) and for the pool's runs alike. A newcomer's S_d of a document does not depend on how many documents
    it retrieves, so the run is encoded and counted once and cut at each n (equal to scoring the cut run itself,
    tested).

    Args:
        pool: The campaign.
        qrels: Its qrels (any shape :meth:`Pool.evaluate <ir_rarity.Pool.evaluate>` accepts, or encoded).
        measures: ir_rarity measures (objects).
        run: The newcomer, a canonical run frame (``query_id, doc_id, score``); it is not one of the pool's runs.
        lengths: The n to cut the newcomer's ranking of each query at (each >= 1).

    Returns:
        Measure -> :class:`PrefixScores`.

    Raises:
        ParameterError: a length below 1, or a measure the engine does not compute.

    """
    if any(int(n) < 1 for n in lengths):
        raise ParameterError(f"lengths must be >= 1, got {list(lengths)}")
    encoded = _encoded(pool, qrels)
    newcomer, _ = rows_for_runs(pool, {"newcomer": run}, encoded)
    members = pool.member_rows(encoded)
    out: dict[Any, PrefixScores] = {}
    for m in measures:
        alone, joined = [], []
        for n in lengths:
            prefix = np.flatnonzero(newcomer.rank < int(n))
            alone.append(compute(m, newcomer.select(prefix))[0])
            source = _JoinedBy(members, newcomer.keys(prefix), newcomer.rank[prefix], pool.num_systems + 1)
            joined.append(compute(m, Rows(run=members.run, query=members.query, rank=members.rank,
                                          present=members.present, n_runs=members.n_runs, qrels=encoded,
                                          source=source)))
        n_queries = len(encoded.query_ids)
        out[m] = PrefixScores(np.array(alone).reshape(len(lengths), n_queries),
                              np.array(joined).reshape(len(lengths), members.n_runs, n_queries))
    for rows in (newcomer, members):
        rows.release()
    return out


class _JoinedBy(Subrows):
    """A pool's own rows rescored as if one more system, retrieving ``keys`` at ``rank``, had joined.

    S becomes ``num_systems`` (the pool's S + 1) and S_d of each of those documents within the depth grows by one.
    """

    def __init__(self, members: Rows, keys: np.ndarray, rank: np.ndarray, num_systems: int) -> None:
        super().__init__(members)
        self.joined_keys, self.joined_rank = keys, rank
        self.num_systems = np.full(members.n_runs, float(num_systems))

    def _within(self, depth: int | None) -> np.ndarray:
        return self.joined_keys if depth is None else self.joined_keys[self.joined_rank < depth]

    def s_d(self, depth: int | None, rows: Selection) -> tuple[np.ndarray, np.ndarray]:
        """The pool's S_d, plus one where the joining system retrieves the document within ``depth``."""
        s_d, _ = self.parent.s_d(depth, rows)
        return s_d + np.isin(self.parent.keys(rows), self._within(depth)), self.num_systems

    def campaign_s_d(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        """The pool's S_d of any pair keys, plus the joining system's."""
        return self.parent.source.campaign_s_d(keys, depth) + np.isin(keys, self._within(depth))

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """Not kept: the joining system is known by its documents only."""
        raise ParameterError("the novelty utility is not computed for a pool joined by a hypothetical system")

