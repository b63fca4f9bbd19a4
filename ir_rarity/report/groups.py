"""The leaderboard file's other columns (``runtype``, ``contributed judgments``...) as filters and groups.

A TREC leaderboard file (CSV with a ``run`` column, as the embedded round 1's ``leaderboard.csv``) describes each
run beyond its team. Its categorical columns (text with at most :data:`MOST_VALUES` distinct values, not ``run``,
``team`` or a report's path) become columns of the report's leaderboard with a select box each, and a table
of each group's runs: how many, the best and the median run mean of the first measure, and the median rarity gain
of each (rarity, standard) pair. Medians are :func:`numpy.nanmedian` of the runs' means (the evaluation's).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ir_rarity.errors import InputError
from ir_rarity.measures.parse import higher_is_better
from ir_rarity.report.markup import frame_table

if TYPE_CHECKING:
    from ir_rarity.provenance import Provenance
    from ir_rarity.report.data import ReportData

__all__ = ["MOST_VALUES", "TEMPLATE", "gather", "group_filters", "read_leaderboard", "render", "run_groups"]

MOST_VALUES = 12
"""A column with more distinct values than this is no grouping (scores, report paths)."""

_SKIP = {"run", "team", "report"}


def read_leaderboard(path: str | os.PathLike[str]) -> pd.DataFrame:
    """The categorical columns of a leaderboard CSV, indexed by run (missing cells as ``"–"``).

    Raises:
        InputError: the file cannot be read as CSV or has no ``run`` column (one line naming the file).

    """
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, ValueError, pd.errors.ParserError) as error:
        raise InputError(f"{os.fspath(path)}: not a readable leaderboard CSV ({error})") from None
    if "run" not in frame.columns:
        raise InputError(f"{os.fspath(path)}: line 1: no 'run' column (columns: {', '.join(frame.columns)})")
    keep = []
    for column in frame.columns:
        if column in _SKIP:
            continue
        values = frame[column].str.strip()
        numeric = pd.to_numeric(values[values != ""], errors="coerce").notna().all() and (values != "").any()
        if not numeric and 1 < values.nunique() <= MOST_VALUES:
            keep.append(column)
    out = frame.set_index("run")[keep].apply(lambda c: c.str.strip().replace("", "–"))
    return out[~out.index.duplicated()]


def _columns(data: ReportData) -> pd.DataFrame | None:
    groups = data.settings.groups
    if groups is None or not len(groups.columns):
        return None
    return groups.reindex([str(r) for r in data.evaluation.names]).fillna("–")


def run_groups(data: ReportData, run: str) -> list[str]:
    """The run's value in each group column (``"–"`` for a run the file does not list)."""
    groups = _columns(data)
    return [] if groups is None else [str(v) for v in groups.loc[str(run)]]


def group_filters(data: ReportData) -> list[dict[str, Any]]:
    """One select box per group column: its name and values (sorted)."""
    groups = _columns(data)
    if groups is None:
        return []
    return [{"column": str(c), "options": sorted({str(v) for v in groups[c]})} for c in groups.columns]


def gather(data: ReportData) -> None:
    """Fill ``data.notes`` when a leaderboard file lists none of the runs (its columns then group nothing)."""
    groups = data.settings.groups
    if groups is None:
        return
    if not set(map(str, data.evaluation.names)) & set(groups.index.astype(str)):
        data.note("groups", "the leaderboard file lists none of the report's runs")


def group_table(data: ReportData) -> pd.DataFrame | None:
    """Per group column and value: runs, best and median mean of the first measure, median rarity gain per pair."""
    groups, table = _columns(data), data.table
    if groups is None or table is None:
        return None
    first = data.labels[0]
    higher = higher_is_better(data.evaluation.measure(first))
    rows = []
    for column in groups.columns:
        for value, members in groups.groupby(column, sort=True).groups.items():
            runs = [str(r) for r in members]
            means = table.loc[runs, first].to_numpy(float)
            row: dict[str, Any] = {"column": str(column), "value": str(value), "runs": len(runs),
                                   f"best {first}": (np.nanmax(means) if higher else np.nanmin(means))
                                   if np.isfinite(means).any() else np.nan,
                                   f"median {first}": np.nanmedian(means) if np.isfinite(means).any() else np.nan}
            for (rare, base), gain in data.gain.items():
                g = gain.set_index("run").loc[runs, "rarity gain"].to_numpy(float)
                row[f"median gain {rare} / {base}"] = np.nanmedian(g) if np.isfinite(g).any() else np.nan
            rows.append(row)
    return pd.DataFrame(rows)


def render(data: ReportData, _: Provenance) -> dict[str, Any] | None:
    """The template arguments: the group table (None without a leaderboard file)."""
    frame = group_table(data)
    if frame is None:
        return None
    return {"table": frame_table(frame, "groups-table")}


TEMPLATE = r"""{{ table }}"""
