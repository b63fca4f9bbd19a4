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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.campaign import unique_relevant
from ir_rarity.compare.table import CampaignTable, campaign_table
from ir_rarity.compare.uncertainty import composition, depends_on_pool
from ir_rarity.engine.judgments import Judgments
from ir_rarity.engine.result import MODES, Evaluation
from ir_rarity.errors import ParameterError
from ir_rarity.judging.reuse import reusability
from ir_rarity.judging.simulation import simulate
from ir_rarity.judging.summary import found_table
from ir_rarity.measures import FAMILIES
from ir_rarity.measures.parse import higher_is_better
from ir_rarity.meta.curves import tau_alpha_curve
from ir_rarity.meta.discriminative import discriminative_power
from ir_rarity.meta.stability import stability
from ir_rarity.pool.pool import Pool
from ir_rarity.progress import counter
from ir_rarity.report.sections import SECTIONS
from ir_rarity.stats.scores import in_natural_order, natural_order
from ir_rarity.stats.ties import differences, rank

__all__ = ["DEFAULT_MEASURES", "ReportData", "Settings", "assemble"]

DEFAULT_MEASURES = ["P@10", "P@100", "AP", "nDCG@10", "P_rare(alpha=0.5)@100", "AP_rare@100", "ASL@g1-10", "ASL"]
"""The measures of a report when none are given: standard, rarity and depth (ASL) measures."""

BASES = {str(m.NAME): str(m.BASE_MEASURE) for m in FAMILIES if m.BASE_MEASURE}
"""The standard measure each rarity measure weighs (at the same cutoff when one was evaluated): each family's
:attr:`~ir_rarity.measures.base.RarityMeasure.BASE_MEASURE`."""


@dataclass
class Settings:
    """How much of each analysis a report computes (small defaults keep it quick; raise them to publish).

    Attributes:
        baselines: Runs every run is compared with (None: the best run by the first measure).
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

    """

    baselines: list[str] | None = None
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
        baselines: The runs compared with.
        pairs: (rarity measure label, standard measure label) pairs of the scatter plots.
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
    notes: dict[str, list[str]] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    _judgments: Judgments | None = field(default=None, init=False, repr=False, compare=False)

    # ------------------------------------------------------------------ shortcuts
    @property
    def pool(self) -> Pool | None:
        """The campaign's runs, when the evaluation kept them (analyses that re-score need them)."""
        campaign = self.evaluation.campaign
        return campaign if isinstance(campaign, Pool) else None

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


# ---------------------------------------------------------------------------------------------- steps
def _glance(data: ReportData) -> None:
    ev, attrs = data.evaluation, data.evaluation.attrs()
    info = ev.info
    qrels = ev.qrels if ev.qrels is not None else pd.DataFrame(columns=["query_id", "doc_id", "relevance"])
    depths = attrs.get("depths") or []
    rows = [("campaign", ev.describe()),
            ("systems S", f"{info.num_systems} ({info.systems})"),
            ("runs", str(len(ev.names))),
            ("teams", str(len(set(data.teams.values())))),
            ("queries", str(len(ev.query_ids))),
            ("judged documents", f"{len(qrels):,}"),
            ("relevant documents (label >= 1)", f"{int((qrels['relevance'] >= 1).sum()):,}"),
            ("S_d depths", ", ".join(str(d) for d in depths) if depths else "whole runs"),  # type: ignore[attr-defined]
            ("scored", MODES[ev.mode]),
            ("measures", ", ".join(data.labels))]
    if ev.run_lengths:
        lengths = list(ev.run_lengths.values())
        rows.append(("longest ranking per run", f"{min(lengths)} to {max(lengths)}"))
    data.glance = rows


def _order(ev: Evaluation) -> list[str]:
    """Runs best first by the first measure, runs that tie (:func:`~ir_rarity.stats.ties.rank`) by name."""
    first = ev.measures[0]
    table = ev.table().sort_index(kind="mergesort")
    places = rank(table[ev.label(first)].to_numpy(float), higher_is_better(first))
    return list(table.index[np.argsort(np.where(np.isnan(places), np.inf, places), kind="stable")])


def _leaderboard(data: ReportData) -> None:
    ev, s = data.evaluation, data.settings
    order = _order(ev)
    data.table = ev.table().loc[order]
    data.baselines = list(dict.fromkeys(s.baselines)) if s.baselines else [order[0]]
    missing = [b for b in data.baselines if b not in ev.names]
    if missing:
        raise ParameterError(f"baseline {missing[0]!r} is not a run of the report; runs: {', '.join(order[:5])}...")
    data.leaderboard = campaign_table(ev, baselines=data.baselines, ci=s.ci, resamples=s.resamples, seed=s.seed,
                                      order=order)
    data.ranks = {ev.label(m): rank(data.table[ev.label(m)].to_numpy(float), higher_is_better(m))
                  for m in ev.measures}


def _base_of(ev: Evaluation, measure: Any) -> Any | None:
    """The evaluated standard measure ``measure`` weighs: same name base and cutoff, else same name base."""
    base = BASES.get(getattr(measure, "NAME", ""))
    candidates = [m for m in ev.measures if getattr(m, "NAME", None) == base and not depends_on_pool(m)]
    cutoff = measure.params.get("cutoff")
    same = [m for m in candidates if m.params.get("cutoff") == cutoff]
    found = same or candidates
    return found[0] if found else None


def _rarity(data: ReportData) -> None:
    ev = data.evaluation
    assert data.table is not None
    for m in data.pooled():
        base = _base_of(ev, m)
        if base is None:
            data.note("rarity", f"{ev.label(m)}: no standard measure it weighs was evaluated")
            continue
        pair = (ev.label(m), ev.label(base))
        data.pairs.append(pair)
        moved = data.ranks[pair[1]] - data.ranks[pair[0]]  # positive: rarity ranks the run higher
        frame = pd.DataFrame({"run": data.table.index, "team": [data.teams.get(r, r) for r in data.table.index],
                              f"rank by {pair[1]}": data.ranks[pair[1]], f"rank by {pair[0]}": data.ranks[pair[0]],
                              "places moved up": moved})
        order = np.argsort(-np.abs(moved), kind="stable")[:data.settings.movers]
        data.movers[pair] = frame.iloc[order].reset_index(drop=True)
    if not data.pooled():
        data.note("rarity", "no rarity measure was evaluated")


def _unique(data: ReportData) -> None:
    pool, ev = data.pool, data.evaluation
    judgments = data.judgments
    if pool is None or ev.qrels is None or judgments is None:
        data.note("unique", "needs the campaign's runs (a pool built from run files)")
        return
    depth = data.depth()
    data.unique_team = unique_relevant(pool, judgments, depth, by="team").counts.sort_values(
        ascending=False, kind="mergesort")
    data.unique_run = unique_relevant(pool, judgments, depth, by="run").counts.sort_values(
        ascending=False, kind="mergesort")
    relevant = ev.qrels[ev.qrels["relevance"] >= 1][["query_id", "doc_id"]].astype(str)
    counts = pool.counts(depth).astype({"query_id": str, "doc_id": str})
    joined = relevant.merge(counts, on=["query_id", "doc_id"], how="left").fillna({"S_d": 0})
    s_d = joined["S_d"].to_numpy()
    rare = data.settings.rare
    per_query = pd.DataFrame({"query_id": joined["query_id"], "relevant": 1, "retrieved by none": s_d == 0,
                              "retrieved by one system": s_d == 1,
                              f"retrieved by 1 to {rare} systems": (s_d >= 1) & (s_d <= rare)})
    table = per_query.groupby("query_id", sort=False).sum(numeric_only=True).astype(int)
    data.rare_queries = table.iloc[natural_order(table.index)].reset_index()


def _per_query(data: ReportData) -> None:
    ev = data.evaluation
    pooled = data.pooled()
    measures = ([pooled[0]] if pooled else []) + [m for m in ev.measures if not depends_on_pool(m)][:1]
    baseline = data.baselines[0]
    for m in measures:
        matrix = ev.matrix(m)
        diff = differences(matrix.to_numpy(float), matrix.loc[[baseline]].to_numpy(float))
        data.per_query[ev.label(m)] = in_natural_order(pd.DataFrame(diff, index=matrix.index, columns=matrix.columns))


def _composition(data: ReportData) -> None:
    pool, s = data.pool, data.settings
    pooled = data.pooled()
    if pool is None or not pooled or pool.num_systems < 2:
        data.note("uncertainty", "composition intervals need the campaign's runs, two systems or more and a "
                                 "rarity measure")
        return
    data.composition = composition(pool, data.judgments, pooled, resamples=s.composition_resamples, level=s.ci,
                                   seed=s.seed)


def _asl(data: ReportData) -> None:
    ev = data.evaluation
    asl = [m for m in ev.measures if getattr(m, "NAME", None) == "ASL"]
    if not asl:
        data.note("depth", "no ASL measure was evaluated")
        return
    frame = pd.DataFrame({"team": [data.teams.get(r, r) for r in ev.names],
                          "longest ranking": [ev.run_lengths.get(r, np.nan) for r in ev.names]},
                         index=pd.Index(ev.names, name="run"))
    for m in asl:
        frame[ev.label(m)] = ev.means(m)
    data.asl = frame.sort_values(ev.label(asl[0]), kind="mergesort")


def _pooling(data: ReportData) -> None:
    pool, ev, s = data.pool, data.evaluation, data.settings
    if not s.pooling:
        data.note("pooling", "not computed (pooling=False, --no-pooling)")
        return
    if pool is None:
        data.note("pooling", "needs the campaign's runs (a pool built from run files)")
        return
    sim = simulate(pool, data.judgments, list(s.strategies), list(s.budgets), seed=s.seed)
    data.pooling["found"] = sim.table()
    data.pooling["found wide"] = found_table(sim)
    measures = [m for m in ev.measures if not depends_on_pool(m) and getattr(m, "NAME", "") != "ASL"][:1]
    measures += data.pooled()[:1]
    if measures:
        reuse = reusability(sim, pool, data.judgments, measures, loto=False)
        labels = {str(m): ev.label(m) for m in measures}
        data.pooling["reusability"] = reuse.assign(measure=reuse["measure"].map(lambda x: labels.get(x, x)))


def _meta(data: ReportData) -> None:
    pool, ev, s = data.pool, data.evaluation, data.settings
    if pool is not None and data.pooled():
        data.tau_alpha = tau_alpha_curve(pool, data.judgments, s.alphas, data.depth())
    else:
        data.note("meta", "tau vs. alpha needs the campaign's runs and a rarity measure")
    rows = []
    for m in ev.measures:
        matrix = ev.matrix(m)
        if len(matrix) < 2:
            continue
        power = discriminative_power(matrix, method="ttest_ind", alpha=1 - s.ci)
        stable = stability(matrix, trials=s.trials, seed=s.seed, higher_is_better=higher_is_better(m))
        rows.append({"measure": ev.label(m), "significant pairs": power.significant_pairs,
                     "pairs": power.total_pairs,
                     "share": power.significant_pairs / power.total_pairs if power.total_pairs else np.nan,
                     "stability": stable})
    data.meta = pd.DataFrame(rows)


STEPS: list[tuple[str, Callable[[ReportData], None]]] = [
    ("glance", _glance), ("leaderboard", _leaderboard), ("rarity", _rarity), ("unique", _unique),
    ("per-query", _per_query), ("uncertainty", _composition), ("depth", _asl), ("pooling", _pooling),
    ("meta", _meta),
]
"""The assembly steps, in order, each keyed by the section it fills (:data:`~ir_rarity.report.sections.SECTIONS`;
also the keys of ``ReportData.timings``)."""


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
    bar = counter(len(STEPS), desc="report", unit="section", enabled=progress)
    for name, step in STEPS:
        bar.set_postfix_str(name, refresh=False)
        start = time.perf_counter()
        step(data)
        data.timings[name] = time.perf_counter() - start
        bar.update()
    bar.close()
    return data
