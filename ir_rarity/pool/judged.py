r"""A pool of every run's judged rows: the campaign's exact S_d of judged documents, at any depth, from few rows.

The rarity measures weigh a relevant document by :math:`w(d) = 1 + \alpha (1 - S_d / S)` (Türkmen, Lease & Kutlu,
ECIR 2023, eq. 2): of :math:`S_d` they read only the counts of *judged* documents, and of a run only its judged
rows (with their ranks in the whole run) and how many documents each ranking returned; ASL and the standard
measures read no more. A pool that holds, for every run, exactly those rows (:func:`judged_retention`: each
ranking's first row, every judged row at any rank, each ranking's length) holds, for every judged pair, every row
of every run that retrieved it, so counting its rows within a depth gives the campaign's :math:`S_d` of that pair
exactly, at every depth (``Pool.from_runs(..., judged_counts=True)``). Its memory is the runs' judged rows, not
all their rows.

What re-scores the campaign's runs under other campaigns made from them (composition intervals:
leave-one-team-out and a bootstrap over teams, :func:`ir_rarity.compare.uncertainty.composition`; the samples of
runs of Algorithm 1, :func:`ir_rarity.meta.robustness.robustness_tables`) recounts :math:`S_d` from the pool's
rows with weights or on a sample: on this pool, the recount of a judged pair is exact too. So a campaign read in
two passes (:class:`~ir_rarity.pool.stream.StreamedCampaign`) gives those analyses this pool
(:func:`pool_for_rows`), and their values equal those of the campaign held in memory, to the last bit (tested).
The novelty utility ``U_novel`` reads every row's reading probability: not this pool's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from ir_rarity.engine.codes import ScorePrecision
from ir_rarity.engine.compute import s_d_depth
from ir_rarity.engine.judgments import Judgments
from ir_rarity.engine.runs import Duplicates
from ir_rarity.errors import ParameterError
from ir_rarity.measures.base import RarityWeightedMeasure
from ir_rarity.pool.build.retention import JudgedPairs, Retention
from ir_rarity.pool.pool import Pool

__all__ = ["EVERY_ROW", "HoldsJudgedRows", "judged_pool", "judged_reach", "judged_retention", "pool_for_rows"]

EVERY_ROW = frozenset({"U_novel"})
"""Measure families that read every row of a run (the novelty utility's reading probabilities), not judged rows."""


@runtime_checkable
class HoldsJudgedRows(Protocol):
    """A campaign that gives the pool of its runs' judged rows (:class:`~ir_rarity.pool.stream.StreamedCampaign`)."""

    def judged_pool(self, qrels: Any, depth: int = 1, judged_depth: float = math.inf) -> Pool:
        """The pool of the campaign's runs' judged rows (:func:`judged_pool`), S_d exact for judged pairs."""
        ...


def judged_reach(measures: Sequence[Any]) -> float:
    """How deep ``measures`` (parsed) read judged rows and S_d of judged documents: what a judged-rows pool keeps.

    The deepest cutoff or S_d depth of the rarity-weighted measures (``P_rare``, ``AP_rare``, ``nDCG_rare``,
    ``R_rare``: their judged rows within the cutoff, S_d of judged documents at their depth); ``math.inf`` when one
    has no cutoff, counts S_d over whole runs or is ``judged_only``, for any other measure (ASL reads judged rows at
    any rank), and for none.
    """
    deepest = 0
    for measure in measures:
        if not isinstance(measure, RarityWeightedMeasure):
            return math.inf
        cutoff, counted = measure.params.get("cutoff"), s_d_depth(measure)
        if not isinstance(cutoff, int) or counted is None or measure.params.get("judged_only"):
            return math.inf
        deepest = max(deepest, cutoff, counted)
    return deepest or math.inf


def judged_retention(qrels: Any, depth: int = 1, judged_depth: float = math.inf) -> Retention:
    """What a judged-rows pool keeps of each run: its top ``depth`` rows, its judged rows, its rankings' lengths.

    Args:
        qrels: Qrels in any shape :class:`~ir_rarity.engine.judgments.Judgments` accepts (or Judgments).
        depth: Every row ranked above it (1: each ranking's first row, where its length is kept).
        judged_depth: The judged rows ranked above it (``math.inf``: at any rank; :func:`judged_reach`).

    """
    return Retention(depth=depth, judged_depth=judged_depth, returned=True,
                     qrels=JudgedPairs(Judgments(qrels).frame))


def judged_pool(runs: Any, qrels: Any, *, depth: int = 1, judged_depth: float = math.inf,
                duplicates: Duplicates = "error", split_by_tag: bool | None = None, scores: ScorePrecision = "float32",
                teams: Any = None, progress: bool | None = None) -> Pool:
    """The pool of ``runs``' judged rows (:func:`judged_retention`), S_d exact for the pairs ``qrels`` judge.

    One read of the run files: each run is reduced to its judged rows as it is read, so memory is the judged rows
    of all runs (about 40 bytes each held), not all rows. The pool's runs, S, rankings' lengths and each judged
    row's rank are those of the whole runs.

    Args:
        runs: Runs as :meth:`Pool.from_runs <ir_rarity.Pool.from_runs>` takes them (run files, folders, globs).
        qrels: The judgments whose pairs are kept (any shape Judgments accepts).
        depth: Keep every row ranked above it too (1: none but each ranking's first): S_d of every pair,
            fingerprints (which runs an evaluated run equals) and reading probabilities are then available down
            to it.
        judged_depth: Keep the judged rows ranked above it (``math.inf``: at any rank): S_d of judged pairs is
            exact down to it (:func:`judged_reach` of the measures read; at most ``depth``: every row is kept
            there already).
        duplicates: ``"error"`` or ``"first"``.
        split_by_tag: True: one run per tag of each file.
        scores: ``"float32"`` or ``"float64"``.
        teams: As :meth:`Pool.from_runs <ir_rarity.Pool.from_runs>`.
        progress: Show a progress bar while reading many files.

    Raises:
        InputError: unreadable runs or qrels.

    """
    judged = judged_depth > depth
    return Pool.from_runs(runs, retention=judged_retention(qrels, depth, judged_depth if judged else 0.0),
                          judged_counts=judged, duplicates=duplicates,
                          split_by_tag=split_by_tag, scores=scores, teams=teams, progress=progress)


def pool_for_rows(campaign: Pool | HoldsJudgedRows, qrels: Any, measures: Any = (), what: str = "this", *,
                  depth: int = 1) -> Pool:
    """The pool an analysis that re-scores the campaign's runs reads: the campaign itself, or its judged rows.

    A :class:`Pool` is returned as it is; a campaign read in two passes gives its judged-rows pool
    (:meth:`StreamedCampaign.judged_pool <ir_rarity.pool.stream.StreamedCampaign.judged_pool>`), read again from
    its files.

    Args:
        campaign: The evaluation's campaign: a pool, or one that holds its judged rows (read in two passes).
        qrels: The qrels the analysis scores with (any shape Judgments accepts, or Judgments).
        measures: The measures it scores (parsed): a streamed campaign's pool keeps the judged rows they read
            (:func:`judged_reach`; all of them for none), and one in :data:`EVERY_ROW` is refused.
        what: The analysis, for the error message (``"composition"``...).
        depth: A streamed campaign's pool keeps every row ranked above it too (:func:`judged_pool`).

    Raises:
        ParameterError: a streamed campaign and a measure that reads every row, or a campaign of another kind.

    """
    if isinstance(campaign, Pool):
        return campaign
    if not isinstance(campaign, HoldsJudgedRows):
        raise ParameterError(f"{what} needs the campaign's runs (a pool, or run files read in two passes), "
                             f"got {campaign!r}")
    every_row = [str(m) for m in measures if getattr(m, "NAME", None) in EVERY_ROW]
    if every_row:
        raise ParameterError(f"{what} of {', '.join(every_row)} needs the campaign's runs held in memory: it reads "
                             "every row's reading probability, and a campaign read in two passes gives the "
                             "judged rows only (drop --stream or raise --memory)")
    return campaign.judged_pool(qrels, depth, judged_reach(measures) if measures else math.inf)
