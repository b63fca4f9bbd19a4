"""The stock command's first call reads a named campaign's runs once, however many S_d depths its measures need.

``ir_measures QRELS RUN "P_rare(pool='DIR')@10" "P_rare(pool='DIR')@100" "AP_rare(pool='DIR')"`` needs S_d at 10, at
100 and on whole runs. Each depth is its own count table in the disk cache; with a cold cache the provider used to
read every run file once per depth. It now reads them once, at the deepest depth needed, and counts every depth
from that one pool (:func:`ir_rarity.pool.resolve.resolve_counts`), with the values of the ordinary path.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import ir_measures
import pytest

from ir_rarity.pool.build import sources
from ir_rarity.pool.resolve import clear_cache, resolve_campaign, resolve_counts
from ir_rarity.pool.store import cache

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d1 1\nq2 0 d4 1\nq2 0 d5 2\n"
RUNS = {"a": "q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d5 3 1 a\nq2 Q0 d4 1 3 a\nq2 Q0 d5 2 2 a\nq2 Q0 d6 3 1 a\n",
        "b": "q1 Q0 d3 1 3 b\nq1 Q0 d1 2 2 b\nq1 Q0 d6 3 1 b\nq2 Q0 d1 1 3 b\nq2 Q0 d5 2 1 b\n",
        "c": "q1 Q0 d1 1 9 c\nq1 Q0 d3 2 8 c\nq1 Q0 d2 3 7 c\nq2 Q0 d5 1 3 c\nq2 Q0 d6 2 2 c\n"}
NEW_RUN = "q1 Q0 d2 1 5 x\nq1 Q0 d3 2 4 x\nq1 Q0 d6 3 3 x\nq2 Q0 d5 1 3 x\nq2 Q0 d1 2 2 x\n"


@pytest.fixture
def campaign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Three runs in ``runs/``, qrels and a new run; the test's own cache folder; no campaign kept in memory."""
    (tmp_path / "runs").mkdir()
    for name, text in RUNS.items():
        (tmp_path / "runs" / name).write_text(text)
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "new").write_text(NEW_RUN)
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "cache"))
    clear_cache()
    yield tmp_path
    clear_cache()


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count every run file the pool reads (by name)."""
    reads: Counter[str] = Counter()
    read = sources.read_trec_run_table

    def counting(path: Any, *args: Any, **kwargs: Any) -> Any:
        reads[Path(path).name] += 1
        return read(path, *args, **kwargs)

    monkeypatch.setattr(sources, "read_trec_run_table", counting)
    return reads


def _measures(runs: Path) -> list[Any]:
    return [ir_measures.parse_measure(m) for m in
            (f"P_rare(pool='{runs}')@1", f"P_rare(pool='{runs}')@2", f"AP_rare(pool='{runs}')")]


def _values(measures: list[Any], tmp: Path, run: str) -> dict[tuple[str, str], float]:
    qrels = list(ir_measures.read_trec_qrels(str(tmp / "qrels")))
    found = ir_measures.iter_calc(measures, qrels, list(ir_measures.read_trec_run(str(tmp / run))))
    return {(str(m.measure), m.query_id): m.value for m in found}


@pytest.mark.parametrize("run", ["new", "runs/a"])  # a new run, and a member
def test_one_provider_call_reads_each_run_file_once(campaign: Path, monkeypatch: pytest.MonkeyPatch,
                                                    run: str) -> None:
    measures = _measures(campaign / "runs")
    monkeypatch.setenv(cache.CACHE_ENV, "off")  # the ordinary path, one measure (one depth) at a time
    expected: dict[tuple[str, str], float] = {}
    for measure in measures:
        clear_cache()
        expected.update(_values([measure], campaign, run))
    monkeypatch.setenv(cache.CACHE_ENV, str(campaign / "cache"))
    clear_cache()
    reads = _count_reads(monkeypatch)
    assert _values(measures, campaign, run) == expected
    assert reads == Counter({"a": 1, "b": 1, "c": 1})  # was 3 each: once per depth (1, 2, whole runs)
    assert len(list((campaign / "cache").glob("counts-*.npz"))) == 3  # every depth's table is cached
    clear_cache()
    reads.clear()
    assert _values(measures, campaign, run) == expected  # the next call reads the cache, not the runs
    assert not reads


def test_the_tables_counted_together_equal_those_counted_alone(campaign: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    runs = str(campaign / "runs")
    monkeypatch.setenv(cache.CACHE_ENV, "off")
    alone = {}
    for depth in (1, 2, None):
        clear_cache()
        alone[depth] = resolve_campaign(runs, counts=True, depth=depth)
    clear_cache()
    reads = _count_reads(monkeypatch)
    together = resolve_counts(runs, [2, 1, None, 2])
    assert list(together) == [2, 1, None]
    assert reads == Counter({"a": 1, "b": 1, "c": 1})
    for depth, table in together.items():
        assert table.depth == depth
        assert table.to_frame().equals(alone[depth].to_frame())
        assert table.members == alone[depth].members and table.num_systems == alone[depth].num_systems == 3
        assert table.origin == alone[depth].origin
        assert resolve_campaign(runs, counts=True, depth=depth) is table  # kept for the provider to find
    clear_cache()
    reads.clear()
    resolve_counts(runs, [1, 2])  # without whole runs: one read of the runs cut at depth 2
    assert reads == Counter({"a": 1, "b": 1, "c": 1})
