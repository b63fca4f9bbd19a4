"""The judged-rows pool (:mod:`ir_rarity.pool.judged`): S_d of judged pairs exact at any depth, from few rows.

Its counts are checked against S_d counted by brute force from the files (a plain reader, each ranking sorted as
trec_eval sorts it, a count of the runs holding the pair within the depth), and its evaluation against the
in-memory campaign of whole runs.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import covid_round1
from ir_rarity.errors import ParameterError
from ir_rarity.measures.parse import parse_measure
from ir_rarity.pool.build.retention import Retention
from ir_rarity.pool.judged import judged_pool, judged_reach, judged_retention, pool_for_rows
from ir_rarity.pool.pool import Pool
from ir_rarity.pool.stream import stream_campaign
from tests.run_files import write_campaign


def brute_counts(files: list[Path], depth: int | None) -> pd.Series:
    """S_d by brute force: every file read with pandas, each ranking in trec_eval order, runs counted per pair."""
    counts: dict[tuple[str, str], int] = {}
    for path in files:
        run = pd.read_csv(path, sep=r"\s+", header=None, names=["q", "x", "d", "r", "s", "t"], dtype=str,
                          quoting=csv.QUOTE_NONE)
        for q, ranking in run.groupby("q"):
            order = sorted(zip(ranking["s"].astype(np.float32), ranking["d"], strict=True), reverse=True)
            for rank, (_, doc) in enumerate(order):  # score descending, ties by docno descending
                if depth is None or rank < depth:
                    counts[(str(q), doc)] = counts.get((str(q), doc), 0) + 1
    return pd.Series(counts, dtype=np.int64)


def judged_pairs(qrels: Path) -> set[tuple[str, str]]:
    frame = pd.read_csv(qrels, sep=r"\s+", header=None, names=["q", "i", "d", "l"], dtype=str,
                        quoting=csv.QUOTE_NONE)
    return set(zip(frame["q"], frame["d"], strict=True))


@pytest.mark.parametrize(("judged_depth", "depth"), [(math.inf, 1), (math.inf, 3), (math.inf, 10), (math.inf, 25),
                                                    (math.inf, None), (12, 12), (12, 5)])
def test_counts_of_judged_pairs_are_the_brute_force_counts(tmp_path: Path, judged_depth: float,
                                                           depth: int | None) -> None:
    """Every judged pair's S_d, at any depth within the judged depth, is the count of runs holding it in the files."""
    files, qrels = write_campaign(tmp_path / "c")
    pool = judged_pool(files, qrels, judged_depth=judged_depth)
    table = pool.counts(depth)
    got = pd.Series(table["S_d"].to_numpy(), index=pd.MultiIndex.from_frame(table[["query_id", "doc_id"]]))
    expected = brute_counts(files, depth)
    judged = judged_pairs(qrels)
    for pair in judged:
        assert got.get(pair, 0) == expected.get(pair, 0), pair
    assert any(expected.get(pair, 0) > (0 if depth == 1 else 1) for pair in judged)  # the check counts something


def test_it_holds_the_judged_rows_and_each_rankings_first(tmp_path: Path) -> None:
    """Its rows are the runs' judged rows plus each ranking's first row: far fewer than all, counted by hand."""
    files, qrels = write_campaign(tmp_path / "c")
    pool = judged_pool(files, qrels)
    judged = judged_pairs(qrels)
    expected, total = 0, 0
    for path in files:
        run = pd.read_csv(path, sep=r"\s+", header=None, names=["q", "x", "d", "r", "s", "t"], dtype=str,
                          quoting=csv.QUOTE_NONE)
        for q, ranking in run.groupby("q"):
            order = sorted(zip(ranking["s"].astype(np.float32), ranking["d"], strict=True), reverse=True)
            expected += sum(1 for rank, (_, d) in enumerate(order) if rank == 0 or (str(q), d) in judged)
            total += len(order)
    assert pool.encoded.n_rows == expected < total
    assert pool.judged_depth == math.inf and pool.num_systems == len(files)


def test_evaluation_equals_whole_runs(tmp_path: Path) -> None:
    """The rarity and standard measures score on it what they score on whole runs, to the last bit."""
    files, qrels = write_campaign(tmp_path / "c")
    measures = ["P_rare@10", "AP_rare", "AP_rare(alpha=0.5)@15", "nDCG_rare@10", "R_rare(alpha=0.5)@20",
                "P_rare(alpha=2,depth=25)@5", "ASL(length=40)", "AP", "P@5", "NumRet"]
    whole = ir_rarity.evaluate(Pool.from_runs(files), qrels, measures)
    judged = ir_rarity.evaluate(judged_pool(files, qrels), qrels, measures)
    assert whole.names == judged.names
    for m in measures:
        pd.testing.assert_frame_equal(whole.matrix(m), judged.matrix(m), check_exact=True)


def test_judged_counts_needs_every_judged_row(tmp_path: Path) -> None:
    """judged_counts without a retention keeping judged rows at any rank is refused; other pools stay refused."""
    files, qrels = write_campaign(tmp_path / "c", n_runs=2)
    with pytest.raises(ParameterError, match="judged_counts needs a retention"):
        Pool.from_runs(files, judged_counts=True)
    with pytest.raises(ParameterError, match=r"deeper than its depth \(with its qrels\), got 3"):
        Pool.from_runs(files, judged_counts=True, retention=Retention(depth=5, judged_depth=3,
                                                                      qrels=judged_retention(qrels).qrels))
    partial = Pool.from_runs(files, retention=Retention(depth=3, judged_depth=math.inf, returned=True,
                                                        qrels=judged_retention(qrels).qrels))
    with pytest.raises(ParameterError, match="keeps every row only to depth 3"):
        partial.counts(10)
    cut = judged_pool(files, qrels, judged_depth=12)
    for depth in (13, None):
        with pytest.raises(ParameterError, match="keeps every row only to depth 1 and the judged rows to depth 12"):
            cut.counts(depth)
    pool = judged_pool(files, qrels)
    with pytest.raises(ParameterError, match="judging pool"):
        pool.judged_keys(10)  # the judging pool reads every pair within the depth, not the judged ones
    assert pool.subset(pool.names[:1]).judged_depth == math.inf  # a sample of it counts as it does


def test_the_judged_rows_measures_read() -> None:
    """How deep measures read judged rows: the deepest cutoff or S_d depth; whole runs for any other measure."""
    def reach(*measures: str) -> float:
        return judged_reach([parse_measure(m) for m in measures])

    assert reach("P_rare@10", "AP_rare(alpha=0.5)@15") == 15
    assert reach("P_rare(depth=40)@5", "R_rare@20") == 40
    assert reach("P_rare@10", "AP_rare") == math.inf  # S_d over whole runs
    assert reach("P_rare@10", "ASL") == math.inf  # judged rows at any rank
    assert reach("P_rare(judged_only=True)@10") == math.inf
    assert reach() == math.inf


def test_a_streamed_campaign_gives_it(tmp_path: Path) -> None:
    """StreamedCampaign.judged_pool reads the campaign's files: the same runs, in the same order, and S."""
    streamed = stream_campaign(covid_round1.runs, [parse_measure("P_rare@10")], None, split_by_tag=True)
    pool = streamed.judged_pool(covid_round1.qrels)
    assert pool.names == streamed.names and pool.num_systems == streamed.num_systems == 143
    assert pool_for_rows(streamed, covid_round1.qrels).names == pool.names
    whole = Pool.from_runs(covid_round1.runs, split_by_tag=True)
    assert pool_for_rows(whole, covid_round1.qrels) is whole
    files, qrels = write_campaign(tmp_path / "c", n_runs=3)
    with pytest.raises(ParameterError, match="part of a campaign"):
        stream_campaign(files, [parse_measure("P_rare@10")], None).part(0, 1).judged_pool(qrels)


def test_teams_count_alike(tmp_path: Path) -> None:
    """With teams, S_d counts the teams holding a judged pair: composition over teams as on whole runs."""
    from ir_rarity.compare.uncertainty import composition

    files, qrels = write_campaign(tmp_path / "c", n_runs=6)
    teams = {f"run{r}": f"team{r // 2}" for r in range(6)}
    whole, judged = Pool.from_runs(files, teams=teams), judged_pool(files, qrels, teams=teams, judged_depth=20)
    assert judged.num_systems == whole.num_systems == 3
    measures = ["P_rare@10", "AP_rare(alpha=0.5)@20", "R_rare@15"]
    pd.testing.assert_frame_equal(composition(whole, qrels, measures, resamples=20, seed=2),
                                  composition(judged, qrels, measures, resamples=20, seed=2), check_exact=True)
