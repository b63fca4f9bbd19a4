"""Scoring runs against a campaign already in hand: the door :func:`ir_rarity.evaluate` opens onto the engine.

:func:`evaluate_campaign` parses the measures once, checks each measure's own ``pool=`` against the campaign, reads
the given runs once (cut to the depth the measures read, :func:`required_depth`) and applies the one rule of
:mod:`ir_rarity.engine.evaluate`. ``Pool.evaluate`` and ``CountTable.evaluate`` are this function with the
campaign bound; :func:`ir_rarity.evaluate` resolves the campaign first (from files, a folder, a saved pool...).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import ir_measures
import pandas as pd

from ir_rarity.engine.codes import ScorePrecision
from ir_rarity.engine.compute import s_d_depth
from ir_rarity.engine.contract import Campaign
from ir_rarity.engine.evaluate import apply_rule
from ir_rarity.engine.judgments import Judgments
from ir_rarity.engine.result import Evaluation
from ir_rarity.engine.runs import Duplicates
from ir_rarity.engine.standard import covers
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.measures.base import RarityMeasure, RarityWeightedMeasure
from ir_rarity.measures.parse import measure_labels
from ir_rarity.pool.build import top_k
from ir_rarity.pool.retention import JudgedPairs, Retention
from ir_rarity.pool.sources import (
    Origin,
    file_kind,
    iter_named_runs,
    iter_run_files,
    origin_of,
    path_specs,
    run_files,
)

if TYPE_CHECKING:
    from ir_rarity.typing import MeasuresLike, QrelsLike, RunsLike

__all__ = ["Judgments", "check_measure_pools", "evaluate_campaign", "evaluation_frame", "measure_pool",
           "read_runs", "required_depth", "required_rows"]


def required_depth(measures: Sequence[ir_measures.Measure]) -> int | None:
    """The deepest rank any of ``measures`` reads (cutoff or S_d depth), or None if one needs whole runs.

    A measure without a cutoff (``AP``, ``Rprec``, ``AP_rare``...), one that removes unjudged documents before
    cutting (``judged_only=True``, whose top k may lie deeper in the run) and one whose provider orders a run its
    own way (:func:`_ranks_as_trec_eval`; ``Judged@k`` breaks score ties by docno ascending) need whole runs.
    """
    deepest = 0
    for measure in measures:
        if not _ranks_as_trec_eval(measure):
            return None
        params = measure.params
        cutoff = params.get("cutoff")
        if not isinstance(cutoff, int) or params.get("judged_only"):
            return None
        depth = params.get("depth")
        deepest = max(deepest, cutoff, depth if isinstance(depth, int) else 0)
    return deepest or None


def required_rows(measures: Sequence[ir_measures.Measure], judgments: Judgments) -> Retention | None:
    """What of each run ``measures`` read, for a campaign of runs read from files (None: whole runs).

    Every measure the engine computes reads a run's rows within the depth S_d is counted at, some of its judged
    rows, and maybe how many documents each ranking returned (see :class:`~ir_rarity.pool.retention.Retention`):

    * rarity-weighted measures (``P_rare``, ``AP_rare``, ``nDCG_rare``, ``R_rare``): every row within their S_d
      depth (S_d at whole runs needs whole runs), and the judged rows within their cutoff;
    * ``U_novel@k``: the rows within k (without a cutoff, whole runs); ASL: the judged rows and the lengths;
    * standard measures: the judged rows within their cutoff (at any rank without one, or with
      ``judged_only``); ``NumRet`` and ``Judged`` the lengths; ``Judged@k`` also the rows tied with the k-th;
    * anything ir_measures computes (pytrec_eval...): whole runs.

    A finite judged depth is cut at (its rows are few): judged rows are looked up only when some measure reads
    them at any rank.
    """
    depth, judged, returned, ties = 1, 0.0, False, set[int]()
    for measure in measures:
        reads = _reads(measure)
        if reads is None:
            return None
        depth, judged = max(depth, reads.depth), max(judged, reads.judged_depth)
        returned, ties = returned or reads.returned, ties | set(reads.ties)
    if not math.isinf(judged):
        depth, judged = max(depth, int(judged)), 0.0
    return Retention(depth=depth, judged_depth=judged, ties=tuple(sorted(ties)), returned=returned,
                     qrels=JudgedPairs(judgments.frame) if judged > depth else None)


def _reads(measure: ir_measures.Measure) -> Retention | None:
    """What of each run one measure reads (see :func:`required_rows`), or None for whole runs."""
    params = measure.params
    cutoff = params.get("cutoff")
    cutoff = cutoff if isinstance(cutoff, int) else None
    reach = math.inf if cutoff is None or params.get("judged_only") else float(cutoff)
    name = getattr(measure, "NAME", None)
    if isinstance(measure, RarityWeightedMeasure):
        counted = s_d_depth(measure)
        return None if counted is None else Retention(depth=counted, judged_depth=reach)
    if isinstance(measure, RarityMeasure):
        if name == "ASL":
            return Retention(depth=1, judged_depth=math.inf, returned=True)
        return None if cutoff is None else Retention(depth=cutoff)  # U_novel@k: the rows within k
    if not covers(measure):
        return None
    if name == "NumRet" and params.get("rel") is None:
        return Retention(depth=1, returned=True)
    if name == "Judged":
        if cutoff is None:
            return Retention(depth=1, judged_depth=math.inf, returned=True)
        return Retention(depth=1, ties=(cutoff,), returned=True)
    return Retention(depth=1, judged_depth=reach)


def _ranks_as_trec_eval(measure: ir_measures.Measure) -> bool:
    """Whether the top k of ``measure`` are the top k in trec_eval order.

    True for ir_rarity's measures, the standard measures the engine computes and those pytrec_eval computes; not
    for ``Judged@k``, whose top k ir_measures' judged provider takes in its own order (ties by docno ascending).
    """
    if getattr(measure, "NAME", None) == "Judged":
        return False
    if isinstance(measure, RarityMeasure) or covers(measure):
        return True
    try:
        return bool(ir_measures.pytrec_eval.supports(measure))
    except (AssertionError, ValueError, TypeError):  # ir_measures asserts on parameters it does not know
        return False


def measure_pool(measure: ir_measures.Measure) -> str | None:
    """The pool a measure names with its own ``pool`` parameter (``P_rare(pool='runs/')@100``), or None."""
    params = getattr(measure, "params", {})
    spec = params.get("pool") if isinstance(params, dict) else None
    return str(spec) if spec else None


def _origin_of_spec(spec: str) -> Origin | None:
    try:
        files = run_files(spec)
    except (InputError, OSError):
        return None
    kinds = {file_kind(p) for p in files}
    return origin_of(files, kinds.pop() if len(kinds) == 1 else "runs")


def check_measure_pools(campaign: Campaign, measures: Sequence[ir_measures.Measure]) -> None:
    """Refuse a measure whose own ``pool=`` names other files than the campaign it is evaluated against.

    A measure string carries its pool where ir_measures is the entry point (the stock command); where the
    campaign is given otherwise (``Pool.evaluate``, ``ir_rarity.evaluate(pool=...)``, ``ir-rarity eval``), a
    ``pool=`` naming the files the campaign was read from (unchanged since) is fine, and any other is an error,
    never a number computed against the wrong pool.

    Raises:
        ParameterError: a measure names another pool.

    """
    base = getattr(campaign, "campaign", campaign)  # a joined campaign: the campaign it extends
    origins: list[Origin] = [o for c in (campaign, base) if isinstance(o := getattr(c, "origin", None), Origin)]
    for measure in measures:
        spec = measure_pool(measure)
        named = None if spec is None else _origin_of_spec(spec)
        if spec is not None and (named is None or not any(named.same_campaign(o) for o in origins)):
            raise ParameterError(f"{measure} names its own pool ({spec!r}), but is evaluated against another "
                                 f"({campaign.info().describe()}): drop pool= from the measure, or evaluate against "
                                 "that pool (--pool, ir_rarity.evaluate(pool=...))")


def read_runs(runs: RunsLike, *, depth: int | None = None, duplicates: Duplicates = "error",
              split_by_tag: bool | None = None, progress: bool | None = None, scores: ScorePrecision = "float32"
              ) -> dict[str, pd.DataFrame]:
    """Runs to evaluate (a mapping of runs, run files, a folder, a glob or a list of them) as named frames.

    Files are listed once and read once; each run read from a file is cut to its top ``depth`` documents per
    query when a depth is given (what the measures read; in trec_eval order, scores compared as ``scores``),
    so memory stays bounded by what is scored.

    Raises:
        InputError: unreadable input, or two runs with the same name.

    """
    from_files = not isinstance(runs, Mapping) and path_specs(runs) is not None
    named = (iter_run_files(run_files(runs), split_by_tag=split_by_tag, progress=progress) if from_files
             else iter_named_runs(runs, split_by_tag=split_by_tag, progress=progress))
    frames: dict[str, pd.DataFrame] = {}
    for name, frame in named:
        if name in frames:
            raise InputError(f"two evaluated runs are named {name!r}; run names must be unique")
        frames[name] = (top_k(frame, depth, name, duplicates, scores) if from_files and depth is not None
                        else frame)
    if not frames:
        raise ParameterError("no runs to evaluate")
    return frames


def evaluate_campaign(campaign: Campaign, qrels: QrelsLike | Judgments, measures: MeasuresLike,
                      runs: RunsLike | None = None, *, joint: bool = False,
                      duplicates: Duplicates = "error", split_by_tag: bool | None = None,
                      progress: bool | None = None) -> Evaluation:
    """Score runs against ``campaign`` by the one rule (:mod:`ir_rarity.engine.evaluate`).

    Args:
        campaign: What the runs are scored against (a :class:`~ir_rarity.Pool`, a :class:`~ir_rarity.CountTable`
            or any :class:`~ir_rarity.engine.contract.Campaign`).
        qrels: Qrels in any shape :func:`ir_rarity.io.frames.as_qrels_frame` accepts, or :class:`Judgments`.
        measures: A measure or a list of them, as objects or strings in ir_measures syntax; a string given names
            its measure's column in every table (``Evaluation.labels``).
        runs: Runs to score against the campaign, each on its own (see :func:`read_runs`); None scores the
            campaign's own runs (a pool).
        joint: The given runs join the campaign together (S + k).
        duplicates: For given runs: ``"error"`` (as trec_eval) or ``"first"``.
        split_by_tag: For run files: True splits every file into one run per tag; by default a file is one run.
        progress: Progress bars (reading, measures through ir_measures); None: on a terminal only.

    Returns:
        The :class:`~ir_rarity.Evaluation`.

    Raises:
        ParameterError: a bad measure, a measure naming another pool, ``joint`` without runs, no runs.
        InputError: unreadable qrels or runs.

    """
    labels = measure_labels(measures)
    measure_list = list(labels)
    check_measure_pools(campaign, measure_list)
    judgments = qrels if isinstance(qrels, Judgments) else Judgments(qrels)
    frames = None if runs is None else read_runs(runs, depth=required_depth(measure_list), duplicates=duplicates,
                                                 split_by_tag=split_by_tag, progress=progress,
                                                 scores=campaign.scores)
    return apply_rule(campaign, judgments.frame, labels, frames, joint=joint, duplicates=duplicates,
                      progress=progress, encoded_qrels=None if joint else judgments.encoded_for(campaign))


def evaluation_frame(evaluation: Evaluation, *, by_query: bool = False, ci: float | None = None) -> pd.DataFrame:
    """An evaluation as the frame ``Pool.evaluate`` returns.

    Its table, its long per-query values (``by_query``), or the table with a confidence interval of each mean
    (``ci``, a percentile bootstrap over queries, seed 0).

    Raises:
        ParameterError: ``ci`` with ``by_query`` (per-query values have no mean to bound).

    """
    if by_query:
        if ci is not None:
            raise ParameterError("ci= gives intervals of each run's mean; with by_query=True there is no mean")
        return evaluation.long()
    if ci is None:
        return evaluation.table()
    from ir_rarity.compare.intervals import add_intervals  # scipy is imported only when intervals are asked

    return add_intervals(evaluation.table(), evaluation.values, evaluation.measures, ci,
                         query_ids=evaluation.query_ids, columns=[evaluation.label(m) for m in evaluation.measures])
