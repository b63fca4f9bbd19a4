"""Files of the disk cache (:mod:`ir_rarity.pool.store.cachefile`): read with numpy alone, every invariant checked.

A cache file that was damaged (its CRC-32), forged (keys, S_d or fingerprints that no count table could hold) or
written for another key is refused, never scored; only tables the cache's index lists count toward the bound
(tests/pool/test_cache_user_files.py has the rest of that rule); file signatures are what ``realpath`` and
``stat`` say, whatever links lie on the way.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from ir_rarity.errors import InputError
from ir_rarity.pool.build.paths import file_signature
from ir_rarity.pool.store import cachefile

GOOD = {"queries": ["q1", "q2"], "docs": ["d1", "d2", "d3"], "query_hash": np.array([1, 2], dtype=np.uint64),
        "doc_hash": np.array([3, 4, 5], dtype=np.uint64),
        "keys": np.array([0, 1, (1 << 32) | 2], dtype=np.int64), "counts": np.array([2, 1, 1], dtype=np.int64),
        "members": {"a": (2, 7), "b": (2, 9)}, "num_systems": 2, "systems": "runs", "n_runs": 2, "depth": 5,
        "scores": "float32"}


def _write(path: Path, **changes: object) -> Path:
    cachefile.write_cached(path, "k", **{**GOOD, **changes})  # type: ignore[arg-type]
    return path


def test_a_good_file_reads_back(tmp_path: Path) -> None:
    table = cachefile.read_cached(_write(tmp_path / "c.npz"), "k", 5)
    assert table is not None and table.strings("docs") == GOOD["docs"] and table.members() == GOOD["members"]
    assert table.vocabulary("queries").tolist() == GOOD["queries"]
    assert cachefile.read_cached(tmp_path / "missing.npz", "k", 5) is None


@pytest.mark.parametrize(("changes", "message"), [
    ({"counts": np.array([3, 1, 1], dtype=np.int64)}, "S_d must be"),
    ({"counts": np.array([0, 2, 2], dtype=np.int64)}, "S_d must be"),
    ({"keys": np.array([1, 0, (1 << 32) | 2], dtype=np.int64)}, "not sorted"),
    ({"keys": np.array([0, 1, (5 << 32)], dtype=np.int64)}, "not sorted"),
    ({"keys": np.array([0, 1, 7], dtype=np.int64)}, "not sorted"),
    ({"members": {"a": (2, 7), "b": (3, 9)}}, "summing"),
    ({"n_runs": 3}, "different lengths"),
    ({"doc_hash": np.array([3, 4], dtype=np.uint64)}, "different lengths"),
])
def test_a_forged_file_is_refused(tmp_path: Path, changes: dict[str, object], message: str) -> None:
    with pytest.raises(InputError, match=message):
        cachefile.read_cached(_write(tmp_path / "c.npz", **changes), "k", 5)


def test_an_unsorted_vocabulary_is_refused(tmp_path: Path) -> None:
    table = cachefile.read_cached(_write(tmp_path / "c.npz", docs=["d2", "d1", "d3"]), "k", 5)
    assert table is not None
    with pytest.raises(InputError, match="not sorted"):
        table.vocabulary("docs")


def test_damage_is_caught_by_the_archives_crc(tmp_path: Path) -> None:
    path = _write(tmp_path / "c.npz")
    data = bytearray(path.read_bytes())
    offset = data.index(b"d1d2d3".decode().encode("utf-32-le")[:4])  # inside the docs array
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match="damaged"):
        cachefile.read_cached(path, "k", 5)


def test_another_key_or_format_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "c.npz")
    with pytest.raises(InputError, match="another key"):
        cachefile.read_cached(path, "other", 5)
    np.savez(tmp_path / "foreign.npz", header=np.frombuffer(b'{"format": "x"}', dtype=np.uint8))
    with pytest.raises(InputError, match="not an ir_rarity cache file"):
        cachefile.read_cached(tmp_path / "foreign.npz", "k", 5)
    np.savez(tmp_path / "objects.npz", header=np.array([{"a": 1}], dtype=object))
    with pytest.raises(InputError):
        cachefile.read_cached(tmp_path / "objects.npz", "k", 5)  # never unpickled


def test_only_listed_tables_count_toward_the_bound(tmp_path: Path) -> None:
    old = _write(cachefile.cache_path(tmp_path, "a" * 40))
    os.utime(old, (1, 1))
    unlisted = tmp_path / "counts-old.parquet"  # not written by the cache: neither counted nor removed
    unlisted.write_bytes(b"x" * 100000)
    os.utime(unlisted, (0, 0))
    new = _write(cachefile.cache_path(tmp_path, "b" * 40))
    removed = cachefile.evict(tmp_path, new.stat().st_size + 10, keep=new)
    assert removed == [old] and new.exists() and unlisted.read_bytes() == b"x" * 100000
    assert cachefile.listed(tmp_path) == [new]


def test_signatures_are_realpath_and_stat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "real" / "b").symlink_to(tmp_path / "real" / "a")
    monkeypatch.chdir(tmp_path)
    for name in ["real/a", "link/a", "link/../real/a", "real/b", str(tmp_path / "link" / "b"), "link/./a"]:
        st = os.stat(name)
        assert file_signature([Path(name)]) == ((os.path.realpath(name), st.st_ino, st.st_size, st.st_mtime_ns,
                                                 st.st_ctime_ns),)
