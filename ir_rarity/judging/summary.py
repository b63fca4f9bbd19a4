"""Tables, PNG curves and the markdown summary of a pooling study; every file is written atomically.

Figures need matplotlib (``pip install ir_rarity[plots]``); they are drawn with its object interface
(:mod:`ir_rarity.plotting`), returned, and written only when given a path.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ir_rarity.io.files import write_text
from ir_rarity.io.guard import OutputFolder
from ir_rarity.judging.simulation import Simulation
from ir_rarity.plotting import new_figure, written
from ir_rarity.tables import render_frame

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["found_table", "plot_budget_curves", "plot_reusability", "reusability_table", "write_report"]


def found_table(sim: Simulation, column: str = "relevant") -> pd.DataFrame:
    """Relevant documents found (or ``column`` of :meth:`Simulation.table`), wide.

    One row per strategy (in the order given), one column per budget.
    """
    table = sim.table()
    wide = table.pivot(index="strategy", columns="budget", values=column).loc[list(sim.orders)]
    wide.columns = [f"{'total' if sim.total else 'per query'} {b}" for b in wide.columns]
    return wide.reset_index()


def reusability_table(table: pd.DataFrame, measure: str) -> pd.DataFrame:
    """The rows of :func:`~ir_rarity.judging.reuse.reusability` for one measure, without that column."""
    return table[table["measure"] == measure].drop(columns="measure").reset_index(drop=True)


def plot_budget_curves(sim: Simulation, path: str | os.PathLike[str] | None = None, column: str = "relevant"
                       ) -> Figure:
    """Relevant documents found against the budget, one line per strategy; written atomically when given a path."""
    table = sim.table()
    fig = new_figure(7, 4.5)
    ax = fig.subplots()
    for name in sim.orders:
        part = table[table["strategy"] == name]
        ax.plot(part["budget"], part[column], marker="o", label=name)
    ax.set_xlabel("budget (judgments in total)" if sim.total else "budget (judgments per query)")
    ax.set_ylabel({"relevant": "relevant documents found"}.get(column, column))
    ax.set_title("Relevant documents found per budget")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return written(fig, path)


def plot_reusability(table: pd.DataFrame, measure: str, path: str | os.PathLike[str] | None = None,
                     column: str = "tau") -> Figure:
    """Kendall's tau (or ``column``) of the pool's ranking against the full-qrels ranking, per budget."""
    part = table[table["measure"] == measure]
    fig = new_figure(7, 4.5)
    ax = fig.subplots()
    for name, rows in part.groupby("strategy", sort=False):
        ax.plot(rows["budget"], rows[column], marker="o", label=str(name))
    ax.set_xlabel("budget")
    ax.set_ylabel(column)
    ax.set_title(f"{column} against the full-qrels ranking, {measure}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return written(fig, path)


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in text).strip("_")


def write_report(out: str | os.PathLike[str], sim: Simulation, reusability: pd.DataFrame | None = None,
                 official: tuple[pd.DataFrame, pd.DataFrame] | None = None,
                 incomplete: pd.DataFrame | None = None, plots: bool = True, places: int = 4,
                 on_file: Callable[[Path], None] | None = None, *, overwrite: bool = False) -> Path:
    """Write the study into folder ``out``: CSVs, PNG curves and ``summary.md``; returns the summary's path.

    Files: ``found.csv`` (:meth:`Simulation.table`), ``found.png``; with ``reusability``: ``reusability.csv`` and
    ``tau_<measure>.png``; with ``official``: ``official_runs.csv``, ``official_summary.csv``; with
    ``incomplete``: ``incomplete.csv``; and the manifest of what was written
    (:class:`~ir_rarity.io.guard.OutputFolder`).

    Raises:
        InputError: ``out`` holds files an earlier pooling report did not write (a hand-written ``summary.md``),
            and ``overwrite`` is false.

    """
    with OutputFolder(out, "pooling", overwrite=overwrite) as folder:
        return _write_files(folder, sim, reusability, official, incomplete, plots, places, on_file)


def _write_files(folder: Path, sim: Simulation, reusability: pd.DataFrame | None,
                 official: tuple[pd.DataFrame, pd.DataFrame] | None, incomplete: pd.DataFrame | None, plots: bool,
                 places: int, on_file: Callable[[Path], None] | None) -> Path:
    """The files of :func:`write_report`, written into ``folder``."""

    def done(path: Path) -> Path:
        if on_file is not None:
            on_file(path)
        return path

    found = sim.table()
    done(write_text(folder / "found.csv", found.to_csv(index=False)))
    lines = ["# Pooling study", "", f"Simulated on {sim.describe()}.", "",
             "## Relevant documents found", "", render_frame(found_table(sim), "markdown", places), ""]
    lines += ["Judged documents outside the qrels (counted non-relevant):", "",
              render_frame(found_table(sim, "outside_qrels"), "markdown", places), ""]
    best = sim.best()
    lines += ["Most relevant documents per budget:", "", render_frame(best, "markdown", places), ""]
    if plots:
        plot_budget_curves(sim, folder / "found.png")
        done(folder / "found.png")
        lines += ["![relevant found](found.png)", ""]
    if reusability is not None:
        done(write_text(folder / "reusability.csv", reusability.to_csv(index=False)))
        lines += ["## Reusability of the simulated pools", "",
                  "Rankings of all runs under qrels restricted to each pool, against the full-qrels ranking; "
                  "leave-one-team-out rank drops of the left-out teams' runs.", ""]
        for measure in dict.fromkeys(reusability["measure"]):
            lines += [f"### {measure}", "", render_frame(reusability_table(reusability, measure), "markdown",
                                                          places), ""]
            if plots:
                name = f"tau_{_slug(measure)}.png"
                plot_reusability(reusability, measure, folder / name)
                done(folder / name)
                lines += [f"![tau {measure}]({name})", ""]
    if official is not None:
        runs, summary = official
        done(write_text(folder / "official_runs.csv", runs.to_csv(index=False)))
        done(write_text(folder / "official_summary.csv", summary.to_csv(index=False)))
        info = runs.attrs.get("pool", {})
        lines += ["## S_d from the official runs vs all runs", "",
                  f"{info.get('official', '?')} official runs form the pool; the {info.get('additional', '?')} "
                  "others are scored against it as newcomers.", "", render_frame(summary, "markdown", places), ""]
    if incomplete is not None:
        done(write_text(folder / "incomplete.csv", incomplete.to_csv(index=False)))
        lines += ["## Incomplete judgments", "",
                  "Per run: value (unjudged = non-relevant), judged-only value, value with the run's unjudged "
                  "documents counted relevant, and the share of its top k judged: see incomplete.csv.", ""]
    return done(write_text(folder / "summary.md", "\n".join(lines)))
