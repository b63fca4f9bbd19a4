r"""Several judges of one campaign compared in one call: :func:`compare_judges`.

Campaigns now come with more than one set of judgments (people and an LLM, an original and a re-judgment). For
the same runs and measures, :func:`compare_judges` says

* how much the judges agree on the documents both judged (Cohen's kappa, binary at ``rel`` and weighted on
  grades; Krippendorff's alpha, nominal, ordinal and interval, :mod:`~ir_rarity.analysis.judges.agreement`), over
  all documents and per rarity bucket of S_d (:mod:`~ir_rarity.analysis.judges.labels`), where one judge's false
  positives become another's rare relevant documents (Türkmen, Lease & Kutlu, ECIR 2023);
* how much each judge's leaderboard of every measure differs (:mod:`~ir_rarity.analysis.judges.rankings`);
* how each run's score moves, with a paired bootstrap interval, and whether a judge favours a group of runs
  (:mod:`~ir_rarity.analysis.judges.runs`).

Every score comes from the one front door, :func:`ir_rarity.evaluation.evaluate_campaign`, once per judge against
one campaign resolved once: a judge changes the labels, never the campaign (S and S_d are the runs').
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ir_rarity.analysis.judges.agreement import ALPHA_LEVELS, cohen_kappa, confusion, krippendorff_alpha
from ir_rarity.analysis.judges.combine import combine as combine_judges
from ir_rarity.analysis.judges.labels import JudgedUnits, align_judges, rarity_buckets
from ir_rarity.analysis.judges.rankings import leaderboards, ranking_agreement
from ir_rarity.analysis.judges.runs import favour_tests, read_groups, run_differences
from ir_rarity.checks import check_depth
from ir_rarity.engine import Evaluation, Judgments
from ir_rarity.errors import ParameterError
from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.measures.parse import higher_is_better, measure_labels
from ir_rarity.pool import Pool, read_teams, resolve_campaign
from ir_rarity.stats.names import CORRECTIONS

if TYPE_CHECKING:
    from ir_rarity.typing import MeasuresLike, QrelsLike, RunsLike

__all__ = ["ALL_JUDGES", "JudgeComparison", "agreement_rows", "compare_judges", "judge_names"]

ALL_JUDGES = "all"
"""The ``judge_a`` and ``judge_b`` of the row holding Krippendorff's alpha over all judges."""


@dataclass
class JudgeComparison:
    """What :func:`compare_judges` found (each table is one file of ``ir-rarity judges``).

    Attributes:
        judges: The judges' names (a combined judge last, named ``base+filler``).
        agreement: One row per pair of judges (and one, ``all``/``all``, for alpha over all judges).
        by_rarity: The same per S_d bucket (column ``s_d``).
        confusions: ``s_d, judge_a, judge_b, label_a, label_b, count`` (``s_d`` ``all`` for every unit).
        rankings: ``measure, judge_a, judge_b, n_runs, tau, tau_ap, top10_overlap``.
        leaderboards: ``measure, judge, run, score, rank``.
        runs: ``measure, judge_a, judge_b, run, score_a, score_b, n_queries, diff, diff_low, diff_high, d_z``.
        groups: Whether a judge favours a group of runs (None without a leaderboard column).
        evaluations: Judge -> the :class:`~ir_rarity.Evaluation` of the runs under that judge.
        settings: What it was computed against: S, what S counts, the depth S_d was counted at, ``rel``, the
            buckets, the combination rule, the correction, the bootstrap's level, resamples and seed.

    """

    judges: list[str]
    agreement: pd.DataFrame
    by_rarity: pd.DataFrame
    confusions: pd.DataFrame
    rankings: pd.DataFrame
    leaderboards: pd.DataFrame
    runs: pd.DataFrame
    groups: pd.DataFrame | None
    evaluations: dict[str, Evaluation] = field(repr=False)
    settings: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """One line: the judges and what the comparison was computed against."""
        s = self.settings
        depth = "whole runs" if s["depth"] is None else f"depth {s['depth']}"
        return (f"{len(self.judges)} judges ({', '.join(self.judges)}); campaign of S = {s['S']} "
                f"{s['S_counts']}, S_d counted at {depth}; relevant: label {s['rel']} or more")


def judge_names(qrels_list: Sequence[Any], names: Sequence[str] | None) -> list[str]:
    """The judges' names: ``names`` as given, else each file's name (or ir_datasets id), else ``judge1``, ...

    Names made from files that are alike get their position appended (``qrels.txt#2``).
    """
    if names is not None:
        if len(names) != len(qrels_list):
            raise ParameterError(f"{len(qrels_list)} judges but {len(names)} names")
        return [str(n) for n in names]
    made = [Path(os.fspath(q)).name if isinstance(q, (str, os.PathLike)) else f"judge{i + 1}"
            for i, q in enumerate(qrels_list)]
    return [f"{n}#{i + 1}" if made.count(n) > 1 else n for i, n in enumerate(made)]


def _pair_figures(a: np.ndarray, b: np.ndarray, rel: int) -> dict[str, float]:
    """Kappa (binary at ``rel``, linear, quadratic), alpha and shares of two judges' labels of common units."""
    ia, ib = a.astype(np.int64), b.astype(np.int64)
    stacked = np.column_stack([a, b])
    row: dict[str, float] = {
        "agreement": float(np.mean(ia == ib)) if len(ia) else float("nan"),
        "relevant_a": float(np.mean(ia >= rel)) if len(ia) else float("nan"),
        "relevant_b": float(np.mean(ib >= rel)) if len(ib) else float("nan"),
        "kappa": cohen_kappa((ia >= rel).astype(np.int64), (ib >= rel).astype(np.int64)),
        "kappa_linear": cohen_kappa(ia, ib, "linear"),
        "kappa_quadratic": cohen_kappa(ia, ib, "quadratic"),
    }
    for level in ALPHA_LEVELS:
        row[f"alpha_{level}"] = krippendorff_alpha(stacked, level)  # type: ignore[arg-type]
    return row


def agreement_rows(units: JudgedUnits, rel: int, mask: np.ndarray | None = None) -> pd.DataFrame:
    """One row per pair of judges on the units of ``mask`` both judged, and alpha over all judges.

    Columns ``judge_a, judge_b, n_both, n_a_only, n_b_only, agreement`` (exact label agreement), ``relevant_a,
    relevant_b`` (shares at ``rel``), ``kappa`` (binary at ``rel``), ``kappa_linear, kappa_quadratic`` (grades),
    ``alpha_nominal, alpha_ordinal, alpha_interval``; the last row, ``all``/``all``, holds alpha over every judge
    (units judged by two or more) and ``n_both`` the number of those units.
    """
    labels = units.labels if mask is None else units.labels[mask]
    judged = ~np.isnan(labels)
    rows = []
    for i, j in itertools.combinations(range(len(units.names)), 2):
        both = judged[:, i] & judged[:, j]
        rows.append({"judge_a": units.names[i], "judge_b": units.names[j], "n_both": int(both.sum()),
                     "n_a_only": int((judged[:, i] & ~judged[:, j]).sum()),
                     "n_b_only": int((judged[:, j] & ~judged[:, i]).sum()),
                     **_pair_figures(labels[both, i], labels[both, j], rel)})
    pairable = judged.sum(axis=1) >= 2
    everyone: dict[str, Any] = {"judge_a": ALL_JUDGES, "judge_b": ALL_JUDGES, "n_both": int(pairable.sum())}
    for level in ALPHA_LEVELS:
        everyone[f"alpha_{level}"] = krippendorff_alpha(labels, level)  # type: ignore[arg-type]
    rows.append(everyone)
    frame = pd.DataFrame(rows)
    return frame.astype({"n_both": "Int64", "n_a_only": "Int64", "n_b_only": "Int64"})


def _confusions(units: JudgedUnits, bucket: np.ndarray, bucket_names: list[str]) -> pd.DataFrame:
    """Confusion counts of every pair of judges, over all units and per bucket (long)."""
    judged = ~np.isnan(units.labels)
    grades = np.unique(units.labels[judged]).astype(np.int64)
    parts = []
    scopes: list[tuple[str, np.ndarray]] = [("all", np.ones(len(bucket), dtype=bool))]
    scopes += [(name, bucket == k) for k, name in enumerate(bucket_names)]
    for scope, mask in scopes:
        for i, j in itertools.combinations(range(len(units.names)), 2):
            both = mask & judged[:, i] & judged[:, j]
            table = confusion(units.labels[both, i], units.labels[both, j], labels=list(grades))
            stacked = table.stack()
            parts.append(pd.DataFrame({"s_d": scope, "judge_a": units.names[i], "judge_b": units.names[j],
                                       "label_a": stacked.index.get_level_values(0).to_numpy(),
                                       "label_b": stacked.index.get_level_values(1).to_numpy(),
                                       "count": stacked.to_numpy(np.int64)}))
    return pd.concat(parts, ignore_index=True)


def compare_judges(
    qrels_list: Sequence[QrelsLike],
    runs: RunsLike | Pool,
    measures: MeasuresLike,
    names: Sequence[str] | None = None,
    rel: int = 1,
    leaderboard: str | os.PathLike[str] | pd.DataFrame | None = None,
    group_column: str | None = None,
    correction: str | None = "holm",
    combine: str | None = None,
    *,
    depth: int | None = None,
    teams: Any = None,
    split_by_tag: bool | None = None,
    level: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
    alpha: float = 0.05,
    progress: bool | None = None,
) -> JudgeComparison:
    """Compare several judges' qrels of one campaign: agreement (overall, by rarity), leaderboards, runs.

    Args:
        qrels_list: Two or more judges' qrels (files, ir_datasets ids, DataFrames...), the first the reference
            (``judge_a`` of every pair it is in).
        runs: The campaign's runs (files, a folder, a glob, a dict, a :class:`~ir_rarity.Pool`): the runs scored
            under each judge and the systems S_d counts.
        measures: The measures of the leaderboards (ir_measures syntax, e.g. ``'P_rare(alpha=0.5)@10'``).
        names: The judges' names (default: file names or ids, :func:`judge_names`).
        rel: The minimum label counted as relevant (binary kappa, shares).
        leaderboard: A CSV (``'path:RUNCOLUMN'`` names its run column, default ``run``) or DataFrame giving each
            run's group in ``group_column``.
        group_column: The leaderboard column whose values are the groups tested (e.g. ``runtype``).
        correction: The correction of the group tests' family (:data:`~ir_rarity.stats.CORRECTIONS`, or None).
        combine: ``"fill"``: one more judge per judge after the first, the first judge's labels with the other's
            where the first left a hole (:func:`~ir_rarity.analysis.judges.combine.fill`), named ``base+other``.
        depth: The depth S_d is counted at for the rarity buckets (None: whole runs as read).
        teams: S counts teams (as :func:`ir_rarity.evaluate`'s ``teams``).
        split_by_tag: For run files: split each file into one run per tag.
        level: The confidence level of the runs' bootstrap intervals.
        resamples: Bootstrap resamples of the queries.
        seed: The bootstrap's seed.
        alpha: The group tests' level.
        progress: Progress bars while reading runs.

    Returns:
        A :class:`JudgeComparison`.

    Raises:
        ParameterError: fewer than two judges, a group column without a leaderboard (or the reverse), an
            unknown correction or combination rule, or a campaign that keeps no runs.
        InputError: unreadable qrels, runs or leaderboard.

    Example:
        >>> import ir_rarity
        >>> from ir_rarity import covid_round1
        >>> from ir_rarity.analysis.judges import lenient_judge
        >>> pool = ir_rarity.Pool.from_runs(covid_round1.runs, split_by_tag=True)
        >>> qrels = ir_rarity.io.frames.as_qrels_frame(covid_round1.qrels)
        >>> second = lenient_judge(qrels, pool.counts(), pool.num_systems, seed=1)
        >>> result = compare_judges([qrels, second], pool, ["P@10"], names=["nist", "lenient"], resamples=200)
        >>> result.agreement.loc[0, "n_both"]
        8691

    """
    if len(qrels_list) < 2:
        raise ParameterError(f"compare_judges needs at least two judges' qrels, got {len(qrels_list)}")
    if (leaderboard is None) != (group_column is None):
        raise ParameterError("give both a leaderboard and the group column to test (e.g. group_column='runtype')")
    if correction is not None and correction not in CORRECTIONS:
        raise ParameterError(f"unknown correction {correction!r}; choose from {', '.join(CORRECTIONS)}")
    depth = check_depth(depth, allow_none=True)
    judge_list = judge_names(qrels_list, names)
    labels = measure_labels(measures)
    frames = [Judgments(q, source=name).frame for q, name in zip(qrels_list, judge_list, strict=True)]
    if combine is not None:
        base = frames[0]
        extra = [(f"{judge_list[0]}+{judge_list[j]}", combine_judges(combine, base, frames[j]))
                 for j in range(1, len(frames))]
        judge_list += [name for name, _ in extra]
        frames += [frame for _, frame in extra]
    groups = read_groups(leaderboard, group_column) if leaderboard is not None and group_column else None
    team_map = read_teams(teams) if teams is not None else None
    campaign = resolve_campaign(runs, teams=team_map, split_by_tag=split_by_tag, progress=progress)
    if not isinstance(campaign, Pool):
        raise ParameterError(f"{campaign!r} does not keep its runs: give the runs (files, a folder or a Pool)")
    units = align_judges(frames, judge_list)
    s_d = units.s_d(campaign.counts(depth))
    bucket, bucket_names = rarity_buckets(s_d, campaign.num_systems)
    agreement = agreement_rows(units, rel)
    by_rarity = pd.concat([agreement_rows(units, rel, bucket == k).assign(s_d=name)
                           for k, name in enumerate(bucket_names)], ignore_index=True)
    by_rarity = by_rarity[["s_d", *agreement.columns]]
    evaluations = {name: evaluate_campaign(campaign, Judgments(frame, source=name), labels, progress=progress)
                   for name, frame in zip(judge_list, frames, strict=True)}
    first = evaluations[judge_list[0]]
    measure_names = [first.label(m) for m in first.measures]
    higher = {first.label(m): higher_is_better(m) for m in first.measures}
    means = {name: ev.table() for name, ev in evaluations.items()}
    matrices = {name: {label: ev.matrix(label) for label in measure_names} for name, ev in evaluations.items()}
    pairs = list(itertools.combinations(judge_list, 2))
    runs_table = run_differences(matrices, pairs, level=level, resamples=resamples, seed=seed)
    info = first.info
    settings = {"S": info.num_systems, "S_counts": info.systems, "depth": depth,
                "rel": rel, "buckets": bucket_names, "combine": combine, "correction": correction,
                "level": level, "resamples": resamples, "seed": seed, "measures": measure_names,
                "pool": first.describe(), "group_column": group_column}
    return JudgeComparison(
        judges=judge_list, agreement=agreement, by_rarity=by_rarity,
        confusions=_confusions(units, bucket, bucket_names),
        rankings=ranking_agreement(means, higher, pairs), leaderboards=leaderboards(means, higher),
        runs=runs_table,
        groups=favour_tests(runs_table, groups, correction, alpha) if groups is not None else None,
        evaluations=evaluations, settings=settings)
