"""The report's sections: ONE registry, :data:`SECTIONS`, of what each section is called, says and shows.

A :class:`Section` is its key (the element id, the key of its notes in ``ReportData.notes`` and of the assembly
step that fills it in :mod:`~ir_rarity.report.data`), its title, the one sentence it opens with, and the function
that renders its body, its body's template (Jinja2, rendered with autoescape: the functions here only gather
values) and the assembly step that gathers its data. Adding a section is one entry here, with its functions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from markupsafe import Markup

from ir_rarity.campaign import unique_relevant
from ir_rarity.compare.intervals import interval_columns
from ir_rarity.compare.table import campaign_table
from ir_rarity.compare.uncertainty import composition, depends_on_pool
from ir_rarity.engine.result import MODES, Evaluation
from ir_rarity.errors import ParameterError
from ir_rarity.judging.reuse import reusability
from ir_rarity.judging.simulation import simulate
from ir_rarity.judging.summary import found_table
from ir_rarity.measures.parse import higher_is_better
from ir_rarity.meta.curves import tau_alpha_curve
from ir_rarity.meta.discriminative import discriminative_power
from ir_rarity.meta.stability import stability
from ir_rarity.pool.pool import Pool
from ir_rarity.pool.stream import TWO_PASSES, StreamedCampaign, reading_note
from ir_rarity.report import charts, complementarity, gain, groups, judged, rests, topics
from ir_rarity.report import judges as judges_section
from ir_rarity.report.facts import compact_lines
from ir_rarity.report.markup import FIRST_DESCENDING, frame_table, json_for_script, number, render_string, scale_places
from ir_rarity.report.pairs import base_name, pair_title
from ir_rarity.stats.scores import in_natural_order, natural_order
from ir_rarity.stats.ties import differences, rank

if TYPE_CHECKING:
    from ir_rarity.provenance import Provenance
    from ir_rarity.report.data import ReportData

__all__ = ["SECTIONS", "Section", "body"]


@dataclass(frozen=True)
class Section:
    """One section of the report.

    Attributes:
        key: Element id, key of its notes (``ReportData.note(key, ...)``) and of its assembly step.
        title: Its heading (and link in the page's navigation).
        lead: The one sentence it opens with: what it shows and how to read it.
        render: Its body's template arguments from the data and the provenance (see :func:`body`).
        template: Its body's markup: a Jinja2 template of those arguments, rendered with autoescape.
        gather: The assembly step that fills its part of :class:`~ir_rarity.report.data.ReportData` (None: it
            reads what others gathered), run in the order of :data:`SECTIONS`.

    """

    key: str
    title: str
    lead: str
    render: Callable[[ReportData, Provenance], dict[str, Any] | None]
    template: str
    gather: Callable[[ReportData], None] | None = None


def body(section: Section, data: ReportData, provenance: Provenance) -> Markup:
    """The section's body: its template rendered with the arguments its ``render`` gathers (autoescaped)."""
    arguments = section.render(data, provenance)
    if arguments is None:
        return Markup("")
    return render_string(section.template, **arguments)


# ---------------------------------------------------------------------------------------------- section bodies
def _glance(data: ReportData, _: Provenance) -> dict[str, Any]:
    return {"facts": data.glance, "warnings": [w for w in data.warnings if "ASL" not in w]}


def _marks(data: ReportData) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(measure label, run) -> the significance marks against the baselines."""
    board = data.leaderboard
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    if board is None or board.comparisons is None:
        return out
    letters = board.labels()
    labels = {str(m): data.evaluation.label(m) for m in data.evaluation.measures}
    for row in board.comparisons.to_dict("records"):
        if not bool(row["significant"]):
            continue
        reference = str(row["reference"])
        key = (labels.get(str(row["measure"]), str(row["measure"])), str(row["run"]))
        out.setdefault(key, []).append({"up": bool(row["run_better"]), "reference": reference,
                                        "letter": letters[reference]})
    return out


def _cell(data: ReportData, run: str, measure: Any, marks: dict[tuple[str, str], list[dict[str, Any]]],
          shares: dict[str, pd.Series]) -> dict[str, Any]:
    """A leaderboard cell: the mean (full value and shown text), its marks, its interval and its unjudged share."""
    board, table = data.leaderboard, data.table
    assert board is not None and table is not None
    label = data.evaluation.label(measure)
    places = scale_places(table[label].to_numpy(float))  # ASL's hundreds with one decimal, shares with four
    full, text = number(table.at[run, label], places)
    low_col, high_col = interval_columns(measure)
    ci = None
    if low_col in board.values.columns:
        low: Any = board.values.at[run, low_col]
        high: Any = board.values.at[run, high_col]
        if not (pd.isna(low) or pd.isna(high)):
            ci = (f"{float(low):.{places}f}", f"{float(high):.{places}f}")
    return {"value": full, "text": text, "measure": label, "marks": marks.get((label, run), []), "ci": ci,
            "unjudged": _share(shares, run, label)}


def _share(shares: dict[str, pd.Series], run: str, label: str) -> dict[str, str] | None:
    """The run's unjudged share of a measure (:func:`~ir_rarity.report.rests.leaderboard_shares`): a cell of its own."""
    if label not in shares:
        return None
    full, text = number(shares[label].get(run, np.nan))
    return {"value": full, "text": text}


def _leaderboard(data: ReportData, _: Provenance) -> dict[str, Any]:
    """Rows in leaderboard order; "#" is the rank by the first measure under the package's tie rule."""
    ev, board, table = data.evaluation, data.leaderboard, data.table
    assert board is not None and table is not None
    shares = rests.leaderboard_shares(data)  # each score's unjudged share, a column beside it
    marks, letters = _marks(data), board.labels()
    ranks = data.ranks[data.labels[0]]
    rows = []
    for run, place in zip(table.index, ranks, strict=True):
        value, text = number(place, integral=True)
        rows.append({"run": run, "team": data.teams.get(run, run), "letter": letters.get(run),
                     "rank": {"value": value, "text": text}, "groups": groups.run_groups(data, run),
                     "cells": [_cell(data, run, m, marks, shares) for m in ev.measures]})
    settings = board.settings
    caption = {"letters": list(letters.items()), "test": settings["test"], "alpha": settings["alpha"],
               "correction": settings["correction"], "family": settings["family"],
               "interval": settings["interval"], "level": f"{data.settings.ci:g}", "resamples": settings["resamples"],
               "seed": settings["seed"], "first": data.labels[0]}
    head = [(ev.label(m), FIRST_DESCENDING if higher_is_better(m) else None, ev.label(m) in shares)
            for m in ev.measures]
    return {"caption": caption, "head": head, "rows": rows, "groups": groups.group_filters(data),
            "shares": bool(shares)}


def _rarity(data: ReportData, _: Provenance) -> dict[str, Any]:
    return {"charts": [charts.rarity_scatter(data, pair, f"scatter-{i}") for i, pair in enumerate(data.pairs)],
            "movers": [(pair_title(data, pair), frame_table(frame, f"movers-{i}", search=["run", "team"]))
                       for i, (pair, frame) in enumerate(data.movers.items())]}


def _unique(data: ReportData, _: Provenance) -> dict[str, Any] | None:
    if data.unique_team is None or data.unique_run is None or data.rare_queries is None:
        return None
    runs = data.unique_run.rename("unique relevant").reset_index()
    runs.insert(1, "team", [data.teams.get(r, r) for r in runs["run"]])
    teams = data.unique_team.rename("unique relevant").reset_index()
    return {"depth": data.depth(), "systems": data.evaluation.info.systems,
            "chart": charts.unique_bars(data.unique_team, "team", "unique-teams"),
            "teams": frame_table(teams, "unique-team-table", search=["team"], descending=["unique relevant"]),
            "runs": frame_table(runs, "unique-run-table", search=["run", "team"], descending=["unique relevant"],
                                filter_box=True),
            "queries": frame_table(data.rare_queries, "rare-queries-table")}


def _per_query(data: ReportData, _: Provenance) -> dict[str, Any]:
    baseline = data.baselines[0] if data.baselines else topics.MEDIAN
    return {"baseline": baseline,
            "charts": [charts.heatmap(diff, label, baseline, higher_is_better(data.evaluation.measure(label)),
                                      f"per-query-{i}") for i, (label, diff) in enumerate(data.per_query.items())]}


def _uncertainty(data: ReportData, _: Provenance) -> dict[str, Any]:
    ev, comp = data.evaluation, data.composition
    out: dict[str, Any] = {"composition_chart": None, "resamples": 0, "level": f"{data.settings.ci:g}",
                           "composition_table": None, "intervals_chart": None}
    if comp is not None:
        first = data.pooled()[0]
        names = {c: c.replace(str(m), ev.label(m), 1) for m in data.pooled() for c in comp.columns
                 if c.startswith(str(m))}
        shown = comp.sort_values(f"{first} rank", kind="mergesort").rename(columns=names)
        out.update(composition_chart=charts.composition_ranks(comp, str(first), ev.label(first), "composition-ranks"),
                   resamples=comp.attrs.get("resamples", 0),
                   composition_table=frame_table(shown, "composition-table", index=True, search=["run", "team"],
                                                 filter_box=True))
    board = data.leaderboard
    if board is not None:
        m = ev.measures[0]
        low = interval_columns(m)[0]
        if low in board.values.columns:
            out["intervals_chart"] = charts.mean_intervals(board.values.loc[board.order], str(m), ev.label(m),
                                                           data.settings.ci, "mean-intervals")
    return out


def _depth(data: ReportData, _: Provenance) -> dict[str, Any] | None:
    if data.asl is None:
        return None
    warned = [w for w in data.warnings if "ASL" in w]
    lengths = data.evaluation.attrs().get("asl_lengths")
    if not warned and isinstance(lengths, dict) and lengths.get("differ"):
        warned = [f"the runs return rankings of different lengths ({lengths['min']} to {lengths['max']}); shorter "
                  f"runs score lower (better) ASL"]
    first = next(c for c in data.asl.columns if c not in ("team", "longest ranking"))
    return {"warnings": warned, "chart": charts.asl_scatter(data.asl, first, "asl-scatter"),
            "table": frame_table(data.asl, "asl-table", index=True, search=["run", "team"], filter_box=True)}


def _pooling(data: ReportData, _: Provenance) -> dict[str, Any] | None:
    if "found" not in data.pooling:
        return None
    reuse = data.pooling.get("reusability")
    return {"chart": charts.pooling_curves(data.pooling["found"], "pooling-curves"),
            "found": frame_table(data.pooling["found wide"], "pooling-found"),
            "reuse": frame_table(reuse, "pooling-reuse", places=3) if reuse is not None else None}


def _meta(data: ReportData, _: Provenance) -> dict[str, Any]:
    s = data.settings
    out: dict[str, Any] = {"chart": None, "curve": None, "alpha": f"{1 - s.ci:g}", "trials": s.trials, "table": None}
    if data.tau_alpha is not None:
        out.update(chart=charts.tau_alpha(data.tau_alpha, "tau-alpha"),
                   curve=frame_table(data.tau_alpha, "tau-alpha-table", places=3))
    if data.meta is not None and len(data.meta):
        out["table"] = frame_table(data.meta, "meta-table", places=3,
                                   descending=["significant pairs", "share", "stability"])
    return out


def _provenance(_: ReportData, provenance: Provenance) -> dict[str, Any]:
    return {"lines": compact_lines(provenance), "payload": json_for_script(provenance.as_dict(), indent=2)}


# ---------------------------------------------------------------------------------------------- section markup
_GLANCE = r"""<dl class="glance" id="glance-facts">{% for key, value in facts %}<dt>{{ key }}</dt><dd>{{ value }}</dd>{% endfor %}</dl>
{%- for warning in warnings %}<p class="warning">{{ warning }}</p>{% endfor %}"""

_LEADERBOARD = r"""{% from "tables.html.j2" import filter %}{% macro mark(m) -%}
<span class="mark-{{ 'up' if m.up else 'down' }}" title="significantly {{ 'better' if m.up else 'worse' }} than {{ m.reference }}">{{ '▲' if m.up else '▼' }}{{ m.letter }}</span>
{%- endmacro %}
<p>{% if caption.letters %}Baselines: {% for run, letter in caption.letters %}{{ letter }} = {{ run }}{{ ", " if not loop.last }}{% endfor %}. Paired {{ caption.test }}-test at alpha {{ caption.alpha }}, {{ caption.correction or "no" }} correction over the {{ caption.family }} comparisons of each measure; {% else %}No baseline: no comparisons and no markers (name one with --baseline RUN, or baselines=[...]). {% endif %}Intervals: {{ caption.interval }} over queries, level {{ caption.level }}, {{ caption.resamples }} resamples, seed {{ caption.seed }}. Rows: best first by {{ caption.first }}; # is the rank by {{ caption.first }}, runs that tie sharing it.{% if shares %} "&lt;measure&gt; unjudged": the mean share of the documents the measure reads that no judgment covers (bounds: <a href="#unjudged">Unjudged documents</a>).{% endif %}</p>
{{ filter("leaderboard-table", rows | length, groups) }}<div class="table-wrap"><table class="sortable" id="leaderboard-table"><thead><tr><th class="num">#</th><th class="text">run</th><th class="text">team</th>{% for g in groups %}<th class="text">{{ g.column }}</th>{% endfor %}
{%- for label, first, share in head %}<th class="num"{% if first %} data-first="{{ first }}"{% endif %}>{{ label }}</th>{% if share %}<th class="num unjudged" title="mean share of the documents {{ label }} reads that are unjudged">{{ label }} unjudged</th>{% endif %}{% endfor -%}
</tr></thead><tbody>
{%- for row in rows %}
<tr data-run="{{ row.run }}" data-search="{{ row.run }} {{ row.team }}"{% for g in row.groups %} data-group-{{ loop.index0 }}="{{ g }}"{% endfor %}{% if row.letter %} class="baseline"{% endif %}><td data-value="{{ row.rank.value }}">{{ row.rank.text }}</td><td class="text">{{ row.run }}{% if row.letter %}<small> (baseline {{ row.letter }})</small>{% endif %}</td><td class="text">{{ row.team }}</td>{% for g in row.groups %}<td class="text">{{ g }}</td>{% endfor %}
{%- for cell in row.cells %}<td data-value="{{ cell.value }}" data-measure="{{ cell.measure }}">{{ cell.text }}{% for m in cell.marks %}{{ mark(m) }}{% endfor %}{% if cell.ci %}<span class="ci">[{{ cell.ci[0] }}, {{ cell.ci[1] }}]</span>{% endif %}</td>{% if cell.unjudged %}<td class="unjudged" data-value="{{ cell.unjudged.value }}" data-unjudged="{{ cell.measure }}">{{ cell.unjudged.text }}</td>{% endif %}{% endfor -%}
</tr>
{%- endfor %}
</tbody></table></div>"""

_RARITY = r"""{% for chart in charts %}{{ chart }}{% endfor %}
{%- for title, table in movers %}<h3>Runs rarity moves most: {{ title.label }} (places moved up: rank by {{ title.base }} minus rank by {{ title.rare }})</h3>{{ table }}{% endfor %}"""

_UNIQUE = r"""<p>A document counts as retrieved by a team or run when it is in its top {{ depth }}; relevant: label &gt;= 1.</p>
{{ chart }}<div class="grid"><div><h3>Per team</h3>{{ teams }}</div><div><h3>Per run</h3>{{ runs }}</div></div>
<h3>Rarely retrieved relevant documents per query (S_d counts {{ systems }})</h3>{{ queries }}"""

_PER_QUERY = r"""<p>Each run minus: {{ baseline }}.</p>{% for chart in charts %}{{ chart }}{% endfor %}"""

_UNCERTAINTY = r"""{% if composition_chart %}{{ composition_chart }}<h3>Score and rank when teams are left out or resampled ({{ resamples }} bootstrap campaigns, level {{ level }})</h3>{{ composition_table }}{% endif %}
{{- intervals_chart or "" }}"""

_DEPTH = r"""{% for warning in warnings %}<p class="warning">Warning: {{ warning }}</p>{% endfor %}{{ chart }}{{ table }}"""

_POOLING = r"""{{ chart }}<h3>Relevant documents found per strategy and budget (judgments per query)</h3>{{ found }}
{%- if reuse %}<h3>Reusability: rank correlation with the ranking under the full qrels</h3>{{ reuse }}{% endif %}"""

_META = r"""{{ chart or "" }}{{ curve or "" }}
{%- if table %}<h3>Discriminative power (two-sample t-test, alpha {{ alpha }}) and stability ({{ trials }} subsets of half the queries, fuzziness 0.05)</h3>{{ table }}{% endif %}"""

_PROVENANCE = r"""<details class="provenance" id="provenance-details"><summary>What produced this page: versions, command, inputs ({{ lines | length }} lines)</summary><pre class="provenance" id="provenance-lines">{{ lines | join("\n") }}</pre></details>
<script type="application/json" id="provenance-json">{{ payload }}</script>"""


# ---------------------------------------------------------------------------------------------- gathering
def _gather_glance(data: ReportData) -> None:
    ev, attrs = data.evaluation, data.evaluation.attrs()
    info = ev.info
    qrels = ev.qrels if ev.qrels is not None else pd.DataFrame(columns=["query_id", "doc_id", "relevance"])
    depths = attrs.get("depths") or []
    rows = [("campaign", ev.describe() + reading_note(ev.campaign)),
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


def _gather_leaderboard(data: ReportData) -> None:
    ev, s = data.evaluation, data.settings
    order = _order(ev)
    data.table = ev.table().loc[order]
    data.baselines = list(dict.fromkeys(s.baselines)) if s.baselines else []  # none by default: no markers
    missing = [b for b in data.baselines if b not in ev.names]
    if missing:
        raise ParameterError(f"baseline {missing[0]!r} is not a run of the report; runs: {', '.join(order[:5])}...")
    correction = (s.correction or "holm") if data.baselines else None
    data.leaderboard = campaign_table(ev, baselines=data.baselines or None, correction=correction, ci=s.ci,
                                      alpha=round(1 - s.ci, 12), resamples=s.resamples, seed=s.seed, order=order)
    data.ranks = {ev.label(m): rank(data.table[ev.label(m)].to_numpy(float), higher_is_better(m))
                  for m in ev.measures}


def _base_of(ev: Evaluation, measure: Any) -> Any | None:
    """The evaluated standard measure ``measure`` weighs AT ITS CUTOFF (:func:`~ir_rarity.report.pairs.base_name`).

    Never the base at another cutoff: ``AP_rare@100`` against full-depth ``AP`` would mix the cutoff with rarity.
    """
    base = base_name(measure)
    found = [m for m in ev.measures if base is not None and str(m) == base and not depends_on_pool(m)]
    return found[0] if found else None


def _gather_rarity(data: ReportData) -> None:
    ev = data.evaluation
    assert data.table is not None
    for m in data.pooled():
        base = _base_of(ev, m)
        if base is None:
            wanted = base_name(m)
            data.note("rarity", f"{ev.label(m)}: {wanted or 'no standard measure'} (its "
                                f"standard measure at the same cutoff) was not evaluated")
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


def _gather_unique(data: ReportData) -> None:
    pool, ev = data.rows_pool(), data.evaluation  # relevant rows within the depth: judged rows suffice
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
    system = "team" if ev.info.systems == "teams" else "system"  # what S_d counts: a team's runs count once
    per_query = pd.DataFrame({"query_id": joined["query_id"], "relevant": 1, "retrieved by none": s_d == 0,
                              f"retrieved by one {system}": s_d == 1,
                              f"retrieved by 1 to {rare} {system}s": (s_d >= 1) & (s_d <= rare)})
    table = per_query.groupby("query_id", sort=False).sum(numeric_only=True).astype(int)
    data.rare_queries = table.iloc[natural_order(table.index)].reset_index()


def _gather_per_query(data: ReportData) -> None:
    ev = data.evaluation
    pooled = data.pooled()
    measures = ([pooled[0]] if pooled else []) + [m for m in ev.measures if not depends_on_pool(m)][:1]
    for m in measures:
        if not data.baselines:  # no baseline: each run against the query's median over the runs (NIST's pages)
            data.per_query[ev.label(m)] = topics.from_median(ev.matrix(m))
            continue
        matrix = ev.matrix(m)
        diff = differences(matrix.to_numpy(float), matrix.loc[[data.baselines[0]]].to_numpy(float))
        data.per_query[ev.label(m)] = in_natural_order(pd.DataFrame(diff, index=matrix.index, columns=matrix.columns))


def _gather_composition(data: ReportData) -> None:
    campaign, s = data.evaluation.campaign, data.settings  # run files read in two passes: their judged rows
    pooled = data.pooled()
    if not isinstance(campaign, (Pool, StreamedCampaign)) or not pooled or campaign.num_systems < 2:
        data.note("uncertainty", "composition intervals need the campaign's runs, two systems or more and a "
                                 "rarity measure")
        return
    data.composition = composition(campaign, data.judgments, pooled, resamples=s.composition_resamples,
                                   level=s.ci, seed=s.seed)


def _gather_asl(data: ReportData) -> None:
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


def _gather_pooling(data: ReportData) -> None:
    pool, ev, s = data.pool, data.evaluation, data.settings
    if not s.pooling:
        data.note("pooling", "not computed (pooling=False, --no-pooling)")
        return
    if pool is None:
        data.note("pooling", f"needs every row of the runs down to the budgets, held in memory ({TWO_PASSES}: drop "
                             "--stream or raise --memory)" if reading_note(ev.campaign)
                  else "needs the campaign's runs (a pool built from run files)")
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


def _gather_meta(data: ReportData) -> None:
    pool, ev, s = data.rows_pool(), data.evaluation, data.settings  # tau vs. alpha reads judged rows
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


SECTIONS: dict[str, Section] = {s.key: s for s in [
    Section("glance", "The campaign at a glance",
            "What the report was computed from: how many systems S the rarity measures count, the runs, teams, "
            "queries and judgments, and the depth S_d (how many systems retrieved a document) was counted at.",
            _glance, _GLANCE, gather=_gather_glance),
    Section("leaderboard", "Leaderboard",
            "Each run's mean of every measure with its bootstrap interval over queries beneath it, and beside it "
            "the share of the documents the measure reads that are unjudged; ▲ or ▼ with a baseline's letter marks "
            "a significant difference from that baseline (paired test); click a column header to sort, type a run "
            "or team name to filter.",
            _leaderboard, _LEADERBOARD, gather=_gather_leaderboard),
    Section("groups", "Groups of runs",
            "The leaderboard file's columns (run type, contributed judgments...) group the runs: per group, its "
            "runs, the best and median mean of the first measure and the median rarity gain; the leaderboard's "
            "select boxes filter by them.",
            groups.render, groups.TEMPLATE, gather=groups.gather),
    Section("rarity", "Rarity against standard",
            "Each point is a run at its standard score (x) and its rarity score (y), both at the SAME cutoff "
            "(AP_rare@100 against AP@100, P_rare@k against P@k): runs above the trend find relevant documents few "
            "others retrieve; the tables list the runs whose rank rarity moves most.",
            _rarity, _RARITY, gather=_gather_rarity),
    Section("gain", "Rarity gain",
            "Each run's rarity mean divided by its standard mean at the same cutoff, with its bootstrap interval "
            "over queries: 1 means it finds only documents every system retrieved, 1 + alpha only documents no "
            "other system retrieved.",
            gain.render, gain.TEMPLATE, gather=gain.gather),
    Section("unique", "Who finds what others miss",
            "How many relevant documents only one team (or one run) retrieved within the S_d depth, and per query "
            "how many relevant documents no system, one system or only a few systems retrieved.",
            _unique, _UNIQUE, gather=_gather_unique),
    Section("complementarity", "What each team adds",
            "The campaign's runs fused (RRF, CombSUM, CombMNZ) and scored against the campaign; each team's "
            "contribution (with its runs minus without them) and Shapley value, beside its rarity score and the "
            "relevant documents only it found, with their rank correlations.",
            complementarity.render, complementarity.TEMPLATE, gather=complementarity.gather),
    Section("judges", "Several judges",
            "The report's qrels against other judges' qrels of the same runs: Cohen's kappa and Krippendorff's "
            "alpha on the documents both judged, overall and per S_d bucket (rare documents are where judges' "
            "false positives become innovation), each judge's leaderboard compared, and the runs that move most.",
            judges_section.render, judges_section.TEMPLATE, gather=judges_section.gather),
    Section("per-query", "Per query",
            "Each run's per-query difference from the baseline, or without one from the query's median over the "
            "runs: blue cells are queries where the run does better, red worse; runs are sorted by their mean "
            "difference, best first.",
            _per_query, _PER_QUERY, gather=_gather_per_query),
    Section("topics", "Per topic: best, median, worst",
            "Per query the best, median and worst score over the runs, and each run's difference from the "
            "query's median (as the appendix pages of TREC's proceedings).",
            topics.render, topics.TEMPLATE, gather=topics.gather),
    Section("judged", "Judged@k",
            "The share of each run's top k documents that were judged (ir_measures' Judged@k): scores of a run "
            "with a low share rest on unjudged documents counted as non-relevant.",
            judged.render, judged.TEMPLATE, gather=judged.gather),
    Section("unjudged", "Unjudged documents",
            "Beside every score, the share of the documents its measure reads that nobody judged, and the score "
            "with those documents relevant: where two runs' bounds overlap, judged documents alone do not order "
            "them.", rests.render, rests.TEMPLATE, gather=rests.gather),
    Section("uncertainty", "How sure",
            "How a rarity score and rank move with the other participants (leave one team out, bootstrap over "
            "teams) and how means vary over queries (bootstrap): a long bar means an unsure rank.",
            _uncertainty, _UNCERTAINTY, gather=_gather_composition),
    Section("depth", "Depth",
            "ASL counts the non-relevant documents a user reads before each relevant one (lower is better); runs "
            "that return shorter rankings score lower, so read ASL next to each run's longest ranking.",
            _depth, _DEPTH, gather=_gather_asl),
    Section("pooling", "Pooling",
            "How many relevant documents each judging strategy would have found for a budget of judgments per "
            "query, and how well the runs' ranking under those judgments agrees with the full qrels (tau).",
            _pooling, _POOLING, gather=_gather_pooling),
    Section("meta", "Meta-evaluation",
            "How far rankings by the rarity measures drift from their standard measures as alpha grows (tau), and "
            "how many run pairs each measure tells apart (discriminative power) and how stably (topic subsets).",
            _meta, _META, gather=_gather_meta),
    Section("provenance", "Provenance",
            "What produced this page and from which inputs (versions, command, each input's size and SHA-256, a "
            "folder of runs once with its manifest hash, the pool); every fact, each input file included, is "
            "embedded as JSON in the element #provenance-json.",
            _provenance, _PROVENANCE),
]}
"""Section key -> :class:`Section`, in page order."""
