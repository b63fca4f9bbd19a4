"""How every command that reads run files is told to read them: ``--duplicates`` and ``--split-by-tag``, once.

Each command adds these options through :func:`add_reading_options`, so they are spelled, defaulted and explained the
same way by ``eval``, ``pool``, ``report``, ``pooling``, ``judges``, ``complementarity`` and ``coverage``.
"""

from __future__ import annotations

import argparse

from ir_rarity.engine import DUPLICATES, DUPLICATES_HELP

__all__ = ["SPLIT_BY_TAG_HELP", "add_reading_options"]

SPLIT_BY_TAG_HELP = ("split each run file into one run per tag (a file of several runs); by default a file is one run "
                     "named by its file name, whatever its tag column says (as trec_eval)")
"""The help of every ``--split-by-tag`` option."""


def add_reading_options(parser: argparse.ArgumentParser, *, duplicates: bool = True) -> None:
    """Add ``--split-by-tag`` and (with ``duplicates``) ``--duplicates`` to a command's parser.

    Args:
        parser: The command's parser.
        duplicates: Whether the command takes ``--duplicates`` (``error``, as trec_eval, or ``first``).

    """
    if duplicates:
        parser.add_argument("--duplicates", choices=DUPLICATES, default="error", help=DUPLICATES_HELP)
    parser.add_argument("--split-by-tag", action="store_true", help=SPLIT_BY_TAG_HELP)
