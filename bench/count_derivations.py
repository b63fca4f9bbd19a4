"""How often one call re-derives a value: measure strings parsed, ``measure_labels`` called, qrels read and encoded.

Runs, in one process, (a) ``ir-rarity eval`` on the embedded TREC-COVID round 1 campaign (through
``ir_rarity.cli.commands.main``) and (b) ``ir_rarity.report.report`` on the same campaign with its default measures,
and prints per call:

* parses per measure string: calls of ``ir_rarity.measures.parse.parse_measure`` given a string, and of
  ``ir_measures.parse_measure`` (what it calls), per distinct string;
* ``parse_measure`` calls given an already-parsed measure (no parse), and parameter checks run (``check_params``);
* calls of ``measure_labels``, and of them those that derive the mapping (given anything but a
  ``MeasureLabels``, the mapping it made);
* qrels reads (``read_trec_qrels``) and qrels encodings (``encode_qrels`` and ``encode_qrels_columns``), with the
  number of distinct campaign vocabularies they were encoded against.

Every module's binding of a counted function is replaced (modules import them by name), and functions imported
later are counted too (the source module is patched before they are looked up).

Usage::

    python bench/count_derivations.py [--quick]

``--quick`` gives the report small resamples, trials and budgets (the counts do not depend on them).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import ir_measures

import ir_rarity  # (installs the ASL@gA-B syntax in ir_measures.parse_measure first)
import ir_rarity.cli.commands
import ir_rarity.engine.qrels
import ir_rarity.io.trec
import ir_rarity.measures.parse
import ir_rarity.report
from ir_rarity.data import covid_round1

EVAL_MEASURES = ["P@10", "P_rare(alpha=0.5)@100", "AP_rare", "ASL@g1-10"]


class Counts:
    """What one call derived."""

    def __init__(self) -> None:
        self.parses: Counter[str] = Counter()  # ir_rarity's parse_measure given a string
        self.ir_measures_parses: Counter[str] = Counter()  # ir_measures.parse_measure given a string
        self.objects = 0  # ir_rarity's parse_measure given a parsed measure
        self.checks = 0  # check_params run (a parsed measure's parameters checked)
        self.labels = 0  # measure_labels
        self.labels_made = 0  # measure_labels given anything but the mapping it made (it derives the mapping)
        self.reads = 0  # read_trec_qrels
        self.encodings = 0  # encode_qrels + encode_qrels_columns
        self.vocabularies: set[tuple[int, int]] = set()  # the distinct (query, doc) vocabularies encoded against
        self._keep: list[Any] = []  # the vocabularies, so that their ids stay theirs


COUNTS = Counts()


def _wrap(module: Any, name: str, make: Callable[[Callable[..., Any]], Callable[..., Any]]) -> None:
    """Replace ``module.name`` and every module's binding of the same function by ``make(original)``."""
    original = getattr(module, name)
    wrapped = make(original)
    wrapped.__wrapped__ = original  # type: ignore[attr-defined]
    setattr(module, name, wrapped)
    for other in list(sys.modules.values()):
        if other is not None and getattr(other, name, None) is original:
            setattr(other, name, wrapped)


def _counted(record: Callable[..., None]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A wrapper maker: the wrapped function calls ``record`` with its arguments, then the original."""
    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            record(*args)
            return original(*args, **kwargs)
        return counted
    return make


def _parse(measure: Any, *_: Any) -> None:
    if isinstance(measure, str):
        COUNTS.parses[measure] += 1
    else:
        COUNTS.objects += 1


def _ir_measures_parse(measure: Any, *_: Any) -> None:
    if isinstance(measure, str):
        COUNTS.ir_measures_parses[measure] += 1


def _check(*_: Any) -> None:
    COUNTS.checks += 1


def _labels(measures: Any, *_: Any) -> None:
    COUNTS.labels += 1
    made = getattr(ir_rarity.measures.parse, "MeasureLabels", None)  # the mapping it makes (where it exists)
    COUNTS.labels_made += not (made is not None and isinstance(measures, made))


def _read(*_: Any) -> None:
    COUNTS.reads += 1


def _encoding(vocabularies_at: int) -> Callable[..., None]:
    def record(*args: Any) -> None:
        COUNTS.encodings += 1
        queries, docs = args[vocabularies_at:vocabularies_at + 2]
        COUNTS.vocabularies.add((id(queries), id(docs)))
        COUNTS._keep.append((queries, docs))
    return record


def _install() -> None:
    _wrap(ir_rarity.measures.parse, "parse_measure", _counted(_parse))
    _wrap(ir_measures, "parse_measure", _counted(_ir_measures_parse))
    _wrap(ir_rarity.measures.parse, "measure_labels", _counted(_labels))
    _wrap(ir_rarity.measures.parse, "check_params", _counted(_check))
    _wrap(ir_rarity.io.trec, "read_trec_qrels", _counted(_read))
    _wrap(ir_rarity.engine.qrels, "encode_qrels", _counted(_encoding(1)))  # (qrels, query_vocab, doc_vocab)
    _wrap(ir_rarity.engine.qrels, "encode_qrels_columns", _counted(_encoding(3)))  # (query, doc, labels, vocab..)


@contextlib.contextmanager
def counting() -> Iterator[Counts]:
    """Counts of one call (fresh for each)."""
    global COUNTS
    COUNTS = Counts()
    yield COUNTS


def run_eval() -> Counts:
    """``ir-rarity eval`` on round 1 with the brief's measures."""
    argv = ["eval", str(covid_round1.qrels), str(covid_round1.runs), "--split-by-tag", "-m", *EVAL_MEASURES]
    with counting() as counts, contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        status = ir_rarity.cli.commands.main(argv)
    if status not in (0, None):
        raise SystemExit(f"ir-rarity eval exited {status}")
    return counts


def run_report(quick: bool) -> Counts:
    """``ir_rarity.report.report`` on round 1 with its default measures."""
    small: dict[str, Any] = {"resamples": 50, "composition_resamples": 5, "trials": 5, "budgets": [10]} if quick \
        else {}
    with counting() as counts, tempfile.TemporaryDirectory() as tmp:
        ir_rarity.report.report(covid_round1.runs, covid_round1.qrels, split_by_tag=True, progress=False,
                                out=Path(tmp) / "report.html", **small)
    return counts


def show(name: str, counts: Counts) -> None:
    """Print one call's counts."""
    print(f"== {name}")
    width = max((len(s) for s in counts.parses), default=10)
    print(f"  {'measure string':<{width}}  parse_measure  ir_measures.parse_measure")
    for text in sorted(set(counts.parses) | set(counts.ir_measures_parses)):
        print(f"  {text:<{width}}  {counts.parses[text]:>13}  {counts.ir_measures_parses[text]:>25}")
    print(f"  distinct measure strings: {len(set(counts.parses))}; string parses: {sum(counts.parses.values())} "
          f"(most for one string: {max(counts.parses.values(), default=0)})")
    print(f"  parse_measure given a parsed measure: {counts.objects}; parameter checks run (check_params): "
          f"{counts.checks}")
    print(f"  measure_labels calls: {counts.labels}, of which deriving the mapping: {counts.labels_made}")
    print(f"  qrels reads (read_trec_qrels): {counts.reads}")
    print(f"  qrels encodings: {counts.encodings} against {len(counts.vocabularies)} distinct vocabularies")


def main(argv: list[str] | None = None) -> None:
    """Count the derivations of one ``eval`` and one ``report`` call."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small resamples, trials and budgets in the report")
    args = parser.parse_args(argv)
    _install()
    show("ir-rarity eval " + " ".join(EVAL_MEASURES), run_eval())
    show("ir_rarity.report.report (default measures)", run_report(args.quick))


if __name__ == "__main__":
    main()
