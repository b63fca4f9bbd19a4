"""A saved pool (format version 2) stores its counts: read alone, checked alone, equal to counting the rows.

``load_counts`` reads the names, the vocabularies and the counts at one depth, never the rows; each array read is
checked against its own SHA-256 and the counts against the count table's invariants. Version 1 files (no counts)
still load, and their counts are counted from the rows.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ir_rarity import InputError, Pool
from ir_rarity.pool.counts import CountTable
from ir_rarity.pool.resolve import clear_cache, resolve_campaign
from ir_rarity.pool.store import cache, storage
from ir_rarity.pool.store.storage import load_counts, load_runs

DEPTHS = [1, 2, 3, 5, 10, 100, 1000, None]


@pytest.fixture(autouse=True)
def _no_disk_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.CACHE_ENV, "off")
    clear_cache()


def _table(path: Path, depth: int | None) -> CountTable:
    clear_cache()
    table = resolve_campaign(str(path), counts=True, depth=depth)
    assert isinstance(table, CountTable)
    return table


def _same(a: CountTable, b: CountTable) -> None:
    assert a.to_frame().equals(b.to_frame())
    assert a.members == b.members and a.num_systems == b.num_systems and a.systems == b.systems
    assert a.n_runs == b.n_runs and a.depth == b.depth and a.scores == b.scores


@pytest.mark.parametrize("teams", [None, {"A": "t", "B": "t", "C": "u"}])
@pytest.mark.parametrize("scores", ["float32", "float64"])
def test_stored_counts_equal_the_rows_counts(hand_files: dict[str, Path], tmp_path: Path, teams: object,
                                             scores: str) -> None:
    pool = Pool.from_runs([hand_files[n] for n in "ABC"], teams=teams, scores=scores)
    path = tmp_path / "pool.npz"
    storage.save_runs(pool.encoded, path, counts_at=DEPTHS)
    for depth in DEPTHS:
        _same(_table(path, depth), CountTable.from_pool(pool, depth))


def test_the_default_depths_of_pool_save(covid_pool: Pool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "round1.npz"
    covid_pool.save(path)
    monkeypatch.setattr(Pool, "load", lambda *a: pytest.fail("the rows were read"))
    for depth in storage.COUNT_DEPTHS:
        stored = load_counts(path, depth)
        assert stored is not None
        _same(_table(path, depth), CountTable.from_pool(covid_pool, depth))
    assert load_counts(path, 7) is None  # not stored: the pool is loaded and counted
    monkeypatch.undo()
    _same(_table(path, 7), CountTable.from_pool(covid_pool, 7))


def test_a_version_1_file_still_loads(hand_pool: Pool, tmp_path: Path) -> None:
    path = tmp_path / "old.npz"
    arrays = storage._arrays_of(hand_pool.encoded)
    header = {"format": storage.FORMAT, "version": 1, "sha256": storage._digest(arrays), "scores": "float32",
              "arrays": {k: [v.dtype.str, list(v.shape)] for k, v in sorted(arrays.items())}}
    arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    assert Pool.load(path).names == hand_pool.names
    assert load_counts(path, 2) is None
    _same(_table(path, 2), CountTable.from_pool(hand_pool, 2))


def _rewrite(path: Path, change: object) -> None:
    with np.load(path) as archive:
        arrays = {n: archive[n] for n in archive.files}
    change(arrays)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def test_a_damaged_count_array_is_refused(hand_pool: Pool, tmp_path: Path) -> None:
    path = tmp_path / "pool.npz"
    storage.save_runs(hand_pool.encoded, path, counts_at=[2])

    def flip(arrays: dict[str, np.ndarray]) -> None:
        arrays["counts0_sd"] = arrays["counts0_sd"].copy()
        arrays["counts0_sd"][0] += 1

    _rewrite(path, flip)
    with pytest.raises(InputError, match=r"pool\.npz: damaged pool file: the SHA-256 of 'counts0_sd'"):
        load_counts(path, 2)
    with pytest.raises(InputError, match="checksum does not match"):
        load_runs(path)


@pytest.mark.parametrize(("forge", "message"), [
    (lambda a: a.__setitem__("counts0_sd", a["counts0_sd"] + 5), r"S_d must be whole numbers in \[1, S = 3\]"),
    (lambda a: a.__setitem__("counts0_keys", a["counts0_keys"][::-1].copy()), "not sorted, unique pairs"),
    (lambda a: a.__setitem__("counts0_sizes", a["counts0_sizes"] + 1), "sums to"),
    (lambda a: a.__setitem__("counts0_sizes", a["counts0_sizes"][:2].copy()), "stored counts 'counts0'"),
])
def test_forged_counts_with_valid_digests_are_refused(hand_pool: Pool, tmp_path: Path, forge: object,
                                                      message: str) -> None:
    """The digests guard against damage; the invariants against counts that cannot be a campaign's."""
    path = tmp_path / "pool.npz"
    storage.save_runs(hand_pool.encoded, path, counts_at=[2])

    def forged(arrays: dict[str, np.ndarray]) -> None:
        forge(arrays)
        header = json.loads(arrays.pop("header").tobytes())
        header["digests"] = {k: storage._digest({k: v}) for k, v in arrays.items()}
        header["sha256"] = storage._digest(arrays)
        arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)

    _rewrite(path, forged)
    with pytest.raises(InputError, match=message) as caught:
        _table(path, 2)
    assert str(caught.value).startswith(str(path)) and "\n" not in str(caught.value)


def test_a_bad_list_of_counts_is_refused(hand_pool: Pool, tmp_path: Path) -> None:
    path = tmp_path / "pool.npz"
    storage.save_runs(hand_pool.encoded, path, counts_at=[2])

    def bad(arrays: dict[str, np.ndarray]) -> None:
        header = json.loads(arrays.pop("header").tobytes())
        header["counts"] = [[2, "../../etc"]]
        arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)

    _rewrite(path, bad)
    with pytest.raises(InputError, match="bad list of stored counts"):
        load_counts(path, 2)
