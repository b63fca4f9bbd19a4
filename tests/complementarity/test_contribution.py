"""Shapley values against exact enumeration, and each team's contribution on a hand case."""

from __future__ import annotations

import itertools
import math

import ir_measures
import numpy as np
import pandas as pd
import pytest

from ir_rarity import Pool
from ir_rarity.complementarity import CoalitionGame, fusion_parts, leave_one_team_out_fusion, ranked_campaign, shapley
from ir_rarity.errors import ParameterError

GAME = {(): 0.0, (0,): 1.0, (1,): 2.0, (2,): 0.5, (0, 1): 4.0, (0, 2): 1.0, (1, 2): 3.5, (0, 1, 2): 6.0}


def table_value(coalitions: np.ndarray) -> np.ndarray:
    return np.array([GAME[tuple(int(i) for i in np.flatnonzero(row))] for row in coalitions])


def subset_formula(value: dict[tuple[int, ...], float], n: int) -> list[float]:
    """phi_i = sum over S not holding i of |S|! (n - |S| - 1)! / n! (v(S + i) - v(S)) (Shapley, 1953)."""
    phi = []
    for i in range(n):
        others = [j for j in range(n) if j != i]
        total = 0.0
        for size in range(n):
            for s in itertools.combinations(others, size):
                weight = math.factorial(size) * math.factorial(n - size - 1) / math.factorial(n)
                total += weight * (value[tuple(sorted((*s, i)))] - value[s])
        phi.append(total)
    return phi


def test_exact_shapley_equals_the_subset_formula() -> None:
    exact = shapley(table_value, 3, exact=True)
    np.testing.assert_allclose(exact.value, subset_formula(GAME, 3), atol=1e-12)
    assert exact.samples == 6 and not exact.se.any()
    assert exact.value.sum() == pytest.approx(GAME[(0, 1, 2)])  # efficiency


def test_sampled_shapley_converges() -> None:
    sampled = shapley(table_value, 3, samples=4000, seed=7)
    target = np.array(subset_formula(GAME, 3))
    assert np.all(np.abs(sampled.value - target) < 5 * sampled.se + 1e-12)
    assert np.all(sampled.se > 0) and np.all(sampled.se < 0.05)
    assert sampled.value.sum() == pytest.approx(6.0)  # every order sums to v(N)
    again = shapley(table_value, 3, samples=4000, seed=7)
    np.testing.assert_array_equal(sampled.value, again.value)  # seeded


def test_bad_shapley_arguments() -> None:
    with pytest.raises(ParameterError, match="samples"):
        shapley(table_value, 3, samples=1)
    with pytest.raises(ParameterError, match="orders"):
        shapley(table_value, 12, exact=True)


# One query. A: d1 d2; B: d2 d3; C: d4 d5. Relevant: d1, d3, d4.
RUNS = {"A": ["d1", "d2"], "B": ["d2", "d3"], "C": ["d4", "d5"]}
QRELS = pd.DataFrame({"query_id": "q1", "doc_id": ["d1", "d3", "d4", "d2"], "relevance": [1, 1, 1, 0]})


def pool() -> Pool:
    return Pool.from_runs({name: pd.DataFrame({"query_id": "q1", "doc_id": docs, "score": [2.0, 1.0]})
                           for name, docs in RUNS.items()})


def plain_p2(teams: tuple[int, ...]) -> float:
    """RRF of the teams' runs by dict loops, then P@2 by ir_measures (independent of ir_rarity's engine)."""
    if not teams:
        return 0.0
    fused: dict[str, float] = {}
    for t in teams:
        for rank, doc in enumerate(RUNS["ABC"[t]], start=1):
            fused[doc] = fused.get(doc, 0.0) + 1.0 / (60 + rank)
    scores = np.asarray(list(fused.values()), dtype=np.float32)
    run = pd.DataFrame({"query_id": "q1", "doc_id": list(fused), "score": scores})
    return float(ir_measures.calc_aggregate([ir_measures.parse_measure("P@2")], QRELS, run)[
        ir_measures.parse_measure("P@2")])


def test_contribution_hand_case() -> None:
    """RRF of all: d2 (1/62 + 1/61), then d4 and d1 tied at 1/61 (trec_eval: larger docno first): d2 d4, P@2 = 0.5.

    Without A: d4, d2 tied at 1/61 -> d4 d2: 0.5 (A adds 0). Without B: d4 d1: 1.0 (B adds -0.5).
    Without C: d2 d1: 0.5 (C adds 0).
    """
    ranked = ranked_campaign(pool())
    game = CoalitionGame(fusion_parts(ranked), pool(), QRELS, ["P@2"], "rrf", depth=10)
    table = leave_one_team_out_fusion(game).set_index("team")
    assert table["with"].tolist() == [0.5, 0.5, 0.5]
    assert table.loc[["A", "B", "C"], "without"].tolist() == [0.5, 1.0, 0.5]
    assert table.loc[["A", "B", "C"], "contribution"].tolist() == [0.0, -0.5, 0.0]
    for t, team in enumerate("ABC"):
        others = tuple(i for i in range(3) if i != t)
        assert table.loc[team, "contribution"] == pytest.approx(plain_p2((0, 1, 2)) - plain_p2(others))


def test_exact_shapley_of_the_fusion_game() -> None:
    ranked = ranked_campaign(pool())
    game = CoalitionGame(fusion_parts(ranked), pool(), QRELS, ["P@2"], "rrf", depth=10)
    values = {s: plain_p2(s) for size in range(4) for s in itertools.combinations(range(3), size)}
    exact = shapley(game.value, 3, exact=True)
    np.testing.assert_allclose(exact.value, subset_formula(values, 3), atol=1e-12)
    assert game.evaluated == 7  # every non-empty coalition once (cached)


@pytest.mark.parametrize(("options", "message"), [
    ({"samples": 1}, "samples must be an integer >= 2"), ({"p": 1.0}, "persistence p"), ({"k": 0}, "k must be"),
    ({"pool_depth": -1}, "pool_depth must be"), ({"measures": ["Nope@3"]}, "Nope"),
    ({"shapley_measure": "P@5"}, "Shapley measure P@5 is not among"), ({"cut": float("nan")}, "cut"),
])
def test_parameters_are_checked_before_the_runs_are_read(options: dict[str, object], message: str) -> None:
    from ir_rarity.complementarity import complementarity

    with pytest.raises(ParameterError, match=message):  # not the InputError of the missing run file
        complementarity(QRELS, "no/such/run/file", **options)  # type: ignore[arg-type]
