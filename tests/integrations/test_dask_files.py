"""The Dask path's own reading: run files read by ir_rarity's reader in batches, cut to the depth the measures
read before the shuffle, and values still equal to Pool.evaluate on the whole runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import Pool
from ir_rarity.pool.build.sources import iter_named_runs

distributed = pytest.importorskip("distributed")
from ir_rarity.integrations.dask import _batches, evaluate_with_dask  # noqa: E402

CUT = ["P_rare(alpha=0.5)@5", "AP_rare@10", "nDCG_rare@10", "P@5", "nDCG@10"]  # runs cut at rank 10


pytestmark = pytest.mark.slow  # Dask over batches of files


@pytest.fixture(scope="module")
def round1_plain(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Round 1 (143 runs cut at depth 100) as one plain file a run."""
    folder = tmp_path_factory.mktemp("round1_plain")
    files = []
    for name, frame in iter_named_runs(ir_rarity.covid_round1.runs, split_by_tag=True):
        path = folder / name
        frame.assign(q0="Q0", rank=np.arange(1, len(frame) + 1), tag=name)[
            ["query_id", "q0", "doc_id", "rank", "score", "tag"]].to_csv(path, sep=" ", header=False, index=False)
        files.append(path)
    return sorted(files)


def test_batches_of_files_cut_to_the_measures_depth_equal_pool_evaluate(round1_plain: list[Path]) -> None:
    qrels = ir_rarity.read_trec_qrels(ir_rarity.covid_round1.qrels)
    files = [str(p) for p in round1_plain]
    pool = Pool.from_runs(files)  # whole runs
    expected = pool.evaluate(qrels, CUT).sort_index()
    per_query = pool.evaluate(qrels, CUT, by_query=True)
    blocksize = 4 * 3 * max(p.stat().st_size for p in round1_plain)  # three files a task at least
    batches = _batches(round1_plain, blocksize)
    assert min(len(b) for b in batches[:-1]) >= 3
    assert max(sum(Path(f).stat().st_size for f in b) for b in batches) <= blocksize // 4
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    with cluster, distributed.Client(cluster):
        table = evaluate_with_dask(files, qrels, CUT, npartitions=4, blocksize=blocksize, shuffle_method="p2p").table()
        long = evaluate_with_dask(files, qrels, CUT, blocksize=blocksize, shuffle_method="p2p").long()
    assert len(table) == 143
    pd.testing.assert_frame_equal(table[expected.columns], expected, check_exact=True, check_names=False)
    merged = per_query.merge(long, on=["run", "query_id", "measure"], suffixes=("", "_dask"))
    assert len(merged) == len(per_query) == len(long)
    assert np.array_equal(merged["value"].to_numpy(), merged["value_dask"].to_numpy(), equal_nan=True)


def test_batches_hold_a_quarter_block_and_compressed_files_alone(tmp_path: Path) -> None:
    sizes = {"a": 10, "b": 10, "c.gz": 5, "d": 25, "e": 1, "f": 30}
    paths = []
    for name, size in sizes.items():
        (tmp_path / name).write_bytes(b"x" * size)
        paths.append(tmp_path / name)
    names = [[Path(p).name for p in batch] for batch in _batches(paths, 4 * 30)]
    assert names == [["a", "b"], ["c.gz"], ["d", "e"], ["f"]]
    assert [[Path(p).name for p in batch] for batch in _batches(paths, None)] == [[n] for n in sizes]


def test_a_duplicate_below_the_cut_is_refused_as_pool_refuses_it(hand_files: dict[str, Path],
                                                                  hand_qrels: pd.DataFrame, tmp_path: Path) -> None:
    twice = tmp_path / "D"
    twice.write_text("q1 Q0 d1 1 3.0 D\nq1 Q0 d2 2 2.0 D\nq1 Q0 d3 3 1.0 D\nq1 Q0 d1 4 0.5 D\n")
    files = [str(hand_files["A"]), str(twice)]
    with pytest.raises(ir_rarity.errors.InputError):
        Pool.from_runs(files)
    with pytest.raises(ir_rarity.errors.InputError):
        evaluate_with_dask(files, hand_qrels, ["P@1"]).table()  # cut at rank 1: the duplicate lies below it


def test_a_tag_spread_over_two_files_cut_file_by_file_keeps_its_top_k(hand_qrels: pd.DataFrame, tmp_path: Path) -> None:
    """Each file's top k of a run holds the run's top k rows of that file: the cut per file loses none of them."""
    (tmp_path / "one").write_text("q1 Q0 d1 1 1.0 X\nq1 Q0 d2 2 0.5 Y\n")
    (tmp_path / "two").write_text("q1 Q0 d3 1 2.0 X\nq1 Q0 d3 1 1.0 Y\n")
    merged = {"X": pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d3"], "score": [1.0, 2.0]}),
              "Y": pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d2", "d3"], "score": [0.5, 1.0]})}
    qrels = hand_qrels[hand_qrels["query_id"] == "q1"]
    expected = Pool.from_runs(merged).evaluate(qrels, ["P_rare@1", "P@1"]).sort_index()
    table = evaluate_with_dask([str(tmp_path / "one"), str(tmp_path / "two")], qrels, ["P_rare@1", "P@1"],
                               name_by="tag").table()
    pd.testing.assert_frame_equal(table[expected.columns], expected, check_exact=True, check_names=False)
