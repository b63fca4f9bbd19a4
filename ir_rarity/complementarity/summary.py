"""The complementarity folder: CSVs, plots and ``summary.md``, every file written atomically.

Files: ``similarity.csv`` (pairs of runs), ``team_similarity.csv``, ``clusters.csv``, ``fusion.csv`` (method x
measure), ``contribution.csv`` (leave-one-team-out, every method and measure), ``teams.csv`` (the rarity table:
team, rarity score, contribution, Shapley value, unique relevant), ``correlations.csv``, ``settings.json`` (the
parameters and what the values were computed against), ``summary.md``, and with plots ``dendrogram.png`` and
``rarity.png``. Figures use matplotlib's object interface (:mod:`ir_rarity.plotting`): returned, written only when
given a path, the backend never changed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ir_rarity.complementarity.similarity import plot_dendrogram
from ir_rarity.complementarity.study import Complementarity
from ir_rarity.io.files import write_text
from ir_rarity.io.guard import OutputFolder
from ir_rarity.plotting import new_figure, written
from ir_rarity.tables import render_frame

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_rarity", "summary_markdown", "write_complementarity"]


def plot_rarity(result: Complementarity, measure: str | None = None, path: str | os.PathLike[str] | None = None
                ) -> Figure:
    """Each team's rarity score against its Shapley value (with +-1 standard error) and its unique relevant documents.

    Args:
        result: The analysis.
        measure: The rarity measure on the x axis (default: the first).
        path: Where to write the figure (atomically); None: only returned.

    """
    teams = result.teams
    label = measure if measure is not None else result.settings["rarity"][0]
    fig = new_figure(11, 4.5)
    left, right = fig.subplots(1, 2)
    x = teams[label].to_numpy(np.float64)
    left.errorbar(x, teams["shapley"], yerr=teams["shapley_se"], fmt="o", markersize=4, alpha=0.8, elinewidth=0.6)
    left.axhline(0.0, color="0.6", linewidth=0.6)
    left.set_xlabel(f"{label} ({'best run' if result.settings['team_score'] == 'best' else 'mean of runs'})")
    left.set_ylabel(f"Shapley value ({result.settings['shapley_method']}, {result.settings['shapley_measure']})")
    right.scatter(x, teams["unique_relevant"], s=16, alpha=0.8)
    right.set_xlabel(left.get_xlabel())
    right.set_ylabel(f"unique relevant documents (pool depth {result.settings['pool_depth']})")
    for ax, against in ((left, "shapley"), (right, "unique_relevant")):
        row = result.correlations[(result.correlations["rarity_measure"] == label)
                                  & (result.correlations["against"] == against)]
        if len(row):
            r = row.iloc[0]
            ax.set_title(f"Spearman {r['spearman']:.3f} (p={r['spearman_p']:.2g}), "
                         f"Kendall {r['kendall']:.3f} (p={r['kendall_p']:.2g})", fontsize=9)
        ax.grid(alpha=0.3)
    fig.suptitle(f"Team rarity and what the team adds ({len(teams)} teams)")
    return written(fig, path)


def _p_values(frame: pd.DataFrame) -> pd.DataFrame:
    """p-values as text with two significant digits (a fixed number of places shows small ones as 0)."""
    shown = frame.copy()
    for column in ("spearman_p", "kendall_p"):
        shown[column] = [f"{p:.2g}" if np.isfinite(p) else "" for p in frame[column].to_numpy(np.float64)]
    return shown


def summary_markdown(result: Complementarity, places: int = 4, plots: bool = True) -> str:
    """The text of ``summary.md``."""
    s = result.settings
    lines = ["# Complementarity", "", result.describe(), "",
             "## Fusion of the campaign", "",
             "Each fused run scored against the campaign, beside the campaign's best single run.", "",
             render_frame(result.fusion, "markdown", places), "",
             "## Teams: rarity and contribution", "",
             f"`contribution` = {s['shapley_measure']} of the {s['shapley_method']} fusion with the team's runs "
             f"minus without them; `shapley` = the team's sampled Shapley value in the same game "
             f"({s['samples']} orders, standard error `shapley_se`); `unique_relevant` = relevant documents only "
             f"the team has in its top {s['pool_depth']}.", "",
             render_frame(result.teams, "markdown", places), "",
             "## Is rarity correlated with what a team adds?", "",
             render_frame(_p_values(result.correlations), "markdown", places), ""]
    if s["shapley_measure"] not in s["rarity"]:
        lines[-1:-1] = ["", f"The rows of {s['shapley_measure']} (each team's best or mean score of the game's own "
                            "measure) say how much of a correlation effectiveness alone explains."]
    if plots:
        lines += ["![rarity against contribution](rarity.png)", ""]
    n_clusters = int(result.clusters["cluster"].nunique())
    pairs = result.similarity.pairs()
    lines += ["## Similarity", "",
              f"{len(pairs):,} pairs of runs: mean Jaccard at {s['k']} {pairs['jaccard'].mean():.{places}f}, "
              f"mean RBO_ext (p={s['p']}) {pairs['rbo'].mean():.{places}f}; {n_clusters} clusters at distance "
              f"{s['cut']}.", ""]
    if plots:
        lines += ["![dendrogram](dendrogram.png)", ""]
    return "\n".join(lines)


def write_complementarity(out: str | os.PathLike[str], result: Complementarity, *, plots: bool = True,
                          places: int = 4, overwrite: bool = False,
                          on_file: Callable[[Path], None] | None = None) -> Path:
    """Write the analysis into folder ``out`` (see the module docstring); returns ``summary.md``'s path.

    Raises:
        InputError: ``out`` holds files an earlier complementarity run did not write, and ``overwrite`` is false.

    """
    with OutputFolder(out, "complementarity", overwrite=overwrite) as folder:
        return _write(folder, result, plots, places, on_file)


def _write(folder: Path, result: Complementarity, plots: bool, places: int,
           on_file: Callable[[Path], None] | None) -> Path:
    def done(path: Path) -> Path:
        if on_file is not None:
            on_file(path)
        return path

    tables = {"similarity.csv": result.similarity.pairs(), "team_similarity.csv": result.team_pairs,
              "clusters.csv": result.clusters, "fusion.csv": result.fusion,
              "contribution.csv": result.contribution, "teams.csv": result.teams,
              "correlations.csv": result.correlations}
    for name, frame in tables.items():
        done(write_text(folder / name, frame.to_csv(index=False)))
    settings = {**result.settings, "computed_against": result.describe()}
    done(write_text(folder / "settings.json", json.dumps(settings, indent=1, default=str) + "\n"))
    if plots:
        plot_dendrogram(result.similarity, result.settings["basis"], result.settings["cut"], folder / "dendrogram.png")
        done(folder / "dendrogram.png")
        plot_rarity(result, path=folder / "rarity.png")
        done(folder / "rarity.png")
    return done(write_text(folder / "summary.md", summary_markdown(result, places, plots) + "\n"))
