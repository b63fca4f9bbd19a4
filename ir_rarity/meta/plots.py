"""PNG figures of the meta-evaluation (needs matplotlib: ``pip install ir_rarity[plots]``).

matplotlib is imported on first use with the non-interactive Agg backend, so importing :mod:`ir_rarity.meta`
never needs it. Each function writes one PNG atomically (temporary file in the same folder, then
``os.replace``) and returns its path.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from ir_rarity.errors import InputError
from ir_rarity.plotting import pyplot as _pyplot
from ir_rarity.plotting import save_figure as _save

__all__ = ["plot_robustness", "plot_synthetic", "plot_tau_alpha"]


def _require(df: pd.DataFrame, columns: list[str], what: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise InputError(f"{what} needs columns {columns}; missing {missing}")


def plot_tau_alpha(df: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Kendall's tau (and tau_AP, dashed) against alpha, one line per measure pair (Figure 2).

    Args:
        df: The output of :func:`~ir_rarity.meta.curves.tau_alpha_curve` (``alpha``, ``pair``, ``tau``,
            optionally ``tau_ap``).
        path: The PNG to write.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    """
    _require(df, ["alpha", "pair", "tau"], "plot_tau_alpha")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 4))
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
    return _save(fig, path)


def plot_synthetic(df: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Rank of the hypothetical systems against the number of relevant documents retrieved (Figure 1).

    Args:
        df: The output of :func:`~ir_rarity.meta.robustness.synthetic_rank_curve` (``system``, ``alpha``,
            ``n_relevant``, ``rank``).
        path: The PNG to write.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    """
    _require(df, ["system", "alpha", "n_relevant", "rank"], "plot_synthetic")
    plt = _pyplot()
    systems = list(dict.fromkeys(df["system"]))
    fig, axes = plt.subplots(1, len(systems), figsize=(5 * len(systems), 4), sharey=True, squeeze=False)
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
    return _save(fig, path)


def plot_robustness(df: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Mean Kendall tau (with one standard deviation) against the number of sampled systems (Table 3).

    Args:
        df: The output of :func:`~ir_rarity.meta.robustness.system_count_robustness` (``size``, ``mean_tau``,
            ``std``), optionally with a ``measure`` column to draw one line per measure.
        path: The PNG to write.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    """
    _require(df, ["size", "mean_tau", "std"], "plot_robustness")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 4))
    groups = df.groupby("measure", sort=False) if "measure" in df.columns else [("", df)]
    for measure, group in groups:
        group = group.sort_values("size")
        ax.errorbar(group["size"], group["mean_tau"], yerr=group["std"], marker="o", capsize=3,
                    label=str(measure) or None)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("number of sampled systems N")
    ax.set_ylabel("mean Kendall tau vs. full-pool ranking")
    ax.grid(alpha=0.3)
    if "measure" in df.columns:
        ax.legend(fontsize=8)
    return _save(fig, path)
