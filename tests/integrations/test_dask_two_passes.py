"""Two passes on Dask: counts merged across tasks, each block scored where it is read; the in-memory values."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import ir_rarity
from ir_rarity.errors import ParameterError
from ir_rarity.pool import stream as stream_module

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pool"))
from test_stream import FAMILIES, _campaign, _same

distributed = pytest.importorskip("distributed")

from ir_rarity.integrations.dask_stream import evaluate_two_passes_with_dask  # noqa: E402

pytestmark = pytest.mark.slow  # a Dask local cluster


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of one or two files: several tasks, their counts merged in a tree."""
    monkeypatch.setattr(stream_module, "_BLOCK_ROWS", 150)
    monkeypatch.setattr(stream_module, "_MAX_BLOCK_ROWS", 300)


@pytest.mark.usefixtures("small_blocks")
@pytest.mark.parametrize("gz", [False, True])
def test_local_cluster_equals_in_memory(tmp_path: Path, gz: bool) -> None:
    files, qrels = _campaign(tmp_path / "c", gz=gz)
    measures = [m for m in FAMILIES if not m.startswith("ASL")]  # ASL's length warning is given per block here
    expected = ir_rarity.evaluate(files, qrels, measures)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    with cluster, distributed.Client(cluster):
        got = evaluate_two_passes_with_dask(files, qrels, measures)
    _same(expected, got)


@pytest.mark.usefixtures("small_blocks")
def test_default_scheduler_and_split_by_tag() -> None:
    from ir_rarity import covid_round1

    measures = ["P@10", "AP", "P_rare@100", "AP_rare", "nDCG_rare@20"]
    expected = ir_rarity.evaluate(covid_round1.runs, covid_round1.qrels, measures, split_by_tag=True)
    got = evaluate_two_passes_with_dask(covid_round1.runs, covid_round1.qrels, measures, split_by_tag=True)
    _same(expected, got)


def test_blocks_follow_the_workers_memory_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ir_rarity.integrations import dask_stream

    monkeypatch.setattr(stream_module, "_BLOCK_ROWS", 150)
    monkeypatch.setattr(stream_module, "_MAX_BLOCK_ROWS", 10**6)
    files, qrels = _campaign(tmp_path / "c", n_runs=8)
    measures = ["P@10", "AP", "AP_rare", "P_rare@20"]
    expected = ir_rarity.evaluate(files, qrels, measures)
    seen: list[int | None] = []
    real = stream_module.file_blocks

    def spy(files: list[Path], split_by_tag: bool | None, rows: int | None) -> list[tuple[int, int]]:
        seen.append(rows)
        return real(files, split_by_tag, rows)

    monkeypatch.setattr(dask_stream, "file_blocks", spy)
    assert dask_stream._worker_memory() is None  # no client: the smallest blocks
    import dask

    # a limit this small only sizes the blocks: the workers' memory manager (spill, pause) stays off
    off = {f"distributed.worker.memory.{k}": False for k in ("target", "spill", "pause", "terminate")}
    with dask.config.set(off), distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None, memory_limit=400 * 800
    ) as cluster, distributed.Client(cluster):
        assert dask_stream._worker_memory() == 400 * 800
        got = evaluate_two_passes_with_dask(files, qrels, measures)
    assert seen == [400]  # a quarter of 320,000 bytes at 200 bytes a row
    _same(expected, got)


def test_refuses_what_needs_runs(tmp_path: Path) -> None:
    files, qrels = _campaign(tmp_path / "c", n_runs=2)
    with pytest.raises(ParameterError, match="U_novel"):
        evaluate_two_passes_with_dask(files, qrels, ["U_novel@10"])


def test_worker_processes_read_their_own_spill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In worker processes, pass 2 reads the rows its pass-1 task wrote (or the files) and removes what was written."""
    files, qrels = _campaign(tmp_path / "c", n_runs=8)
    measures = ["P@10", "AP", "nDCG@10", "P_rare@10", "AP_rare", "R_rare@20"]
    expected = ir_rarity.evaluate(files, qrels, measures)
    spills = tmp_path / "tmp"
    spills.mkdir()
    monkeypatch.setenv("TMPDIR", str(spills))  # the worker processes make their spills here
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
                                  ) as cluster, distributed.Client(cluster):
        got = evaluate_two_passes_with_dask(files, qrels, measures, tasks=4)
    _same(expected, got)
    assert list(spills.iterdir()) == []  # every task of pass 2 removed its spill


def _spills(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("ir_rarity_pass2_"))


@pytest.mark.usefixtures("small_blocks")
@pytest.mark.parametrize("processes", [None, True])
def test_a_failed_task_leaves_no_spill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, processes: bool | None
                                       ) -> None:
    """A bad line in the last file fails one task of pass 1: the other tasks' spills go too (no client, workers).

    Without a client, the spills are the results Dask's scheduler held, removed once the error (which holds them)
    is dropped; on workers, at once.
    """
    import tempfile

    files, qrels = _campaign(tmp_path / "c", n_runs=8)
    files[-1].write_text(files[-1].read_text() + "q1 Q0 d3 1\n")
    spills = tmp_path / "tmp"
    spills.mkdir()
    monkeypatch.setenv("TMPDIR", str(spills))
    monkeypatch.setattr(tempfile, "tempdir", None)
    measures = ["P@10", "AP_rare", "P_rare@20"]
    with pytest.raises(ir_rarity.InputError) as memory:
        ir_rarity.evaluate(files, qrels, measures)
    if processes is None:  # no client: Dask's scheduler in this process (one task after another: none left running)
        import dask

        with dask.config.set(scheduler="synchronous"), pytest.raises(ir_rarity.InputError) as failed:
            evaluate_two_passes_with_dask(files, qrels, measures, tasks=4)
    else:
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
                                      ) as cluster, distributed.Client(cluster), \
                pytest.raises(ir_rarity.InputError) as failed:
            evaluate_two_passes_with_dask(files, qrels, measures, tasks=4)
    assert str(failed.value) == str(memory.value)
    import gc
    del failed
    gc.collect()
    assert _spills(spills) == []


def test_a_task_of_pass_two_run_again_reads_the_files(tmp_path: Path) -> None:
    """A task of pass 2 run twice (Dask retries it): the first removes the spill, the second reads the files."""
    from ir_rarity.engine import Judgments
    from ir_rarity.integrations import dask_stream
    from ir_rarity.measures.parse import parse_measure

    files, qrels = _campaign(tmp_path / "c", n_runs=4)
    measures = ["P@10", "Judged@5", "AP_rare", "R_rare@20"]
    expected = ir_rarity.evaluate(files, qrels, measures)
    parsed = [parse_measure(m) for m in measures]
    judgments = Judgments(qrels)
    keep = stream_module.pass_two_rows(parsed, judgments)
    counted = dask_stream._counted(files, stream_module.count_depths(parsed), [(0, 2), (2, 4)], keep, {})
    spill = counted[1]
    assert spill is not None and spill.folder.exists()
    campaign = stream_module.StreamedCampaign(files, counted[0], keep, duplicates="error", split_by_tag=None,
                                              scores="float32", blocks=[(0, 2), (2, 4)])
    first = dask_stream._scored(campaign, 0, 4, counted, judgments.frame, measures)
    assert not spill.folder.exists()
    again = dask_stream._scored(campaign, 0, 4, counted, judgments.frame, measures)
    labelled = {expected.label(m): v for m, v in expected.values.items()}
    assert sorted(labelled) == sorted(measures)
    for values in (first[1], again[1]):
        for text in measures:
            assert values[text].tobytes() == labelled[text].tobytes(), text
