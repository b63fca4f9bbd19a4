"""Samples of the runs (Algorithm 1) and the synthetic systems on a campaign read in two passes: every bit equal.

A streamed campaign is scored on its judged rows (:mod:`ir_rarity.pool.judged`); the reference is the same analysis
on the whole runs held in memory, whose values the robustness tests check against scoring every sample's rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import ir_rarity
from ir_rarity import covid_round1
from ir_rarity.errors import ParameterError
from ir_rarity.io.frames import as_qrels_frame
from ir_rarity.measures.parse import parse_measure
from ir_rarity.meta.robustness import robustness_tables, synthetic_rank_curve, system_count_robustness
from ir_rarity.meta.summary import compute_report
from ir_rarity.pool.pool import Pool
from ir_rarity.pool.stream import StreamedCampaign, stream_campaign
from tests.run_files import write_campaign


def _streamed(runs: Any, split_by_tag: bool | None = None) -> StreamedCampaign:
    return stream_campaign(runs, [parse_measure("P_rare@100")], None, split_by_tag=split_by_tag)


def test_round1_tables_equal_in_memory() -> None:
    """Round 1: batched (miss tables, stacked trials) and trial-by-trial (R_rare) measures, every column."""
    measures = ["P_rare(alpha=1)@100", "AP_rare(alpha=1)@100", "nDCG_rare@20", "R_rare(alpha=0.5)@30"]
    qrels = as_qrels_frame(covid_round1.qrels)
    whole = Pool.from_runs(covid_round1.runs, split_by_tag=True)
    streamed = _streamed(covid_round1.runs, split_by_tag=True)
    a = robustness_tables(whole, qrels, measures, sizes=(2, 8, 64), trials=12, seed=3, progress=False)
    b = robustness_tables(streamed, qrels, measures, sizes=(2, 8, 64), trials=12, seed=3, progress=False)
    for x, y in zip(a, b, strict=True):
        pd.testing.assert_frame_equal(x, y, check_exact=True)
    assert a[0]["mean_tau"].notna().all()
    evaluated = ir_rarity.evaluate(covid_round1.runs, qrels, measures[:1], split_by_tag=True, stream=True)
    pd.testing.assert_frame_equal(
        system_count_robustness(evaluated.campaign, qrels, measures[0], sizes=(4,), trials=5, seed=1),
        system_count_robustness(whole, qrels, measures[0], sizes=(4,), trials=5, seed=1), check_exact=True)


def test_synthetic_systems_equal_in_memory() -> None:
    """The rare and common hypothetical systems rank as they do among the runs held in memory."""
    whole = Pool.from_runs(covid_round1.runs, split_by_tag=True)
    streamed = _streamed(covid_round1.runs, split_by_tag=True)
    a = synthetic_rank_curve(whole, covid_round1.qrels, "1", measure_cutoff=20, max_relevant=12)
    b = synthetic_rank_curve(streamed, covid_round1.qrels, "1", measure_cutoff=20, max_relevant=12)
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_synthetic_docnos_a_run_retrieved_are_seen(tmp_path: Path) -> None:
    """A run that retrieved a simulated docno (unjudged, within the cutoff) stops the experiment, as in memory."""
    files, qrels = write_campaign(tmp_path / "c", n_runs=3)
    with open(files[0], "a", encoding="utf-8") as f:
        f.write("q0 Q0 ir_rarity-synthetic-0002 99 -5.0 run0\n")
    with pytest.raises(ir_rarity.errors.InputError, match="already occur"):
        synthetic_rank_curve(Pool.from_runs(files), qrels, "q0", measure_cutoff=50)
    with pytest.raises(ir_rarity.errors.InputError, match="already occur"):
        synthetic_rank_curve(_streamed(files), qrels, "q0", measure_cutoff=50)


def test_report_of_several_files_equals_in_memory(tmp_path: Path) -> None:
    """Every table of the meta-evaluation report, several run files read in two passes."""
    files, qrels = write_campaign(tmp_path / "c", n_runs=9)
    a, b = (compute_report(campaign, qrels, alphas=(0.0, 0.5, 1.0), trials=10, cutoff=10, sizes=(2, 4, 8),
                           seed=2, progress=False) for campaign in (Pool.from_runs(files), _streamed(files)))
    for name, table in a.tables().items():
        pd.testing.assert_frame_equal(table, b.tables()[name], check_exact=True)
    assert (a.n_runs, a.num_systems, a.n_queries) == (b.n_runs, b.num_systems, b.n_queries) == (9, 9, 7)


def test_a_scorer_of_another_pool_is_refused(tmp_path: Path) -> None:
    """A scorer goes with the pool it was made of: a streamed campaign gives its judged pool to make one."""
    from ir_rarity.engine import SubsetScorer

    files, qrels = write_campaign(tmp_path / "c", n_runs=4)
    streamed = _streamed(files)
    judged = streamed.judged_pool(qrels)
    scorer = SubsetScorer(judged, qrels)
    with pytest.raises(ParameterError, match="scorer scores another pool"):
        robustness_tables(streamed, qrels, ["P_rare@10"], sizes=(2,), trials=2, scorer=scorer)
    expected = robustness_tables(Pool.from_runs(files), qrels, ["P_rare@10"], sizes=(2, 3), trials=6, seed=0)
    got = robustness_tables(judged, qrels, ["P_rare@10"], sizes=(2, 3), trials=6, seed=0, scorer=scorer)
    pd.testing.assert_frame_equal(expected[0], got[0], check_exact=True)
