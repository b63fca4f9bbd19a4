"""Qrels and topics of ir_datasets benchmarks, named by id: loaded once, quietly, and never a raw network error.

ir_datasets downloads a dataset's files on first use. Here that happens with ir_datasets' own log lines silenced,
and any failure (no such id, no network, a refused download) becomes one :class:`~ir_rarity.errors.InputError`
that names the id and says that a local file can be given instead.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from ir_rarity.errors import InputError, ParameterError

__all__ = ["OFFICIAL", "expand_official", "fetch", "official_measures"]

OFFICIAL = "official"
"""The measure name that stands for a benchmark's official measures (``-m official``, ``measures="official"``)."""

T = TypeVar("T")


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """ir_datasets' log lines off (its loggers set their own levels, so logging is disabled below ERROR a while)."""
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(previous)


def fetch(dataset_id: str, what: str, read: Callable[[Any], T]) -> T:
    """``read(dataset)`` for the ir_datasets dataset ``dataset_id``; ``what`` (``"qrels"``, ``"topics"``) for messages.

    Raises:
        InputError: ir_datasets is not installed, knows no such id, the dataset has no ``what``, or its files
            could not be fetched.

    """
    try:
        import ir_datasets
    except ImportError:  # pragma: no cover - ir_datasets is a dependency
        raise InputError(f"no such {what} file, and ir_datasets is not installed", dataset_id) from None
    with _quiet():
        try:
            dataset = ir_datasets.load(dataset_id)
        except KeyError:
            raise InputError(f"no such {what} file, nor an ir_datasets dataset of that id", dataset_id) from None
        has = getattr(dataset, f"has_{'queries' if what == 'topics' else what}")
        if not has():
            raise InputError(f"this ir_datasets dataset has no {what}", dataset_id)
        try:
            return read(dataset)
        except InputError:
            raise
        except Exception as e:  # network, refused downloads, damaged caches: ir_datasets raises many kinds
            raise InputError(f"the {what} of this ir_datasets dataset could not be fetched ({type(e).__name__}); "
                             f"give a local {what} file instead", dataset_id) from None


def official_measures(dataset_id: object) -> list[str]:
    """The official measures ir_datasets documents for a benchmark (``documentation()["official_measures"]``).

    Raises:
        ParameterError: ``dataset_id`` is a file or no ir_datasets id, or the benchmark documents no official
            measures.

    """
    if not isinstance(dataset_id, str) or os.path.exists(dataset_id):
        raise ParameterError(f"'{OFFICIAL}' measures come from an ir_datasets benchmark: give the qrels as its id "
                             "(e.g. msmarco-passage/dev/small), or name the measures")
    import ir_datasets

    with _quiet():
        try:
            documentation = ir_datasets.load(dataset_id).documentation()
        except KeyError:
            raise ParameterError(f"{dataset_id!r} is no ir_datasets id, so it has no official measures") from None
    measures = documentation.get("official_measures") if isinstance(documentation, dict) else None
    if not measures:
        raise ParameterError(f"ir_datasets documents no official measures for {dataset_id!r}: name the measures")
    return [str(m) for m in measures]


def expand_official(measures: Any, qrels: object) -> Any:
    """``measures`` with the name :data:`OFFICIAL` replaced by the benchmark's :func:`official_measures`.

    Any other value (a measure, a mapping, a list without it) is returned as it is.
    """
    if isinstance(measures, str):
        return official_measures(qrels) if measures.strip() == OFFICIAL else measures
    if isinstance(measures, (list, tuple)) and any(isinstance(m, str) and m.strip() == OFFICIAL for m in measures):
        out: list[Any] = []
        for m in measures:
            out += official_measures(qrels) if isinstance(m, str) and m.strip() == OFFICIAL else [m]
        return out
    return measures
