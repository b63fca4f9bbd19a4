"""ASL analysis (per-document table, distribution, differences, error reduction, plots) on the hand-computed
campaign of ``asl_hand``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from asl_hand import QRELS, RUN

from ir_rarity import ASL, ParameterError, Pool
from ir_rarity.analysis import (
    asl_differences,
    asl_distribution,
    difference_buckets,
    effective_fraction,
    per_document_asl,
    relative_error_reduction,
)


def test_per_document_table() -> None:
    docs = per_document_asl(RUN, QRELS).set_index(["query_id", "doc_id"])
    assert docs["asl"].to_dict() == {("q1", "d2"): 2.0, ("q1", "d1"): 3.0, ("q1", "d4"): 4.0, ("q1", "d9"): 4.0,
                                     ("q3", "d5"): 1.0, ("q4", "e1"): 2.0, ("q4", "e2"): 2.0}
    assert docs.loc[("q1", "d1"), "rank"] == 4.0 and math.isnan(docs.loc[("q1", "d9"), "rank"])
    assert list(docs["retrieved"]) == [True, True, True, False, False, True, True]
    assert per_document_asl(RUN, QRELS, unretrieved="eq3").set_index("doc_id").loc["d9", "asl"].item() == 3.0


def test_distribution_counts_not_retrieved_separately() -> None:
    table = asl_distribution(RUN, QRELS, edges=(1, 2, 3, 5))
    # retrieved: d2 2, d1 3, d4 4, e1 2, e2 2 -> [1]: 0, [2]: 3, [3-4]: 2, [>=5]: 0; not retrieved: d9, d5.
    assert table["bucket"].tolist() == ["1", "2", "3-4", ">=5", "not retrieved"]
    assert table["count"].tolist() == [0, 3, 2, 0, 2]
    pool = Pool.from_runs({"R": RUN})
    assert asl_distribution(pool, QRELS, run="R", edges=(1, 2, 3, 5)).equals(table)


def test_differences() -> None:
    better = pd.DataFrame([("q1", "d9", 9.0), ("q1", "d1", 8.0), ("q1", "x", 1.0)],
                          columns=["query_id", "doc_id", "score"])
    diff = asl_differences(better, RUN, QRELS).set_index(["query_id", "doc_id"])
    # better q1: d9 1, d1 1, then unretrieved d2, d4 at irrel 1 + 1 = 2; q4 nothing retrieved: e1, e2 = 1.
    assert diff.loc[("q1", "d9"), "difference"] == 1 - 4
    assert diff.loc[("q1", "d2"), "difference"] == 2 - 2
    assert diff.loc[("q4", "e1"), "difference"] == 1 - 2
    assert len(diff) == 7
    buckets = difference_buckets(diff)
    assert buckets.set_index("bucket")["count"].to_dict()["-1..-9"] == 5  # d9 -3, d1 -2, d4 -2, e1 -1, e2 -1
    assert buckets["count"].sum() == 7


def test_relative_error_reduction_reproduces_table_1() -> None:
    # Table 1 of the paper: P@20 documents 0.456 -> 0.594 is 25%; MAP passages 0.400 -> 0.572 is 29%.
    assert round(100 * relative_error_reduction(0.456, 0.594, True)) == 25
    assert round(100 * relative_error_reduction(0.400, 0.572, "AP")) == 29
    # ASL@g1-10 documents 14 -> 5 is 69%, passages 51 -> 6 is 90%; ASL passages 264 -> 215 is 19%.
    assert relative_error_reduction(14, 5, False) == pytest.approx(9 / 13)
    assert round(100 * relative_error_reduction(51, 6, ASL @ "g1-10")) == 90
    assert round(100 * relative_error_reduction(264, 215, "ASL")) == 19
    np.testing.assert_allclose(relative_error_reduction([0.5, 0.0], [0.75, 0.5], True), [0.5, 0.5])


def test_effective_fraction_appendix_example() -> None:
    # Appendix A.1: SL = [1, 1, 1, 2, 4, 5, 10, 10000, 10000]; mean of P in SL space = 9 / 4.0502 = 2.222.
    # Prefix means 1, 1, 1, 1.25, 1.8, 2.333, ... : 2.333 (k = 6) is closest.
    assert effective_fraction([1, 1, 1, 2, 4, 5, 10, 10000, 10000]) == pytest.approx(6 / 9)
    assert effective_fraction([3, 3, 3]) == pytest.approx(1 / 3)
    with pytest.raises(ParameterError):
        effective_fraction([1, 0])


def test_plots_write_png(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    from ir_rarity.analysis.plots import plot_asl_differences, plot_asl_distribution

    a = plot_asl_distribution(asl_distribution(RUN, QRELS), tmp_path / "dist.png")
    b = plot_asl_differences(asl_differences(RUN, RUN.assign(score=-RUN["score"]), QRELS), tmp_path / "diff.png")
    assert a.axes[0].get_xlabel() == "per-document ASL" and b.axes[0].patches  # the figures, returned
    for path in (tmp_path / "dist.png", tmp_path / "diff.png"):
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plot_asl_distribution(asl_distribution(RUN, QRELS)) is not None  # no path: nothing written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["diff.png", "dist.png"]
