"""Plot of pool-composition uncertainty: each run's rank with its leave-one-team-out range and bootstrap interval.

Needs the ``plots`` extra (matplotlib). Files are written atomically (:mod:`ir_rarity.io.files`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ir_rarity.io.files import write_with
from ir_rarity.plotting import pyplot as _pyplot
from ir_rarity.typing import MeasureLike

__all__ = ["plot_composition"]


def plot_composition(table: pd.DataFrame, measure: MeasureLike, path: str | Path, top: int | None = None,
                     title: str | None = None) -> Path:
    """Rank of every run (1 = best) by ``measure`` in the whole pool, with the ranges composition gives.

    Runs are placed left to right by their rank in the whole pool (the dots); a thin bar spans the bootstrap
    interval of the rank over resampled pools, a thick bar its range when each other team is left out.

    Args:
        table: A :func:`~ir_rarity.compare.uncertainty.composition` table.
        measure: The measure to plot (one of the table's).
        path: The PNG (or any format matplotlib knows by the suffix) to write.
        top: Plot only the best ``top`` runs.
        title: A title (default: the measure and the pool).

    Returns:
        ``path``.

    """
    name = str(measure)
    if f"{name} rank" not in table.columns:
        raise KeyError(f"the composition table has no measure {name!r}")
    data = table.sort_values([f"{name} rank", name], ascending=[True, False], kind="mergesort")
    if top is not None:
        data = data.head(top)
    plt = _pyplot()
    x = np.arange(1, len(data) + 1)
    fig, ax = plt.subplots(figsize=(min(12.0, max(6.0, 0.09 * len(data) + 3.0)), 4.5))
    try:
        if f"{name} boot rank low" in data.columns:
            ax.vlines(x, data[f"{name} boot rank low"], data[f"{name} boot rank high"], color="tab:blue",
                      linewidth=1.0, label=f"bootstrap over {table.attrs.get('left_out', 'teams')} "
                                           f"({table.attrs.get('level', 0.95):.0%})")
        if f"{name} loto rank best" in data.columns:
            ax.vlines(x, data[f"{name} loto rank best"], data[f"{name} loto rank worst"], color="tab:orange",
                      linewidth=3.5, alpha=0.8, label="leave one out (range)")
        ax.plot(x, data[f"{name} rank"], "o", color="black", markersize=2.5, label="whole pool")
        ax.invert_yaxis()
        ax.set_xlabel("runs, by rank in the whole pool")
        ax.set_ylabel(f"rank by {name}")
        ax.set_title(title or f"{name}: rank and pool composition ({table.attrs.get('describe', '')})",
                     fontsize=9)
        ax.legend(fontsize=8, loc="lower left")
        fig.tight_layout()
        out = Path(path)
        fmt = out.suffix.lstrip(".").lower() or "png"
        write_with(out, lambda tmp: fig.savefig(tmp, format=fmt, dpi=150))
    finally:
        plt.close(fig)
    return out
