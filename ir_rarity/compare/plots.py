"""Plot of pool-composition uncertainty: each run's rank with its leave-one-team-out range and bootstrap interval.

Needs the ``plots`` extra (matplotlib). The figure is a new :class:`matplotlib.figure.Figure` (matplotlib's
object interface: no pyplot state, no backend chosen, nothing left open), returned; given a path it is also
written there, atomically (:mod:`ir_rarity.io.files`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ir_rarity.plotting import new_figure, written
from ir_rarity.typing import MeasureLike

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_composition"]


def plot_composition(table: pd.DataFrame, measure: MeasureLike, path: str | os.PathLike[str] | None = None,
                     top: int | None = None, title: str | None = None) -> Figure:
    """Rank of every run (1 = best) by ``measure`` in the whole pool, with the ranges composition gives.

    One row per run, named on the y axis, best at the top (by rank in the whole pool, then score); the rank is
    on the x axis. The dot is the run's rank in the whole pool, a thin bar spans the bootstrap interval of the
    rank over resampled pools, a thick bar its range when each other team is left out. Every bar is a range
    of ranks, so it lies in [1, number of runs in ``table``] (also with ``top``: the shown runs keep their
    ranks among all runs).

    Args:
        table: A :func:`~ir_rarity.compare.uncertainty.composition` table (index: the run names).
        measure: The measure to plot (one of the table's).
        path: Where to write the figure (PNG, or any format matplotlib knows by the suffix); None writes
            nothing.
        top: Plot only the best ``top`` runs (advisable for large campaigns: the figure grows with the runs).
        title: A title (default: the measure and the pool).

    Returns:
        The figure: ``axes[0].get_yticklabels()`` are the run names (best first), ``axes[0].collections`` the
        bootstrap bars then the leave-one-out bars (those the table has).

    Raises:
        KeyError: ``table`` has no columns for ``measure``.

    """
    name = str(measure)
    if f"{name} rank" not in table.columns:
        raise KeyError(f"the composition table has no measure {name!r}")
    data = table.sort_values([f"{name} rank", name], ascending=[True, False], kind="mergesort")
    if top is not None:
        data = data.head(top)
    y = np.arange(len(data))
    labels = [str(run) for run in data.index]
    longest = max((len(label) for label in labels), default=0)
    fig = new_figure(min(14.0, 6.0 + 0.07 * longest), max(3.0, 0.18 * len(data) + 1.6), layout="constrained")
    ax = fig.subplots()
    if f"{name} boot rank low" in data.columns:
        ax.hlines(y, data[f"{name} boot rank low"], data[f"{name} boot rank high"], color="tab:blue",
                  linewidth=1.0, label=f"bootstrap over {table.attrs.get('left_out', 'teams')} "
                                       f"({table.attrs.get('level', 0.95):.0%})")
    if f"{name} loto rank best" in data.columns:
        ax.hlines(y, data[f"{name} loto rank best"], data[f"{name} loto rank worst"], color="tab:orange",
                  linewidth=3.5, alpha=0.8, label="leave one out (range)")
    ax.plot(data[f"{name} rank"], y, "o", color="black", markersize=2.5, label="whole pool")
    ax.set_yticks(y, labels, fontsize=7)
    ax.set_ylim(len(data) - 0.5, -0.5)  # best run at the top
    ax.set_xlabel(f"rank by {name} (1 = best, of {len(table)} runs)")
    ax.set_ylabel("run" if top is None else f"run (best {len(data)} of {len(table)})")
    ax.set_title(title or f"{name}: rank and pool composition ({table.attrs.get('describe', '')})", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")  # the runs run from top left to bottom right
    return written(fig, path, dpi=150)
