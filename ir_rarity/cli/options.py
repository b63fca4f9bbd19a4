"""How every command that reads run files is told to read them: ``--duplicates`` and ``--split-by-tag``, once.

Each command adds these options through :func:`add_reading_options`, so they are spelled, defaulted and explained the
same way by ``eval``, ``pool``, ``report``, ``pooling``, ``judges``, ``complementarity`` and ``coverage``; and
``--memory SIZE`` / ``--stream`` (a campaign read in two passes, :mod:`ir_rarity.pool.stream`) through
:func:`add_memory_options`, by ``eval``, ``meta`` and ``report``.
"""

from __future__ import annotations

import argparse

from ir_rarity.engine import DUPLICATES, DUPLICATES_HELP

__all__ = ["MEMORY_HELP", "SPLIT_BY_TAG_HELP", "STREAM_HELP", "add_memory_options", "add_reading_options",
           "stream_flag"]

SPLIT_BY_TAG_HELP = ("split each run file into one run per tag (a file of several runs); by default a file is one run "
                     "named by its file name, whatever its tag column says (as trec_eval)")
"""The help of every ``--split-by-tag`` option."""

MEMORY_HELP = ("a memory budget (e.g. 4G): without --pool, run files whose rows (estimated from their sizes) would not "
               "fit it are read in two passes: S_d counted first, then a block of runs at a time read, scored and "
               "dropped (the same values)")
"""The help of every ``--memory`` option."""

STREAM_HELP = "without --pool: always read the run files in two passes (see --memory)"
"""The help of every ``--stream`` option."""


def add_reading_options(parser: argparse.ArgumentParser, *, duplicates: bool = True) -> None:
    """Add ``--split-by-tag`` and (with ``duplicates``) ``--duplicates`` to a command's parser.

    Args:
        parser: The command's parser.
        duplicates: Whether the command takes ``--duplicates`` (``error``, as trec_eval, or ``first``).

    """
    if duplicates:
        parser.add_argument("--duplicates", choices=DUPLICATES, default="error", help=DUPLICATES_HELP)
    parser.add_argument("--split-by-tag", action="store_true", help=SPLIT_BY_TAG_HELP)


def add_memory_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--memory SIZE`` and ``--stream`` (a campaign of run files read in two passes) to a command's parser.

    Both go to :func:`ir_rarity.evaluate`'s rule (:func:`~ir_rarity.evaluation.reads_in_two_passes`), through
    :func:`stream_flag` and ``args.memory``: the one rule and the one refusal of every command that takes them.

    Args:
        parser: The command's parser.

    """
    parser.add_argument("--memory", metavar="SIZE", help=MEMORY_HELP)
    parser.add_argument("--stream", action="store_true", help=STREAM_HELP)


def stream_flag(args: argparse.Namespace) -> bool | None:
    """``stream=`` of :func:`ir_rarity.evaluate` for ``--stream``: True when given, else None (``--memory`` decides)."""
    return True if getattr(args, "stream", False) else None
