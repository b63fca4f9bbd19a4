"""Qrels and topics of ir_datasets benchmarks, named by id: loaded once, quietly, and never a raw network error.

ir_datasets downloads a dataset's files on first use. Here that happens with ir_datasets' own log lines silenced,
and any failure (no such id, no network, a refused download) becomes one :class:`~ir_rarity.errors.InputError`
that names the id and says that a local file can be given instead.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from ir_rarity.errors import InputError

__all__ = ["fetch"]

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
