"""The disk cache touches only files it wrote: a user's files in the cache folder are never removed.

``IR_RARITY_CACHE=. IR_RARITY_CACHE_SIZE=12K`` used to make eviction delete ``counts-trec-depth10.parquet``, a
count table the user had exported into that folder: eviction removed every ``counts-*`` file. The cache now lists
each table it writes in its index (``ir_rarity-cache-index.json``) and removes only a listed table of its own
name that is a regular file right in the folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ir_rarity.pool.resolve import clear_cache, resolve_campaign
from ir_rarity.pool.store import cache, cachefile

RUNS = {"a": "q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d5 3 1 a\nq2 Q0 d4 1 3 a\nq2 Q0 d5 2 2 a\n",
        "b": "q1 Q0 d3 1 3 b\nq1 Q0 d1 2 2 b\nq2 Q0 d1 1 3 b\nq2 Q0 d5 2 1 b\n",
        "c": "q1 Q0 d1 1 9 c\nq1 Q0 d3 2 8 c\nq1 Q0 d2 3 7 c\nq2 Q0 d5 1 3 c\n"}
TABLE = {"queries": ["q1"], "docs": ["d1"], "query_hash": np.array([1], dtype=np.uint64),
         "doc_hash": np.array([3], dtype=np.uint64), "keys": np.array([0], dtype=np.int64),
         "counts": np.array([1], dtype=np.int64), "members": {"a": (1, 7)}, "num_systems": 1, "systems": "runs",
         "n_runs": 1, "depth": 5, "scores": "float32"}


def _user_files(folder: Path) -> dict[Path, bytes]:
    """Files a user keeps in the folder, of the cache's prefix and even of its exact name pattern; all old."""
    files = {folder / "counts-trec-depth10.parquet": b"PAR1" + b"u" * 20000 + b"PAR1",
             folder / "counts-latest.npz": b"user npz",
             folder / f"counts-{'0' * 40}.npz": b"a user's copy of a cache file, not listed in the index",
             folder / "counts-notes.txt": b"notes"}
    for path, data in files.items():
        path.write_bytes(data)
        os.utime(path, (1, 1))  # the least recently used of all
    return files


@pytest.fixture
def campaign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Runs in ``tmp_path/runs``; the working folder is ``tmp_path``, and the cache is pointed at it (``.``)."""
    (tmp_path / "runs").mkdir()
    for name, text in RUNS.items():
        (tmp_path / "runs" / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(cache.CACHE_ENV, ".")
    monkeypatch.delenv(cache.LIMIT_ENV, raising=False)
    clear_cache()
    yield tmp_path
    clear_cache()


def test_eviction_in_the_users_folder_keeps_the_users_files(campaign: Path, monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    mine = _user_files(campaign)
    monkeypatch.setenv(cache.LIMIT_ENV, "12K")
    resolve_campaign("runs", counts=True, depth=1)
    (first,) = cachefile.listed(campaign)
    size = first.stat().st_size
    assert size < 6 * 1024  # two tables fit in 12K, three do not (checked below)
    os.utime(first, (2, 2))
    for depth in (2, 3, 4):
        clear_cache()
        resolve_campaign("runs", counts=True, depth=depth)
    kept = cachefile.listed(campaign)
    total = sum(p.stat().st_size for p in kept)
    assert first not in kept and 1 <= len(kept) < 4 and total <= 12 * 1024  # the cache's own were evicted
    for path, data in mine.items():
        assert path.read_bytes() == data  # the user's files: all there, unchanged
    monkeypatch.setenv(cache.LIMIT_ENV, "0")  # nothing of the cache fits: it removes all of its own, only those
    clear_cache()
    resolve_campaign("runs", counts=True, depth=5)
    assert cachefile.listed(campaign) == []
    assert sorted(p.name for p in campaign.glob("counts-*")) == sorted(p.name for p in mine)
    for path, data in mine.items():
        assert path.read_bytes() == data


def test_a_listed_name_that_is_a_link_or_elsewhere_is_not_followed(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir()
    target = tmp_path / "precious.npz"
    target.write_bytes(b"precious")
    link = cachefile.cache_path(folder, "1" * 40)
    link.symlink_to(target)
    (folder / "sub").mkdir()
    (folder / "sub" / f"counts-{'2' * 40}.npz").write_bytes(b"in a subfolder")
    forged = {link.name: {"key": "1" * 40, "size": 8}, f"sub/counts-{'2' * 40}.npz": {"key": "2", "size": 1},
              "../precious.npz": {"key": "3", "size": 8}, "counts-trec-depth10.parquet": {"key": "4", "size": 1}}
    (folder / cachefile.INDEX_NAME).write_text(json.dumps({"format": "ir_rarity.cache-index/1", "files": forged}))
    (folder / "counts-trec-depth10.parquet").write_bytes(b"user")
    own = cachefile.cache_path(folder, "f" * 40)
    cachefile.write_cached(own, "f" * 40, **TABLE)  # type: ignore[arg-type]
    assert cachefile.evict(folder, 0) == [own]
    assert target.read_bytes() == b"precious" and link.is_symlink()
    assert (folder / "sub" / f"counts-{'2' * 40}.npz").read_bytes() == b"in a subfolder"
    assert (folder / "counts-trec-depth10.parquet").read_bytes() == b"user"
    assert json.loads((folder / cachefile.INDEX_NAME).read_text())["files"] == {}


@pytest.mark.parametrize("index", [b"{not json", b"\xff\xfe", b"[]", b'{"format": "other", "files": {}}',
                                   b'{"format": "ir_rarity.cache-index/1", "files": [1, 2]}'])
def test_a_damaged_index_is_empty_never_an_error(tmp_path: Path, index: bytes) -> None:
    (tmp_path / cachefile.INDEX_NAME).write_bytes(index)
    old = tmp_path / f"counts-{'3' * 40}.npz"  # a table the lost index listed: kept (no longer known as the cache's)
    old.write_bytes(b"x" * 5000)
    own = cachefile.cache_path(tmp_path, "e" * 40)
    cachefile.write_cached(own, "e" * 40, **TABLE)  # type: ignore[arg-type]
    assert cachefile.listed(tmp_path) == [own]
    assert cachefile.evict(tmp_path, 0) == [own] and old.exists()


def test_a_damaged_table_is_removed_only_if_the_cache_wrote_it(tmp_path: Path) -> None:
    own = cachefile.cache_path(tmp_path, "c" * 40)
    cachefile.write_cached(own, "c" * 40, **TABLE)  # type: ignore[arg-type]
    other = cachefile.cache_path(tmp_path, "d" * 40)
    other.write_bytes(b"not listed")
    assert cachefile.forget(other) is False and other.read_bytes() == b"not listed"
    assert cachefile.forget(own) is True and not own.exists() and cachefile.listed(tmp_path) == []


def test_processes_writing_at_once_lose_no_entry(tmp_path: Path) -> None:
    code = ("import sys, numpy as np\n"
            "from pathlib import Path\n"
            "from ir_rarity.pool.store import cachefile\n"
            f"table = {{'queries': ['q1'], 'docs': ['d1'], 'query_hash': np.array([1], dtype=np.uint64),"
            " 'doc_hash': np.array([3], dtype=np.uint64), 'keys': np.array([0], dtype=np.int64),"
            " 'counts': np.array([1], dtype=np.int64), 'members': {'a': (1, 7)}, 'num_systems': 1,"
            " 'systems': 'runs', 'n_runs': 1, 'depth': 5, 'scores': 'float32'}\n"
            "for i in range(15):\n"
            "    key = f'{int(sys.argv[1]):x}{i:x}'.rjust(40, '0')\n"
            f"    cachefile.write_cached(cachefile.cache_path(Path({str(tmp_path)!r}), key), key, **table)\n")
    writers = [subprocess.Popen([sys.executable, "-c", code, str(n)]) for n in range(1, 5)]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0, 0]
    assert len(cachefile.listed(tmp_path)) == 60
    assert sorted(p.name for p in cachefile.listed(tmp_path)) == sorted(p.name for p in tmp_path.glob("counts-*"))
