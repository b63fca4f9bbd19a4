"""Checks of arguments that several modules take alike."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ir_rarity.errors import ParameterError

__all__ = ["MAX_DRAW_BYTES", "check_depth", "check_draws"]


def _half_the_memory() -> int:
    """Half the machine's physical memory (POSIX ``sysconf``), or 8 GiB where it cannot be read."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")) // 2
    except (AttributeError, ValueError, OSError):
        return 8 << 30


MAX_DRAW_BYTES = _half_the_memory()
"""The most memory one random draw of a count option (resamples, trials) may need, at 8 bytes a value: half the
machine's physical memory (8 GiB where it cannot be read). A draw beyond it could not be held beside its data."""


def check_depth(depth: Any, name: str = "depth", allow_none: bool = False) -> int | None:
    """``depth`` as an int, if it is a positive integer (or None when ``allow_none``).

    Raises:
        ParameterError: anything else, naming ``name`` and the value.

    """
    if depth is None and allow_none:
        return None
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth <= 0:
        allowed = " or None" if allow_none else ""
        raise ParameterError(f"{name} must be a positive integer{allowed}, got {depth!r}")
    return int(depth)


def check_draws(count: Any, name: str, per_draw: int = 1, minimum: int = 1, each: str = "values") -> int:
    """``count`` as an int, if it is an integer from ``minimum`` whose draw fits in :data:`MAX_DRAW_BYTES`.

    A count option sizes an allocation: ``count`` draws (resamples, trials) of ``per_draw`` values each (the
    queries of a bootstrap resample, the systems of a draw over teams), 8 bytes a value. A count too large for it is
    refused before anything is allocated, naming the option, the value and the limit, instead of failing in the
    middle of the work (a ``MemoryError``, or the system's out-of-memory killer).

    Args:
        count: The count given.
        name: The option or parameter, as the caller names it (``--resamples``, ``resamples``).
        per_draw: Values each draw holds (at least 1).
        minimum: The smallest count allowed.
        each: What a draw's values are, for the message (``"queries"``, ``"systems"``).

    Raises:
        ParameterError: not an integer, below ``minimum``, or a draw needing more than :data:`MAX_DRAW_BYTES`.

    """
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < minimum:
        raise ParameterError(f"{name} must be an integer >= {minimum}, got {count!r}")
    per_draw = max(int(per_draw), 1)
    limit = max(MAX_DRAW_BYTES // (8 * per_draw), minimum)
    if count > limit:
        need = int(count) * per_draw * 8
        raise ParameterError(f"{name} {int(count)} is over the limit of {limit:,} here: {int(count):,} draws of "
                             f"{per_draw:,} {each} need {need / 2**30:,.1f} GiB at 8 bytes a value, more than the "
                             f"{MAX_DRAW_BYTES / 2**30:,.1f} GiB a draw may take (half the memory: "
                             "ir_rarity.checks.MAX_DRAW_BYTES)")
    return int(count)
