"""Figures of the meta-evaluation (needs matplotlib: ``pip install ir_rarity[plots]``).

Each function draws on a new :class:`matplotlib.figure.Figure` (matplotlib's object interface: no pyplot state,
no backend chosen, nothing left open) and returns it. Given a path, it also writes the figure there as a PNG,
atomically (a temporary file in the same folder, then ``os.replace``, :func:`ir_rarity.io.files.write_with`).
matplotlib is imported when a figure is first drawn, so importing :mod:`ir_rarity.meta` never needs it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pandas as pd

from ir_rarity.errors import InputError
from ir_rarity.meta.robustness import BAND_COLUMNS
from ir_rarity.plotting import new_figure, written

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_robustness", "plot_synthetic", "plot_tau_alpha"]

PathLike = str | os.PathLike[str]


def _require(df: pd.DataFrame, columns: list[str], what: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise InputError(f"{what} needs columns {columns}; missing {missing}")


def plot_tau_alpha(df: pd.DataFrame, path: PathLike | None = None) -> Figure:
    """Kendall's tau (and tau_AP, dashed) against alpha, one line per measure pair (Figure 2).

    Args:
        df: The output of :func:`~ir_rarity.meta.curves.tau_alpha_curve` (``alpha``, ``pair``, ``tau``,
            optionally ``tau_ap``).
        path: Where to write the PNG; None writes nothing.

    Returns:
        The figure.

    Raises:
        InputError: ``df`` lacks a needed column.

    """
    _require(df, ["alpha", "pair", "tau"], "plot_tau_alpha")
    fig = new_figure(5.5, 4)
    ax = fig.subplots()
    for pair, group in df.groupby("pair", sort=False):
        group = group.sort_values("alpha")
        (line,) = ax.plot(group["alpha"], group["tau"], marker="o", label=f"{pair} (Kendall tau)")
        if "tau_ap" in group:
            ax.plot(group["alpha"], group["tau_ap"], linestyle="--", color=line.get_color(),
                    label=f"{pair} (tau_AP)")
    ax.axhline(0.9, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel("alpha")
    ax.set_ylabel("rank correlation with the base measure")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return written(fig, path)


def plot_synthetic(df: pd.DataFrame, path: PathLike | None = None) -> Figure:
    """Rank of the hypothetical systems against the number of relevant documents retrieved (Figure 1).

    Args:
        df: The output of :func:`~ir_rarity.meta.robustness.synthetic_rank_curve` (``system``, ``alpha``,
            ``n_relevant``, ``rank``).
        path: Where to write the PNG; None writes nothing.

    Returns:
        The figure, one panel per system.

    Raises:
        InputError: ``df`` lacks a needed column.

    """
    _require(df, ["system", "alpha", "n_relevant", "rank"], "plot_synthetic")
    systems = list(dict.fromkeys(df["system"]))
    fig = new_figure(5 * len(systems), 4)
    axes = fig.subplots(1, len(systems), sharey=True, squeeze=False)
    for ax, system in zip(axes[0], systems, strict=True):
        part = df[df["system"] == system]
        for alpha, group in part.groupby("alpha"):
            ax.plot(group["n_relevant"], group["rank"], label=f"alpha={alpha:g}")
        ax.set_title(f"S_{system}")
        ax.set_xlabel("# of relevant documents retrieved")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel("rank among the systems (1 = best)")
    axes[0][0].invert_yaxis()
    return written(fig, path)


def plot_robustness(df: pd.DataFrame, path: PathLike | None = None) -> Figure:
    """Mean Kendall tau, with the band holding the central 95% of trials, against the number of sampled systems.

    Table 3 as a figure: a line through the mean tau at each size N and, at each N, a vertical bar from the
    2.5th to the 97.5th percentile of tau over the trials (columns ``p2.5`` and ``p97.5``). Percentiles of tau
    lie in [-1, 1], as tau does (mean ± one standard deviation need not, and is not drawn). A table without
    those columns gets the mean line alone. With a ``measure`` column, each measure gets its own line, its bars
    shifted slightly sideways so that they do not hide one another.

    Args:
        df: The output of :func:`~ir_rarity.meta.robustness.system_count_robustness` (``size``, ``mean_tau``,
            optionally ``p2.5`` and ``p97.5``), optionally with a ``measure`` column.
        path: Where to write the PNG; None writes nothing.

    Returns:
        The figure: ``axes[0].lines`` holds one mean line per measure, ``axes[0].collections`` one bar
        collection per measure (in the same order) when the table has the band.

    Raises:
        InputError: ``df`` lacks a needed column.

    """
    _require(df, ["size", "mean_tau"], "plot_robustness")
    low, high = BAND_COLUMNS
    banded = low in df.columns and high in df.columns
    fig = new_figure(5.5, 4)
    ax = fig.subplots()
    groups = list(df.groupby("measure", sort=False)) if "measure" in df.columns else [("", df)]
    for i, (measure, group) in enumerate(groups):
        group = group.sort_values("size")
        x = group["size"].to_numpy(dtype=float) * 2.0 ** (0.04 * (i - (len(groups) - 1) / 2))
        (line,) = ax.plot(x, group["mean_tau"], marker="o", label=str(measure) or "mean tau")
        if banded:
            ok = group[low].notna().to_numpy() & group[high].notna().to_numpy()
            ax.vlines(x[ok], group[low][ok], group[high][ok], color=line.get_color(), linewidth=1.2,
                      label=f"{measure!s} 2.5th-97.5th percentile".strip())
    ax.set_xscale("log", base=2)
    sizes = sorted({int(n) for n in df["size"]})
    ax.set_xticks(sizes, [str(n) for n in sizes], minor=False)
    ax.set_xlabel("number of sampled systems N")
    ax.set_ylabel("Kendall tau vs. full-pool ranking")
    ax.set_title("mean tau; bars: central 95% of trials" if banded else "mean tau", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return written(fig, path)
