"""Jaccard, RBO_ext and the overlaps behind them against hand-worked values and plain set arithmetic."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from ir_rarity import Pool
from ir_rarity.complementarity import (
    cluster_runs,
    overlaps,
    plot_dendrogram,
    ranked_campaign,
    rbo_ext,
    run_similarity,
    team_similarity,
)
from ir_rarity.errors import ParameterError


def plain_rbo_ext(s: list[str], t: list[str], p: float) -> float:
    """Webber, Moffat & Zobel (TOIS 2010), eq. 32, from the definition: overlaps counted with Python sets."""
    short, long = (s, t) if len(s) <= len(t) else (t, s)
    sl, ll = len(short), len(long)
    x = {d: len(set(short[:d]) & set(long[:d])) for d in range(1, ll + 1)}
    total = sum(x[d] / d * p ** d for d in range(1, ll + 1))
    total += sum(x[sl] * (d - sl) / (sl * d) * p ** d for d in range(sl + 1, ll + 1))
    return (1 - p) / p * total + ((x[ll] - x[sl]) / ll + x[sl] / sl) * p ** ll


def test_rbo_hand_worked() -> None:
    """S = a b c d, T = b a c e, p = 0.5: X = 0, 2, 3, 3.

    RBO_ext = (1 - p)/p * (0/1 p + 2/2 p^2 + 3/3 p^3 + 3/4 p^4) + 3/4 p^4
            = 1 * (0.25 + 0.125 + 0.046875) + 0.046875 = 0.46875.
    """
    lists = np.array([[0, 1, 2, 3], [1, 0, 2, 4]])
    x = overlaps(lists)
    assert x[0, 1].tolist() == [0, 2, 3, 3]
    assert x[1, 0].tolist() == [0, 2, 3, 3]
    assert x[0, 0].tolist() == [1, 2, 3, 4]
    value = rbo_ext(x[0, 1], np.array(4), np.array(4), 0.5)
    assert float(value) == pytest.approx(0.46875, abs=1e-12)
    assert float(value) == pytest.approx(plain_rbo_ext(list("abcd"), list("bace"), 0.5), abs=1e-12)
    assert float(rbo_ext(x[0, 0], np.array(4), np.array(4), 0.5)) == pytest.approx(1.0)  # identical lists


@pytest.mark.parametrize("seed", range(5))
def test_overlaps_and_rbo_of_uneven_lists_equal_sets(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k, n = 8, 5
    lists = np.full((n, k), -1)
    as_lists = []
    for i in range(n):
        length = int(rng.integers(1, k + 1))
        docs = rng.choice(12, size=length, replace=False)
        lists[i, :length] = docs
        as_lists.append([str(d) for d in docs])
    x = overlaps(lists)
    length = (lists >= 0).sum(axis=1)
    for i, j in itertools.product(range(n), repeat=2):
        for d in range(1, k + 1):
            assert x[i, j, d - 1] == len(set(as_lists[i][:d]) & set(as_lists[j][:d]))
        value = rbo_ext(x[i, j], length[i], length[j], 0.9)
        assert float(value) == pytest.approx(plain_rbo_ext(as_lists[i], as_lists[j], 0.9), abs=1e-12)


def campaign() -> Pool:
    runs = {
        "a1": [("q1", "d1"), ("q1", "d2"), ("q1", "d3"), ("q2", "d5"), ("q2", "d6")],
        "a2": [("q1", "d2"), ("q1", "d1"), ("q1", "d4"), ("q2", "d5")],
        "b1": [("q1", "d7"), ("q1", "d8"), ("q1", "d1")],  # nothing for q2: similarity 0 there
    }
    frames = {name: pd.DataFrame({"query_id": [q for q, _ in rows], "doc_id": [d for _, d in rows],
                                  "score": np.arange(len(rows), 0, -1, dtype=float)})
              for name, rows in runs.items()}
    return Pool.from_runs(frames, teams={"a1": "A", "a2": "A", "b1": "B"})


def test_jaccard_hand_case() -> None:
    """a1 and a2, k = 3: q1 {d1,d2,d3} vs {d2,d1,d4} -> 2/4; q2 {d5,d6} vs {d5} -> 1/2. Mean 0.5.

    a1 and b1: q1 {d1,d2,d3} vs {d7,d8,d1} -> 1/5; q2: b1 retrieved nothing -> 0. Mean 0.1.
    """
    sim = run_similarity(ranked_campaign(campaign()), k=3, p=0.5)
    pairs = sim.pairs().set_index(["run_a", "run_b"])
    assert pairs.loc[("a1", "a2"), "jaccard"] == pytest.approx(0.5)
    assert pairs.loc[("a1", "b1"), "jaccard"] == pytest.approx(0.1)
    assert pairs.loc[("a1", "b1"), "n_queries"] == 2
    # RBO of a1, a2 on q1 (equal lengths 3, X = 0, 2, 2) and q2 (lengths 2 and 1)
    q1 = plain_rbo_ext(["d1", "d2", "d3"], ["d2", "d1", "d4"], 0.5)
    q2 = plain_rbo_ext(["d5", "d6"], ["d5"], 0.5)
    assert pairs.loc[("a1", "a2"), "rbo"] == pytest.approx((q1 + q2) / 2)
    teams = team_similarity(sim).set_index(["team_a", "team_b"])
    assert teams.loc[("A", "A"), "jaccard"] == pytest.approx(0.5)
    assert teams.loc[("A", "A"), "n_pairs"] == 1
    assert teams.loc[("A", "B"), "n_pairs"] == 2
    a2_b1 = pairs.loc[("a2", "b1"), "jaccard"]
    assert teams.loc[("A", "B"), "jaccard"] == pytest.approx((0.1 + a2_b1) / 2)


def test_clusters_and_dendrogram() -> None:
    sim = run_similarity(ranked_campaign(campaign()), k=3, p=0.5)
    clusters = cluster_runs(sim, "jaccard", cut=0.6)
    # 1 - Jaccard: a1-a2 0.5, the others farther than 0.6: {a1, a2}, {b1}
    by_run = dict(zip(clusters["run"], clusters["cluster"], strict=True))
    assert by_run["a1"] == by_run["a2"] != by_run["b1"]
    assert "cut at distance 0.6" in clusters.attrs["computed_against"]
    fig = plot_dendrogram(sim, "jaccard", cut=0.6)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()]  # labelled leaves
    with pytest.raises(ParameterError, match="persistence"):
        run_similarity(ranked_campaign(campaign()), k=3, p=1.0)


def test_blocks_of_pairs_give_the_same_values() -> None:
    rng = np.random.default_rng(3)
    lists = np.full((6, 5), -1)
    for i in range(6):
        length = int(rng.integers(0, 6))
        lists[i, :length] = rng.choice(9, size=length, replace=False)
    whole = overlaps(lists)
    np.testing.assert_array_equal(np.concatenate([overlaps(lists, slice(0, 4)), overlaps(lists, slice(4, 6))]), whole)
    ranked = ranked_campaign(campaign())
    one, many = run_similarity(ranked, k=3, p=0.5), run_similarity(ranked, k=3, p=0.5, block_cells=1)
    np.testing.assert_array_equal(one.rbo, many.rbo)
    np.testing.assert_array_equal(one.jaccard, many.jaccard)
