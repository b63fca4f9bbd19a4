"""The ``ir-rarity judges`` sub-command: several judges' qrels of one campaign compared, into a report folder.

::

    ir-rarity judges QRELS_A QRELS_B [QRELS_C ...] --runs RUNS... -m MEASURE... --out DIR [--names N...]
                     [--rel R] [--depth K] [--leaderboard CSV[:RUNCOLUMN] --group-column COLUMN]
                     [--correction M] [--combine fill] [--resamples B] [--level L] [--seed S]

The qrels come first (two or more; files or ir_datasets ids; the first is the reference), the runs after
``--runs``. The folder gets the files of :func:`ir_rarity.analysis.judges.summary.write_judges_folder`; the
agreement table is printed.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ir_rarity.cli.options import add_reading_options
from ir_rarity.errors import ParameterError
from ir_rarity.io.guard import OutputFolder, check_outputs, check_stdin_once
from ir_rarity.stats.names import CORRECTIONS

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``judges`` to the ``ir-rarity`` sub-command parsers; returns its parser."""
    p = subparsers.add_parser(
        "judges", help="compare several judges' qrels of one campaign (agreement by rarity, leaderboards, runs)",
        description="Compare two or more judges' qrels of the same runs: Cohen's kappa and Krippendorff's alpha on "
                    "the documents both judged, overall and per S_d bucket (1, 2-5, 6-S/2, >S/2); each judge's "
                    "leaderboard of every measure with Kendall's tau-b, tau_AP and top-10 overlap between judges; "
                    "each run's score under each judge with a paired bootstrap interval of the difference; "
                    "optionally whether a judge favours a group of runs (a leaderboard column). The first QRELS is "
                    "the reference judge.",
        epilog="example: ir-rarity judges nist.qrels llm.qrels --runs runs/ -m P@10 'P_rare(alpha=0.5)@10' "
               "--out judges/ --leaderboard board.csv --group-column runtype --combine fill")
    p.add_argument("qrels", metavar="QRELS", nargs="+", help="two or more judges' qrels (files or ir_datasets ids)")
    p.add_argument("--runs", metavar="RUNS", nargs="+", required=True,
                   help="run files, folders, globs, or one file of many runs (--split-by-tag)")
    p.add_argument("-m", "--measures", metavar="MEASURE", nargs="+", action="extend", required=True,
                   help="measures of the leaderboards (ir_measures syntax); -m may be repeated")
    p.add_argument("--out", metavar="DIR", required=True, help="report folder (created; never an input)")
    p.add_argument("--overwrite", action="store_true", help="write into a folder holding files of your own")
    p.add_argument("--names", metavar="NAME", nargs="+", help="the judges' names (default: the files' names)")
    p.add_argument("--rel", type=int, default=1, help="minimum label counted as relevant, for binary kappa (1)")
    p.add_argument("--depth", type=int, help="depth S_d is counted at for the rarity buckets (default whole runs)")
    p.add_argument("--leaderboard", metavar="CSV[:RUNCOLUMN]",
                   help="a CSV giving each run's group in --group-column; RUNCOLUMN names its runs (default 'run')")
    p.add_argument("--group-column", metavar="COLUMN",
                   help="the leaderboard column of the groups, e.g. runtype (a run with a blank cell is in no group)")
    p.add_argument("--correction", default="holm", choices=[*CORRECTIONS, "none"],
                   help="correction of the group tests (default holm)")
    p.add_argument("--combine", choices=["fill"],
                   help="fill: one more judge per judge after the first: the first judge's labels, the other's "
                        "where the first left a hole")
    p.add_argument("--level", type=float, default=0.95, help="confidence level of the bootstrap intervals (0.95)")
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples of the queries (10000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (0)")
    p.add_argument("-p", "--places", type=int, default=4, help="decimals in summary.md and the printed table (4)")
    p.add_argument("--teams", metavar="SPEC", help="count teams, not runs: a CSV run,team, or CSV:COLUMN")
    add_reading_options(p, duplicates=False)
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Run the sub-command (errors are raised; ``ir-rarity`` prints them as one line)."""
    from ir_rarity.analysis.judges.compare import compare_judges
    from ir_rarity.analysis.judges.summary import write_judges_folder
    from ir_rarity.provenance import collect, write_folder
    from ir_rarity.tables import render_frame

    if len(args.qrels) < 2:
        raise ParameterError("judges needs two or more QRELS (the first is the reference)")
    if (args.leaderboard is None) != (args.group_column is None):
        raise ParameterError("give --leaderboard and --group-column together")
    board = args.leaderboard.rsplit(":", 1)[0] if args.leaderboard and ":" in args.leaderboard else args.leaderboard
    from ir_rarity.pool.teams import teams_file

    teams = [str(teams_file(args.teams))] if args.teams else []
    inputs = [*args.qrels, *args.runs, *([board] if board else []), *teams]
    check_stdin_once([("QRELS", args.qrels), ("--runs", args.runs)])
    check_outputs([("--out", args.out, True)], inputs)
    folder = OutputFolder(args.out, "judges", overwrite=args.overwrite, hint="--overwrite")
    runs: Any = args.runs[0] if len(args.runs) == 1 else list(args.runs)
    result = compare_judges(list(args.qrels), runs, args.measures, names=args.names, rel=args.rel,
                            leaderboard=args.leaderboard, group_column=args.group_column,
                            correction=None if args.correction == "none" else args.correction, combine=args.combine,
                            depth=args.depth, teams=args.teams, split_by_tag=args.split_by_tag or None,
                            level=args.level, resamples=args.resamples, seed=args.seed,
                            progress=False if args.quiet else None)
    summary = write_judges_folder(args.out, result, args.places, overwrite=True)
    write_folder(args.out, collect(getattr(args, "argv", None), inputs, dict(result.settings),
                                   absolute_paths=getattr(args, "absolute_paths", False)))
    folder.record()
    shown = result.agreement[["judge_a", "judge_b", "n_both", "kappa", "kappa_linear", "kappa_quadratic",
                              "alpha_ordinal"]]
    print(render_frame(shown.astype(object).where(shown.notna(), ""), "markdown", args.places,
                       caption=f"Agreement ({result.describe()})"))
    print(f"ir-rarity: judges: report in {summary}", file=sys.stderr)
    return 0
