r"""Scores against changed campaigns made from a pool: samples of its runs, and the pool joined by one more system.

Both are the computational core of the robustness experiments of Türkmen, Lease & Kutlu (ECIR 2023):

* :class:`SubsetScorer` scores any sample of a pool's runs with S and S_d counted on the sample alone, as
  :meth:`Pool.subset <ir_rarity.Pool.subset>` would give them (Algorithm 1 / Table 3, Section 4.5), without
  building a pool per sample; :meth:`SubsetScorer.batch_scores` scores many samples (trials) at once: measures
  affine in S_d from a table of misses per pair of runs (:mod:`ir_rarity.engine.overlaps`), others with S_d of every
  trial of a chunk counted at once (one ``bincount``, or one sparse product; see :class:`_Batch`) and the
  measure's kernel run once per chunk of trials.
* :func:`newcomer_prefix_scores` scores a newcomer's top n documents, n = 1, 2, ..., and the pool's runs with that
  newcomer taking part (:math:`S + 1`, its documents counted in :math:`S_d`): the synthetic experiment of
  Section 3 / Figure 1, without re-encoding the newcomer for every n.

Every result is a per-query matrix; :mod:`ir_rarity.meta.robustness` turns them into the paper's tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeGuard

import numpy as np
import pandas as pd
import scipy.sparse as sparse
from ir_measures import Measure

from ir_rarity.engine.affine import is_affine
from ir_rarity.engine.codes import sorted_lookup
from ir_rarity.engine.compute import compute, s_d_depth
from ir_rarity.engine.families import is_engine_measure
from ir_rarity.engine.kernels import block_rows
from ir_rarity.engine.novelty import probability_table
from ir_rarity.engine.overlaps import MissTable
from ir_rarity.engine.qrels import EncodedQrels
from ir_rarity.engine.rows import Rows, Selection, Subrows
from ir_rarity.engine.rule import rows_for_runs
from ir_rarity.errors import ParameterError
from ir_rarity.measures import FAMILIES
from ir_rarity.measures.base import RarityMeasure

if TYPE_CHECKING:  # the engine knows the pool's type only for checking; it calls its methods
    from ir_rarity.pool.pool import Pool

__all__ = ["BATCHED_FAMILIES", "CHUNK_ELEMENTS", "PrefixScores", "SubsetScorer", "newcomer_prefix_scores"]

BATCHED_FAMILIES: frozenset[str] = frozenset(str(m.NAME) for m in FAMILIES if m.BATCHES_SAMPLES)
"""Measure families :meth:`SubsetScorer.batch_scores` scores many trials at once: their kernels read S and the S_d of
their own rows only. ``R_rare`` (the campaign's S_d of documents not retrieved) and ``U_novel`` (the campaign's
reading probabilities) read what differs per trial otherwise, and are scored trial by trial."""

CHUNK_ELEMENTS = 1 << 16
"""Bound on the rows, and on the (document, trial) S_d counts, that :meth:`SubsetScorer.batch_scores` holds at once
(chunks of trials are cut to stay below it; one trial is always scored whole). A chunk's arrays stay well below a
MiB: in the command line's process, which gives freed blocks of a MiB or more back at once (``ir-rarity``'s
allocator settings), larger chunks fault their pages in anew chunk after chunk (round 1, 1000 trials: 1.5 M page
faults at 2**17, 0.7 M at 2**16, and 0.5 s slower)."""


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
        self._incidence: dict[int | None, sparse.csc_matrix] = {}
        self._incidence_columns: dict[tuple[int | None, Any], sparse.csc_matrix] = {}
        self._scored_rows: dict[tuple[int, int | None], _ScoredRows] = {}
        self._miss_tables: dict[tuple[object, ...], MissTable] = {}

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

    def batch_scores(self, measure: Measure, picked: np.ndarray, done: Callable[[int], None] | None = None
                     ) -> np.ndarray:
        r"""Per-query values ``(trials, n, n_queries)`` of many samples: row t holds :meth:`scores` of ``picked[t]``.

        Trial t pools the N runs ``picked[t]`` alone: :math:`S = N` (or the number of distinct teams among them)
        and :math:`S^{(t)}_d = \sum_{r \in picked[t]} M_{r,d}`, M the runs x (query, document) incidence
        matrix at the measure's depth (:math:`M_{r,d} = 1` when run r retrieves d within it). For a chunk of
        trials that is the trials x pairs matrix :math:`X M`, X the trials x runs selection matrix, restricted
        to the pairs the scored rows hold: one ``bincount`` of the chunk's own rows when they hold every row of
        those pairs within the depth (measures scoring relevant rows, S_d counted within the cutoff), else one
        sparse product. The chunk's samples are stacked as ``trials * N`` runs (run ``t * N + i`` is
        ``picked[t, i]``) and the measure's kernel runs once on them. Measures that score relevant rows only
        (``P_rare``, ``AP_rare``, ``nDCG_rare``) read no row past their cutoff, so only the rows within it are
        gathered. Kernels work cell by cell (one run, one query) and every cell's rows
        and S_d are those :meth:`scores` reads, so the values are equal to it, to the last bit (tested).

        Measures affine in S_d (:func:`ir_rarity.engine.affine.is_affine`: linear rarity, P_rare, AP_rare,
        nDCG_rare) skip the rows: a :class:`~ir_rarity.engine.overlaps.MissTable` of the pool, made once, gives
        each trial from its N x N block, within 1e-13 of :meth:`scores` (the same sums, regrouped; tested), for
        campaigns whose table fits :data:`~ir_rarity.engine.overlaps.TABLE_ELEMENTS` (not for pools with teams).
        Families outside :data:`BATCHED_FAMILIES` are scored trial by trial with :meth:`scores`.

        Args:
            measure: An ir_rarity measure (object).
            picked: ``(trials, N)`` pool positions, one sample per row (N distinct runs each).
            done: Called with the number of trials scored after each chunk (a progress bar's ``update``).

        Raises:
            ParameterError: ``picked`` is not 2-D, or the measure is not one of ir_rarity's or a parameter is
                out of range.

        """
        return self.batch_scores_of([measure], picked, done)[measure]

    def batch_scores_of(self, measures: Sequence[Measure], picked: np.ndarray,
                        done: Callable[[int], None] | None = None) -> dict[Measure, np.ndarray]:
        """:meth:`batch_scores` of several measures on the same samples: measure -> ``(trials, n, n_queries)``.

        Batched measures that read the same rows (relevant at the same threshold within the same cutoff, or whole
        rankings) share each chunk's rows, and what they read of them once (cells, S_d counts): each measure is
        computed on them in turn. The values are each measure's :meth:`batch_scores`.

        Args:
            measures: ir_rarity measures (objects).
            picked: ``(trials, N)`` pool positions, one sample per row (N distinct runs each).
            done: Called after each chunk with the number of (trial, measure) scores it made.

        Raises:
            ParameterError: ``picked`` is not 2-D, or a measure is not one of ir_rarity's or a parameter is
                out of range.

        """
        picked = np.asarray(picked, dtype=np.int64)
        if picked.ndim != 2:
            raise ParameterError(f"picked must be a trials x N array of pool positions, got shape {picked.shape}")
        trials, n = picked.shape
        out = {m: np.empty((trials, n, len(self.qrels.query_ids))) for m in measures}
        groups: dict[Any, list[Measure]] = {}
        for i, m in enumerate(measures):
            if self._by_misses(m, n):
                m.validate_params()  # (as compute() does on the rows' way)
                out[m] = self._miss_table(m).scores(m, picked, done)
                continue
            batched = str(getattr(m, "NAME", "")) in BATCHED_FAMILIES
            groups.setdefault(self._rows_key(m) if batched else ("one by one", i), []).append(m)
        for key, group in groups.items():
            first = group[0]
            for chunk in (self._chunks(first, picked) if key[0] != "one by one"
                          else (slice(t, t + 1) for t in range(trials))):
                if key[0] != "one by one":
                    rows = self._batch_rows(first, picked[chunk])
                    for m in group:  # the same rows, S_d counts and cells for every measure of the group
                        out[m][chunk] = compute(m, rows).reshape(-1, n, len(self.qrels.query_ids))
                    rows.release()
                else:
                    out[first][chunk] = self.scores(first, picked[chunk][0])[None]
                if done is not None:
                    done(len(range(*chunk.indices(trials))) * len(group))
        return out

    def _by_misses(self, measure: Measure, n: int) -> TypeGuard[RarityMeasure]:
        """Whether samples of ``n`` runs are scored from a :class:`~ir_rarity.engine.overlaps.MissTable`."""
        return (not self.pool.encoded.by_team and isinstance(measure, RarityMeasure) and is_engine_measure(measure)
                and is_affine(measure, n) and MissTable.fits(len(self.pool), len(self.qrels.query_ids)))

    def _miss_table(self, measure: Measure) -> MissTable:
        """The :class:`~ir_rarity.engine.overlaps.MissTable` of the measure's rows (made once per its key)."""
        key = MissTable.key(measure)
        if key not in self._miss_tables:
            scored = self._scored(measure)
            incidence = self._incidence_matrix(s_d_depth(measure))[:, scored.columns]
            self._miss_tables[key] = MissTable(measure, self.qrels, self.full.run[scored.chosen], scored.query,
                                               scored.rank, self.full.labels(scored.chosen), scored.column,
                                               incidence, self.full.present)
        return self._miss_tables[key]

    def _rows_key(self, measure: Measure) -> tuple[Any, ...]:
        """What :meth:`_batch_rows` gathers for ``measure``: measures of one key read the same rows."""
        if self._relevant_only(measure):
            return ("relevant", measure["rel"], measure["cutoff"])
        return ("all",)

    def _chunks(self, measure: Measure, picked: np.ndarray) -> Iterator[slice]:
        """Consecutive trials in chunks of at most :data:`CHUNK_ELEMENTS` rows and S_d counts (one trial at least)."""
        if self._relevant_only(measure):
            scored = self._scored(measure)
            rows_per_trial = (scored.end - scored.start)[picked].sum(axis=1)
            columns = len(scored.columns)
        else:
            rows_per_trial = (self.end - self.start)[picked].sum(axis=1)
            columns = len(self.unique_keys)
        size = max(1, CHUNK_ELEMENTS // max(int(rows_per_trial.max(initial=0)), columns, 1))
        for first in range(0, len(picked), size):
            yield slice(first, first + size)

    @staticmethod
    def _relevant_only(measure: Measure) -> bool:
        """Whether the measure scores relevant rows only (S_d still counts all the sample's rows)."""
        return bool(getattr(measure, "RELEVANT_ROWS_ONLY", False) and not measure["judged_only"])

    def _scored(self, measure: Measure) -> _ScoredRows:
        """The pool's rows a batched relevant-rows measure reads: relevant at its ``rel``, ranked within its cutoff.

        The kernels of :data:`BATCHED_FAMILIES` read no row past the cutoff (``_cut`` drops them first), so
        leaving them out changes no value and saves gathering them for every trial.
        """
        key = (measure["rel"], measure["cutoff"])
        if key not in self._scored_rows:
            cutoff = measure["cutoff"]
            relevant = self.full.relevant(measure["rel"])
            chosen = np.flatnonzero(relevant if cutoff is None else relevant & (self.full.rank < cutoff))
            runs, run_of = np.arange(len(self.pool)), self.full.run[chosen]
            columns, column = np.unique(self.pair[chosen], return_inverse=True)
            self._scored_rows[key] = _ScoredRows(chosen, np.searchsorted(run_of, runs, side="left"),
                                                 np.searchsorted(run_of, runs, side="right"), self.full.query[chosen],
                                                 self.full.rank[chosen], columns, column.reshape(-1), key)
        return self._scored_rows[key]

    def _batch_rows(self, measure: Measure, picked: np.ndarray) -> Rows:
        """The rows of the trials ``picked`` (``trials x N``), stacked as ``trials * N`` runs, counted per trial."""
        full, n = self.full, picked.shape[1]
        flat = picked.reshape(-1)
        if self._relevant_only(measure):
            scored = self._scored(measure)
            lengths = (scored.end - scored.start)[flat]
            index = _rows_of(scored.start, scored.end, flat)
            kept, query, rank = scored.chosen[index], scored.query[index], scored.rank[index]
            pairs, column, key, whole = scored.columns, scored.column[index], scored.key, measure["cutoff"]
            relevant_at = measure["rel"]
        else:
            lengths = (self.end - self.start)[flat]
            kept = _rows_of(self.start, self.end, flat)
            query, rank = full.query[kept], full.rank[kept]
            pairs, column = np.unique(self.pair[kept], return_inverse=True)
            column, key, whole, relevant_at = column.reshape(-1), None, None, None
        run = np.repeat(np.arange(len(flat)), lengths)
        # position of each row's count in the trials x pairs S_d matrix: its trial's first entry plus its column
        cell = np.repeat(np.arange(len(picked)) * len(pairs), lengths.reshape(-1, n).sum(axis=1))
        cell += column
        source = _Batch(self, kept, picked, _Columns(pairs, cell, key, rank, whole, relevant_at))
        return Rows(run=run, query=query, rank=rank, present=full.present[flat], n_runs=len(flat), qrels=self.qrels,
                    source=source)

    def systems(self, picked: np.ndarray) -> np.ndarray:
        """S of each sample (row of ``picked``): its number of runs, or of distinct teams for a pool with teams."""
        if not self.pool.encoded.by_team:
            return np.full(len(picked), float(picked.shape[1]))
        codes = np.sort(np.asarray(self.pool.encoded.system)[picked], axis=1)
        return 1.0 + (np.diff(codes, axis=1) != 0).sum(axis=1)

    def sample_counts(self, depth: int | None, picked: np.ndarray, pairs: np.ndarray, key: Any = None
                      ) -> np.ndarray:
        r"""S_d at ``depth`` of the pair ids ``pairs`` in each sample (row of ``picked``): ``(trials, len(pairs))``.

        :math:`C = X M_{\cdot,D}`, M the runs x pairs incidence matrix at ``depth`` restricted to the
        pairs D, X the trials x runs selection matrix (:math:`X_{t,r} = 1` when run r is in sample t); the sums
        are of small integers, exact in floats. A pool with teams counts, per team, whether any of its sampled
        runs retrieves the document. ``key`` names ``pairs`` when they are asked for again (the column slice of M
        is then kept).
        """
        incidence = self._columns_of(depth, pairs, key)
        selection = np.zeros((len(picked), len(self.pool)))
        selection[np.arange(len(picked))[:, None], picked] = 1.0
        if not self.pool.encoded.by_team:
            return np.ascontiguousarray(np.asarray(incidence.T @ selection.T).T)
        system = np.asarray(self.pool.encoded.system)
        counts = np.zeros((len(pairs), len(picked)))
        for team in np.unique(system[picked]):
            members = np.flatnonzero(system == team)
            counts += np.asarray(incidence[members].T @ selection[:, members].T) > 0
        return np.ascontiguousarray(counts.T)

    def _columns_of(self, depth: int | None, pairs: np.ndarray, key: Any) -> sparse.csc_matrix:
        """Columns ``pairs`` of M at ``depth`` (kept under ``(depth, key)`` unless ``key`` is None)."""
        if key is None:
            return self._incidence_matrix(depth)[:, pairs]
        if (depth, key) not in self._incidence_columns:
            self._incidence_columns[(depth, key)] = self._incidence_matrix(depth)[:, pairs]
        return self._incidence_columns[(depth, key)]

    def _incidence_matrix(self, depth: int | None) -> sparse.csc_matrix:
        """M at ``depth``: pool runs x pair ids, the number of the run's rows of that pair within ``depth``."""
        if depth not in self._incidence:
            full = self.full
            within = slice(None) if depth is None else full.rank < depth
            run, pair = full.run[within], self.pair[within]
            self._incidence[depth] = sparse.csc_matrix((np.ones(len(run)), (run, pair)),
                                                       shape=(len(self.pool), len(self.unique_keys)))
        return self._incidence[depth]

    def _rows(self, measure: Measure, picked: np.ndarray) -> Rows:
        full, n = self.full, len(picked)
        sample = _rows_of(self.start, self.end, picked)
        sample_run = np.repeat(np.arange(n), self.end[picked] - self.start[picked])
        # Measures that score relevant rows only see the sample's relevant rows (S_d still counts all its rows).
        if self._relevant_only(measure):
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
    return block_rows(start[picked], end[picked] - start[picked])


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


class _ScoredRows(NamedTuple):
    """The pool's rows a batched measure scores (:meth:`SubsetScorer._scored`), and the pairs they hold."""

    chosen: np.ndarray
    """Row numbers in the pool's rows, sorted (so by run)."""
    start: np.ndarray
    """Each pool run's first position in ``chosen``."""
    end: np.ndarray
    """Each pool run's past-last position in ``chosen``."""
    query: np.ndarray
    """Query position of each chosen row."""
    rank: np.ndarray
    """Rank of each chosen row."""
    columns: np.ndarray
    """The distinct pair ids of those rows, sorted."""
    column: np.ndarray
    """Position in ``columns`` of each chosen row's pair."""
    key: tuple[int, int | None]
    """``(rel, cutoff)``: names ``columns`` for :meth:`SubsetScorer.sample_counts`."""


class _Columns(NamedTuple):
    """The pair ids a batch's rows hold, where each row's S_d is in the trials x pairs counts, and their name."""

    pairs: np.ndarray
    """Pair ids (columns of the counts)."""
    cell: np.ndarray
    """``trial * len(pairs) + position of the row's pair in pairs``: each row's entry of the raveled counts."""
    key: Any
    """Names ``pairs`` for :meth:`SubsetScorer.sample_counts` (None: not kept)."""
    rank: np.ndarray
    """Rank of each row."""
    whole: int | None
    """The rows hold every row of the sampled runs with one of ``pairs`` ranked above this (None: at any rank)."""
    relevant_at: int | None = None
    """Every row is relevant at this threshold (the rows a relevant-rows measure scores); None: any rows."""

    def counted_by_rows(self, depth: int | None) -> bool:
        """Whether S_d at ``depth`` of ``pairs`` in a trial is the number of the trial's rows of the pair within it."""
        return self.whole is None or (depth is not None and depth <= self.whole)

    def all_within(self, depth: int | None) -> bool:
        """Whether every row is ranked above ``depth`` (the rows were cut there or higher)."""
        return depth is None or (self.whole is not None and self.whole <= depth)


class _Batch(Subrows):
    """Rows ``kept`` of the pool for many trials stacked as runs, S_d of each row counted in its trial's sample.

    ``picked`` are the trials' samples (``trials x N`` pool positions) and ``columns`` the pairs the rows hold and
    where each row's S_d is among the trials' counts. S of stacked run ``t * N + i`` is S of trial t.
    """

    def __init__(self, scorer: SubsetScorer, kept: np.ndarray, picked: np.ndarray, columns: _Columns) -> None:
        super().__init__(scorer.full, kept)
        self.scorer, self.picked, self.columns = scorer, picked, columns
        self.num_systems = np.repeat(scorer.systems(picked), picked.shape[1])
        self.counts: dict[int | None, np.ndarray] = {}

    def s_d(self, depth: int | None, rows: Selection) -> tuple[np.ndarray, np.ndarray]:
        """S_d counted in each row's trial (one product per depth for the whole batch); S of each stacked run."""
        if depth not in self.counts:
            self.counts[depth] = self._counts(depth)
        cell = self.columns.cell if rows is None else self.columns.cell[rows]
        return self.counts[depth][cell], self.num_systems

    def relevant(self, rel: int) -> np.ndarray:
        """Relevance at ``rel``: every row when the rows are those relevant at ``rel`` or above (no labels read)."""
        at = self.columns.relevant_at
        if at is not None and rel <= at:  # label >= at >= rel, and never negative
            return np.ones(len(self.columns.cell), dtype=bool)
        return super().relevant(rel)

    def _counts(self, depth: int | None) -> np.ndarray:
        """The trials x pairs S_d at ``depth``, raveled (as ``columns.cell`` indexes it).

        When the rows hold every row of the sampled runs of those pairs within ``depth`` (whole rankings, or
        relevant pairs with ``depth`` up to the cutoff the rows were cut at: a pair is relevant or not whoever
        retrieves it), S_d is one ``bincount`` of the rows' cells; otherwise (a deeper depth, a pool with teams)
        the sparse product of :meth:`SubsetScorer.sample_counts`.
        """
        columns = self.columns
        if columns.counted_by_rows(depth) and not self.scorer.pool.encoded.by_team:
            within = columns.cell if columns.all_within(depth) else columns.cell[columns.rank < depth]
            return np.bincount(within, minlength=len(self.picked) * len(columns.pairs)).astype(np.float64)
        return self.scorer.sample_counts(depth, self.picked, columns.pairs, columns.key).reshape(-1)

    def campaign_s_d(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        """Not one campaign: each trial has its own (families reading it are not batched)."""
        raise ParameterError("stacked trials have one campaign each; score this measure trial by trial")

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """Not one campaign: each trial has its own (families reading it are not batched)."""
        raise ParameterError("stacked trials have one campaign each; score this measure trial by trial")


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

