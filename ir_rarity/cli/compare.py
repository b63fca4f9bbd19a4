"""The options ``ir-rarity eval`` gets from this package, and the table it prints with them.

``--baseline RUN...`` / ``--all-pairs`` with ``--test``, ``--correction``, ``--alpha``, ``--diff-interval``
(the paired bootstrap interval of each mean difference, at ``--ci`` or 0.95); ``--ci LEVEL``;
``--composition`` (with ``--plot FILE``). :func:`add_eval_options` adds them to the ``eval`` parser,
:func:`wants_table` says whether any was given, :func:`eval_table` renders the table.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ir_rarity.compare.names import CORRECTIONS, INTERVALS, TESTS
from ir_rarity.engine import COVERS_CHOICES
from ir_rarity.errors import ParameterError
from ir_rarity.stats.names import DIFF_INTERVALS

if TYPE_CHECKING:
    from ir_rarity.engine.result import Evaluation

__all__ = ["add_eval_options", "eval_table", "rests_wanted", "wants_table"]


def add_eval_options(parser: argparse.ArgumentParser) -> None:
    """Add the comparison, interval and composition options to the ``eval`` parser."""
    g = parser.add_argument_group("significance, intervals and pool composition")
    g.add_argument("--baseline", metavar="RUN", nargs="+", help="compare every run with these runs")
    g.add_argument("--all-pairs", action="store_true", help="compare every pair of runs (each run gets a letter)")
    g.add_argument("--test", choices=TESTS, default="t", help="paired test: t (default), wilcoxon, randomization")
    g.add_argument("--correction", metavar="METHOD", choices=CORRECTIONS,
                   help=f"multiple-testing correction per measure (statsmodels): {', '.join(CORRECTIONS)}")
    g.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    g.add_argument("--trials", type=int, default=10_000, help="randomization test trials (10000)")
    g.add_argument("--diff-interval", choices=DIFF_INTERVALS, default="percentile",
                   help="paired bootstrap interval of each comparison's mean difference (at --ci, else 0.95; "
                        "--resamples, --seed): percentile (default) or bca")
    g.add_argument("--ci", type=float, metavar="LEVEL", help="confidence intervals of each mean, e.g. 0.95")
    g.add_argument("--interval", choices=INTERVALS, default="bootstrap",
                   help="interval over queries: bootstrap (percentile, default) or t")
    g.add_argument("--unjudged", action="store_true",
                   help="beside each measure: the share of the documents it reads that are unjudged, and its bounds "
                        "(low: unjudged non-relevant, the value; high: relevant at the lowest relevant grade); "
                        "reads whole runs")
    g.add_argument("--ties", action="store_true",
                   help="beside each measure: its min and max over every order of documents with equal scores "
                        "(trec_eval's order stays the value); reads whole runs")
    g.add_argument("--covers", choices=COVERS_CHOICES, default="topics",
                   help="with --ci: what the interval accounts for: topics (the bootstrap over queries, default), "
                        "unjudged (drawn judgments of the unjudged documents), ties (every order of tied "
                        "documents) or all; see docs/score_rests_on.md")
    g.add_argument("--draws", type=int, default=1000,
                   help="with --covers unjudged or all: draws of the unjudged documents' judgments (1000)")
    g.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples of the queries (10000)")
    g.add_argument("--composition", action="store_true",
                   help="rank and score ranges of rarity/novelty measures when other teams (runs) are left out "
                        "or resampled")
    g.add_argument("--composition-resamples", type=int, default=200, metavar="N",
                   help="pools drawn by the bootstrap over teams (200)")
    g.add_argument("--plot", metavar="FILE", help="with --composition: plot ranks and ranges (PNG) of the first "
                                                  "pool-dependent measure")
    g.add_argument("--seed", type=int, default=0,
                   help="seed of the randomization test and the bootstraps (0); each bootstrap draws from "
                        "numpy.random.default_rng(SEED), scipy.stats.bootstrap's rng=")


def rests_wanted(args: argparse.Namespace) -> tuple[bool, bool]:
    """``(unjudged, ties)``: what the evaluation gathers, asked for (``--unjudged``, ``--ties``) or for ``--covers``.

    ``--covers unjudged`` and ``all`` draw the judgments of every unjudged document a run holds, and ``ties`` and
    ``all`` read the tie range: the evaluation then reads whole runs.
    """
    covers = getattr(args, "covers", "topics")
    return (bool(getattr(args, "unjudged", False)) or covers in ("unjudged", "all"),
            bool(getattr(args, "ties", False)) or covers in ("ties", "all"))


def wants_table(args: argparse.Namespace) -> bool:
    """Whether any option of this package was given (else ``eval`` prints its plain table).

    Raises:
        ParameterError: options that need another one (``--correction`` without a comparison...).

    """
    compared = bool(args.baseline) or args.all_pairs
    if args.baseline and args.all_pairs:
        raise ParameterError("give --baseline or --all-pairs, not both")
    if not compared and (args.correction is not None or args.test != "t" or args.diff_interval != "percentile"):
        raise ParameterError("--test, --correction and --diff-interval need --baseline RUN or --all-pairs")
    if args.covers != "topics" and args.ci is None:
        raise ParameterError(f"--covers {args.covers} needs --ci LEVEL (the level of the interval)")
    if args.covers != "topics" and args.interval != "bootstrap":
        raise ParameterError(f"--interval {args.interval} is an interval over topics; --covers {args.covers} has its "
                             "own (drop --interval, or use --covers topics)")
    if args.plot and not args.composition:
        raise ParameterError("--plot needs --composition")
    wanted = compared or args.ci is not None or args.composition or args.unjudged or args.ties
    if wanted and args.per_query:
        raise ParameterError("-q prints per-query values; drop it to compare runs, give intervals or composition, "
                             "or show --unjudged / --ties (per query: Evaluation.bounds(m, per_query=True))")
    if args.composition and args.pool:
        raise ParameterError("--composition describes the campaign's own runs: drop --pool (RUNS are the campaign)")
    return bool(wanted)


def eval_table(args: argparse.Namespace, evaluation: Evaluation, order: Sequence[str]) -> str:
    """The ``eval`` table with the comparisons, intervals and composition ``args`` ask for, in ``args.format``."""
    from ir_rarity.compare.table import campaign_table
    from ir_rarity.compare.uncertainty import composition, depends_on_pool
    from ir_rarity.pool.pool import Pool
    from ir_rarity.pool.stream import StreamedCampaign

    if args.ties and "-" not in args.runs:  # runs whose rank column says another order than their scores
        from ir_rarity.compare.rank_column import rank_column_check

        rank_column_check(evaluation, list(args.runs), split_by_tag=args.split_by_tag)
    comp = None
    measures, campaign, qrels = evaluation.measures, evaluation.campaign, evaluation.qrels
    if args.composition:
        pooled = [m for m in measures if depends_on_pool(m)]
        if not pooled:
            raise ParameterError("--composition needs a rarity or novelty measure among -m")
        if not isinstance(campaign, (Pool, StreamedCampaign)):
            raise ParameterError(f"--composition needs the campaign's runs (run files, a saved .npz), got {campaign!r}")
        # run files read in two passes: composition reads their judged rows again (ir_rarity.pool.judged)
        comp = composition(campaign, qrels, pooled, resamples=args.composition_resamples,
                           level=args.ci or 0.95, seed=args.seed)
        if args.plot:
            from ir_rarity.compare.plots import plot_composition

            try:
                plot_composition(comp, pooled[0], args.plot)
            except ImportError as e:  # no matplotlib: one line, not a traceback
                raise ParameterError(str(e)) from None
    table = campaign_table(evaluation, baselines=args.baseline, all_pairs=args.all_pairs, test=args.test,
                           correction=args.correction, alpha=args.alpha, trials=args.trials, ci=args.ci,
                           interval=args.interval, resamples=args.resamples, seed=args.seed, composition=comp,
                           order=order, diff_interval=args.diff_interval, covers=args.covers, draws=args.draws,
                           unjudged=args.unjudged, ties=args.ties)
    return table.render(args.format, args.places)

