"""Fresh memory without the kernel's huge-page compaction stalls: what a first evaluation in a process pays.

numpy asks Linux for transparent huge pages on every large array (``madvise(MADV_HUGEPAGE)``). Where the kernel
answers such requests by compacting memory on the spot (``/sys/kernel/mm/transparent_hugepage/defrag`` set to
``madvise``, a common default), the first touch of each new array stalls; later calls reuse memory the process
already holds and do not. Measured on TREC-COVID round 1 (``bench/cold_start.py``): the first
``Pool.from_runs(runs).evaluate(...)`` in a fresh process took 1.9 s against 0.7-1.1 s repeated with the advice,
and 1.0-1.2 s against 0.9 s without it; repeated calls were no slower without it.

:func:`without_hugepage_advice` turns numpy's advice off while ir_rarity builds a pool or evaluates, and puts
numpy's setting back afterwards. The switch is process-wide while it is on (numpy has one setting), so arrays
another thread allocates meanwhile get no advice either: they stay correct, only the paging hint changes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

__all__ = ["without_hugepage_advice"]

F = TypeVar("F", bound=Callable[..., Any])

_SWITCH: Callable[[bool], bool] | None = getattr(getattr(getattr(np, "_core", np), "multiarray", None),
                                                 "_set_madvise_hugepage", None)


def without_hugepage_advice(fn: F) -> F:
    """Decorator: run ``fn`` with numpy's huge-page advice off (where numpy has the switch), then restore it."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _SWITCH is None:
            return fn(*args, **kwargs)
        before = _SWITCH(False)
        try:
            return fn(*args, **kwargs)
        finally:
            _SWITCH(before)

    return wrapper  # type: ignore[return-value]
