"""HTML rendering of the campaign report: one self-contained page (styles, scripts, charts and data inline).

:func:`render_html` turns a :class:`~ir_rarity.report.data.ReportData` into the page. Every section opens with
one sentence on what it shows and how to read it (:data:`SECTIONS`). Tables are plain HTML, sorted and filtered by
the package's own small script (``static/report.js``); numbers carry their full value in ``data-value``. Charts
are Plotly's (:mod:`ir_rarity.report.charts`), with plotly.js inlined once.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Sequence
from importlib.resources import files
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.compare.intervals import interval_columns
from ir_rarity.measures.parse import higher_is_better
from ir_rarity.report import charts
from ir_rarity.report.data import ReportData

__all__ = ["SECTIONS", "render_html"]

SECTIONS: dict[str, tuple[str, str]] = {
    "glance": ("The campaign at a glance",
               "What the report was computed from: how many systems S the rarity measures count, the runs, teams, "
               "queries and judgments, and the depth S_d (how many systems retrieved a document) was counted at."),
    "leaderboard": ("Leaderboard",
                    "Each run's mean of every measure with its bootstrap interval over queries beneath it; ▲ or ▼ "
                    "with a baseline's letter marks a significant difference from that baseline (paired test); "
                    "click a column header to sort, type a run or team name to filter."),
    "rarity": ("Rarity against standard",
               "Each point is a run at its standard score (x) and its rarity score (y): runs above the trend find "
               "relevant documents few others retrieve; the tables list the runs whose rank rarity moves most."),
    "unique": ("Who finds what others miss",
               "How many relevant documents only one team (or one run) retrieved within the S_d depth, and per "
               "query how many relevant documents no system, one system or only a few systems retrieved."),
    "per-query": ("Per query",
                  "Each run's per-query difference from the baseline: blue cells are queries where the run beats "
                  "the baseline, red where it loses; runs are sorted by their mean difference, best first."),
    "uncertainty": ("How sure",
                    "How a rarity score and rank move with the other participants (leave one team out, bootstrap "
                    "over teams) and how means vary over queries (bootstrap): a long bar means an unsure rank."),
    "depth": ("Depth",
              "ASL counts the non-relevant documents a user reads before each relevant one (lower is better); runs "
              "that return shorter rankings score lower, so read ASL next to each run's longest ranking."),
    "pooling": ("Pooling",
                "How many relevant documents each judging strategy would have found for a budget of judgments per "
                "query, and how well the runs' ranking under those judgments agrees with the full qrels (tau)."),
    "meta": ("Meta-evaluation",
             "How far rankings by the rarity measures drift from their standard measures as alpha grows (tau), and "
             "how many run pairs each measure tells apart (discriminative power) and how stably (topic subsets)."),
    "provenance": ("Provenance",
                   "What produced this page and from which inputs (versions, command, each input's size and "
                   "SHA-256, the pool); the same facts are embedded as JSON in the element #provenance-json."),
}
"""Section id -> (title, the sentence it opens with)."""

ASSETS = files("ir_rarity.report") / "static"
FIRST_DESCENDING = ' data-first="descending"'
"""A header attribute: the first click sorts descending (higher is better)."""


# ---------------------------------------------------------------------------------------------- cells and tables
def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _number(value: Any, places: int = 4, integral: bool = False) -> tuple[str, str]:
    """``(data-value, shown text)`` of a number: the full value (repr) and the rounded text; '–' for NaN."""
    if value is None or value is pd.NA:
        return "", "–"
    if isinstance(value, (int, np.integer)):
        return str(int(value)), f"{int(value):,}"
    number = float(value)
    if math.isnan(number):
        return "", "–"
    if integral:
        return repr(number), f"{int(number):,}"
    return repr(number), f"{number:.{places}f}"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _integral(column: pd.Series) -> bool:
    """Whether a column holds whole numbers only (ranks, counts), shown without decimals."""
    if column.dtype.kind in "iu":
        return True
    if column.dtype.kind != "f":
        return False
    values = column.dropna().to_numpy()
    return bool(len(values)) and bool(np.all(values == np.round(values)))


def frame_table(frame: pd.DataFrame, table_id: str, *, places: int = 4, search: Sequence[str] = (),
                descending: Sequence[str] = (), filter_box: bool = False, index: bool = False) -> str:
    """A sortable HTML table of ``frame`` (numbers right-aligned with their full value in ``data-value``).

    Args:
        frame: The table.
        table_id: The element id.
        places: Decimals shown for non-integers.
        search: Columns whose text a filter box matches (run, team).
        descending: Columns sorted descending on the first click (higher is better).
        filter_box: Put a filter box above the table.
        index: Show the index as the first column.

    """
    shown = frame.reset_index() if index else frame
    columns = [str(c) for c in shown.columns]
    head = "".join(f'<th class="{"num" if pd.api.types.is_numeric_dtype(shown[c]) else "text"}"'
                   f'{FIRST_DESCENDING if str(c) in descending else ""}>{_esc(c)}</th>'
                   for c in shown.columns)
    whole = [_integral(shown[c]) for c in shown.columns]
    rows = []
    for record in shown.itertuples(index=False, name=None):
        cells = []
        for value, integral in zip(record, whole, strict=True):
            if _is_number(value):
                full, text = _number(value, places, integral)
                cells.append(f'<td data-value="{full}">{text}</td>')
            else:
                cells.append(f'<td class="text">{_esc(value)}</td>')
        text = " ".join(str(record[columns.index(c)]) for c in search if c in columns)
        rows.append(f'<tr data-search="{_esc(text)}">{"".join(cells)}</tr>' if search else
                    f'<tr>{"".join(cells)}</tr>')
    box = _filter(table_id, len(rows)) if filter_box else ""
    return (f'{box}<div class="table-wrap"><table class="sortable" id="{table_id}"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def _filter(table_id: str, n_rows: int) -> str:
    return (f'<div class="filter"><label>filter by run or team: <input type="search" '
            f'id="{table_id}-filter" data-filter-table="{table_id}" data-filter-count="{table_id}-count" '
            f'placeholder="run or team"></label><span id="{table_id}-count">{n_rows} rows</span></div>')


def _notes(data: ReportData, section: str) -> str:
    return "".join(f'<p class="note">{_esc(n)}</p>' for n in data.notes.get(section, []))


# ---------------------------------------------------------------------------------------------- sections
def _glance(data: ReportData) -> str:
    items = "".join(f"<dt>{_esc(k)}</dt><dd>{_esc(v)}</dd>" for k, v in data.glance)
    warned = "".join(f'<p class="warning">{_esc(w)}</p>' for w in data.warnings if "ASL" not in w)
    return f'<dl class="glance" id="glance-facts">{items}</dl>{warned}'


def _marks(data: ReportData) -> dict[tuple[str, str], str]:
    """(measure label, run) -> the significance marks against the baselines, as HTML."""
    board = data.leaderboard
    out: dict[tuple[str, str], str] = {}
    if board is None or board.comparisons is None:
        return out
    letters = board.labels()
    labels = {str(m): data.evaluation.label(m) for m in data.evaluation.measures}
    for row in board.comparisons.to_dict("records"):
        if not bool(row["significant"]):
            continue
        up = bool(row["run_better"])
        mark = (f'<span class="mark-{"up" if up else "down"}" title="significantly {"better" if up else "worse"} '
                f'than {_esc(row["reference"])}">{"▲" if up else "▼"}{letters[str(row["reference"])]}</span>')
        key = (labels.get(str(row["measure"]), str(row["measure"])), str(row["run"]))
        out[key] = out.get(key, "") + mark
    return out


def _leaderboard(data: ReportData) -> str:
    ev, board, table = data.evaluation, data.leaderboard, data.table
    assert board is not None and table is not None
    marks, letters = _marks(data), board.labels()
    head = ['<th class="num">#</th>', '<th class="text">run</th>', '<th class="text">team</th>']
    head += [f'<th class="num"{FIRST_DESCENDING if higher_is_better(m) else ""}>{_esc(ev.label(m))}</th>'
             for m in ev.measures]
    rows = []
    for position, run in enumerate(table.index, start=1):
        team = data.teams.get(run, run)
        base = f' <small>(baseline {letters[run]})</small>' if run in letters else ""
        cells = [f'<td data-value="{position}">{position}</td>', f'<td class="text">{_esc(run)}{base}</td>',
                 f'<td class="text">{_esc(team)}</td>']
        for m in ev.measures:
            label = ev.label(m)
            full, text = _number(table.at[run, label])
            low_col, high_col = interval_columns(m)
            ci = ""
            if low_col in board.values.columns:
                low: Any = board.values.at[run, low_col]
                high: Any = board.values.at[run, high_col]
                if not (pd.isna(low) or pd.isna(high)):
                    ci = f'<span class="ci">[{float(low):.4f}, {float(high):.4f}]</span>'
            cells.append(f'<td data-value="{full}" data-measure="{_esc(label)}">{text}{marks.get((label, run), "")}'
                         f'{ci}</td>')
        marked = ' class="baseline"' if run in letters else ""
        rows.append(f'<tr data-run="{_esc(run)}" data-search="{_esc(run)} {_esc(team)}"{marked}>'
                    f'{"".join(cells)}</tr>')
    legend = ", ".join(f"{letter} = {_esc(run)}" for run, letter in letters.items())
    settings = board.settings
    caption = (f"<p>Baselines: {legend}. Paired {settings['test']}-test at alpha {settings['alpha']}; intervals: "
               f"{settings['interval']} over queries, level {data.settings.ci:g}, {settings['resamples']} "
               f"resamples, seed {settings['seed']}. Rows: best first by {_esc(data.labels[0])}.</p>")
    return (caption + _filter("leaderboard-table", len(rows)) +
            '<div class="table-wrap"><table class="sortable" id="leaderboard-table"><thead><tr>'
            f'{"".join(head)}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def _rarity(data: ReportData) -> str:
    parts = []
    for i, pair in enumerate(data.pairs):
        parts.append(charts.rarity_scatter(data, pair, f"scatter-{i}"))
    grid = "".join(parts)
    tables = "".join(f"<h3>Runs {_esc(pair[0])} moves most against {_esc(pair[1])} (places moved up: rank by "
                     f"{_esc(pair[1])} minus rank by {_esc(pair[0])})</h3>"
                     + frame_table(frame, f"movers-{i}", search=["run", "team"])
                     for i, (pair, frame) in enumerate(data.movers.items()))
    return grid + tables


def _unique(data: ReportData) -> str:
    if data.unique_team is None or data.unique_run is None or data.rare_queries is None:
        return ""
    runs = data.unique_run.rename("unique relevant").reset_index()
    runs.insert(1, "team", [data.teams.get(r, r) for r in runs["run"]])
    teams = data.unique_team.rename("unique relevant").reset_index()
    return (f"<p>A document counts as retrieved by a team or run when it is in its top {data.depth()}; relevant: "
            f"label >= 1.</p>"
            + charts.unique_bars(data.unique_team, "team", "unique-teams")
            + '<div class="grid"><div><h3>Per team</h3>'
            + frame_table(teams, "unique-team-table", search=["team"], descending=["unique relevant"])
            + "</div><div><h3>Per run</h3>"
            + frame_table(runs, "unique-run-table", search=["run", "team"], descending=["unique relevant"],
                          filter_box=True)
            + "</div></div>"
            + f"<h3>Rarely retrieved relevant documents per query (S_d counts {data.evaluation.info.systems})</h3>"
            + frame_table(data.rare_queries, "rare-queries-table"))


def _per_query(data: ReportData) -> str:
    baseline = data.baselines[0] if data.baselines else ""
    parts = [f"<p>Baseline: {_esc(baseline)}.</p>"]
    for i, (label, diff) in enumerate(data.per_query.items()):
        measure = data.evaluation.measure(label)
        parts.append(charts.heatmap(diff, label, baseline, higher_is_better(measure), f"per-query-{i}"))
    return "".join(parts)


def _uncertainty(data: ReportData) -> str:
    ev, parts = data.evaluation, []
    comp = data.composition
    if comp is not None:
        first = data.pooled()[0]
        parts.append(charts.composition_ranks(comp, str(first), ev.label(first), "composition-ranks"))
        names = {c: c.replace(str(m), ev.label(m), 1) for m in data.pooled() for c in comp.columns
                 if c.startswith(str(m))}
        shown = comp.sort_values(f"{first} rank", kind="mergesort").rename(columns=names)
        parts.append(f"<h3>Score and rank when teams are left out or resampled ({comp.attrs.get('resamples', 0)} "
                     f"bootstrap campaigns, level {data.settings.ci:g})</h3>")
        parts.append(frame_table(shown, "composition-table", index=True, search=["run", "team"], filter_box=True))
    board = data.leaderboard
    if board is not None:
        m = ev.measures[0]
        low, _ = interval_columns(m)
        if low in board.values.columns:
            parts.append(charts.mean_intervals(board.values.loc[board.order], str(m), ev.label(m),
                                               data.settings.ci, "mean-intervals"))
    return "".join(parts)


def _depth(data: ReportData) -> str:
    if data.asl is None:
        return ""
    warned = [w for w in data.warnings if "ASL" in w]
    lengths = data.evaluation.attrs().get("asl_lengths")
    if not warned and isinstance(lengths, dict) and lengths.get("differ"):
        warned = [f"the runs return rankings of different lengths ({lengths['min']} to {lengths['max']}); shorter "
                  f"runs score lower (better) ASL"]
    text = "".join(f'<p class="warning">Warning: {_esc(w)}</p>' for w in warned)
    first = next(c for c in data.asl.columns if c not in ("team", "longest ranking"))
    return (text + charts.asl_scatter(data.asl, first, "asl-scatter")
            + frame_table(data.asl, "asl-table", index=True, search=["run", "team"], filter_box=True))


def _pooling(data: ReportData) -> str:
    if "found" not in data.pooling:
        return ""
    parts = [charts.pooling_curves(data.pooling["found"], "pooling-curves"),
             "<h3>Relevant documents found per strategy and budget (judgments per query)</h3>",
             frame_table(data.pooling["found wide"], "pooling-found")]
    if "reusability" in data.pooling:
        parts += ["<h3>Reusability: rank correlation with the ranking under the full qrels</h3>",
                  frame_table(data.pooling["reusability"], "pooling-reuse", places=3)]
    return "".join(parts)


def _meta(data: ReportData) -> str:
    parts = []
    if data.tau_alpha is not None:
        parts.append(charts.tau_alpha(data.tau_alpha, "tau-alpha"))
        parts.append(frame_table(data.tau_alpha, "tau-alpha-table", places=3))
    if data.meta is not None and len(data.meta):
        s = data.settings
        parts.append(f"<h3>Discriminative power (two-sample t-test, alpha {1 - s.ci:g}) and stability ({s.trials} "
                     f"subsets of half the queries, fuzziness 0.05)</h3>")
        parts.append(frame_table(data.meta, "meta-table", places=3, descending=["significant pairs", "share",
                                                                                  "stability"]))
    return "".join(parts)


def _provenance(provenance: Any) -> str:
    lines = "\n".join(provenance.lines())
    payload = provenance.json().replace("</", "<\\/")
    return (f'<pre class="provenance" id="provenance-lines">{_esc(lines)}</pre>'
            f'<script type="application/json" id="provenance-json">{payload}</script>')


RENDERERS: dict[str, Callable[[ReportData], str]] = {
    "glance": _glance, "leaderboard": _leaderboard, "rarity": _rarity, "unique": _unique, "per-query": _per_query,
    "uncertainty": _uncertainty, "depth": _depth, "pooling": _pooling, "meta": _meta,
}
NOTE_KEYS = {"per-query": "per query"}


def _section(section: str, body: str, notes: str) -> str:
    title, lead = SECTIONS[section]
    return (f'<section class="report-section" id="{section}"><h2>{_esc(title)}</h2><p class="lead">{_esc(lead)}</p>'
            f"{body}{notes}</section>")


def render_html(data: ReportData, provenance: Any, *, title: str = "ir_rarity campaign report",
                seconds: float | None = None) -> str:
    """The report page.

    Args:
        data: Every section's data.
        provenance: The :class:`~ir_rarity.provenance.Provenance` of the page.
        title: The page title.
        seconds: Time taken to compute the data (stated in the footer).

    """
    sections = [_section(key, render(data), _notes(data, NOTE_KEYS.get(key, key)))
                for key, render in RENDERERS.items()]
    sections.append(_section("provenance", _provenance(provenance), ""))
    nav = "".join(f'<a href="#{key}">{_esc(title_)}</a>' for key, (title_, _) in SECTIONS.items())
    css = (ASSETS / "report.css").read_text(encoding="utf-8")
    script = (ASSETS / "report.js").read_text(encoding="utf-8")
    took = f" in {seconds:.1f} s" if seconds is not None else ""
    meta = json.dumps({"generator": "ir_rarity.report"})
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, '
        f'initial-scale=1"><meta name="generator" content="ir_rarity"><title>{_esc(title)}</title>\n'
        f"<style>\n{css}</style>\n"
        f'<script type="application/json" id="report-meta">{meta}</script>\n'
        f"<script>{charts.plotly_js()}</script>\n"
        f"</head><body>\n"
        f'<header class="report-head"><h1>{_esc(title)}</h1><div>{_esc(data.evaluation.describe())}</div>'
        f'<nav class="report-nav">{nav}</nav></header>\n<main>\n' + "\n".join(sections) + "\n</main>\n"
        f"<footer>Made by ir_rarity{took}; self-contained: opens offline.</footer>\n"
        f"<script>\n{script}</script>\n</body></html>\n"
    )
