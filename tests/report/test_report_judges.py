"""The report's judges section: absent unless asked, and when given other judges' qrels it holds compare_judges'
figures (the same numbers as the Python call) and names every judge."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest

import ir_rarity
from ir_rarity import covid_round1
from ir_rarity.analysis.judges import compare_judges, lenient_judge

FAST = {"resamples": 100, "composition_resamples": 0, "trials": 10, "pooling": False, "progress": False}


@pytest.mark.slow
def test_report_with_a_second_judge(tmp_path: Path) -> None:
    pytest.importorskip("plotly", reason="the report's charts need plotly")
    pool = ir_rarity.Pool.from_runs(covid_round1.runs, split_by_tag=True)
    second = lenient_judge(ir_rarity.read_trec_qrels(covid_round1.qrels), pool.counts(), pool.num_systems, seed=1)
    path = tmp_path / "lenient.qrels"
    second.assign(iteration="0")[["query_id", "iteration", "doc_id", "relevance"]].to_csv(
        path, sep=" ", header=False, index=False)
    measures = ["P@10", "P_rare(alpha=0.5)@10"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir_rarity.RarityWarning)
        built = ir_rarity.report(covid_round1.runs, covid_round1.qrels, measures, split_by_tag=True, judges=[path],
                                 **FAST)
        plain = ir_rarity.report(covid_round1.runs, covid_round1.qrels, measures, split_by_tag=True, **FAST)
    result = built.data.judges
    assert result is not None and result.judges == ["qrels", "lenient.qrels"]
    expected = compare_judges([covid_round1.qrels, path], covid_round1.runs, measures, split_by_tag=True,
                              names=["qrels", "lenient.qrels"], resamples=100)
    pd.testing.assert_frame_equal(result.agreement, expected.agreement)
    pd.testing.assert_frame_equal(result.rankings, expected.rankings)
    assert 'id="judges"' in built.html and "lenient.qrels" in built.html and "72-143" in built.html
    assert plain.data.judges is None and "ir-rarity report --judges" in plain.html


def test_cli_report_takes_judges() -> None:
    from ir_rarity.cli import build_parser

    args = build_parser().parse_args(["report", "q", "r", "--out", "o.html", "--judges", "b.qrels", "c.qrels"])
    assert args.judges == ["b.qrels", "c.qrels"]
