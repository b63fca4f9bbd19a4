"""The ``ir-rarity`` command: evaluate runs with rarity measures, export pools, meta-evaluate, demo.

Sub-commands::

    ir-rarity eval QRELS RUNS... -m MEASURE... [--pool SPEC... [--joint]] [--depth K] [--teams SPEC] [--format F]
                   [--baseline RUN... | --all-pairs] [--test T] [--correction M] [--ci LEVEL] [--composition]
    ir-rarity pool RUNS... --depth K --out FILE(.csv|.parquet) [--judging-pool FILE]
    ir-rarity meta QRELS RUNS... --out DIR [--memory SIZE | --stream]
    ir-rarity demo
    ir-rarity pooling QRELS RUNS... --out DIR [--strategies S...] [--budgets B...]  (see ir_rarity.cli.pooling)
    ir-rarity complementarity QRELS RUNS... --out DIR [-m MEASURE...] [--teams SPEC]  (ir_rarity.cli.complementarity)
    ir-rarity judges QRELS_A QRELS_B [QRELS_C...] --runs RUNS... -m MEASURE... --out DIR  (ir_rarity.cli.judges)

Bad input (a missing file, a malformed line, an unknown measure) ends with one line
``ir-rarity: error: <message>`` on stderr and exit status 2. Notices (a run recognised as a campaign member)
and warnings (a pool of a single system) are one line each on stderr, ``ir-rarity: note: ...`` and
``ir-rarity: warning: ...``; the line ``ir-rarity: pool: ...`` says what the table was computed against.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ir_rarity import __version__
from ir_rarity.cli.complementarity import add_parser as add_complementarity_parser
from ir_rarity.cli.coverage import add_parser as add_coverage_parser
from ir_rarity.cli.judges import add_parser as add_judges_parser
from ir_rarity.cli.metadata import METADATA_HELP, add_metadata_options, run_with_metadata, write_for
from ir_rarity.cli.options import add_memory_options, add_reading_options, stream_flag
from ir_rarity.cli.pooling import add_parser as add_pooling_parser
from ir_rarity.cli.streams import COMMENTED_FILES, one_run_summary, per_query_table
from ir_rarity.cli.trec_eval import (
    add_trec_eval_options,
    cut_runs,
    measures_of_text,
    trec_note,
    trec_options,
    wants_cut,
)
from ir_rarity.errors import DegeneratePoolWarning, InputError, Notice, RarityError, RarityWarning, did_you_mean
from ir_rarity.integrations.ir_measures_provider import POOL_ENV
from ir_rarity.io.files import write_atomic
from ir_rarity.io.guard import OutputFolder, check_outputs, check_stdin_once
from ir_rarity.measures.base import RarityMeasure
from ir_rarity.measures.parse import MeasureLabels, higher_is_better, measure_labels, parse_measure
from ir_rarity.progress import progress_disabled
from ir_rarity.tables import FORMATS, render

if TYPE_CHECKING:
    import pandas as pd

    from ir_rarity.engine.result import Evaluation
    from ir_rarity.pool.pool import Pool
    from ir_rarity.pool.stream import StreamedCampaign

__all__ = ["main"]

NO_PROVENANCE_ENV = "IR_RARITY_NO_PROVENANCE"
"""Set to 1 to leave provenance out of every table even with ``--provenance`` (the default leaves it out)."""

PROG = "ir-rarity"
DEMO_MEASURES = ["P@100", "P_rare(alpha=0.5)@100", "P_rare@100", "AP_rare"]


class _UsageError(Exception):
    """A command-line usage problem found after parsing (exit 2, one line)."""


# ---------------------------------------------------------------------------------------------- inputs
def _inputs(args: argparse.Namespace) -> list[str | None]:
    """Every input a command names: qrels, runs, pool, teams file (for the output checks)."""
    teams = None
    if getattr(args, "teams", None):
        from ir_rarity.pool.teams import teams_file  # (loads pandas: only when a teams file is given)

        teams = str(teams_file(args.teams))
    return [getattr(args, "qrels", None), *args.runs, *(getattr(args, "pool", None) or []), teams]


def _check_stdin(args: argparse.Namespace) -> None:
    """Refuse ``-`` (standard input) named as two of a command's inputs: it can be read once."""
    check_stdin_once([("QRELS", getattr(args, "qrels", None)), ("RUNS", args.runs),
                      ("--pool", getattr(args, "pool", None)), ("--teams", getattr(args, "teams", None))])


def _runs_spec(specs: Sequence[str]) -> str | list[str]:
    return specs[0] if len(specs) == 1 else list(specs)


def _parse_measures(texts: Sequence[str], depth: int | None, args: argparse.Namespace | None = None
                    ) -> MeasureLabels:
    """Measures from the command line, each -> its column: the text given (less its whitespace), each once.

    A text ir_measures' syntax does not read may be trec_eval's name (``P.10``, ``map``, ``all_trec``: one or more
    measures, each labelled as given, :mod:`ir_rarity.cli.trec_eval`), and ``args``' ``-J``/``-l`` apply to each.

    ``--depth`` sets the S_d depth of rarity measures that give none; the column stays the text given
    (``-m P_rare@10 --depth 50`` is column ``P_rare@10``, and the caption names the depth). Each text is parsed
    once (a text given twice too), and the mapping made here is what the evaluation carries: no layer below parses
    the measures again.
    """
    measures: dict[Any, str] = {}
    parsed: dict[str, Any] = {}
    for text in texts:
        for measure, label in parsed.setdefault(text, parsed[text] if text in parsed else measures_of_text(text)):
            if (isinstance(measure, RarityMeasure) and depth is not None and "depth" in measure.SUPPORTED_PARAMS
                    and "depth" not in measure.params):
                measure = parse_measure(measure(depth=depth))
            measures.setdefault(trec_options(measure, args) if args is not None else measure, label)
    return measure_labels(measures)


def _build_pool(runs: Sequence[str], teams: str | None, duplicates: str, keep_depth: int | None = None,
                split_by_tag: bool = False, trec_eval_10: bool = False) -> Pool:
    """The pool of ``runs``: cut to each run's top ``keep_depth`` while reading, split by tag if asked."""
    from ir_rarity.pool.pool import Pool
    from ir_rarity.pool.teams import read_teams

    team_map = read_teams(teams) if teams else None  # FILE (columns run, team) or FILE:COLUMN
    return Pool.from_runs(_runs_spec(runs), teams=team_map, duplicates=duplicates,  # type: ignore[arg-type]
                          keep_depth=keep_depth, split_by_tag=split_by_tag, scores=_scores(trec_eval_10))


def _scores(trec_eval_10: bool) -> Literal["float32", "float64"]:
    """``--trec-eval-10``: scores compared as doubles (trec_eval 10.0), else as floats (pytrec_eval)."""
    return "float64" if trec_eval_10 else "float32"


@contextmanager
def _notices() -> Iterator[None]:
    """Print the warnings given in the block as one line each on stderr, each distinct one once, after the block.

    ir_rarity's own are ``ir-rarity: note: ...`` or ``ir-rarity: warning: ...``; any other (a dependency's) is
    ``ir-rarity: warning: <category>: <message>``, without a source path. They are printed once the recording has
    stopped, from a snapshot: printing one cannot record another (re-showing a warning inside the recording appended
    it to the very list being shown, without end). On an error, only the error line is printed.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RarityWarning)
        yield
    _show_warnings(list(caught))


def _show_warnings(caught: Sequence[warnings.WarningMessage]) -> None:
    """One line per distinct warning of ``caught``, in order (see :func:`_notices`)."""
    seen: set[str] = set()
    for w in caught:
        text = " ".join(str(w.message).split())
        if issubclass(w.category, RarityWarning):
            kind = "note" if issubclass(w.category, Notice) else "warning"
        else:
            kind, text = "warning", f"{w.category.__name__}: {text}"
        line = f"{PROG}: {kind}: {text}"
        if line not in seen:
            seen.add(line)
            print(line, file=sys.stderr)


# ---------------------------------------------------------------------------------------------- output
def _emit(text: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_atomic(output, text)


def ranked_table(table: pd.DataFrame, first: Any, column: str | None = None) -> pd.DataFrame:
    """The rows of ``table``, best first by the measure ``first`` (its ``column``) in its own direction.

    Ties are broken by run name; ``column`` defaults to ``str(first)``.
    """
    table = table.sort_index(kind="mergesort")
    return table.sort_values(column or str(first), ascending=not higher_is_better(first), kind="mergesort")


def _evaluation(args: argparse.Namespace, measures: dict[Any, str]) -> Evaluation:
    """The front door with the command line's arguments: RUNS are the campaign, or are scored against ``--pool``.

    Each measure's column is the text given for it (``measures``: measure -> text).
    """
    from ir_rarity.cli.compare import rests_wanted
    from ir_rarity.evaluation import evaluate

    unjudged, ties = rests_wanted(args)  # asked for, or read by --covers (runs read whole)
    if args.joint and not args.pool:
        raise _UsageError("--joint needs --pool: without a pool the runs are the campaign already")
    # Rarity measures read S_d: one run without --pool is a campaign of one system (S = 1), every R(d) = 0. (Runs
    # counted as one team by --teams are the user's choice; alpha=0 is the standard measure and reads no S_d.)
    pooled = [label for m, label in measures.items()
              if isinstance(m, RarityMeasure) and m.NEEDS_POOL and m.params.get("alpha", 1.0) != 0]
    with warnings.catch_warnings():
        if pooled and not args.pool and not args.teams:
            warnings.simplefilter("error", DegeneratePoolWarning)
        try:
            cut = wants_cut(args)  # -M: RUNS cut as trec_eval cuts them (without --pool: the campaign they form)
            return evaluate(cut_runs(args, _runs_spec(args.runs)) if cut else _runs_spec(args.runs), args.qrels,
                            measures, pool=_runs_spec(args.pool) if args.pool else None, joint=args.joint,
                            teams=None if cut and not args.pool else args.teams or None, duplicates=args.duplicates,
                            split_by_tag=None if cut else args.split_by_tag,
                            scores="float64" if args.trec_eval_10 and not (cut and not args.pool) else None,
                            stream=None if cut else stream_flag(args),
                            memory_limit=getattr(args, "memory", None),
                            unjudged=unjudged, ties=ties)
        except DegeneratePoolWarning:
            raise _UsageError(f"{', '.join(pooled)} {'needs' if len(pooled) == 1 else 'need'} a campaign: one run "
                              "was given and no --pool (S = 1, so every rarity weight is 0); give the campaign's "
                              "runs, or --pool") from None


# ---------------------------------------------------------------------------------------------- commands
def _output_options(args: argparse.Namespace) -> None:
    """``-o`` names the output format only, as in ir_measures (a file is ``--output FILE``); ``-`` is stdout.

    ``--output -`` is standard output (as without ``--output``), and so is ``--metadata -`` (then the table must
    go to a file: two documents on one stream could not be read apart).

    Raises:
        _UsageError: ``-o`` names no format (with the closest one), ``-n`` without ``-q``, or ``--metadata -``
            while the table goes to standard output too.

    """
    if args.format not in FORMATS:
        raise _UsageError(f"-o/--format takes a format ({', '.join(FORMATS)}), got {args.format!r}"
                          f"{did_you_mean(args.format, FORMATS)}; write to a file with --output FILE")
    if args.no_summary and not args.per_query:  # ir_measures refuses it; trec_eval would print nothing
        raise _UsageError("-n/--no-summary drops the 'all' rows of -q's per-query values: give -q too (without -q "
                          "the summary is all there is to print)")
    if args.output == "-":
        args.output = None
    if args.metadata == "-" and args.output is None:
        raise _UsageError("--metadata - and the table both go to standard output: write the table to a file with "
                          "--output FILE")


def _cmd_eval(args: argparse.Namespace) -> int:
    _output_options(args)
    if args.no_provenance:
        print(f"{PROG}: note: --no-provenance is deprecated and does nothing: the table carries no provenance unless "
              "--provenance (give --metadata FILE for the ir_metadata document)", file=sys.stderr)
    _check_depth(args.depth)
    if not args.pool and os.environ.get(POOL_ENV):  # the one way to name a pool, here too
        args.pool = [os.environ[POOL_ENV]]
        print(f"{PROG}: note: scoring RUNS against the pool {POOL_ENV} names ({args.pool[0]})", file=sys.stderr)
    outputs = [("--output", args.output, False), ("--plot", args.plot, False),
               ("--metadata", None if args.metadata == "-" else args.metadata, False)]  # "-": stdout, not a file
    inputs = _inputs(args)
    _check_stdin(args)
    check_outputs(outputs, inputs)
    from ir_rarity.provenance import hash_inputs

    if _wants_provenance(args) or args.metadata is not None:  # inputs hashed on a thread, from before the
        args.hashed = hash_inputs([i for i in inputs if i is not None],  # evaluation's imports: on the idle core
                                  absolute_paths=args.absolute_paths)
    from ir_rarity.io.datasets import expand_official

    measures = _parse_measures(expand_official(args.measures, args.qrels), args.depth, args)
    if trec_note(args):
        print(f"{PROG}: note: {trec_note(args)}", file=sys.stderr)
    from ir_rarity.cli.compare import eval_table, wants_table

    plain = not wants_table(args)  # (refuses options that need another one)
    with _notices():
        result = _evaluation(args, measures)
        _check_draw_options(args, result)
        first = result.measures[0]
        order = list(ranked_table(result.table(), first, result.label(first)).index)
        # one renderer for every table of eval: means, with comparisons, intervals or composition when asked; one
        # run's plain means in tsv/jsonl as the ir_measures command prints them
        text = None if args.per_query else ((plain and one_run_summary(result, args.format, args.places))
                                            or eval_table(args, result, order))
    from ir_rarity.pool.stream import reading_note

    print(f"{PROG}: {result.describe()}{reading_note(result.campaign)}", file=sys.stderr)
    if text is None:  # -q: as ir_measures -q (no header row; the run first when several runs)
        text = per_query_table(result, not args.no_summary, args.format, args.places,
                               caption=f"Computed against the {result.describe()}.")
    _emit(_stamped(args, text, result), args.output)
    return 0


def _check_draw_options(args: argparse.Namespace, result: Evaluation) -> None:
    """``--resamples``, ``--trials`` and ``--composition-resamples`` within the memory their draws need, by name.

    Checked once the queries and runs are known and before any draw (the statistics check again, by their
    parameters' names): the bootstrap draws resamples x queries, the randomization test trials x queries, the
    bootstrap over teams resamples x runs.
    """
    from ir_rarity.checks import check_draws

    n_queries, n_runs = len(result.query_ids), len(result.names)
    compared = bool(args.baseline) or args.all_pairs
    if args.ci is not None or compared:  # intervals of the means, or of the comparisons' differences
        check_draws(args.resamples, "--resamples", max(n_queries, n_runs), minimum=2, each="queries")
    if compared and args.test == "randomization":
        check_draws(args.trials, "--trials", n_queries, each="queries")
    if args.composition:
        check_draws(args.composition_resamples, "--composition-resamples", n_runs, minimum=0, each="runs")


def _stamped(args: argparse.Namespace, text: str, result: Evaluation) -> str:
    """``text`` with its provenance where it belongs; ``--metadata FILE`` gets the ir_metadata document.

    In-band (:func:`_wants_provenance`): with ``--provenance``, or in a file ``--output`` writes in a format whose
    readers skip comments (markdown, html, latex). Standard output carries the table alone by default.
    """
    if not (_wants_provenance(args) or args.metadata is not None):
        return text
    from ir_rarity.provenance import collect, stamp

    provenance = collect(args.argv, args.hashed, result.attrs(), measures=[result.label(m) for m in result.measures])
    if args.metadata is not None:  # "-": standard output (the table then goes to --output FILE)
        write_for(args, provenance, tag=result.names[0] if len(result.names) == 1 else None,
                  measures=[result.label(m) for m in result.measures])
    return stamp(text, args.format, provenance) if _wants_provenance(args) else text


def _wants_provenance(args: argparse.Namespace) -> bool:
    """Whether the table carries its provenance in-band (not with :data:`NO_PROVENANCE_ENV` set).

    With ``--provenance``; else in a file ``--output`` writes in a format with comments its readers skip
    (:data:`~ir_rarity.cli.streams.COMMENTED_FILES`).
    """
    if os.environ.get(NO_PROVENANCE_ENV, "") not in ("", "0"):
        return False
    return bool(args.provenance) or (args.output is not None and args.format in COMMENTED_FILES)


def _write_frame(frame: pd.DataFrame, path: str) -> None:
    suffix = Path(path).suffix.lower()
    if suffix == ".parquet":  # pyarrow is a dependency
        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False)
        write_atomic(path, buffer.getvalue())
    elif suffix == ".csv":
        write_atomic(path, frame.to_csv(index=False))
    else:
        raise InputError("unknown output type: name the file .csv or .parquet", path)


def _check_depth(depth: int | None) -> None:
    from ir_rarity.checks import check_depth

    check_depth(depth, "--depth", allow_none=True)


def _cmd_pool(args: argparse.Namespace) -> int:
    _check_depth(args.depth)
    _check_stdin(args)
    check_outputs([("--out", args.out, False), ("--judging-pool", args.judging_pool, False)], _inputs(args))
    for out in (args.out, args.judging_pool):
        if out is not None and Path(out).suffix.lower() not in (".csv", ".parquet"):
            raise InputError("unknown output type: name the file .csv or .parquet", out)
    pool = _build_pool(args.runs, args.teams, args.duplicates, split_by_tag=args.split_by_tag,
                       trec_eval_10=args.trec_eval_10)
    if args.out is None and args.judging_pool is None:
        raise _UsageError("nothing to write: give --out FILE and/or --judging-pool FILE")
    if args.out is not None:
        if Path(args.out).suffix.lower() == ".parquet":  # the documented count-table schema, with S and depth
            from ir_rarity.pool.counts import CountTable

            CountTable.from_pool(pool, args.depth).to_parquet(args.out)
        else:
            _write_frame(pool.counts(args.depth), args.out)
    if args.judging_pool is not None:
        if args.depth is None:
            raise _UsageError("--judging-pool needs --depth K")
        from ir_rarity.campaign import judging_pool

        _write_frame(judging_pool(pool, args.depth), args.judging_pool)
    print(f"{PROG}: {pool.info().describe()} ({pool!r})", file=sys.stderr)
    if args.metadata is not None:  # the document with the pool's facts (S, depths, runs)
        from ir_rarity.provenance import collect

        args.provenance_record = collect(args.argv, [i for i in _inputs(args) if i is not None],
                                         pool.info().as_dict(), depth=args.depth)
    return 0


def _cmd_meta(args: argparse.Namespace) -> int:
    try:
        from ir_rarity.meta.summary import write_report
    except ImportError as e:
        raise _UsageError(f"meta-evaluation reports are not available in this version of ir_rarity ({e})") from None
    from ir_rarity.io.frames import as_qrels_frame

    _check_stdin(args)
    check_outputs([("--out", args.out, True)], _inputs(args))
    folder = OutputFolder(args.out, "meta", overwrite=args.overwrite, hint="--overwrite")  # no user file replaced
    from ir_rarity.checks import check_depth, check_draws

    check_depth(args.cutoff, "--cutoff")
    qrels = as_qrels_frame(args.qrels)
    check_draws(args.trials, "--trials", qrels["query_id"].nunique(), each="queries")  # the stability draw
    pool = _meta_campaign(args)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    result = write_report(pool, qrels, args.out, trials=args.trials, cutoff=args.cutoff, seed=args.seed,
                          plots=not args.no_plots, overwrite=args.overwrite)
    from ir_rarity.pool.stream import reading_facts, reading_note
    from ir_rarity.provenance import collect, write_folder

    print(f"{PROG}: {pool.info().describe()}{reading_note(pool)}", file=sys.stderr)  # what the report read
    args.provenance_record = collect(args.argv, [i for i in _inputs(args) if i is not None],
                                     {**pool.info().as_dict(), **reading_facts(pool)},
                                     absolute_paths=args.absolute_paths, trials=args.trials, cutoff=args.cutoff,
                                     seed=args.seed)  # --metadata FILE writes it too
    write_folder(args.out, args.provenance_record, qrels=args.qrels)
    folder.record()
    if result is not None:
        print(result)
    return 0


def _meta_campaign(args: argparse.Namespace) -> Pool | StreamedCampaign:
    """The campaign ``meta`` analyses: the runs' pool cut at ``--cutoff``, or read in two passes.

    Two passes by :func:`ir_rarity.evaluate`'s rule (``--stream``, or ``--memory`` the rows would not fit;
    :func:`~ir_rarity.evaluation.reads_in_two_passes`) for the report's measures, with its refusal (``--teams``).
    Pass 1 counts S_d at ``--cutoff``; the analyses read the runs' judged rows again from the files
    (:meth:`StreamedCampaign.judged_pool <ir_rarity.pool.stream.StreamedCampaign.judged_pool>`).
    """
    from ir_rarity.evaluation import reads_in_two_passes
    from ir_rarity.meta.summary import report_measures
    from ir_rarity.pool.stream import block_rows, stream_campaign

    measures = [parse_measure(m) for _, m, _ in report_measures(args.cutoff)]
    runs = _runs_spec(args.runs)
    if reads_in_two_passes(runs, measures, args.teams or None, stream_flag(args), args.memory):
        return stream_campaign(runs, measures, None, duplicates=args.duplicates, split_by_tag=args.split_by_tag,
                               scores=_scores(args.trec_eval_10), rows=block_rows(args.memory))
    # every analysis stops at rank --cutoff (and counts S_d there): read no deeper
    return _build_pool(args.runs, args.teams, args.duplicates, keep_depth=args.cutoff,
                       split_by_tag=args.split_by_tag, trec_eval_10=args.trec_eval_10)


def _cmd_demo(args: argparse.Namespace) -> int:
    import ir_measures
    import pandas as pd

    from ir_rarity.data import covid_round1
    from ir_rarity.evaluation import evaluate
    from ir_rarity.io.frames import as_qrels_frame
    from ir_rarity.stats.ties import rank

    start = time.perf_counter()
    texts = list(DEMO_MEASURES)
    if "ASL" in ir_measures.measures.registry:
        texts += ["ASL@g1-10", "ASL"]
    measures = list(_parse_measures(texts, None))
    qrels = as_qrels_frame(covid_round1.qrels)
    result = evaluate(covid_round1.runs, qrels, measures, split_by_tag=True)  # one file of 143 runs
    table = ranked_table(result.table(), measures[0])
    out = sys.stdout
    out.write(f"TREC-COVID round 1 (embedded): {len(result.names)} runs, {qrels['query_id'].nunique()} topics, "
              f"{len(qrels)} judgments; computed against the {result.describe()}.\n\n"
              f"Top {args.top} runs by {texts[0]}:\n\n")
    rows = [(n, *(float(v) for v in vals)) for n, vals in zip(table.index, table.to_numpy(), strict=True)]
    out.write(render(["run", *table.columns], rows[: args.top], "markdown", 4))

    base, rare = "P@100", "P_rare(alpha=0.5)@100"
    rank_base = pd.Series(rank(table[base].to_numpy()), index=table.index).astype(int)  # ties: one rule
    rank_rare = pd.Series(rank(table[rare].to_numpy()), index=table.index).astype(int)
    gain = rank_base - rank_rare
    gain = gain.loc[sorted(gain.index, key=lambda n: (-gain[n], rank_rare[n], n))]
    moved = [(n, int(rank_base[n]), int(rank_rare[n]), int(gain[n]), float(table.loc[n, base]),
              float(table.loc[n, rare])) for n in gain.index[: args.top]]
    out.write(f"\nRuns that rarity moves up most (rank by {base} -> rank by {rare}):\n\n")
    out.write(render(["run", f"rank {base}", f"rank {rare}", "gain", base, rare], moved, "markdown", 4))
    out.write(f"\n({time.perf_counter() - start:.1f} s. Try: {PROG} eval QRELS RUNS -m 'P_rare(alpha=0.5)@100')\n")
    return 0


# ---------------------------------------------------------------------------------------------- parser
def _add_pool_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quiet", action="store_true", help="no progress bars (they show on a terminal only)")
    p.add_argument("--teams", metavar="SPEC",
                   help="count teams, not runs: a CSV with columns run,team; CSV:TEAM naming the team column; or "
                        "CSV:RUN:TEAM naming both (official TREC leaderboards: CSV:tag:team)")
    add_reading_options(p)
    p.add_argument("--trec-eval-10", action="store_true",
                   help="order rankings as trec_eval 10.0 does, comparing scores as doubles; by default as "
                        "pytrec_eval and ir_measures do (trec_eval 9: scores that round to the same float tie)")


def _add_absolute_paths_option(p: argparse.ArgumentParser) -> None:
    """``--absolute-paths``: the provenance records each input's resolved path too (it may name private folders)."""
    p.add_argument("--absolute-paths", action="store_true",
                   help="record each input file's resolved absolute path in the provenance (default: the names "
                        "as given only)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``ir-rarity``."""
    parser = argparse.ArgumentParser(prog=PROG, description="Rarity measures and pool-aware evaluation of TREC runs.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("eval", help="evaluate runs (rarity and standard measures), one row per run",
                       description="Evaluate RUNS against QRELS. RUNS: run files, folders or globs; a file holding "
                                   "one run named by its file name; --split-by-tag splits a file of several runs "
                                   "by its tag column. Without --pool, RUNS are the campaign.")
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file or ir_datasets id")
    p.add_argument("runs", metavar="RUNS", nargs="+", help="run files, folders, globs, or one file of many runs")
    p.add_argument("-m", "--measures", metavar="MEASURE", nargs="+", action="extend", required=True,
                   help="measures in ir_measures syntax, e.g. 'P_rare(alpha=0.5)@100' AP_rare P@10; 'official': the "
                        "official measures of the ir_datasets benchmark QRELS names; trec_eval's names too (P.10, "
                        "P.5,10, map, ndcg_cut.10, recip_rank, all_trec), each column named as given; -m may be "
                        "repeated (as in trec_eval), each adding its measures")
    p.add_argument("--pool", metavar="SPEC", nargs="+", action="extend",
                   help="the campaign to score RUNS against (run files, folders, globs, a saved .npz pool or a "
                        ".parquet count table): each run on its own, as the member it equals or as a newcomer")
    p.add_argument("--joint", action="store_true",
                   help="with --pool: RUNS join the campaign together (S + k) instead of each on its own")
    p.add_argument("--depth", type=int, help="depth S_d is counted at, for rarity measures that do not set one")
    add_memory_options(p)
    p.add_argument("-o", "--output-format", "--format", dest="format", metavar="FORMAT", default="tsv",
                   help=f"output format: {', '.join(FORMATS)} (default tsv; -o as in ir_measures)")
    p.add_argument("-q", "--per-query", "--by_query", action="store_true",
                   help="per-query values (header run, query_id, measure, value), then each run's mean as query "
                        "'all' (as trec_eval -q and ir_measures -q)")
    p.add_argument("-n", "--no-summary", "--no_summary", "--nosummary", action="store_true",
                   help="with -q: per-query values only, no 'all' rows (as trec_eval -n/--nosummary)")
    p.add_argument("-p", "--places", type=int, default=4, help="decimals printed (-1: all; jsonl: always all)")
    p.add_argument("--provenance", action="store_true",
                   help="put the provenance (versions, command, input hashes, pool) in-band, as the format's comment "
                        "at the top of the table (default: standard output carries the table alone, as ir_measures; "
                        "files --output writes as markdown, html or latex carry it as a comment their readers skip)")
    p.add_argument("--no-provenance", action="store_true",
                   help="deprecated, does nothing: the table carries no provenance unless --provenance")
    p.add_argument("--metadata", metavar="FILE",
                   help=f"{METADATA_HELP}, with the table in --output FILE")
    _add_absolute_paths_option(p)
    p.add_argument("--output", metavar="FILE",
                   help="write here instead of stdout (-: stdout): a regular file is replaced atomically; a FIFO, a "
                        "device or /dev/stdout is written in place, as a stream")
    _add_pool_options(p)
    from ir_rarity.cli.compare import add_eval_options

    add_eval_options(p)
    add_trec_eval_options(p)
    p.set_defaults(func=_cmd_eval)

    p = sub.add_parser("pool", help="export the S_d table and/or the depth-k judging pool")
    p.add_argument("runs", metavar="RUNS", nargs="+", help="run files, folders, globs, or one file of many runs")
    p.add_argument("--depth", type=int, help="count the runs' top K only (default: whole runs)")
    p.add_argument("--out", metavar="FILE", help="S_d table: query_id, doc_id, S_d (.csv or .parquet)")
    p.add_argument("--judging-pool", metavar="FILE", help="union of the runs' top K: query_id, doc_id, n_runs")
    _add_pool_options(p)
    p.set_defaults(func=_cmd_pool)

    p = sub.add_parser("meta", help="meta-evaluation report (rankings, discriminative power, stability)")
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file or ir_datasets id")
    p.add_argument("runs", metavar="RUNS", nargs="+", help="run files, folders, globs, or one file of many runs")
    p.add_argument("--out", metavar="DIR", required=True, help="folder to write the report into")
    p.add_argument("--overwrite", action="store_true", help="write into a folder holding files of your own")
    p.add_argument("--cutoff", type=int, default=100, help="rank cutoff k of every measure and S_d depth (100)")
    p.add_argument("--trials", type=int, default=1000, help="trials of the stability and robustness analyses")
    p.add_argument("--seed", type=int, default=0, help="seed of every random draw (0)")
    p.add_argument("--no-plots", action="store_true", help="write tables only (no matplotlib figures)")
    _add_absolute_paths_option(p)
    _add_pool_options(p)
    add_memory_options(p)
    p.set_defaults(func=_cmd_meta)

    p = sub.add_parser("demo", help="the main job on the embedded TREC-COVID round 1, no file needed")
    p.add_argument("--top", type=int, default=10, help="rows per table (default 10)")
    p.set_defaults(func=_cmd_demo)

    # ir-rarity pooling: judging strategies, budgets, reusability (ir_rarity.judging)
    _add_absolute_paths_option(add_pooling_parser(sub))
    add_complementarity_parser(sub)  # ir-rarity complementarity: similarity, fusion, contribution
    _add_absolute_paths_option(add_judges_parser(sub))  # ir-rarity judges: agreement, leaderboards, runs
    add_coverage_parser(sub)  # ir-rarity coverage: the intervals checked by leave-one-team-out re-judging
    from ir_rarity.cli.report import add_report_command

    add_report_command(sub)  # ir-rarity report: one self-contained HTML report (ir_rarity.report)
    add_metadata_options(sub)  # --metadata FILE on every command (after every command is added)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ir-rarity`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = [PROG, *(sys.argv[1:] if argv is None else argv)]  # the command outputs record (provenance)
    from ir_rarity.engine import tune_allocator

    tune_allocator()  # a command reads whole campaigns: freed buffers are reused, not faulted in again per file
    try:
        with _notices(), (progress_disabled() if getattr(args, "quiet", False) else nullcontext()):
            # every command's notices and warnings: one line each, and none after an error
            return run_with_metadata(args)
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (RarityError, OSError, ValueError, LookupError, _UsageError) as e:
        message = " ".join(str(e).split()) or type(e).__name__
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # a bug, not bad input: still one line, no traceback (exit 1)
        message = " ".join(str(e).split())
        print(f"{PROG}: error: internal error ({type(e).__name__}: {message}); please report it", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
