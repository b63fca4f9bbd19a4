"""``ir-rarity report QRELS RUNS... --out report.html``: the campaign report as one self-contained HTML file.

:func:`add_report_command` adds the sub-command to ``ir-rarity``'s parser. Building the parser imports nothing
heavy; the command imports what it runs when it runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ir_rarity.cli.metadata import write_for
from ir_rarity.cli.options import add_memory_options, add_reading_options, stream_flag
from ir_rarity.io.guard import check_outputs, check_stdin_once
from ir_rarity.stats.names import CORRECTIONS

__all__ = ["add_report_command", "run"]

PROG = "ir-rarity"


def add_report_command(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``report`` to ``ir-rarity``'s sub-commands and return its parser."""
    p = subparsers.add_parser(
        "report", help="one self-contained HTML report of a campaign (leaderboard, rarity, pooling, ...)",
        description="Evaluate RUNS (the campaign) against QRELS once and write one HTML file that opens offline: "
                    "leaderboard with intervals and significance, rarity against standard measures, unique "
                    "relevant documents, per-query differences, composition intervals, ASL and depth, pooling "
                    "and meta-evaluation, with the provenance.")
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file or ir_datasets id")
    p.add_argument("runs", metavar="RUNS", nargs="+", help="run files, folders, globs, or one file of many runs")
    p.add_argument("--out", metavar="FILE", required=True, help="the HTML file to write")
    p.add_argument("-m", "--measures", metavar="MEASURE", nargs="+", action="extend",  # -m may be repeated
                   help="measures (default: P@10 P@100 AP AP@100 nDCG@10 'P_rare(alpha=0.5)@100' AP_rare@100 "
                        "ASL@g1-10 ASL); each rarity measure is shown against its standard measure at the same "
                        "cutoff (AP_rare@100 with AP@100), added when missing")
    p.add_argument("--teams", metavar="SPEC",
                   help="run -> team: a leaderboard CSV (columns run, team) or CSV:TEAM_COLUMN; S counts teams")
    p.add_argument("--baseline", metavar="RUN", nargs="+", help="compare every run with these runs and mark "
                                                                "significant differences (default: none, no markers)")
    p.add_argument("--correction", choices=CORRECTIONS, default=None,
                   help="multiple-testing correction of the comparisons with --baseline, per measure "
                        "(default: holm when a baseline is given)")
    p.add_argument("--leaderboard", metavar="FILE",
                   help="a leaderboard CSV (column run) whose categorical columns (runtype, contributed "
                        "judgments...) filter and group the runs")
    add_reading_options(p)
    add_memory_options(p)
    p.add_argument("--ci", type=float, default=0.95, help="confidence level of the intervals (0.95)")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of the queries (1000)")
    p.add_argument("--composition-resamples", type=int, default=100, metavar="N",
                   help="campaigns drawn by the bootstrap over teams (100)")
    p.add_argument("--trials", type=int, default=200, help="stability trials (200)")
    p.add_argument("--seed", type=int, default=0, help="seed of every random draw (0)")
    p.add_argument("--no-pooling", action="store_true", help="leave out the pooling simulation")
    p.add_argument("--complementarity", action="store_true",
                   help="add what each team adds to the campaign's fusion (contribution, Shapley value) against its "
                        "rarity score (see ir-rarity complementarity)")
    p.add_argument("--judges", metavar="QRELS", nargs="+",
                   help="other judges' qrels of the same runs: a section compares them with QRELS (agreement "
                        "overall and by rarity, leaderboards, runs; see ir-rarity judges)")
    p.add_argument("--budgets", metavar="B", nargs="+", type=int, help="judgments per query (default 10 20 50)")
    p.add_argument("--title", default="ir_rarity campaign report", help="the page title")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=run)
    return p


def _command(args: argparse.Namespace) -> list[str]:
    """The command line for the provenance.

    The one ``main`` parsed (``args.argv``), else ``sys.argv`` when run as ``ir-rarity``, else its main arguments.
    """
    if getattr(args, "argv", None):  # main(["report", ...]) called from Python: its arguments, not the caller's
        return list(args.argv)
    if sys.argv and Path(sys.argv[0]).name in ("ir-rarity", "__main__.py"):
        return list(sys.argv)
    return [PROG, "report", args.qrels, *args.runs, "--out", args.out]


def run(args: argparse.Namespace) -> int:
    """Build the report ``args`` ask for and write it to ``--out``; one line on stderr says where and how big."""
    from ir_rarity.pool.teams import teams_file

    teams = str(teams_file(args.teams)) if args.teams else None
    check_stdin_once([("QRELS", args.qrels), ("RUNS", args.runs), ("--teams", args.teams)])
    check_outputs([("--out", args.out, False)],
                  [args.qrels, *args.runs, teams, args.leaderboard, *(args.judges or [])])
    from ir_rarity.checks import check_draws

    for option, count in (("--resamples", args.resamples), ("--trials", args.trials),
                          ("--composition-resamples", args.composition_resamples)):
        check_draws(count, option, minimum=0)  # a draw of one value each already too large (the report's
        # statistics check their draws again, by their parameters' names, once the queries are known)
    from ir_rarity.report.build import report

    runs = args.runs[0] if len(args.runs) == 1 else list(args.runs)
    built = report(runs, args.qrels, args.measures, out=args.out, teams=args.teams, baselines=args.baseline,
                   correction=args.correction, leaderboard=args.leaderboard,
                   split_by_tag=args.split_by_tag or None, duplicates=args.duplicates, ci=args.ci,
                   resamples=args.resamples, composition_resamples=args.composition_resamples, trials=args.trials,
                   seed=args.seed, pooling=not args.no_pooling, budgets=args.budgets, title=args.title,
                   complementarity=args.complementarity, judges=args.judges,
                   stream=stream_flag(args), memory_limit=args.memory, command=_command(args),
                   progress=False if args.quiet else None)
    if getattr(args, "metadata", None) is not None:  # the measures, test and correction the report used
        write_for(args, built.provenance, **_evaluation_facts(built))
    from ir_rarity.pool.stream import reading_note

    evaluation = built.data.evaluation
    print(f"{PROG}: report: wrote {args.out} ({built.size / 1e6:.1f} MB) in {built.seconds:.1f} s; "
          f"{evaluation.describe()}{reading_note(evaluation.campaign)}", file=sys.stderr)
    return 0


def _evaluation_facts(built: Any) -> dict[str, Any]:
    """The ir_metadata ``research goal.evaluation`` facts of a built report, as its page states them.

    The measures it shows (defaults and the standard measures added at the rarity measures' cutoffs included) and,
    with baselines, the test and correction its leaderboard used (Holm's by default).
    """
    ev = built.data.evaluation
    facts: dict[str, Any] = {"measures": [ev.label(m) for m in ev.measures]}
    board = built.data.leaderboard
    if built.data.baselines and board is not None:
        facts["test"] = board.settings["test"]
        facts["correction"] = board.settings["correction"]
    return facts
