"""The campaign report's entry point: :func:`report` evaluates once, assembles, renders; :class:`Report` holds it."""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ir_rarity.errors import ParameterError, RarityWarning
from ir_rarity.evaluation import evaluate, reads_in_two_passes
from ir_rarity.io.datasets import expand_official
from ir_rarity.io.files import write_atomic
from ir_rarity.measures.parse import measure_labels
from ir_rarity.pool.stream import reading_facts
from ir_rarity.pool.teams import read_teams
from ir_rarity.provenance import Provenance, collect
from ir_rarity.report.charts import check_plotly
from ir_rarity.report.data import DEFAULT_MEASURES, ReportData, Settings, assemble
from ir_rarity.report.groups import read_leaderboard
from ir_rarity.report.lite import lite_html
from ir_rarity.report.pairs import with_bases
from ir_rarity.report.render import render_html
from ir_rarity.stats.names import CORRECTIONS
from ir_rarity.tables import render_frame

if TYPE_CHECKING:
    from ir_rarity.engine.result import Evaluation
    from ir_rarity.typing import MeasuresLike, QrelsLike, RunsLike, TeamsLike

__all__ = ["Report", "report"]


@dataclass(frozen=True, eq=False)
class Report:
    """A built campaign report: one self-contained HTML page.

    Attributes:
        html: The page (styles, scripts, charts and data inline: it opens offline).
        data: The tables and series it shows.
        provenance: What produced it (also shown and embedded as JSON in the page).
        seconds: Time taken to evaluate, assemble and render.

    """

    html: str
    data: ReportData
    provenance: Provenance
    seconds: float
    _saved: list[Path] = field(default_factory=list, repr=False)

    @property
    def size(self) -> int:
        """The page's size in bytes (UTF-8)."""
        return len(self.html.encode("utf-8"))

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` (atomically) and return the path (the notebook display links to it)."""
        written = write_atomic(path, self.html)
        self._saved[:] = [written]
        return written

    def _repr_html_(self) -> str:
        """A lite summary for Jupyter (:func:`~ir_rarity.report.lite.lite_html`: under 300 KB, no plotly.js).

        It links to the page once saved; the whole page would put megabytes into the notebook.
        """
        return lite_html(self, self._saved[0] if self._saved else None)

    def _repr_markdown_(self) -> str:
        """A markdown summary: what the report covers, its size, and its leaderboard's means."""
        ev = self.data.evaluation
        table = ev.table().reset_index()
        return (f"**Campaign report**: {len(ev.names)} runs x {len(ev.query_ids)} queries; {ev.describe()}; "
                f"{self.size / 1e6:.1f} MB (open the HTML for the charts).\n\n{render_frame(table, 'markdown')}")

    def __repr__(self) -> str:
        ev = self.data.evaluation
        return (f"Report({len(ev.names)} runs x {len(ev.query_ids)} queries, {self.size / 1e6:.1f} MB, "
                f"{self.seconds:.1f} s)")


def _inputs(runs: Any, qrels: Any, teams: Any) -> list[str]:
    """The inputs given as files or names (frames and mappings are not files)."""
    out: list[str] = []
    for spec in (qrels, *(runs if isinstance(runs, (list, tuple)) else [runs]), teams):
        if isinstance(spec, (str, os.PathLike)):
            out.append(os.fspath(spec))
    return out


def _evaluate(runs: Any, qrels: Any, measures: Any, teams: Any, split_by_tag: bool | None, duplicates: Any,
              progress: bool | None, stream: bool | None = None, memory_limit: int | str | None = None
              ) -> tuple[Evaluation, list[str]]:
    """The one evaluation, and the texts of the warnings it gave (shown in the report, and warned again).

    Read in two passes by :func:`ir_rarity.evaluate`'s rule (:func:`~ir_rarity.evaluation.reads_in_two_passes`,
    its refusal included); then without what the scores leave to unjudged documents, which reads whole runs.
    """
    two_passes = reads_in_two_passes(runs, list(measure_labels(expand_official(measures, qrels))), teams, stream,
                                     memory_limit)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RarityWarning)
        evaluation = evaluate(runs, qrels, measures, teams=teams, split_by_tag=split_by_tag, duplicates=duplicates,
                              progress=progress, unjudged=not two_passes, stream=two_passes,
                              memory_limit=memory_limit if two_passes else None)
    texts = []
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if issubclass(w.category, RarityWarning) and type(w.message).__name__ != "MemberNotice":
            texts.append(" ".join(str(w.message).split()))
    return evaluation, list(dict.fromkeys(texts))


def report(
    runs: RunsLike | None = None,
    qrels: QrelsLike | None = None,
    measures: MeasuresLike | None = None,
    *,
    out: str | os.PathLike[str] | None = None,
    evaluation: Evaluation | None = None,
    teams: TeamsLike | None = None,
    baselines: Sequence[str] | None = None,
    correction: str | None = None,
    leaderboard: str | os.PathLike[str] | None = None,
    split_by_tag: bool | None = None,
    duplicates: Any = "error",
    ci: float = 0.95,
    resamples: int = 1000,
    composition_resamples: int = 100,
    trials: int = 200,
    seed: int = 0,
    pooling: bool = True,
    complementarity: bool = False,
    judges: Sequence[QrelsLike] | None = None,
    strategies: Sequence[str] | None = None,
    budgets: Sequence[int] | None = None,
    title: str = "ir_rarity campaign report",
    command: str | Sequence[str] | None = None,
    progress: bool | None = None,
    stream: bool | None = None,
    memory_limit: int | str | None = None,
) -> Report:
    """A self-contained HTML report of a campaign: leaderboard, rarity, uncertainty, depth, pooling, meta-evaluation.

    The runs are evaluated once (:func:`ir_rarity.evaluate`, the runs being the campaign) and every section reads
    that :class:`~ir_rarity.Evaluation` or the package's analyses of its campaign. The page embeds its styles,
    scripts (plotly.js, once) and data, so it opens offline. Charts need plotly (``pip install
    'ir_rarity[report]'``).

    Args:
        runs: The campaign's runs (as :func:`ir_rarity.evaluate` takes them).
        qrels: Its judgments.
        measures: Measures (default :data:`~ir_rarity.report.data.DEFAULT_MEASURES`: P@10, P@100, AP, AP@100,
            nDCG@10, P_rare(alpha=0.5)@100, AP_rare@100, ASL@g1-10, ASL). Each rarity measure is shown against its
            standard measure at the same cutoff (``AP_rare@100`` with ``AP@100``), added when missing.
        out: Write the page here too.
        evaluation: An evaluation already made, instead of ``runs``, ``qrels`` and ``measures``.
        teams: Run -> team, or a leaderboard CSV (columns ``run``, ``team``): S counts teams, as in
            :func:`ir_rarity.evaluate`.
        baselines: Runs every run is compared with (default: none, no markers).
        correction: Multiple-testing correction of those comparisons, per measure (a
            :data:`~ir_rarity.stats.names.CORRECTIONS` name; default ``"holm"`` when baselines are given).
        leaderboard: A leaderboard CSV (column ``run``) whose categorical columns (``runtype``, ``contributed
            judgments``...) filter and group the runs.
        split_by_tag: Split run files into one run per tag.
        duplicates: ``"error"`` or ``"first"``, as in :func:`ir_rarity.evaluate`.
        ci: Confidence level of every interval; tests are at ``1 - ci``.
        resamples: Bootstrap resamples of the queries.
        composition_resamples: Campaigns drawn by the bootstrap over teams.
        trials: Stability trials.
        seed: Seed of every random draw.
        pooling: Simulate judging strategies (``strategies`` at ``budgets`` judgments per query).
        complementarity: Add the teams' fusion, contribution and Shapley values against their rarity
            (:func:`ir_rarity.complementarity.complementarity`; off by default, it evaluates many fused runs).
        judges: Other judges' qrels of the same runs: a section compares them with ``qrels``
            (:func:`ir_rarity.compare_judges`: agreement overall and by rarity, leaderboards, runs).
        strategies: Pooling strategies (default depth, rbp(p=0.8), mtf, rarity(beta=0.5,p=0.8)).
        budgets: Judgments per query (default 10, 20, 50).
        title: The page title.
        command: The command line recorded in the provenance (default: this call).
        progress: Progress bars on stderr (None: on a terminal only).
        stream: Read the run files in two passes (:func:`ir_rarity.evaluate`'s ``stream``: True always, False
            never, None when they would not fit ``memory_limit``); the unjudged shares and bounds, which read
            whole runs, are then left out (the section says so), and the analyses that re-score the runs read
            their judged rows again from the files.
        memory_limit: A memory budget (``'4G'``), as :func:`ir_rarity.evaluate` takes it.

    Returns:
        The :class:`Report` (``.html``, ``.save(path)``, shown inline in Jupyter).

    Raises:
        ParameterError: neither runs and qrels nor an evaluation, a baseline that is no run, no plotly.
        InputError: unreadable runs or qrels.

    """
    check_plotly()
    start = time.perf_counter()
    found: list[str] = []
    given = evaluation is not None
    if evaluation is None:
        if runs is None or qrels is None:
            raise ParameterError("give runs and qrels, or evaluation=")
        evaluation, found = _evaluate(runs, qrels, with_bases(measures if measures is not None else DEFAULT_MEASURES),
                                      teams, split_by_tag, duplicates, progress, stream, memory_limit)
    defaults = Settings()
    if correction is not None and correction not in CORRECTIONS:
        raise ParameterError(f"unknown correction {correction!r}; choose from {', '.join(CORRECTIONS)}")
    groups = read_leaderboard(leaderboard) if leaderboard is not None else None
    settings = Settings(baselines=list(baselines) if baselines else None, correction=correction, groups=groups,
                        ci=ci, resamples=resamples,
                        composition_resamples=composition_resamples, trials=trials, seed=seed, pooling=pooling,
                        complementarity=complementarity, judges=tuple(judges or ()),
                        strategies=tuple(strategies) if strategies else defaults.strategies,
                        budgets=tuple(budgets) if budgets else defaults.budgets)
    team_map = read_teams(teams) if teams is not None else None
    evaluated = time.perf_counter() - start
    data = assemble(evaluation, settings, teams=team_map, warnings=found, progress=progress)
    if not given:
        data.timings = {"evaluate": evaluated, **data.timings}
    provenance = collect(command if command is not None else "ir_rarity.report(...)",
                         list(dict.fromkeys(_inputs(runs, qrels, teams) + _inputs([], None, leaderboard))),
                         {**evaluation.attrs(), **reading_facts(evaluation.campaign)},
                         measures=data.labels, baselines=data.baselines,
                         correction=data.leaderboard.settings["correction"] if data.leaderboard else None,
                         ci=ci, resamples=resamples,
                         composition_resamples=composition_resamples, trials=trials, seed=seed,
                         pooling={"strategies": list(settings.strategies), "budgets": list(settings.budgets)}
                         if pooling else False)
    page = render_html(data, provenance, title=title, seconds=time.perf_counter() - start)
    built = Report(html=page, data=data, provenance=provenance, seconds=time.perf_counter() - start)
    if out is not None:
        built.save(out)
    return built
