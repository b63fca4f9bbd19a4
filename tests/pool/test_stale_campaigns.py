"""A run file edited with its size and modification time kept is read again, not served from the resolver's cache.

``cp -p``, ``rsync -t`` or ``os.utime`` keep a file's size and mtime; the resolver's cache key also holds the
inode and the status-change time (:func:`ir_rarity.pool.build.sources.file_signature`), which any rewrite changes.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pandas as pd

from ir_rarity.pool.resolve import resolve_campaign

RUN_B = "q1 Q0 d2 1 5.0 B\nq1 Q0 d4 2 4.0 B\nq1 Q0 d1 3 1.0 B\n"
RUN_B_EDITED = "q1 Q0 d5 1 5.0 B\nq1 Q0 d4 2 4.0 B\nq1 Q0 d1 3 1.0 B\n"  # d2 -> d5: same size


def test_a_rewritten_file_with_its_size_and_mtime_restored_is_read_again(hand_files: dict[str, Path],
                                                                          tmp_path: Path) -> None:
    folder = tmp_path / "campaign"
    folder.mkdir()
    for name in "AC":
        (folder / name).write_text(hand_files[name].read_text())
    edited = folder / "B"
    edited.write_text(RUN_B)
    first = resolve_campaign(folder)
    assert resolve_campaign(folder) is first  # unchanged files: the cached campaign
    before = os.stat(edited)
    time.sleep(0.01)  # a later ctime, even on coarse clocks
    edited.write_text(RUN_B_EDITED)
    os.utime(edited, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(edited)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    second = resolve_campaign(folder)
    assert second is not first
    # S_d by hand at depth None (S = 3: A, B, C) for q1. Before: d2 is in A, B and C; after, B retrieves d5.
    counts = {(q, d): s for q, d, s in second.counts().itertuples(index=False)}  # type: ignore[attr-defined]
    old = {(q, d): s for q, d, s in first.counts().itertuples(index=False)}  # type: ignore[attr-defined]
    assert (old[("q1", "d2")], old.get(("q1", "d5"))) == (3, None)
    assert (counts[("q1", "d2")], counts[("q1", "d5")]) == (2, 1)
    pd.testing.assert_frame_equal(second.run("B"), pd.DataFrame(  # type: ignore[attr-defined]
        {"query_id": ["q1"] * 3, "doc_id": ["d5", "d4", "d1"], "score": [5.0, 4.0, 1.0], "rank": [1, 2, 3]}),
        check_dtype=False)
