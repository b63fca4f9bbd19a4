"""PNG plots of per-document ASL (Figures 5 and 6 of Alex, Hall & Metzler). Needs the ``plots`` extra (matplotlib)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ir_rarity.analysis.asl import difference_buckets
from ir_rarity.plotting import new_figure, written

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_asl_differences", "plot_asl_distribution"]


def _bars(table: pd.DataFrame, path: str | Path | None, xlabel: str, title: str) -> Figure:
    fig = new_figure(8, 4, layout="tight")
    ax = fig.subplots()
    ax.bar(range(len(table)), table["count"].to_numpy())
    ax.set_xticks(range(len(table)), table["bucket"].astype(str).tolist(), rotation=45, ha="right")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("relevant documents")
    ax.set_title(title)
    return written(fig, path)


def plot_asl_distribution(df: pd.DataFrame, path: str | Path | None = None, title: str = "Per-document ASL"
                          ) -> Figure:
    """Bar chart of :func:`ir_rarity.analysis.asl_distribution`'s table (Figure 5), written to ``path`` if given."""
    return _bars(df, path, "per-document ASL", title)


def plot_asl_differences(df: pd.DataFrame, path: str | Path | None = None,
                         title: str = "Per-document ASL differences") -> Figure:
    """Bar chart of bucketed :func:`ir_rarity.analysis.asl_differences` (Figure 6), written to ``path`` if given.

    ``df`` may also already be a ``bucket, count`` table from :func:`ir_rarity.analysis.difference_buckets`.
    """
    table = df if {"bucket", "count"} <= set(df.columns) else difference_buckets(df)
    return _bars(table, path, "ASL difference (negative: run A better)", title)
