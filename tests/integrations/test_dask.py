"""The Dask path (queries partitioned over workers, S_d counted within each) equals Pool.evaluate on round 1."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import Pool
from ir_rarity.pool.build.sources import iter_named_runs

distributed = pytest.importorskip("distributed")
from ir_rarity.integrations.dask import evaluate_with_dask  # noqa: E402

MEASURES = ["P_rare(alpha=0.5)@100", "AP_rare@100", "nDCG_rare@10", "R_rare@50", "ASL@g1-10", "P@10", "AP",
            "nDCG@10", "Bpref", "SetP"]


pytestmark = pytest.mark.slow  # a Dask local cluster


@pytest.fixture(scope="module")
def round1_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded round 1 (143 runs cut at depth 100) written as four gzipped files of several runs each."""
    folder = tmp_path_factory.mktemp("round1")
    runs = list(iter_named_runs(ir_rarity.covid_round1.runs, split_by_tag=True))
    for k in range(4):
        with gzip.open(folder / f"part{k}.gz", "wt") as f:
            for name, frame in runs[k::4]:
                frame.assign(q0="Q0", rank=np.arange(1, len(frame) + 1), tag=name)[
                    ["query_id", "q0", "doc_id", "rank", "score", "tag"]].to_csv(f, sep=" ", header=False,
                                                                                  index=False)
    return folder


def test_local_cluster_equals_pool_evaluate(round1_files: Path) -> None:
    qrels = ir_rarity.read_trec_qrels(ir_rarity.covid_round1.qrels)
    expected = Pool.from_runs(round1_files, split_by_tag=True).evaluate(qrels, MEASURES).sort_index()
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    with cluster, distributed.Client(cluster):
        table = evaluate_with_dask(round1_files, qrels, MEASURES, name_by="tag", npartitions=4).table()
        long = evaluate_with_dask(round1_files, qrels, MEASURES[:2], name_by="tag", npartitions=3).long()
    assert len(table) == 143
    pd.testing.assert_frame_equal(table[expected.columns], expected, check_exact=True, check_names=False)
    per_query = Pool.from_runs(round1_files, split_by_tag=True).evaluate(qrels, MEASURES[:2], by_query=True)
    merged = per_query.merge(long, on=["run", "query_id", "measure"], suffixes=("", "_dask"))
    assert len(merged) == len(per_query) == 2 * 143 * 30
    assert (merged["value"] == merged["value_dask"]).all()


def test_files_named_by_file_without_a_cluster(hand_files: dict[str, Path], hand_qrels: pd.DataFrame) -> None:
    files = [str(hand_files[n]) for n in "ABC"]
    measures = ["P_rare@2", "AP_rare", "P@2", "NumRet"]
    expected = Pool.from_runs(files).evaluate(hand_qrels, measures).sort_index()
    table = evaluate_with_dask(files, hand_qrels, measures, npartitions=2).table()  # Dask's default scheduler
    pd.testing.assert_frame_equal(table[expected.columns], expected, check_exact=True, check_names=False)


def test_unjudged_and_unretrieved_queries_split_files_and_more_partitions_than_queries(
        hand_files: dict[str, Path], hand_qrels: pd.DataFrame, tmp_path: Path) -> None:
    """Rows of a query the qrels do not judge are dropped before the shuffle; a judged query no run retrieved
    gets each measure's value for an empty ranking; files split into blocks and more partitions than judged
    queries (clamped) change nothing."""
    extra = tmp_path / "D"
    extra.write_text("q9 Q0 d1 1 2.0 D\nq9 Q0 d2 2 1.0 D\nq1 Q0 d5 1 1.0 D\nq1 Q0 d1 2 0.5 D\n")
    files = [str(hand_files[n]) for n in "ABC"] + [str(extra)]
    qrels = pd.concat([hand_qrels, pd.DataFrame({"query_id": ["q3"], "doc_id": ["d1"], "relevance": [1]})],
                      ignore_index=True)
    measures = ["P_rare@2", "AP_rare", "nDCG_rare@3", "P@2", "AP", "NumRet"]
    expected = Pool.from_runs(files).evaluate(qrels, measures).sort_index()
    per_query = Pool.from_runs(files).evaluate(qrels, measures, by_query=True)
    for parts, blocksize in ((1, None), (2, 40), (5, 40)):
        table = evaluate_with_dask(files, qrels, measures, npartitions=parts, blocksize=blocksize).table()
        pd.testing.assert_frame_equal(table[expected.columns], expected, check_exact=True, check_names=False)
        long = evaluate_with_dask(files, qrels, measures, npartitions=parts, blocksize=blocksize).long()
        merged = per_query.merge(long, on=["run", "query_id", "measure"], suffixes=("", "_dask"))
        assert len(merged) == len(per_query) == len(long) == 4 * 3 * len(measures)
        assert np.array_equal(merged["value"].to_numpy(), merged["value_dask"].to_numpy(), equal_nan=True)


def test_two_files_of_one_run_name_are_refused(hand_files: dict[str, Path], hand_qrels: pd.DataFrame,
                                                tmp_path: Path) -> None:
    (tmp_path / "again").mkdir()
    twin = tmp_path / "again" / "A.gz"
    with gzip.open(twin, "wt") as f:
        f.write(hand_files["A"].read_text())
    with pytest.raises(ir_rarity.errors.InputError, match="two runs are named 'A'"):
        evaluate_with_dask([str(hand_files["A"]), str(twin)], hand_qrels, ["P@1"]).table()
