"""The disk cache of count tables (:mod:`ir_rarity.pool.store.cache`): counted once, read after, never trusted blindly.

A campaign named by run files (or a saved pool) and asked for counts (what the ir_measures provider asks for
P_rare and the other rarity-weighted measures) is counted once; later calls, in this process after
:func:`clear_cache` or in another, read the cached table and not the runs. A changed run file, another depth or
option is another key; the folder stays within its bound; a damaged or foreign file is counted again; two
writers at once leave a valid table; ``IR_RARITY_CACHE=off`` turns it all off. Values always equal the pool's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import ir_measures
import pytest

from ir_rarity.errors import InputError
from ir_rarity.pool.counts import CountTable
from ir_rarity.pool.pool import Pool
from ir_rarity.pool.resolve import clear_cache, resolve_campaign
from ir_rarity.pool.store import cache, cachefile

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d1 1\nq2 0 d4 1\nq2 0 d5 2\n"
RUNS = {"a": "q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d5 3 1 a\nq2 Q0 d4 1 3 a\nq2 Q0 d5 2 2 a\n",
        "b": "q1 Q0 d3 1 3 b\nq1 Q0 d1 2 2 b\nq2 Q0 d1 1 3 b\nq2 Q0 d5 2 1 b\n",
        "c": "q1 Q0 d1 1 9 c\nq1 Q0 d3 2 8 c\nq1 Q0 d2 3 7 c\nq2 Q0 d5 1 3 c\n"}
NEW_RUN = "q1 Q0 d2 1 5 x\nq1 Q0 d3 2 4 x\nq2 Q0 d5 1 3 x\nq2 Q0 d1 2 2 x\n"
MEASURES = ["P_rare(alpha=0.5)@2", "AP_rare@3", "nDCG_rare(alpha=2)@3", "R_rare@2", "P_rare(bounded=True)@2"]


@pytest.fixture(autouse=True)
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own cache folder, and no campaign kept in memory between calls."""
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(cache.LIMIT_ENV, raising=False)
    clear_cache()
    yield tmp_path / "cache"
    clear_cache()


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    (tmp_path / "runs").mkdir()
    for name, text in RUNS.items():
        (tmp_path / "runs" / name).write_text(text)
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "new").write_text(NEW_RUN)
    return tmp_path / "runs"


def _tables(folder: Path) -> list[Path]:
    return sorted(folder.glob("counts-*.npz"))


def _refuse_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> Pool:
        raise AssertionError("the runs were read again")

    monkeypatch.setattr(Pool, "from_runs", refuse)
    monkeypatch.setattr(Pool, "load", refuse)


def _values(campaign: object, tmp: Path, measures: list[str] = MEASURES) -> dict[str, float]:
    table = campaign.evaluation(tmp / "qrels", measures, {"x": tmp / "new", "a": tmp / "runs" / "a"}).table()
    return {f"{run} {m}": float(v) for run, row in table.iterrows() for m, v in row.items()}


def test_a_repeated_call_reads_the_cache_not_the_runs(runs: Path, folder: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    first = resolve_campaign(str(runs), counts=True, depth=2)
    assert isinstance(first, CountTable) and first.depth == 2 and len(first.members) == 3
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and str(runs) in said[0] and str(folder) in said[0] and "depth 2" in said[0]
    assert len(_tables(folder)) == 1
    clear_cache()
    _refuse_reading(monkeypatch)
    again = resolve_campaign(str(runs), counts=True, depth=2)
    assert capsys.readouterr().err == ""
    assert again.to_frame().equals(first.to_frame()) and again.members == first.members
    assert again.origin == first.origin and again.origin.kind == "runs"  # a measure's pool= matches it


def test_values_equal_the_pools(runs: Path) -> None:
    pool = Pool.from_runs(str(runs))
    expected = {m: _values(pool, runs.parent, [m]) for m in MEASURES}
    for _ in range(2):  # counted, then read from the cache
        clear_cache()
        for m in MEASURES:
            depth = int(m.rsplit("@", 1)[1])
            assert _values(resolve_campaign(str(runs), counts=True, depth=depth), runs.parent, [m]) == expected[m]


def test_the_provider_gives_the_same_values_cached_or_not(runs: Path, folder: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    qrels = list(ir_measures.read_trec_qrels(str(runs.parent / "qrels")))
    run = list(ir_measures.read_trec_run(str(runs.parent / "new")))
    measures = [ir_measures.parse_measure(f"{name}(pool='{runs}'{params})@{k}") for name, params, k in
                [("P_rare", ",alpha=0.5", 2), ("AP_rare", "", 3), ("nDCG_rare", ",alpha=2", 3), ("R_rare", "", 2)]]
    measures.append(ir_measures.parse_measure("P@2"))
    monkeypatch.setenv(cache.CACHE_ENV, "off")
    uncached = ir_measures.calc_aggregate(measures, qrels, run)
    assert not folder.exists()
    monkeypatch.setenv(cache.CACHE_ENV, str(folder))
    for _ in range(2):
        clear_cache()
        assert ir_measures.calc_aggregate(measures, qrels, run) == uncached
    assert len(_tables(folder)) == 2  # one table per depth the measures count S_d at (2 and 3)


def test_a_changed_run_file_is_counted_again(runs: Path, folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = resolve_campaign(str(runs), counts=True, depth=2)
    capsys.readouterr()
    clear_cache()
    time.sleep(0.01)
    os.utime(runs / "b")  # touched: same content, new signature
    resolve_campaign(str(runs), counts=True, depth=2)
    assert "counted S_d" in capsys.readouterr().err
    clear_cache()
    (runs / "b").write_text(RUNS["b"].replace("d5", "d2"))  # rewritten
    after = resolve_campaign(str(runs), counts=True, depth=2)
    assert "counted S_d" in capsys.readouterr().err
    assert not after.to_frame().equals(before.to_frame())
    assert after.to_frame().equals(CountTable.from_pool(Pool.from_runs(str(runs)), 2).to_frame())


def test_every_option_that_changes_counts_is_in_the_key(runs: Path, folder: Path) -> None:
    resolve_campaign(str(runs), counts=True, depth=2)
    resolve_campaign(str(runs), counts=True, depth=3)
    resolve_campaign(str(runs), counts=True, depth=None)
    resolve_campaign(str(runs), counts=True, depth=2, scores="float64")
    resolve_campaign(str(runs), counts=True, depth=2, teams={"a": "t", "b": "t", "c": "u"})
    resolve_campaign(str(runs), counts=True, depth=2, keep_depth=1)
    assert len(_tables(folder)) == 6
    clear_cache()
    teams = resolve_campaign(str(runs), counts=True, depth=2, teams={"a": "t", "b": "t", "c": "u"})
    assert teams.num_systems == 2 and teams.systems == "teams"
    assert resolve_campaign(str(runs), counts=True, depth=2, scores="float64").scores == "float64"


def test_the_size_bound_evicts_the_least_recently_used(runs: Path, folder: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    resolve_campaign(str(runs), counts=True, depth=1)
    (one,) = _tables(folder)
    monkeypatch.setenv(cache.LIMIT_ENV, str(2 * one.stat().st_size + 100))  # room for two tables
    os.utime(one, (1, 1))  # long unused
    resolve_campaign(str(runs), counts=True, depth=2)
    clear_cache()
    two = set(_tables(folder)) - {one}
    resolve_campaign(str(runs), counts=True, depth=1)  # a hit: now the most recently used
    os.utime(next(iter(two)), (2, 2))
    resolve_campaign(str(runs), counts=True, depth=3)
    left = _tables(folder)
    assert one in left and not two & set(left) and len(left) == 2
    monkeypatch.setenv(cache.LIMIT_ENV, "0")  # nothing fits: values still come, nothing stays
    clear_cache()
    assert resolve_campaign(str(runs), counts=True, depth=4).depth == 4
    assert _tables(folder) == []


@pytest.mark.parametrize("damage", ["garbage", "truncated", "foreign", "empty"])
def test_a_bad_cache_file_is_counted_again(runs: Path, folder: Path, damage: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    good = resolve_campaign(str(runs), counts=True, depth=2).to_frame()
    (path,) = _tables(folder)
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"PAR1" + os.urandom(len(data)))
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    else:  # a valid cache file, of other counts and another key, put in this key's place
        cache.write_table(path, "0" * 40, CountTable.from_pool(Pool.from_runs({"z": (runs / "a")}), 2))
    capsys.readouterr()
    clear_cache()
    again = resolve_campaign(str(runs), counts=True, depth=2)
    assert "counted S_d" in capsys.readouterr().err
    assert again.to_frame().equals(good)
    clear_cache()
    assert resolve_campaign(str(runs), counts=True, depth=2).to_frame().equals(good)  # the rebuilt file is read


def test_a_table_of_another_key_is_refused_on_load(runs: Path, folder: Path) -> None:
    resolve_campaign(str(runs), counts=True, depth=2)
    (path,) = _tables(folder)
    key = path.name.removeprefix("counts-").removesuffix(".npz")
    with pytest.raises(InputError, match=r"counts-.*another key"):
        cachefile.read_cached(path, "0" * 40, 2)
    with pytest.raises(InputError, match=r"counts-.*another key or depth"):
        cachefile.read_cached(path, key, 3)
    assert cachefile.read_cached(path, key, 2).depth == 2


WRITER = """
import sys
from ir_rarity.pool.resolve import resolve_campaign
table = resolve_campaign(sys.argv[1], counts=True, depth=2)
print(len(table.to_frame()))
"""


@pytest.mark.slow
def test_two_writers_at_once_leave_a_valid_cache(runs: Path, folder: Path) -> None:
    env = {**os.environ, cache.CACHE_ENV: str(folder)}
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(runs)], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outs = [w.communicate(timeout=120) for w in writers]
    assert all(w.returncode == 0 for w in writers), outs
    assert len({out for out, _ in outs}) == 1
    assert len(_tables(folder)) == 1 and not [p for p in folder.iterdir() if p.name.endswith(".tmp")]
    expected = CountTable.from_pool(Pool.from_runs(str(runs)), 2).to_frame()
    clear_cache()
    assert resolve_campaign(str(runs), counts=True, depth=2).to_frame().equals(expected)


def test_off_turns_the_cache_off(runs: Path, folder: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    for value in ("off", "OFF", "0", "none"):
        monkeypatch.setenv(cache.CACHE_ENV, value)
        assert cache.cache_dir() is None
        clear_cache()
        table = resolve_campaign(str(runs), counts=True, depth=2)
        assert table.origin is not None and table.origin.kind == "runs"
    assert not folder.exists() and capsys.readouterr().err == ""


def test_where_the_cache_is(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(cache.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "ir_rarity"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "ir_rarity"
    monkeypatch.setenv(cache.CACHE_ENV, "~/elsewhere")
    assert cache.cache_dir() == tmp_path / "home" / "elsewhere"


@pytest.mark.parametrize(("text", "size"), [("", cache.DEFAULT_LIMIT), ("1000", 1000), ("500M", 500 << 20),
                                            ("2g", 2 << 30), ("1GiB", 1 << 30), ("10kb", 10 << 10)])
def test_the_bound_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch, text: str, size: int) -> None:
    monkeypatch.setenv(cache.LIMIT_ENV, text)
    assert cache.cache_limit() == size


def test_a_bad_bound_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.LIMIT_ENV, "lots")
    with pytest.raises(InputError, match=cache.LIMIT_ENV):
        cache.cache_limit()


def test_a_saved_pool_is_counted_once_too(runs: Path, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    saved = runs.parent / "pool.npz"
    pool = Pool.from_runs(str(runs))
    pool.save(saved)
    first = resolve_campaign(str(saved), counts=True, depth=2)
    assert first.origin is not None and first.origin.kind == "pool"
    clear_cache()
    _refuse_reading(monkeypatch)
    again = resolve_campaign(str(saved), counts=True, depth=2)
    assert again.to_frame().equals(CountTable.from_pool(pool, 2).to_frame()) and again.members == first.members


def test_an_unwritable_cache_still_gives_the_counts(runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "file" / "cache"))
    table = resolve_campaign(str(runs), counts=True, depth=2)
    assert table.depth == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot cache" in err[0]


def test_leaderboard_teams_are_not_cached(runs: Path, folder: Path) -> None:
    (runs.parent / "teams.csv").write_text("run,team\na,t\nb,t\nc,u\n")
    table = resolve_campaign(str(runs), counts=True, depth=2, teams=f"{runs.parent / 'teams.csv'}:team")
    assert table.num_systems == 2 and _tables(folder) == []
