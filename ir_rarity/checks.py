"""Checks of arguments that several modules take alike."""

from __future__ import annotations

from typing import Any

import numpy as np

from ir_rarity.errors import ParameterError

__all__ = ["check_depth"]


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
