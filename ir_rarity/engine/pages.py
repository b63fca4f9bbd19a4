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

__all__ = ["ALLOCATOR_KEEP", "allocator_environ", "release_freed_memory", "touch_pages", "tune_allocator",
           "without_hugepage_advice"]

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


ALLOCATOR_KEEP = 16 << 20
"""Bytes of freed heap glibc keeps for reuse under :func:`tune_allocator` (its mmap and trim thresholds)."""


def allocator_environ(keep: int = ALLOCATOR_KEEP) -> dict[str, str]:
    """:func:`tune_allocator`'s settings as environment variables, for processes started later.

    glibc reads ``MALLOC_MMAP_THRESHOLD_`` and ``MALLOC_TRIM_THRESHOLD_`` when a process starts, and pyarrow
    ``ARROW_DEFAULT_MEMORY_POOL``. What a Dask worker that reads run files needs (a library call never changes the
    allocator of a process it does not own): give them to the workers before they start, e.g.
    ``dask.config.set({f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in allocator_environ().items()})``.
    On 2 local workers, the pass 1 of two passes over 1,000 synthetic runs took 15.5 s without them and 10.2 s with.
    """
    return {"MALLOC_MMAP_THRESHOLD_": str(keep), "MALLOC_TRIM_THRESHOLD_": str(keep),
            "ARROW_DEFAULT_MEMORY_POOL": "system"}


def tune_allocator(keep: int = ALLOCATOR_KEEP) -> bool:
    """Set glibc's allocator for a command that reads whole campaigns: freed heap kept for reuse, one allocator.

    Reading a campaign allocates and frees buffers of some MB for every file (its decompressed text, its columns,
    each run's codes). glibc hands the free top of a heap back to the system as soon as it passes its trim
    threshold (twice its mmap threshold, which grows with the blocks freed, often to a few MB), so the next
    file's buffers fault their pages in again: on a 126-run, 6.3 M-row campaign, 230,000 page faults and 0.5 s of
    system time in a 2 s ``ir-rarity eval``. With both thresholds at ``keep`` bytes (``mallopt``), 55,000-80,000
    faults. pyarrow's allocations go through glibc too (its system pool instead of its bundled mimalloc, whose
    per-thread heaps kept 30-50 MB of freed pages of the reading threads until the threads ended), so one
    allocator holds freed memory, within the bounds above. Memory is still handed back where it matters
    (:func:`release_freed_memory`, which trims whatever the thresholds say). On the 6.3 M-row campaign, with
    the measures reading only their rows, the peak of ``ir-rarity eval`` went from 265 MB to 230 MB; with whole
    runs held (500 runs, 25 M rows), glibc's arenas hold about 18 % more than mimalloc did (56 against 48 bytes a
    row). glibc's arenas are left at their number: capped at two, the reading and encoding threads waited on
    their locks (whole runs: 5.9 -> 7.1 s).

    Process-wide, and to be called before threads start: the command line calls it; a library call leaves the
    process's allocator alone. Returns whether glibc took the settings (False elsewhere: another C library).
    """
    if _MALLOPT is None:
        return False
    tuned = bool(_MALLOPT(_M_MMAP_THRESHOLD, keep)) and bool(_MALLOPT(_M_TRIM_THRESHOLD, keep))
    if tuned:  # pyarrow's allocations through glibc too: one allocator, kept and trimmed by the settings above
        import pyarrow as pa

        pa.set_memory_pool(pa.system_memory_pool())
    return tuned


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's malloc.h


def _glibc_function(name: str) -> Callable[..., int] | None:
    """A function of the C library by name (``malloc_trim``, ``mallopt``), or None.

    None where there is no glibc: not Linux, or another C library (musl and others have neither function).
    """
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return None
    try:  # the symbols the process has loaded, the C library's among them (no search for libc: 2 ms a call)
        function: Callable[..., int] = getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):
        return None
    return function


_MALLOC_TRIM = _glibc_function("malloc_trim")
_MALLOPT = _glibc_function("mallopt")
