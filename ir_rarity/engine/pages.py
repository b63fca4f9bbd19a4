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

__all__ = ["release_freed_memory", "touch_pages", "without_hugepage_advice"]

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


def touch_pages(*arrays: np.ndarray) -> None:
    """Map the pages of new (``np.empty``) arrays now: write one byte in each page of each.

    The first write to each page of fresh memory costs a page fault (a few microseconds). A thread that has
    nothing else to do can take those faults for arrays that another thread fills later. The values written are
    zeros in arrays whose contents are not yet defined.
    """
    for array in arrays:
        np.ravel(array).view(np.uint8)[::_PAGE] = 0


_PAGE = 4096


def release_freed_memory() -> None:
    """Return memory the process has freed to the system: pyarrow's pool, and glibc's heap where there is one.

    Building a large campaign frees many run-sized arrays (each run's strings, codes and scores) before it makes
    the campaign-sized ones. Freed heap pages stay resident until returned (glibc gives back only the top of its
    heap on its own) and would add to the peak of what follows. Dask's workers call ``malloc_trim`` for the same
    reason. A no-op where neither allocator offers it.
    """
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


def _glibc_function(name: str) -> Callable[..., int] | None:
    """A function of the C library by name (``malloc_trim``), or None.

    None where there is no glibc: not Linux, or another C library (musl and others have neither function).
    """
    import ctypes
    import ctypes.util
    import sys

    if not sys.platform.startswith("linux"):
        return None
    try:
        function: Callable[..., int] = getattr(ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6"), name)
    except (OSError, AttributeError):
        return None
    return function


_MALLOC_TRIM = _glibc_function("malloc_trim")
