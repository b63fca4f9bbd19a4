"""Order-free resampling: queries (and teams) in natural order of their ids before any seeded draw."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ir_rarity import Pool
from ir_rarity.compare import composition
from ir_rarity.compare.intervals import add_intervals
from ir_rarity.compare.significance import compare_values
from ir_rarity.meta import discriminative_power, stability
from ir_rarity.stats import bootstrap_interval, in_natural_order, natural_order

QIDS = [str(q) for q in range(1, 31)]  # "1", "2", ..., "30": lexicographic and natural order differ


def _ordered(ids: list[str]) -> list[str]:
    return [ids[i] for i in natural_order(ids)]


@pytest.mark.parametrize(("ids", "expected"), [
    (["q10", "q2", "q1"], ["q1", "q2", "q10"]),
    (["10", "2", "1"], ["1", "2", "10"]),
    (["b", "10", "a2", "2", "a10", "a"], ["2", "10", "a", "a2", "a10", "b"]),
    (["1a", "1", "01", "2"], ["01", "1", "1a", "2"]),
    (["topic-7.10", "topic-7.9", "topic-10.1"], ["topic-7.9", "topic-7.10", "topic-10.1"]),
])
def test_natural_order_examples(ids, expected):
    assert _ordered(ids) == expected


def test_natural_order_of_non_strings_and_empty():
    assert natural_order([]).tolist() == []
    assert natural_order([10, 2, 1]).tolist() == [2, 1, 0]
    assert natural_order(pd.Index(["q2", "q10"])).dtype == np.int64


def test_natural_order_is_total_whatever_the_input_order():
    rng = np.random.default_rng(5)
    ids = ["1", "01", "001", "q1", "q01", "Q1", "a", "", "10", "9", "x9y", "x10y", "x9z"]
    first = _ordered(ids)
    for _ in range(20):
        assert _ordered(list(rng.permutation(ids))) == first


@pytest.fixture
def matrix() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    values = rng.random((4, len(QIDS))) + np.array([[0.0], [0.05], [0.1], [0.3]])
    values[1, 3] = np.nan
    return pd.DataFrame(values, index=["r1", "r2", "r3", "r4"], columns=QIDS)


@pytest.fixture
def shuffled(matrix) -> pd.DataFrame:
    return matrix[list(np.random.default_rng(3).permutation(matrix.columns))]


def test_raw_arrays_keep_their_order(matrix, shuffled):
    """The ndarray functions resample positions: the tests below would catch a caller that forgot the order."""
    a = bootstrap_interval(matrix.to_numpy(), resamples=200, seed=1)
    b = bootstrap_interval(shuffled.to_numpy(), resamples=200, seed=1)
    assert not np.array_equal(a[0], b[0])
    c = bootstrap_interval(in_natural_order(shuffled).to_numpy(), resamples=200, seed=1)
    np.testing.assert_array_equal(a[0], c[0])


def test_intervals_do_not_depend_on_the_column_order(matrix, shuffled):
    table = pd.DataFrame({"m": matrix.mean(axis=1).to_numpy()}, index=matrix.index)
    got = [add_intervals(table, {"m": frame.to_numpy()}, ["m"], 0.9, resamples=500, seed=7,
                         query_ids=list(frame.columns)) for frame in (matrix, shuffled)]
    pd.testing.assert_frame_equal(got[0], got[1])


def test_randomization_pvalues_do_not_depend_on_the_column_order(matrix, shuffled):
    names = list(matrix.index)
    got = [compare_values({"P@5": frame.to_numpy()}, names, all_pairs=True, test="randomization", trials=500,
                          seed=4, query_ids=frame.columns) for frame in (matrix, shuffled)]
    pd.testing.assert_frame_equal(got[0], got[1])


def test_stability_does_not_depend_on_the_column_order(matrix, shuffled):
    close = matrix.sub(matrix.mean(axis=1), axis=0)  # runs of equal mean: the subsets decide every comparison
    got = [stability(frame, trials=300, fuzziness=0.0, seed=2, return_details=True)
           for frame in (close, close[list(shuffled.columns)])]
    assert got[0].score == got[1].score
    pd.testing.assert_frame_equal(got[0].pairs, got[1].pairs)


def test_discriminative_power_does_not_depend_on_the_column_order(matrix, shuffled):
    got = [discriminative_power(frame, method="randomization", trials=400, seed=6) for frame in (matrix, shuffled)]
    assert got[0].significant_pairs == got[1].significant_pairs
    pd.testing.assert_frame_equal(got[0].pvalues, got[1].pvalues)


def _runs_and_qrels() -> tuple[dict[str, pd.DataFrame], pd.DataFrame, dict[str, str]]:
    rng = np.random.default_rng(8)
    docs = [f"d{i}" for i in range(30)]
    queries = ["1", "2", "10"]
    runs = {}
    for r in range(7):
        rows = [(q, d, float(20 - k)) for q in queries for k, d in enumerate(rng.choice(docs, 12, replace=False))]
        runs[f"run{r}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame([(q, d, int(rng.integers(0, 3))) for q in queries for d in docs[:18]],
                         columns=["query_id", "doc_id", "relevance"])
    teams = {"run0": "t1", "run1": "t1", "run2": "t2", "run3": "t10", "run4": "t10", "run5": "t3", "run6": "t20"}
    return runs, qrels, teams


def test_composition_does_not_depend_on_the_run_order():
    runs, qrels, teams = _runs_and_qrels()
    order = list(np.random.default_rng(1).permutation(list(runs)))
    pools = [Pool.from_runs(runs, teams=teams), Pool.from_runs({n: runs[n] for n in order}, teams=teams)]
    assert pools[0].names != pools[1].names
    got = [composition(pool, qrels, ["P_rare(alpha=0.5)@10"], resamples=40, seed=9) for pool in pools]
    pd.testing.assert_frame_equal(got[0], got[1].loc[got[0].index], check_exact=False, rtol=1e-12, atol=0)
