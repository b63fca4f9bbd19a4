"""PNG plots of per-document ASL (Figures 5 and 6 of Alex, Hall & Metzler). Needs the ``plots`` extra (matplotlib)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ir_rarity.analysis.asl import difference_buckets
from ir_rarity.io.files import write_with
from ir_rarity.plotting import pyplot as _pyplot

__all__ = ["plot_asl_differences", "plot_asl_distribution"]


def _bars(table: pd.DataFrame, path: str | Path, xlabel: str, title: str) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 4))
    try:
        ax.bar(range(len(table)), table["count"].to_numpy())
        ax.set_xticks(range(len(table)), table["bucket"].astype(str).tolist(), rotation=45, ha="right")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("relevant documents")
        ax.set_title(title)
        fig.tight_layout()
        path = Path(path)
        write_with(path, lambda tmp: fig.savefig(tmp, format="png"))
    finally:
        plt.close(fig)
    return path


def plot_asl_distribution(df: pd.DataFrame, path: str | Path, title: str = "Per-document ASL") -> Path:
    """Bar chart of :func:`ir_rarity.analysis.asl_distribution`'s table (Figure 5), saved as PNG at ``path``."""
    return _bars(df, path, "per-document ASL", title)


def plot_asl_differences(df: pd.DataFrame, path: str | Path, title: str = "Per-document ASL differences") -> Path:
    """Bar chart of bucketed :func:`ir_rarity.analysis.asl_differences` (Figure 6), saved as PNG at ``path``.

    ``df`` may also already be a ``bucket, count`` table from :func:`ir_rarity.analysis.difference_buckets`.
    """
    table = df if {"bucket", "count"} <= set(df.columns) else difference_buckets(df)
    return _bars(table, path, "ASL difference (negative: run A better)", title)
