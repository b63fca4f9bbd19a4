"""Pool.save / Pool.load: an npz of plain arrays with a format version and a SHA-256 checksum, never pickle."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ir_rarity import InputError, Pool
from ir_rarity.pool.store import storage

MEASURES = ["P@100", "P_rare(alpha=0.5)@100", "AP_rare", "AP_rare(bounded=True,alpha=0.5)@100", "ASL@g1-10"]


def test_round_trip_round1(covid_pool: Pool, covid_qrels: pd.DataFrame, tmp_path: Path) -> None:
    path = tmp_path / "round1.pool"
    covid_pool.save(path)
    loaded = Pool.load(path)
    assert loaded.names == covid_pool.names and loaded.num_systems == covid_pool.num_systems
    expected = covid_pool.evaluate(covid_qrels, MEASURES)
    pd.testing.assert_frame_equal(loaded.evaluate(covid_qrels, MEASURES), expected, rtol=0, atol=1e-15)
    pd.testing.assert_frame_equal(loaded.counts(100), covid_pool.counts(100))
    name = covid_pool.names[7]
    assert loaded.member_of(covid_pool.run(name), depth=100) == name
    assert [p.name for p in tmp_path.iterdir()] == ["round1.pool"]  # atomic: no temporary file left


def test_round_trip_teams_and_unusual_names(tmp_path: Path) -> None:
    runs = {"r\u00e9\u00e9": {"q#1": {'"d"': 2.0, "\u6587\u66f8": 1.0, "x" * 3000: 0.5}},
            "r 2": {"q#1": {'"d"': 1.0}}, "r3": {}}
    pool = Pool.from_runs(runs, teams={"r\u00e9\u00e9": "t1", "r 2": "t1", "r3": "t2"})
    pool.save(tmp_path / "p.npz")
    loaded = Pool.load(tmp_path / "p.npz")
    assert loaded.teams == pool.teams and loaded.num_systems == 2
    pd.testing.assert_frame_equal(loaded.counts(), pool.counts())
    pd.testing.assert_frame_equal(loaded.run("r\u00e9\u00e9"), pool.run("r\u00e9\u00e9"))


@pytest.fixture
def saved(hand_pool: Pool, tmp_path: Path) -> Path:
    path = tmp_path / "hand.pool"
    hand_pool.save(path)
    return path


@pytest.mark.slow
def test_every_flipped_byte_is_refused_or_harmless(saved: Path, hand_pool: Pool, hand_qrels) -> None:
    data = saved.read_bytes()
    expected = hand_pool.evaluate(hand_qrels, ["P_rare@2", "AP_rare"])
    refused = 0
    for i in range(len(data)):
        saved.write_bytes(data[:i] + bytes([data[i] ^ 0x55]) + data[i + 1:])
        try:
            loaded = Pool.load(saved)
        except InputError as e:
            assert str(saved) in str(e)
            refused += 1
        else:  # a byte the format does not read (a zip timestamp): the pool is unchanged
            pd.testing.assert_frame_equal(loaded.evaluate(hand_qrels, ["P_rare@2", "AP_rare"]), expected)
    assert refused > len(data) // 2  # the rest are zip and .npy header bytes no reader uses


def test_payload_change_is_caught_by_the_checksum(saved: Path) -> None:
    with zipfile.ZipFile(saved) as z:
        members = {n: z.read(n) for n in z.namelist()}
    scores = np.load(io.BytesIO(members["score.npy"]))
    scores[0] += 1
    buffer = io.BytesIO()
    np.save(buffer, scores)
    members["score.npy"] = buffer.getvalue()  # a valid array with a valid zip CRC: only the checksum can tell
    with zipfile.ZipFile(saved, "w") as z:
        for name, payload in members.items():
            z.writestr(name, payload)
    with pytest.raises(InputError, match="checksum does not match"):
        Pool.load(saved)


def test_truncated(saved: Path) -> None:
    data = saved.read_bytes()
    for size in (0, 10, len(data) // 2, len(data) - 1):
        saved.write_bytes(data[:size])
        with pytest.raises(InputError, match=r"hand\.pool"):
            Pool.load(saved)


def test_pickle_bearing_files_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "evil.npz"
    np.savez(path, header=np.frombuffer(b"{}", dtype=np.uint8), run=np.array([{"a": 1}], dtype=object))
    with pytest.raises(InputError, match=r"evil\.npz"):
        Pool.load(path)
    pickled = tmp_path / "evil.npy"
    np.save(pickled, np.array([object()], dtype=object), allow_pickle=True)
    with pytest.raises(InputError, match=r"evil\.npy"):
        Pool.load(pickled)


def test_other_files_and_versions(saved: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such pool file"):
        Pool.load(tmp_path / "missing")
    text = tmp_path / "run.txt"
    text.write_text("q1 Q0 d1 1 1.0 A\n")
    with pytest.raises(InputError, match=r"run\.txt"):
        Pool.load(text)
    with np.load(saved) as archive:
        arrays = {n: archive[n] for n in archive.files}
    header = json.loads(arrays["header"].tobytes())
    header["version"] = storage.VERSION + 1
    arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    future = tmp_path / "future.npz"
    np.savez(future, **arrays)
    with pytest.raises(InputError, match=f"format version {storage.VERSION + 1}"):
        Pool.load(future)
