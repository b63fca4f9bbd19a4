"""The ``ir-rarity pooling`` sub-command: simulate judging strategies on a finished campaign and write a report.

::

    ir-rarity pooling QRELS RUNS... --out DIR [--strategies S...] [--budgets B...] [--total] [--depth K]
                      [-m MEASURE...] [--loto-teams N|all] [--leaderboard CSV[:COLUMN]] [--incomplete] [--no-plots]

The report folder gets CSVs, PNG curves and ``summary.md`` (:func:`ir_rarity.judging.summary.write_report`).
The folder is checked against every input by :func:`ir_rarity.io.guard.check_outputs` before anything is read,
and every input (qrels, runs, teams, leaderboard) is read and checked before the simulation starts.
Progress bars appear on stderr when it is a terminal.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

from ir_rarity.cli.options import add_reading_options
from ir_rarity.errors import MemberNotice, ParameterError
from ir_rarity.io.guard import OutputFolder, check_outputs, check_stdin_once
from ir_rarity.measures.parse import parse_measures

__all__ = ["DEFAULT_BUDGETS", "DEFAULT_MEASURES", "DEFAULT_STRATEGIES", "add_parser", "run"]

DEFAULT_STRATEGIES = ["depth", "rbp(p=0.8)", "rrf(k=60)", "mtf", "mmns(gamma=0.9)", "rarity(beta=0.5,p=0.8)"]
DEFAULT_BUDGETS = [10, 20, 50, 100]
DEFAULT_MEASURES = ["P@10", "AP", "P_rare(alpha=0.5)@10", "AP_rare(alpha=0.5)"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``pooling`` to the ``ir-rarity`` sub-command parsers; returns its parser."""
    p = subparsers.add_parser(
        "pooling", help="simulate pooling strategies on a finished campaign (relevant found, reusability)",
        description="Simulate judging strategies with QRELS as the oracle (a document outside them counts as "
                    "non-relevant) and write tables, curves and a markdown summary into --out.")
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file or ir_datasets id (the oracle)")
    p.add_argument("runs", metavar="RUNS", nargs="+", help="run files, folders, globs, or one file of many runs")
    p.add_argument("--out", metavar="DIR", required=True, help="report folder (created; never an input)")
    p.add_argument("--overwrite", action="store_true", help="write into a folder holding files of your own")
    p.add_argument("--strategies", metavar="S", nargs="+", default=DEFAULT_STRATEGIES,
                   help="depth[(k=K,ties=docno|runs)] rbp(p=P) rrf(k=K) mtf[(rule=cormack|skip)] mmns(gamma=G) "
                        "rarity(beta=B,p=P) (default: all six)")
    p.add_argument("--budgets", metavar="B", nargs="+", type=int, default=DEFAULT_BUDGETS,
                   help="judgments per query (default 10 20 50 100)")
    p.add_argument("--total", action="store_true", help="budgets are totals over all queries, shared equally")
    p.add_argument("--depth", type=int, help="only the runs' top K documents are candidates (default whole runs)")
    p.add_argument("--rel", type=int, default=1, help="minimum label counted as relevant (1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the adaptive strategies' tie-breaking (0)")
    p.add_argument("-m", "--measures", metavar="MEASURE", nargs="+", action="extend",  # -m may be repeated; no
                   default=None,  # default list here: "extend" would add the measures given to it
                   help="measures of the reusability study (default P@10 AP P_rare(alpha=0.5)@10 AP_rare(alpha=0.5))")
    p.add_argument("--loto-teams", metavar="N", default="0",
                   help="leave-one-team-out for the N teams with most unique relevant documents, 'all', or 0 "
                        "(default 0: skip; each team costs one evaluation per strategy and budget)")
    p.add_argument("--no-reusability", action="store_true", help="skip the reusability study")
    p.add_argument("--leaderboard", metavar="CSV[:COLUMN]",
                   help="compare S_d from the runs the leaderboard marks as contributing with S_d from all runs; "
                        "COLUMN names the runs (default 'run'; TREC's leaderboards: CSV:tag)")
    p.add_argument("--official-column", default="contributed judgments",
                   help="the leaderboard's column marking contributing runs (default 'contributed judgments')")
    p.add_argument("--incomplete", action="store_true",
                   help="per-run values, judged-only values, values with unjudged as relevant, Judged@10")
    p.add_argument("--no-plots", action="store_true", help="write tables only (no matplotlib figures)")
    p.add_argument("--teams", metavar="SPEC", help="count teams, not runs: a CSV run,team, or CSV:COLUMN")
    add_reading_options(p)
    p.set_defaults(func=run)
    return p


def _inputs(args: argparse.Namespace) -> list[str | None]:
    from ir_rarity.judging.reuse import leaderboard_spec
    from ir_rarity.pool.teams import teams_file

    extras = [leaderboard_spec(args.leaderboard)[0]] if args.leaderboard else []
    extras += [str(teams_file(args.teams))] if args.teams else []
    return [args.qrels, *args.runs, *extras]


def _loto_count(spec: str) -> int | None:
    """``--loto-teams`` checked: None for ``all``, else the number of teams."""
    if spec.strip().lower() == "all":
        return None
    try:
        n = int(spec)
    except ValueError:
        raise ParameterError(f"--loto-teams must be a number or 'all', got {spec!r}") from None
    if n < 0:
        raise ParameterError(f"--loto-teams must be >= 0, got {n}")
    return n


def _loto_teams(pool: Any, qrels: Any, depth: int, spec: str) -> list[str] | None:
    """The teams to leave out: ``all`` (None), or the N with most unique relevant documents ([] for 0)."""
    n = _loto_count(spec)
    if n is None or n == 0:
        return None if n is None else []
    from ir_rarity.campaign import unique_relevant

    counts = unique_relevant(pool, qrels, depth, by="team").counts
    ranked = sorted(counts.index, key=lambda t: (-int(counts[t]), str(t)))
    return [str(t) for t in ranked[:n]]


def _read_inputs(args: argparse.Namespace) -> tuple[Any, Any, list[str] | None]:
    """``(qrels, pool, official runs)``: every input file read and checked, so that none fails after simulating.

    Raises:
        InputError: an unreadable qrels, run, teams or leaderboard file (or a leaderboard without its columns).
        ParameterError: leaderboard runs the pool lacks, or too few official or other runs.

    """
    from ir_rarity.io.frames import as_qrels_frame
    from ir_rarity.judging.reuse import check_official, contributing_runs
    from ir_rarity.pool.pool import Pool
    from ir_rarity.pool.teams import read_teams

    team_map = read_teams(args.teams) if args.teams else None
    official = contributing_runs(args.leaderboard, args.official_column) if args.leaderboard else None
    qrels = as_qrels_frame(args.qrels)
    runs_spec: Any = args.runs[0] if len(args.runs) == 1 else list(args.runs)
    pool = Pool.from_runs(runs_spec, teams=team_map, duplicates=args.duplicates, split_by_tag=args.split_by_tag)
    if official is not None:
        official = check_official(pool, official)[0]
    return qrels, pool, official


def run(args: argparse.Namespace) -> int:
    """Run the sub-command (errors are raised; ``ir-rarity`` prints them as one line).

    Every argument and input file is checked before the simulation starts.
    """
    from ir_rarity.checks import check_depth
    from ir_rarity.judging.incomplete import incomplete_judgments
    from ir_rarity.judging.reuse import official_vs_all, reusability
    from ir_rarity.judging.simulation import check_budgets, simulate
    from ir_rarity.judging.strategies import parse_strategy
    from ir_rarity.judging.summary import found_table, write_report
    from ir_rarity.tables import render_frame

    check_stdin_once([("QRELS", args.qrels), ("RUNS", args.runs), ("--teams", args.teams)])
    check_outputs([("--out", args.out, True)], _inputs(args))
    folder = OutputFolder(args.out, "pooling", overwrite=args.overwrite, hint="--overwrite")  # no user file replaced
    depth = check_depth(args.depth, "--depth", allow_none=True)
    strategies = [parse_strategy(s) for s in args.strategies]
    budgets = check_budgets(args.budgets)
    measures = parse_measures(args.measures or DEFAULT_MEASURES)
    _loto_count(args.loto_teams)
    show = sys.stderr.isatty()
    qrels, pool, official_runs = _read_inputs(args)
    sim = simulate(pool, qrels, strategies, budgets, total=args.total, depth=depth, rel=args.rel,
                   seed=args.seed, progress=show)
    reuse = official = incomplete = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemberNotice)
        if not args.no_reusability:
            loto_depth = depth if depth is not None else int(pool.encoded.rank.max()) + 1
            teams = _loto_teams(pool, qrels, loto_depth, args.loto_teams)
            reuse = reusability(sim, pool, qrels, measures, depth=depth, loto=teams != [], teams=teams,
                                progress=show)
        if official_runs is not None:
            official = official_vs_all(pool, qrels, measures, official_runs)
        if args.incomplete:
            incomplete = incomplete_judgments(pool, qrels, measures)
    summary = write_report(args.out, sim, reuse, official, incomplete, plots=not args.no_plots,
                           overwrite=args.overwrite)
    from ir_rarity.provenance import collect, write_folder

    args.provenance_record = collect(getattr(args, "argv", None), [i for i in _inputs(args) if i is not None],
                                     pool.info().as_dict(), absolute_paths=getattr(args, "absolute_paths", False),
                                     strategies=list(args.strategies), budgets=list(budgets), seed=args.seed)
    write_folder(args.out, args.provenance_record, qrels=args.qrels)  # (--metadata FILE writes it too)
    folder.record()
    print(render_frame(found_table(sim), "markdown", 0, caption=f"Relevant documents found ({sim.describe()})"))
    print(f"ir-rarity: pooling: report in {summary}", file=sys.stderr)
    return 0
