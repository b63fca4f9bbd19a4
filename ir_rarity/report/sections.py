"""The report's sections: ONE registry, :data:`SECTIONS`, of what each section is called, says and shows.

A :class:`Section` is its key (the element id, the key of its notes in ``ReportData.notes`` and of the assembly
step that fills it in :mod:`~ir_rarity.report.data`), its title, the one sentence it opens with, and the function
that renders its body. Each body's markup is the macro of ``templates/sections.html.j2`` named like the key (``-``
as ``_``), rendered with autoescape: the functions here only gather values. Adding a section is one entry here,
its macro, and (when it needs data of its own) its assembly step, keyed the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd
from markupsafe import Markup

from ir_rarity.compare.intervals import interval_columns
from ir_rarity.measures.parse import higher_is_better
from ir_rarity.report import charts
from ir_rarity.report.markup import FIRST_DESCENDING, frame_table, json_for_script, macro, number

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

    """

    key: str
    title: str
    lead: str
    render: Callable[[ReportData, Provenance], dict[str, Any] | None]


def body(section: Section, data: ReportData, provenance: Provenance) -> Markup:
    """The section's body: its macro of ``sections.html.j2`` with the arguments its ``render`` gathers."""
    arguments = section.render(data, provenance)
    if arguments is None:
        return Markup("")
    return macro("sections.html.j2", section.key.replace("-", "_"), **arguments)


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


def _cell(data: ReportData, run: str, measure: Any, marks: dict[tuple[str, str], list[dict[str, Any]]]
          ) -> dict[str, Any]:
    """A leaderboard cell: the mean (full value and shown text), its marks and its interval."""
    board, table = data.leaderboard, data.table
    assert board is not None and table is not None
    label = data.evaluation.label(measure)
    full, text = number(table.at[run, label])
    low_col, high_col = interval_columns(measure)
    ci = None
    if low_col in board.values.columns:
        low: Any = board.values.at[run, low_col]
        high: Any = board.values.at[run, high_col]
        if not (pd.isna(low) or pd.isna(high)):
            ci = (f"{float(low):.4f}", f"{float(high):.4f}")
    return {"value": full, "text": text, "measure": label, "marks": marks.get((label, run), []), "ci": ci}


def _leaderboard(data: ReportData, _: Provenance) -> dict[str, Any]:
    """Rows in leaderboard order; "#" is the rank by the first measure under the package's tie rule."""
    ev, board, table = data.evaluation, data.leaderboard, data.table
    assert board is not None and table is not None
    marks, letters = _marks(data), board.labels()
    ranks = data.ranks[data.labels[0]]
    rows = []
    for run, place in zip(table.index, ranks, strict=True):
        value, text = number(place, integral=True)
        rows.append({"run": run, "team": data.teams.get(run, run), "letter": letters.get(run),
                     "rank": {"value": value, "text": text},
                     "cells": [_cell(data, run, m, marks) for m in ev.measures]})
    settings = board.settings
    caption = {"letters": list(letters.items()), "test": settings["test"], "alpha": settings["alpha"],
               "interval": settings["interval"], "level": f"{data.settings.ci:g}", "resamples": settings["resamples"],
               "seed": settings["seed"], "first": data.labels[0]}
    head = [(ev.label(m), FIRST_DESCENDING if higher_is_better(m) else None) for m in ev.measures]
    return {"caption": caption, "head": head, "rows": rows}


def _rarity(data: ReportData, _: Provenance) -> dict[str, Any]:
    return {"charts": [charts.rarity_scatter(data, pair, f"scatter-{i}") for i, pair in enumerate(data.pairs)],
            "movers": [(pair, frame_table(frame, f"movers-{i}", search=["run", "team"]))
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
    baseline = data.baselines[0] if data.baselines else ""
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
    return {"lines": provenance.lines(), "payload": json_for_script(provenance.as_dict(), indent=2)}


SECTIONS: dict[str, Section] = {s.key: s for s in [
    Section("glance", "The campaign at a glance",
            "What the report was computed from: how many systems S the rarity measures count, the runs, teams, "
            "queries and judgments, and the depth S_d (how many systems retrieved a document) was counted at.",
            _glance),
    Section("leaderboard", "Leaderboard",
            "Each run's mean of every measure with its bootstrap interval over queries beneath it; ▲ or ▼ with a "
            "baseline's letter marks a significant difference from that baseline (paired test); click a column "
            "header to sort, type a run or team name to filter.",
            _leaderboard),
    Section("rarity", "Rarity against standard",
            "Each point is a run at its standard score (x) and its rarity score (y): runs above the trend find "
            "relevant documents few others retrieve; the tables list the runs whose rank rarity moves most.",
            _rarity),
    Section("unique", "Who finds what others miss",
            "How many relevant documents only one team (or one run) retrieved within the S_d depth, and per query "
            "how many relevant documents no system, one system or only a few systems retrieved.",
            _unique),
    Section("per-query", "Per query",
            "Each run's per-query difference from the baseline: blue cells are queries where the run beats the "
            "baseline, red where it loses; runs are sorted by their mean difference, best first.",
            _per_query),
    Section("uncertainty", "How sure",
            "How a rarity score and rank move with the other participants (leave one team out, bootstrap over "
            "teams) and how means vary over queries (bootstrap): a long bar means an unsure rank.",
            _uncertainty),
    Section("depth", "Depth",
            "ASL counts the non-relevant documents a user reads before each relevant one (lower is better); runs "
            "that return shorter rankings score lower, so read ASL next to each run's longest ranking.",
            _depth),
    Section("pooling", "Pooling",
            "How many relevant documents each judging strategy would have found for a budget of judgments per "
            "query, and how well the runs' ranking under those judgments agrees with the full qrels (tau).",
            _pooling),
    Section("meta", "Meta-evaluation",
            "How far rankings by the rarity measures drift from their standard measures as alpha grows (tau), and "
            "how many run pairs each measure tells apart (discriminative power) and how stably (topic subsets).",
            _meta),
    Section("provenance", "Provenance",
            "What produced this page and from which inputs (versions, command, each input's size and SHA-256, the "
            "pool); the same facts are embedded as JSON in the element #provenance-json.",
            _provenance),
]}
"""Section key -> :class:`Section`, in page order."""
