"""Data assembly of the campaign report: every table and series the sections show, from one :class:`Evaluation`.

Nothing here computes a statistic of its own: the values are the evaluation's (``table()``, ``matrix()``,
``attrs()``), and the rest comes from the package's analyses: :func:`~ir_rarity.compare.campaign_table`
(intervals, significance), :func:`~ir_rarity.compare.composition`, :func:`~ir_rarity.campaign.unique_relevant`,
:func:`~ir_rarity.stats.ties.rank` and :func:`~ir_rarity.stats.ties.differences`,
:func:`~ir_rarity.judging.simulate` / :func:`~ir_rarity.judging.reusability`,
:func:`~ir_rarity.meta.curves.tau_alpha_curve`, :func:`~ir_rarity.meta.discriminative_power`,
:func:`~ir_rarity.meta.stability`. What the sections only gather (counts of judged documents, S_d of relevant
documents per query) are counts and joins.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.compare.table import CampaignTable
from ir_rarity.compare.uncertainty import depends_on_pool
from ir_rarity.engine.judgments import Judgments
from ir_rarity.engine.result import Evaluation
from ir_rarity.pool.judged import pool_for_rows
from ir_rarity.pool.pool import Pool
from ir_rarity.pool.stream import StreamedCampaign
from ir_rarity.progress import counter
from ir_rarity.report.sections import SECTIONS

__all__ = ["DEFAULT_MEASURES", "ReportData", "Settings", "assemble"]

DEFAULT_MEASURES = ["P@10", "P@100", "AP", "AP@100", "nDCG@10", "P_rare(alpha=0.5)@100", "AP_rare@100",
                    "ASL@g1-10", "ASL"]
"""The measures of a report when none are given: standard, rarity and depth (ASL) measures; each rarity measure
with its standard measure at the same cutoff (``AP_rare@100`` with ``AP@100``)."""



@dataclass
class Settings:
    """How much of each analysis a report computes (small defaults keep it quick; raise them to publish).

    Attributes:
        baselines: Runs every run is compared with (None: no comparisons, no markers).
        correction: The multiple-testing correction of the comparisons with the baselines, a
            :data:`~ir_rarity.stats.names.CORRECTIONS` name (None: Holm's when baselines are given).
        groups: A leaderboard file's columns per run (index: run), whose categorical columns (``runtype``,
            ``contributed judgments``...) filter and group the leaderboard (None: none).
        ci: Confidence level of the intervals.
        resamples: Bootstrap resamples of the queries (intervals of means and of differences).
        composition_resamples: Campaigns drawn by the bootstrap over teams (0: leave-one-team-out only).
        trials: Stability trials (topic subsets).
        alphas: Rarity weights of the tau vs. alpha curve.
        seed: Seed of every random draw.
        pooling: Simulate pooling strategies (the slowest optional part with many budgets).
        strategies: Pooling strategies, as :func:`~ir_rarity.judging.parse_strategy` specs.
        budgets: Judgments per query of the pooling simulation.
        movers: Runs listed as those rarity moves most.
        rare: A relevant document retrieved by at most this many systems counts as rarely retrieved.
        complementarity: Fusion of the teams and each team's contribution against its rarity (slow: off by default).
        complementarity_samples: Orders sampled for the teams' Shapley values.
        judges: Other judges' qrels of the same runs, compared with the report's (none by default).

    """

    baselines: list[str] | None = None
    correction: str | None = None
    groups: pd.DataFrame | None = None
    ci: float = 0.95
    resamples: int = 1000
    composition_resamples: int = 100
    trials: int = 200
    alphas: tuple[float, ...] = (0.0, 0.25, 0.5, 1.0, 2.0, 5.0)
    seed: int = 0
    pooling: bool = True
    strategies: tuple[str, ...] = ("depth", "rbp(p=0.8)", "mtf", "rarity(beta=0.5,p=0.8)")
    budgets: tuple[int, ...] = (10, 20, 50)
    movers: int = 10
    rare: int = 2
    complementarity: bool = False
    complementarity_samples: int = 50
    judges: tuple[Any, ...] = ()


@dataclass
class ReportData:
    """Everything the report shows, section by section (None: the section could not be computed; see ``notes``).

    Attributes:
        evaluation: The evaluation the report reads.
        settings: The settings it was computed with.
        teams: Run -> team.
        warnings: Warning texts given while evaluating (ASL's run-length warning among them).
        glance: Label -> value of the campaign at a glance.
        table: ``Evaluation.table()`` in leaderboard order (best first by the first measure).
        leaderboard: The campaign table (intervals and comparisons with the baselines).
        baselines: The runs compared with (none by default).
        pairs: (rarity measure label, standard measure label) pairs at the same cutoff (scatter, gain, movers).
        gain: Per pair, each run's rarity gain (rarity mean / standard mean) with its bootstrap interval.
        topics: Per measure label, each query's best, median and worst over the runs.
        from_median: Per measure label, runs x queries difference of each run from the query's median.
        judged: Judged@k per run (share of the top k that is judged, ir_measures' Judged).
        unjudged: Each run's scores with their unjudged shares and high bounds, and the undecided neighbours
            (:mod:`ir_rarity.report.rests`).
        ranks: Label -> ranks of the runs by that measure (1 the best; ``table``'s order).
        movers: Per pair, the runs whose rank rarity moves most.
        unique_team: Unique relevant documents per team; ``unique_run``: per run.
        rare_queries: Per query, relevant documents and how many systems retrieved them.
        per_query: Measure label -> runs x queries difference from the first baseline.
        composition: The composition table of the pool-dependent measures.
        asl: Per run, its longest ranking and its ASL values.
        pooling: Relevant documents found per strategy and budget (long, wide) and reusability.
        tau_alpha: Tau between rankings by each rarity measure and its base measure per alpha.
        meta: Discriminative power and stability per measure.
        complementarity: Fusion, contribution and rarity of the teams
            (:func:`ir_rarity.complementarity.complementarity`).
        judges: The report's qrels against other judges' (:func:`ir_rarity.compare_judges`), when given.
        notes: Section -> why something was left out.
        timings: Step -> seconds.

    """

    evaluation: Evaluation
    settings: Settings
    teams: dict[str, str]
    warnings: list[str]
    glance: list[tuple[str, str]] = field(default_factory=list)
    table: pd.DataFrame | None = None
    leaderboard: CampaignTable | None = None
    baselines: list[str] = field(default_factory=list)
    pairs: list[tuple[str, str]] = field(default_factory=list)
    gain: dict[tuple[str, str], pd.DataFrame] = field(default_factory=dict)
    topics: dict[str, pd.DataFrame] = field(default_factory=dict)
    from_median: dict[str, pd.DataFrame] = field(default_factory=dict)
    judged: pd.DataFrame | None = None
    unjudged: dict[str, Any] | None = None
    ranks: dict[str, np.ndarray] = field(default_factory=dict)
    movers: dict[tuple[str, str], pd.DataFrame] = field(default_factory=dict)
    unique_team: pd.Series | None = None
    unique_run: pd.Series | None = None
    rare_queries: pd.DataFrame | None = None
    per_query: dict[str, pd.DataFrame] = field(default_factory=dict)
    composition: pd.DataFrame | None = None
    asl: pd.DataFrame | None = None
    pooling: dict[str, pd.DataFrame] = field(default_factory=dict)
    tau_alpha: pd.DataFrame | None = None
    meta: pd.DataFrame | None = None
    complementarity: Any = None
    judges: Any = None
    notes: dict[str, list[str]] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    _judgments: Judgments | None = field(default=None, init=False, repr=False, compare=False)
    _judged_rows: Pool | None = field(default=None, init=False, repr=False, compare=False)

    # ------------------------------------------------------------------ shortcuts
    @property
    def pool(self) -> Pool | None:
        """The campaign's runs, when the evaluation kept them (analyses that re-score need them)."""
        campaign = self.evaluation.campaign
        return campaign if isinstance(campaign, Pool) else None

    def rows_pool(self) -> Pool | None:
        """The pool an analysis of the runs' judged rows reads: :attr:`pool`, or one read again from the files.

        Runs read in two passes give the pool of every run's judged rows (:func:`~ir_rarity.pool.pool_for_rows`),
        read once and kept: its S_d of judged pairs and every run's judged rows with their ranks are the whole
        campaign's, so what reads no unjudged row (unique relevant documents, tau vs. alpha) gives the in-memory
        values.
        """
        if self.pool is not None:
            return self.pool
        campaign = self.evaluation.campaign
        if not isinstance(campaign, StreamedCampaign) or self.judgments is None:
            return None
        if self._judged_rows is None:
            self._judged_rows = pool_for_rows(campaign, self.judgments)
        return self._judged_rows

    @property
    def judgments(self) -> Judgments | None:
        """The evaluation's qrels as it carries them (``Evaluation.judgments``), None when it kept none.

        Every analysis of the report takes these, not the qrels: they hold the qrels' encoding against the
        campaign, made once by the evaluation, so no analysis encodes the same qrels against the same pool again.
        An evaluation made without them (built by hand) has them made here, once.
        """
        ev = self.evaluation
        if self._judgments is None:
            self._judgments = ev.judgments if ev.judgments is not None or ev.qrels is None else Judgments(ev.qrels)
        return self._judgments

    @property
    def labels(self) -> list[str]:
        """The measures' column names, in the order evaluated."""
        return [self.evaluation.label(m) for m in self.evaluation.measures]

    def pooled(self) -> list[Any]:
        """The evaluated measures that depend on the pool (rarity and novelty)."""
        return [m for m in self.evaluation.measures if depends_on_pool(m)]

    def depth(self) -> int:
        """The depth S_d was counted at (100 when the measures name none)."""
        depths = [d for d in self.evaluation.depths if d is not None]
        return int(depths[0]) if depths else 100

    def note(self, section: str, text: str) -> None:
        """Record why ``section`` (a key of :data:`~ir_rarity.report.sections.SECTIONS`) leaves something out.

        Raises:
            ValueError: ``section`` is no section's key (its note would be shown nowhere).

        """
        if section not in SECTIONS:
            raise ValueError(f"no report section {section!r}; sections: {', '.join(SECTIONS)}")
        self.notes.setdefault(section, []).append(text)


def assemble(evaluation: Evaluation, settings: Settings | None = None, *, teams: dict[str, str] | None = None,
             warnings: Sequence[str] = (), progress: bool | None = None) -> ReportData:
    """Gather every section's data from ``evaluation`` and the package's analyses.

    Args:
        evaluation: The evaluation (its campaign, when a :class:`~ir_rarity.Pool`, feeds the analyses that
            re-score: composition, unique documents, pooling, tau vs. alpha).
        settings: Resamples, trials, budgets... (default :class:`Settings`).
        teams: Run -> team (default: the pool's teams, else each run its own).
        warnings: Warning texts given while evaluating, to show.
        progress: A progress bar over the steps (None: on a terminal only).

    Returns:
        The :class:`ReportData`.

    """
    settings = settings or Settings()
    campaign = evaluation.campaign
    team_map = dict(teams) if teams else (dict(campaign.teams) if isinstance(campaign, Pool) else {})
    team_map = {r: team_map.get(r, r) for r in evaluation.names}
    data = ReportData(evaluation=evaluation, settings=settings, teams=team_map, warnings=list(warnings))
    steps = [(s.key, s.gather) for s in SECTIONS.values() if s.gather is not None]
    bar = counter(len(steps), desc="report", unit="section", enabled=progress)
    for name, gather in steps:
        bar.set_postfix_str(name, refresh=False)
        start = time.perf_counter()
        gather(data)
        data.timings[name] = time.perf_counter() - start
        bar.update()
    bar.close()
    return data
