"""The ``ir-rarity complementarity`` sub-command: similarity, fusion and what each team adds, against rarity.

::

    ir-rarity complementarity QRELS RUNS... --out DIR [-m MEASURE...] [--teams SPEC] [--rarity MEASURE...]
                              [--samples N] [--seed N] [--k K] [--p P] [--pool-depth K] [--no-plots]

The folder gets ``similarity.csv``, ``team_similarity.csv``, ``clusters.csv``, ``fusion.csv``,
``contribution.csv``, ``teams.csv``, ``correlations.csv``, ``summary.md`` and two plots
(:func:`ir_rarity.complementarity.summary.write_complementarity`). The folder is checked against every input before
anything is read.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ir_rarity.cli.options import add_reading_options
from ir_rarity.complementarity.names import DEFAULT_MEASURES, DEFAULT_RARITY
from ir_rarity.io.guard import OutputFolder, check_outputs, check_stdin_once

__all__ = ["add_parser", "run"]

_DESCRIPTION = """\
How alike the campaign's runs rank (Jaccard of top-k sets, rank-biased overlap, a clustering), what the campaign's
fusion is worth (RRF k=60, CombSUM, CombMNZ on per-query min-max scores, each fused run scored against the campaign
as one more system), what each team adds to it (score with its runs minus without them, and a sampled Shapley value
with its standard error), and whether a team's rarity score is correlated with what it adds and with the relevant
documents only it found (Spearman, Kendall). Example on the embedded TREC-COVID round 1:

  ir-rarity complementarity QRELS ROUND1_RUNS --split-by-tag --teams LEADERBOARD:run:team --out compl/
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``complementarity`` to the ``ir-rarity`` sub-command parsers; returns its parser."""
    p = subparsers.add_parser(
        "complementarity", help="run similarity, fusion of the campaign, each team's contribution, and rarity",
        description=_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file or ir_datasets id")
    p.add_argument("runs", metavar="RUNS", nargs="+", help="run files, folders, globs, or one file of many runs")
    p.add_argument("--out", metavar="DIR", required=True, help="output folder (created; never an input)")
    p.add_argument("--overwrite", action="store_true", help="write into a folder holding files of your own")
    p.add_argument("-m", "--measures", metavar="MEASURE", nargs="+", action="extend", default=None,
                   help="measures of the fused runs; the first is the Shapley game's "
                        f"(default {' '.join(DEFAULT_MEASURES)})")
    p.add_argument("--rarity", metavar="MEASURE", nargs="+", default=None,
                   help=f"rarity measures of a team's rarity score (default {' '.join(DEFAULT_RARITY)})")
    p.add_argument("--team-score", choices=("best", "mean"), default="best",
                   help="a team's rarity score: its best run's (default) or the mean of its runs'")
    p.add_argument("--teams", metavar="SPEC",
                   help="runs to teams: a CSV run,team, CSV:TEAM_COLUMN or CSV:RUN_COLUMN:TEAM_COLUMN (without it "
                        "every run is its own team)")
    p.add_argument("--k", type=int, default=100, help="similarity depth: Jaccard of top-k sets, RBO to depth k (100)")
    p.add_argument("--p", type=float, default=0.9, help="RBO's persistence p (0.9)")
    p.add_argument("--cut", type=float, default=0.5, help="cut the dendrogram at this distance (0.5)")
    p.add_argument("--basis", choices=("rbo", "jaccard"), default="rbo", help="cluster on 1 - RBO or 1 - Jaccard")
    p.add_argument("--method", choices=("rrf", "combsum", "combmnz"), default="rrf",
                   help="fusion of the Shapley game and the teams table (rrf)")
    p.add_argument("--samples", type=int, default=100, help="orders sampled for the Shapley values (100)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampled orders (0)")
    p.add_argument("--depth", type=int, default=100, help="documents per query of each fused run (100)")
    p.add_argument("--pool-depth", type=int, default=10,
                   help="depth at which a team's unique relevant documents are counted (10)")
    p.add_argument("--rel", type=int, default=1, help="minimum label counted as relevant (1)")
    p.add_argument("--no-plots", action="store_true", help="write tables only (no matplotlib figures)")
    add_reading_options(p)
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Run the sub-command (errors are raised; ``ir-rarity`` prints them as one line)."""
    from ir_rarity.complementarity.study import complementarity
    from ir_rarity.complementarity.summary import write_complementarity
    from ir_rarity.pool.teams import teams_file

    check_stdin_once([("QRELS", args.qrels), ("RUNS", args.runs), ("--teams", args.teams)])
    extras = [str(teams_file(args.teams))] if args.teams else []
    check_outputs([("--out", args.out, True)], [args.qrels, *args.runs, *extras])
    OutputFolder(args.out, "complementarity", overwrite=args.overwrite, hint="--overwrite")  # refused before work
    runs: Any = args.runs[0] if len(args.runs) == 1 else list(args.runs)
    result = complementarity(
        args.qrels, runs, args.measures or DEFAULT_MEASURES, k=args.k, p=args.p, teams=args.teams,
        samples=args.samples, seed=args.seed, rarity=args.rarity or DEFAULT_RARITY, team_score=args.team_score,
        shapley_method=args.method, pool_depth=args.pool_depth, depth=args.depth, basis=args.basis, cut=args.cut,
        rel=args.rel, split_by_tag=args.split_by_tag or None, duplicates=args.duplicates)
    summary = write_complementarity(args.out, result, plots=not args.no_plots, overwrite=True)
    print(f"ir-rarity: complementarity: {result.describe()}", file=sys.stderr)
    print(summary)
    return 0
