"""What one call derives: measure strings parsed, measures checked again, qrels read and encoded.

:func:`counting` replaces, for the ``with`` block, every module's binding of the functions that derive those
values (modules import them by name) by a counting wrapper, and puts the originals back afterwards (also in the
modules first imported inside the block, which bound the wrapper).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import ir_measures

import ir_rarity.engine.qrels
import ir_rarity.io.trec
import ir_rarity.measures.parse


@dataclass
class Derived:
    """Counts of one call.

    Attributes:
        parses: Measure string -> times ir_rarity's ``parse_measure`` parsed it.
        ir_measures_parses: Measure string -> times ``ir_measures.parse_measure`` parsed it.
        rechecks: Measures ``check_params`` was given after it had returned them (checked again).
        reads: TREC qrels files read.
        encodings: Campaign vocabulary (ids of the query and docno vocabularies) -> times the qrels were encoded
            against it.

    """

    parses: Counter[str] = field(default_factory=Counter)
    ir_measures_parses: Counter[str] = field(default_factory=Counter)
    rechecks: list[str] = field(default_factory=list)
    reads: int = 0
    encodings: Counter[tuple[int, int]] = field(default_factory=Counter)
    _kept: list[Any] = field(default_factory=list)  # what the ids above name, alive for the block

    def vocabulary(self, queries: Any, docs: Any) -> tuple[int, int]:
        """The key of a vocabulary in :attr:`encodings`."""
        return id(queries), id(docs)


def _rebind(original: Any, replacement: Any, name: str) -> None:
    for module in list(sys.modules.values()):
        if module is not None and getattr(module, name, None) is original:
            setattr(module, name, replacement)


class _Recorder:
    """The counting wrappers of one block, recording into ``derived``."""

    def __init__(self, derived: Derived) -> None:
        self.derived = derived
        self.returned: dict[int, Any] = {}  # measures check_params returned (kept alive: their ids stay theirs)

    def parse(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def parse_measure(measure: Any) -> Any:
            if isinstance(measure, str):
                self.derived.parses[measure] += 1
            return original(measure)
        return parse_measure

    def ir_parse(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def parse_measure(measure: Any) -> Any:
            if isinstance(measure, str):
                self.derived.ir_measures_parses[measure] += 1
            return original(measure)
        return parse_measure

    def check(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def check_params(measure: Any) -> Any:
            if self.returned.get(id(measure)) is measure:
                self.derived.rechecks.append(str(measure))
            out = original(measure)
            self.returned[id(out)] = out
            return out
        return check_params

    def read(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def read_trec_qrels(*args: Any, **kwargs: Any) -> Any:
            self.derived.reads += 1
            return original(*args, **kwargs)
        return read_trec_qrels

    def encode(self, at: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """The wrapper maker of an encoder whose vocabularies are its arguments ``at`` and ``at + 1``."""
        def make(original: Callable[..., Any]) -> Callable[..., Any]:
            def encoder(*args: Any, **kwargs: Any) -> Any:
                queries, docs = args[at:at + 2]
                self.derived.encodings[self.derived.vocabulary(queries, docs)] += 1
                self.derived._kept.append((queries, docs))
                return original(*args, **kwargs)
            return encoder
        return make


@contextmanager
def counting() -> Iterator[Derived]:
    """Count, inside the block, what :class:`Derived` names."""
    derived = Derived()
    record = _Recorder(derived)
    patches = [(ir_rarity.measures.parse, "parse_measure", record.parse),
               (ir_measures, "parse_measure", record.ir_parse),
               (ir_rarity.measures.parse, "check_params", record.check),
               (ir_rarity.io.trec, "read_trec_qrels", record.read),
               (ir_rarity.engine.qrels, "encode_qrels", record.encode(1)),  # (qrels, query_vocab, doc_vocab)
               (ir_rarity.engine.qrels, "encode_qrels_columns", record.encode(3))]  # (query, doc, labels, vocabs)
    done = []
    for module, name, make in patches:
        original = getattr(module, name)
        wrapper = make(original)
        _rebind(original, wrapper, name)
        done.append((original, wrapper, name))
    try:
        yield derived
    finally:
        for original, wrapper, name in reversed(done):
            _rebind(wrapper, original, name)
