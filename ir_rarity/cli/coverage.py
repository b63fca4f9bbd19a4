"""The ``ir-rarity coverage`` sub-command: does each interval cover what judging would have found?

::

    ir-rarity coverage QRELS RUNS... --depth K [-m MEASURE...] [--level 0.95] [--teams SPEC] [--draws N]
                       [--seed S] [--out DIR] [-o FORMAT]

Runs the leave-one-team-out re-judging study (:func:`ir_rarity.judging.coverage.coverage_study`) and prints one
row per measure: the nominal level, the cases (runs whose score the removed judgments change), and the coverage and
median width of the interval of what the judgments left open (``unjudged``), of judgments and topics together
(``all``) and, beside them, of the topic-only bootstrap (``topics``). With ``--out`` the folder gets ``summary``
and ``cases`` tables (TSV).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ir_rarity.cli.options import add_reading_options
from ir_rarity.errors import ParameterError
from ir_rarity.measures.parse import parse_measures

__all__ = ["DEFAULT_MEASURES", "add_parser", "run"]

DEFAULT_MEASURES = ["P@10", "nDCG@10", "AP", "P_rare(alpha=0.5)@100", "AP_rare"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``coverage`` to the ``ir-rarity`` sub-command parsers; returns its parser."""
    p = subparsers.add_parser(
        "coverage", help="check the intervals on a campaign: leave one team's judgments out, re-score, count hits",
        description="For each team, remove the judgments of the documents only its runs brought into the depth-K "
                    "pool, score its runs with the rest, and count how often each interval holds the score with "
                    "every judgment.")
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file or ir_datasets id")
    p.add_argument("runs", metavar="RUNS", nargs="+", help="run files, folders, globs, or one file of many runs")
    p.add_argument("--depth", type=int, required=True, help="the campaign's judging depth K")
    p.add_argument("-m", "--measures", metavar="MEASURE", nargs="+", action="extend", default=None,
                   help=f"measures (default {' '.join(DEFAULT_MEASURES)})")
    p.add_argument("--level", type=float, default=0.95, help="nominal level of every interval (0.95)")
    p.add_argument("--draws", type=int, default=500, help="draws of the unjudged documents' judgments (500)")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples of the topics (2000)")
    p.add_argument("--seed", type=int, default=0, help="seed of every draw (0)")
    p.add_argument("--teams", metavar="SPEC", help="count teams, not runs: a CSV run,team, or CSV:COLUMN")
    add_reading_options(p, duplicates=False)
    p.add_argument("--out", metavar="DIR", help="also write summary.tsv and cases.tsv into this folder")
    p.add_argument("-o", "--format", default="markdown", choices=["markdown", "tsv", "csv", "jsonl", "latex"],
                   help="table format (markdown)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Run the sub-command (errors are raised; ``ir-rarity`` prints them as one line)."""
    from ir_rarity.checks import check_depth
    from ir_rarity.io.guard import OutputFolder, check_outputs
    from ir_rarity.judging.coverage import coverage_study
    from ir_rarity.pool.pool import Pool
    from ir_rarity.pool.teams import read_teams, teams_file
    from ir_rarity.tables import render_frame

    if not 0.0 < args.level < 1.0:
        raise ParameterError(f"--level must be in (0, 1), got {args.level}")
    if args.draws < 2:
        raise ParameterError(f"--draws must be at least 2, got {args.draws}")
    depth = check_depth(args.depth, "--depth")
    assert depth is not None
    measures = parse_measures(args.measures or DEFAULT_MEASURES)
    inputs = [args.qrels, *args.runs, *([str(teams_file(args.teams))] if args.teams else [])]
    folder = None
    if args.out:
        check_outputs([("--out", args.out, True)], inputs)
        folder = OutputFolder(args.out, "coverage")
        folder.folder.mkdir(parents=True, exist_ok=True)
    team_map = read_teams(args.teams) if args.teams else None
    runs_spec: Any = args.runs[0] if len(args.runs) == 1 else list(args.runs)
    pool = Pool.from_runs(runs_spec, teams=team_map, split_by_tag=args.split_by_tag)
    study = coverage_study(pool, args.qrels, measures, depth, level=args.level, draws=args.draws,
                           resamples=args.resamples, seed=args.seed, progress=sys.stderr.isatty())
    summary = study.summary()
    caption = (f"leave-one-team-out re-judging at depth {depth}: {pool.num_systems} {pool.info().systems}, "
               f"{len(pool)} runs; cases are runs whose score the removed judgments change; {args.draws} draws, "
               f"{args.resamples} topic resamples, seed {args.seed}")
    print(render_frame(summary, args.format, 3, caption=caption))
    if folder is not None:
        render_out = {"summary.tsv": summary, "cases.tsv": study.cases}
        for name, frame in render_out.items():
            (folder.folder / name).write_text(render_frame(frame, "tsv", 6, caption=caption), encoding="utf-8")
        folder.record()
    return 0
