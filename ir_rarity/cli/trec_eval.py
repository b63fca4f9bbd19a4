"""trec_eval's vocabulary in ``ir-rarity eval``: its measure names and its flags ``-J``, ``-l``, ``-M``, ``-c``, ``-n``.

* ``-m P.10 map ndcg_cut.10 recip_rank all_trec``: trec_eval's names, read by ir_measures' own parser
  (:mod:`ir_rarity.measures.trec_names`) when ir_measures' syntax does not read them; each printed under the name
  given.
* ``-J`` (``--Judged_docs_only``): every measure over the judged documents only (unjudged ones removed from the
  ranking first), as ``trec_eval -J``: ``judged_only=True`` on each measure that takes it (S_d stays as counted).
* ``-l N`` (``--level_for_rel``): a document is relevant when its label is at least N, as ``trec_eval -l``:
  ``rel=N`` on each measure that takes it (nDCG, whose gains are the labels, is left as trec_eval leaves it).
* ``-M N`` (``--Max_retrieved_per_topic``): each run's top N documents per query only, in trec_eval's order
  (score descending, ties by docno descending), as ``trec_eval -M``. Without ``--pool`` the campaign is formed by
  the runs so cut (its S_d counts their top N); with ``--pool`` only RUNS are cut.
* ``-c`` (``--complete_rel_info_wanted``): average over every query of the qrels, a query a run did not answer
  counting 0. This is what ``ir-rarity eval`` always does; the flag is accepted and changes nothing.
* ``-n`` (``--nosummary``) means what it means in trec_eval: with ``-q``, no ``all`` rows (it is the command's
  ``-n/--no-summary``; there is no clash).
"""

from __future__ import annotations

import argparse
from typing import Any

import ir_measures

from ir_rarity.errors import ParameterError
from ir_rarity.measures.parse import measure_label, parse_measure
from ir_rarity.measures.trec_names import read_trec_measures, with_trec_options

__all__ = ["add_trec_eval_options", "cut_runs", "measures_of_text", "trec_note", "trec_options", "wants_cut"]


def add_trec_eval_options(p: argparse.ArgumentParser) -> None:
    """Add ``-J``, ``-l``, ``-M`` and ``-c`` (trec_eval's short and long names) to ``ir-rarity eval``."""
    g = p.add_argument_group("trec_eval's flags")
    g.add_argument("-J", "--judged-only", "--Judged_docs_only", dest="judged_only", action="store_true",
                   help="as trec_eval -J: every measure over the judged documents only (unjudged ones removed from "
                        "the ranking before scoring); measures that set judged_only keep theirs")
    g.add_argument("-l", "--level-for-rel", "--level_for_rel", dest="level_for_rel", metavar="N", type=int,
                   help="as trec_eval -l: relevant means a label of at least N (default 1); measures that set rel "
                        "keep theirs; nDCG (gains are the labels) is unchanged, as in trec_eval")
    g.add_argument("-M", "--max-retrieved", "--Max_retrieved_per_topic", dest="max_retrieved", metavar="N",
                   type=int, help="as trec_eval -M: each run's top N documents per query only (trec_eval's order); "
                                  "without --pool the campaign is the runs so cut")
    g.add_argument("-c", "--complete-rel-info", "--complete_rel_info_wanted", dest="complete_rel_info",
                   action="store_true",
                   help="as trec_eval -c: average over every query of the qrels (a query a run did not answer "
                        "counts 0); this is always done here, the flag changes nothing")


def measures_of_text(text: str) -> list[tuple[ir_measures.Measure, str]]:
    """The measures one ``-m`` text names, each with its column: ir_measures' syntax first, then trec_eval's names.

    Raises:
        ParameterError: neither reads ``text`` (ir_measures' message, with the closest name), or it names a
            trec_eval measure ir_measures does not support.

    """
    try:
        return [(parse_measure(text), measure_label(text))]
    except ParameterError:
        trec = read_trec_measures(text)
        if trec is None:
            raise
    return [(parse_measure(measure), label) for measure, label in trec]


def trec_options(measure: ir_measures.Measure, args: argparse.Namespace) -> ir_measures.Measure:
    """``measure`` under the command's ``-J`` and ``-l`` (checked again when changed)."""
    changed = with_trec_options(measure, bool(getattr(args, "judged_only", False)),
                                getattr(args, "level_for_rel", None))
    return measure if changed is measure else parse_measure(changed)


def trec_note(args: argparse.Namespace) -> str | None:
    """One line naming the trec_eval flags in force (for stderr), or None. Raises ParameterError for ``-M`` < 1."""
    wants_cut(args)
    parts = []
    if getattr(args, "judged_only", False):
        parts.append("-J: judged documents only")
    if getattr(args, "level_for_rel", None) is not None:
        parts.append(f"-l {args.level_for_rel}: relevant means a label of at least {args.level_for_rel}")
    if getattr(args, "max_retrieved", None) is not None:
        parts.append(f"-M {args.max_retrieved}: each run's top {args.max_retrieved} documents per query"
                     + ("" if args.pool else ", the campaign counted from them"))
    return f"as trec_eval {'; '.join(parts)}" if parts else None


def wants_cut(args: argparse.Namespace) -> bool:
    """Whether ``-M`` asks for RUNS cut (and checks N)."""
    if getattr(args, "max_retrieved", None) is None:
        return False
    if args.max_retrieved < 1:
        raise ParameterError(f"-M {args.max_retrieved}: the number of documents per query must be at least 1")
    return True


def cut_runs(args: argparse.Namespace, runs: Any) -> Any:
    """RUNS cut to each run's top ``-M`` documents per query in trec_eval's order, read once.

    Returns:
        Without ``--pool``, the campaign they form (a :class:`~ir_rarity.Pool`, teams counted as ``--teams``
        says); with ``--pool``, ``{run: frame}`` to score against it.

    """
    from ir_rarity.pool import Pool
    from ir_rarity.pool.teams import read_teams

    teams = read_teams(args.teams) if args.teams and not args.pool else None
    pool = Pool.from_runs(runs, teams=teams, duplicates=args.duplicates, keep_depth=args.max_retrieved,
                          split_by_tag=args.split_by_tag, scores="float64" if args.trec_eval_10 else "float32")
    return {name: pool.run(name) for name in pool.names} if args.pool else pool
