"""Kappa against scikit-learn, alpha against an independent pairwise implementation and Krippendorff's own example,
confusions against pandas, the rarity buckets, the fill rule and the lenient judge's rule."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from ir_rarity.analysis.judges import cohen_kappa, confusion, fill, krippendorff_alpha, lenient_judge
from ir_rarity.analysis.judges.labels import align_judges, rarity_buckets
from ir_rarity.errors import InputError, ParameterError

NAN = math.nan
# Krippendorff, "Computing Krippendorff's alpha-reliability" (2011), the example with missing values: 4 observers,
# 12 units; he reports alpha = 0.743 (nominal), 0.815 (ordinal) and 0.849 (interval).
KRIPPENDORFF_2011 = np.array([
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]).T


def alpha_by_pairs(values: np.ndarray, level: str) -> float:
    """Krippendorff's alpha written from its definition: every ordered pair of values within a unit, one by one.

    Observed disagreement D_o = sum_u 1/(m_u - 1) sum_{i != j} delta(v_ui, v_uj) / n; expected disagreement
    D_e = sum over ordered pairs of pairable values from anywhere, c != k, of delta(c, k) / (n (n - 1)); alpha =
    1 - D_o / D_e. The ordinal delta sums the frequencies of the ranks between c and k, each end counting half.
    """
    units = [[v for v in row if not math.isnan(v)] for row in values]
    units = [u for u in units if len(u) >= 2]
    pooled = [v for u in units for v in u]
    n = len(pooled)
    freq = {c: pooled.count(c) for c in sorted(set(pooled))}
    ordered = sorted(freq)

    def delta(c: float, k: float) -> float:
        if level == "nominal":
            return 0.0 if c == k else 1.0
        if level == "interval":
            return (c - k) ** 2
        lo, hi = sorted((ordered.index(c), ordered.index(k)))
        between = sum(freq[ordered[g]] for g in range(lo, hi + 1))
        return (between - (freq[c] + freq[k]) / 2) ** 2

    observed = sum(delta(u[i], u[j]) / (len(u) - 1)
                   for u in units for i, j in itertools.permutations(range(len(u)), 2)) / n
    expected = sum(delta(pooled[i], pooled[j]) for i, j in itertools.permutations(range(n), 2)) / (n * (n - 1))
    return 1.0 - observed / expected


@pytest.mark.parametrize(("level", "published"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_alpha_on_krippendorffs_example(level: str, published: float) -> None:
    value = krippendorff_alpha(KRIPPENDORFF_2011, level)  # type: ignore[arg-type]
    assert round(value, 3) == published
    assert value == pytest.approx(alpha_by_pairs(KRIPPENDORFF_2011, level), abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_equals_the_pairwise_definition(seed: int, level: str) -> None:
    rng = np.random.default_rng(seed)
    n_units, n_judges = int(rng.integers(5, 25)), int(rng.integers(2, 5))
    values = rng.integers(0, 4, size=(n_units, n_judges)).astype(float)
    values[rng.random(values.shape) < 0.3] = NAN
    assert krippendorff_alpha(values, level) == pytest.approx(  # type: ignore[arg-type]
        alpha_by_pairs(values, level), abs=1e-12)


def test_alpha_undefined_and_perfect() -> None:
    assert math.isnan(krippendorff_alpha(np.array([[1.0, 1.0], [1.0, 1.0]]), "nominal"))  # one value: no D_e
    assert math.isnan(krippendorff_alpha(np.array([[1.0, NAN], [NAN, 2.0]]), "nominal"))  # nothing pairable
    assert krippendorff_alpha(np.array([[0.0, 0.0], [2.0, 2.0], [1.0, 1.0]]), "interval") == 1.0
    with pytest.raises(ParameterError, match="level"):
        krippendorff_alpha(np.zeros((2, 2)), "ratio")  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_equals_scikit_learn(seed: int, weights: str | None) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 200))
    a = rng.integers(0, 4, n)
    b = np.where(rng.random(n) < 0.6, a, rng.integers(0, 3, n))  # label 3 may be missing from b
    assert cohen_kappa(a, b, weights) == pytest.approx(  # type: ignore[arg-type]
        cohen_kappa_score(a, b, weights=weights), abs=1e-12)


def test_kappa_hand_case_and_undefined() -> None:
    # 2x2: 20 yes-yes, 5 yes-no, 10 no-yes, 15 no-no (Wikipedia's worked example): p_o = 0.7, p_e = 0.5, kappa 0.4
    a = np.array([1] * 25 + [0] * 25)
    b = np.array([1] * 20 + [0] * 5 + [1] * 10 + [0] * 15)
    assert cohen_kappa(a, b) == pytest.approx(0.4, abs=1e-12)
    assert math.isnan(cohen_kappa(np.array([1, 1]), np.array([1, 1])))
    assert math.isnan(cohen_kappa(np.array([], dtype=int), np.array([], dtype=int)))
    with pytest.raises(ParameterError, match="weights"):
        cohen_kappa(a, b, "cubic")  # type: ignore[arg-type]


def test_confusion_equals_crosstab() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 3, 60), rng.integers(0, 3, 60)
    expected = pd.crosstab(a, b).to_numpy()
    assert np.array_equal(confusion(a, b).to_numpy(), expected)
    assert confusion(np.array([0]), np.array([0]), labels=[0, 1, 2]).to_numpy().sum() == 1


def test_rarity_buckets() -> None:
    index, names = rarity_buckets(np.array([0, 1, 2, 5, 6, 71, 72, 143]), 143)
    assert names == ["0", "1", "2-5", "6-71", "72-143"]
    assert index.tolist() == [0, 1, 2, 2, 3, 3, 4, 4]
    index, names = rarity_buckets(np.array([0, 1, 4, 5, 6, 8]), 8)  # 6-S/2 is empty; earlier buckets keep S_d
    assert names == ["0", "1", "2-5", "6-8"]
    assert index.tolist() == [0, 1, 2, 2, 3, 3]
    assert rarity_buckets(np.array([1]), 1)[1] == ["0", "1"]


def test_align_judges_and_refusals() -> None:
    a = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["x", "y", "x"], "relevance": [1, 0, 2]})
    b = pd.DataFrame({"query_id": ["2", "1"], "doc_id": ["x", "z"], "relevance": [1, 0]})
    units = align_judges([a, b], ["a", "b"])
    assert units.keys.to_numpy().tolist() == [["1", "x"], ["1", "y"], ["1", "z"], ["2", "x"]]
    assert np.array_equal(units.labels, np.array([[1, NAN], [0, NAN], [NAN, 0], [2, 1]]), equal_nan=True)
    with pytest.raises(InputError, match="twice"):
        align_judges([pd.concat([a, a]), b], ["a", "b"])
    with pytest.raises(ParameterError, match="differ"):
        align_judges([a, b], ["a", "a"])


def test_fill_takes_the_second_judge_only_in_holes() -> None:
    base = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [0, 2]})
    filler = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["b", "c", "a"], "relevance": [0, 1, 1]})
    combined = fill(base, filler)
    assert combined.to_numpy().tolist() == [["1", "a", 0], ["1", "b", 2], ["1", "c", 1], ["2", "a", 1]]


def _qrels_and_counts() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(5)
    qrels = pd.DataFrame({"query_id": np.repeat(["1", "2"], 200), "doc_id": [f"d{i:03d}" for i in range(400)],
                          "relevance": rng.integers(0, 3, 400)})
    counts = pd.DataFrame({"query_id": qrels["query_id"], "doc_id": qrels["doc_id"],
                           "S_d": np.tile([0, 10], 200)})  # half the documents no system retrieved, half all 10
    return qrels, counts


def test_lenient_judge_rule() -> None:
    qrels, counts = _qrels_and_counts()
    same = lenient_judge(qrels, counts, 10, up=0.0, rare_up=0.0, down=0.0)
    assert same["relevance"].tolist() == qrels["relevance"].tolist()  # qrels already sorted
    everyone_up = lenient_judge(qrels, counts, 10, up=1.0, rare_up=0.0, down=0.0)
    assert (everyone_up["relevance"] == np.minimum(qrels["relevance"] + 1, 2)).all()
    rare_only = lenient_judge(qrels, counts, 10, up=0.0, rare_up=1.0, down=0.0, seed=7)
    rare = counts["S_d"].to_numpy() == 0
    assert (rare_only["relevance"].to_numpy()[rare] == np.minimum(qrels["relevance"].to_numpy()[rare] + 1, 2)).all()
    assert (rare_only["relevance"].to_numpy()[~rare] == qrels["relevance"].to_numpy()[~rare]).all()
    moved = lenient_judge(qrels, counts, 10, seed=3)["relevance"].to_numpy() - qrels["relevance"].to_numpy()
    assert set(np.unique(moved)) <= {-1, 0, 1} and moved.any()


def test_lenient_judge_is_deterministic_and_ignores_row_order() -> None:
    qrels, counts = _qrels_and_counts()
    first = lenient_judge(qrels, counts, 10, seed=11)
    again = lenient_judge(qrels.sample(frac=1.0, random_state=1), counts, 10, seed=11)
    assert first.equals(again)
    assert not first.equals(lenient_judge(qrels, counts, 10, seed=12))
    with pytest.raises(ParameterError, match="at most 1"):
        lenient_judge(qrels, counts, 10, up=0.5, rare_up=0.5, down=0.5)
