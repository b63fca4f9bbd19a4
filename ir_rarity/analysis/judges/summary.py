"""The ``ir-rarity judges`` folder: a :class:`~ir_rarity.analysis.judges.compare.JudgeComparison` as CSV and markdown.

Files: ``agreement.csv`` and ``agreement_by_rarity.csv`` (kappa, alpha, shares per pair of judges, overall and per
S_d bucket), ``confusion.csv`` (every pair's confusion counts, overall and per bucket), ``rankings.csv`` (``measure,
judge_a, judge_b, n_runs, tau, tau_ap, top10_overlap``), ``leaderboards.csv`` (each judge's leaderboard of every
measure), ``runs.csv`` (each run's scores under each pair of judges, the difference and its bootstrap interval),
``groups.csv`` (with a leaderboard column: whether a judge favours a group of runs) and ``summary.md``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from ir_rarity.analysis.judges.compare import ALL_JUDGES, JudgeComparison
from ir_rarity.io.files import write_text
from ir_rarity.io.guard import OutputFolder
from ir_rarity.tables import render_frame

__all__ = ["FILES", "summary_markdown", "write_judges_folder"]

FILES = ("agreement.csv", "agreement_by_rarity.csv", "confusion.csv", "rankings.csv", "leaderboards.csv",
         "runs.csv", "groups.csv", "summary.md")
"""The files ``ir-rarity judges`` may write (``groups.csv`` only with a leaderboard column)."""

_SHOWN = ["judge_a", "judge_b", "n_both", "agreement", "relevant_a", "relevant_b", "kappa", "kappa_linear",
          "kappa_quadratic", "alpha_ordinal"]


def _markdown(frame: pd.DataFrame, places: int) -> str:
    return render_frame(frame.astype(object).where(frame.notna(), pd.NA), "markdown", places)


def summary_markdown(result: JudgeComparison, places: int = 4) -> str:
    """The markdown summary: what was compared against what, then the agreement, rankings and runs that moved."""
    s = result.settings
    depth = "whole runs as read" if s["depth"] is None else f"depth {s['depth']}"
    lines = ["# Judges compared", "",
             f"{result.describe()}.", "",
             f"Scores: {s['pool']}. Rarity buckets of S_d (how many of the S = {s['S']} {s['S_counts']} retrieved "
             f"the document, counted at {depth}): {', '.join(s['buckets'])} (0: judged, retrieved by none).", ""]
    if s["combine"]:
        lines += [f"Combined judges (`{s['combine']}`): the first judge's labels, and the other's where the first "
                  "left a hole.", ""]
    pairs = result.agreement[result.agreement["judge_a"] != ALL_JUDGES]
    everyone = result.agreement[result.agreement["judge_a"] == ALL_JUDGES]
    alphas = ", ".join(f"{level} {everyone[f'alpha_{level}'].iloc[0]:.{places}f}"
                       for level in ("nominal", "ordinal", "interval"))
    lines += ["## Agreement on the documents both judged", "",
              f"Kappa binary at label >= {s['rel']}; linear and quadratic kappa on grades (Cohen 1960, 1968); "
              "Krippendorff's alpha (ordinal) over the pair.", "",
              _markdown(pairs[_SHOWN], places), "",
              f"Krippendorff's alpha over all judges ({int(everyone['n_both'].iloc[0])} documents judged by two or "
              f"more): {alphas}.",
              "", "## Agreement by rarity (S_d bucket)", ""]
    by = result.by_rarity[result.by_rarity["judge_a"] != ALL_JUDGES]
    lines += [_markdown(by[["s_d", *_SHOWN]], places), "",
              "## Leaderboards", "",
              "Kendall's tau-b, tau_AP of judge_b's ranking against judge_a's, and the top-10 overlap (ties under "
              "the package's rule).", "", _markdown(result.rankings, places), ""]
    runs = result.runs
    moved = runs.assign(size=runs["diff"].abs()).sort_values(["size", "run"], ascending=[False, True])
    lines += ["## Runs that move most", "",
              f"Mean per-query difference (judge_b - judge_a) with its {s['level']:.0%} paired bootstrap interval "
              f"({s['resamples']} resamples, seed {s['seed']}); all runs in runs.csv.", "",
              _markdown(moved.drop(columns=["size"]).head(10), places), ""]
    if result.groups is not None:
        correction = s["correction"] or "none"
        lines += [f"## Does a judge favour a group of runs ({s['group_column']})?", "",
                  "Welch's t-test of the runs' differences in the group against the others' (gap > 0: the group "
                  f"gains more); correction {correction} over the {len(result.groups)} tests.", "",
                  _markdown(result.groups, places), ""]
    return "\n".join(lines)


def write_judges_folder(out: str | os.PathLike[str], result: JudgeComparison, places: int = 4, *,
                        overwrite: bool = False) -> Path:
    """Write the comparison's files (:data:`FILES`) into ``out``; returns the path of ``summary.md``.

    Raises:
        InputError: ``out`` holds files an earlier ``judges`` run did not write, and ``overwrite`` is false.

    """
    with OutputFolder(out, "judges", overwrite=overwrite) as folder:
        tables = {"agreement.csv": result.agreement, "agreement_by_rarity.csv": result.by_rarity,
                  "confusion.csv": result.confusions, "rankings.csv": result.rankings,
                  "leaderboards.csv": result.leaderboards, "runs.csv": result.runs}
        if result.groups is not None:
            tables["groups.csv"] = result.groups
        for name, table in tables.items():
            write_text(folder / name, table.to_csv(index=False))
        return write_text(folder / "summary.md", summary_markdown(result, places) + "\n")
