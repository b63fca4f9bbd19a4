"""Engine fast paths: float per-cell sums equal a plain loop; numpy's huge-page advice is off inside and restored."""

from __future__ import annotations

import numpy as np

from ir_rarity.engine.kernels import segmented_cumsum


def test_float_segmented_cumsum_is_a_plain_loop_per_cell() -> None:
    rng = np.random.default_rng(3)
    lengths = np.r_[rng.integers(1, 120, 300), [2500], rng.integers(1, 4, 50)]  # one cell far longer
    cell = np.repeat(np.arange(len(lengths)) * 2, lengths)  # cell numbers with gaps
    rank = np.concatenate([np.arange(n) for n in lengths])
    values = rng.random(len(cell)) * 10.0 ** rng.integers(-8, 8, len(cell))
    expected = np.empty_like(values)
    total = 0.0
    for k in range(len(values)):
        total = values[k] if k == 0 or cell[k] != cell[k - 1] else total + values[k]
        expected[k] = total
    assert np.array_equal(segmented_cumsum(values, cell), expected)
    assert np.array_equal(segmented_cumsum(values, cell, rank), expected)


def test_hugepage_advice_is_off_inside_and_restored_after() -> None:
    from ir_rarity.engine import pages

    if pages._SWITCH is None:  # a numpy without the switch: nothing to check
        return
    seen = []

    @pages.without_hugepage_advice
    def inside() -> None:
        seen.append(pages._SWITCH(False))  # returns the setting in force

    before = pages._SWITCH(True)
    try:
        inside()
        assert seen == [False]
        assert pages._SWITCH(True) is True  # restored
    finally:
        pages._SWITCH(before)




_FAULTS = """
import resource, sys
import numpy as np
from ir_rarity.engine.pages import tune_allocator
kept = tune_allocator() if sys.argv[1] == "keep" else None
def cycle():
    for size in (3 << 20, 6 << 20, 12 << 20):  # buffers of some MB, freed in turn, as a campaign's files are read
        buffer = np.ones(size, dtype=np.uint8)
        del buffer
cycle()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    cycle()
import pyarrow as pa
pool = pa.default_memory_pool().backend_name
print(kept, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before, pool)
"""


def test_freed_buffers_are_reused_without_page_faults() -> None:
    """tune_allocator: glibc keeps freed MBs for the next buffer, whose pages are then not faulted in again."""
    import subprocess
    import sys

    def faults(mode: str) -> tuple[str, int, str]:
        out = subprocess.run([sys.executable, "-c", _FAULTS, mode], check=True, capture_output=True, text=True)
        kept, count, pool = out.stdout.split()
        return kept, int(count), pool

    kept, with_it, pool = faults("keep")
    if kept != "True":  # not glibc: nothing to tune, and the call says so
        assert kept == "False"
        return
    assert pool == "system"  # pyarrow allocates through the same (tuned) allocator
    _, without, pool = faults("default")
    assert pool != "system"  # left alone without the call
    assert with_it < 100  # 210 MB allocated and freed: 53,760 pages, none faulted in again
    assert without > 10 * max(with_it, 10)  # glibc's own thresholds give (part of) the memory back each time


def test_the_allocator_environ_gives_a_new_process_the_same_settings() -> None:
    """allocator_environ: a process started with it (a Dask worker) keeps freed MBs as tune_allocator's call does."""
    import os
    import subprocess
    import sys

    from ir_rarity.engine.pages import ALLOCATOR_KEEP, allocator_environ

    environ = allocator_environ()
    keep = str(ALLOCATOR_KEEP)
    assert environ["MALLOC_MMAP_THRESHOLD_"] == environ["MALLOC_TRIM_THRESHOLD_"] == keep == str(16 << 20)

    def faults(extra: dict[str, str]) -> tuple[str, int, str]:
        out = subprocess.run([sys.executable, "-c", _FAULTS, "default"], check=True, capture_output=True, text=True,
                             env={**os.environ, **extra})
        kept, count, pool = out.stdout.split()
        return kept, int(count), pool

    _, with_it, pool = faults(environ)
    assert pool == "system"
    _, without, _ = faults({})
    if _glibc():  # glibc reads the thresholds when the process starts
        assert 2 * with_it < without + 100, (with_it, without)  # freed MBs kept: fewer pages faulted in again


def _glibc() -> bool:
    import platform

    return platform.libc_ver()[0] == "glibc"
