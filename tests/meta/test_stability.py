"""Stability under topic subsampling (Buckley & Voorhees; Türkmen, Lease & Kutlu, ECIR 2023, Section 4.4)."""

from __future__ import annotations

import importlib
import itertools

import numpy as np
import pandas as pd
import pytest
from score_tables import random_scores

from ir_rarity.errors import ParameterError
from ir_rarity.meta import StabilityResult, stability


def test_stability_all_topics_hand(small: pd.DataFrame) -> None:
    # topics = all 4 queries: every trial sees the means .75 .45 .25 (differences .3, .5, .2).
    assert stability(small, topics=4, trials=50, seed=0) == pytest.approx(1.0)
    # fuzziness .25: A-B (.3) and A-C (.5) are wins, B-C (.2) a tie -> (1 + 1 + 0) / 3.
    assert stability(small, topics=4, trials=50, fuzziness=0.25, seed=0) == pytest.approx(2 / 3)
    # relative .5: margins .375 (A,B), .375 (A,C), .225 (B,C) -> only A-C is a win -> 1/3.
    assert stability(small, topics=4, trials=50, fuzziness=0.5, relative=True, seed=0) == pytest.approx(1 / 3)
    details = stability(small, topics=4, trials=50, fuzziness=0.25, seed=0, return_details=True)
    assert isinstance(details, StabilityResult)
    assert details.pairs[["wins_a", "wins_b", "ties"]].to_numpy().tolist() == [
        [50, 0, 0],
        [50, 0, 0],
        [0, 0, 50],
    ]
    assert details.pairs["stability"].tolist() == [1.0, 1.0, 0.0]
    assert (details.minority_rate, details.tie_rate) == (0.0, pytest.approx(1 / 3))
    assert (details.trials, details.topics, details.fuzziness, details.relative) == (50, 4, 0.25, False)


def test_stability_matches_enumeration(small: pd.DataFrame) -> None:
    """With topics=2 of 4 queries there are 6 equally likely subsets; compare with exact frequencies."""
    values = small.to_numpy()
    subsets = list(itertools.combinations(range(4), 2))
    expected_wins = []
    for a, b in itertools.combinations(range(3), 2):
        diffs = [values[a, list(s)].mean() - values[b, list(s)].mean() for s in subsets]
        expected_wins.append(
            (sum(d > 0.05 for d in diffs) / len(subsets), sum(-d > 0.05 for d in diffs) / len(subsets))
        )
    # Hand: B-C subset differences are .3 .3 .1 .3 .1 .1 -> all wins for B; A-B .25 .4 .35 .25 .2 .35.
    assert expected_wins == [(1.0, 0.0), (1.0, 0.0), (1.0, 0.0)]
    res = stability(small, topics=2, trials=3000, seed=11, return_details=True)
    assert res.score == pytest.approx(1.0)

    # A pair that flips: X = [.9 .1 .5 .5], Y = [.5 .5 .5 .5]; subset means of X - Y over the 6 pairs are
    # .2 (q1q3 q1q4), 0 (q1q2, q3q4) and -.2 (q2q3 q2q4) -> wins 2/6, losses 2/6, ties 2/6; stability 1/3.
    flip = pd.DataFrame([[0.9, 0.1, 0.5, 0.5], [0.5, 0.5, 0.5, 0.5]], index=["X", "Y"])
    res = stability(flip, topics=2, trials=30_000, seed=4, return_details=True)
    row = res.pairs.iloc[0]
    n = 30_000
    assert row.wins_a / n == pytest.approx(1 / 3, abs=0.02)
    assert row.wins_b / n == pytest.approx(1 / 3, abs=0.02)
    assert row.ties / n == pytest.approx(1 / 3, abs=0.02)
    assert res.score == pytest.approx(max(row.wins_a, row.wins_b) / n)


def test_stability_deterministic_and_properties() -> None:
    frame = random_scores(15, 20, seed=3)
    first = stability(frame, seed=42, trials=300)
    assert stability(frame, seed=42, trials=300) == first
    assert stability(frame, seed=np.random.default_rng(42), trials=300) == first
    assert stability(frame, seed=43, trials=300) != first
    for seed in range(5):
        scores = random_scores(10, 16, seed=seed)
        res = stability(scores, fuzziness=0.0, trials=200, seed=seed, return_details=True)
        assert 0.5 <= res.score <= 1.0
        assert res.tie_rate == 0.0
        assert res.score + res.minority_rate + res.tie_rate == pytest.approx(1.0)
        assert (res.pairs.wins_a + res.pairs.wins_b + res.pairs.ties == 200).all()
        # A positive fuzziness turns some wins into ties and can only lower the score.
        assert stability(scores, fuzziness=0.05, trials=200, seed=seed) <= res.score
    # Default topics is floor(n_queries / 2).
    assert stability(random_scores(4, 45, 0), trials=5, seed=0, return_details=True).topics == 22


def test_stability_lower_is_better_swaps_winners() -> None:
    frame = random_scores(6, 12, seed=9)
    up = stability(frame, trials=100, seed=1, return_details=True)
    down = stability(frame, trials=100, seed=1, higher_is_better=False, return_details=True)
    assert up.score == down.score
    np.testing.assert_array_equal(up.pairs.wins_a, down.pairs.wins_b)
    np.testing.assert_array_equal(up.pairs.wins_b, down.pairs.wins_a)
    # Lower is better: for a search-length-like measure the smaller mean wins.
    lengths = pd.DataFrame([[1.0, 2.0], [5.0, 6.0]], index=["good", "bad"])
    res = stability(lengths, topics=1, trials=20, higher_is_better=False, seed=0, return_details=True)
    assert (res.pairs.wins_a.iloc[0], res.pairs.wins_b.iloc[0]) == (20, 0)


def test_stability_nan_is_tie() -> None:
    # B has no score for q2: a trial drawing only q2 has no mean for B and counts as a tie.
    frame = pd.DataFrame([[1.0, 1.0], [0.0, np.nan]], index=["A", "B"])
    res = stability(frame, topics=1, trials=2000, seed=0, return_details=True)
    assert res.pairs.wins_b.iloc[0] == 0
    assert res.pairs.wins_a.iloc[0] / 2000 == pytest.approx(0.5, abs=0.05)
    assert res.pairs.wins_a.iloc[0] + res.pairs.ties.iloc[0] == 2000


def test_stability_errors(small: pd.DataFrame) -> None:
    with pytest.raises(ParameterError):
        stability(small, topics=0)
    with pytest.raises(ParameterError):
        stability(small, topics=5)
    with pytest.raises(ParameterError):
        stability(small, trials=0)
    with pytest.raises(ParameterError):
        stability(small, fuzziness=-0.1)


@pytest.mark.parametrize("relative", [False, True])
@pytest.mark.parametrize("block", [7, 4_000_000])  # trials in blocks of one, or all at once
def test_pair_wins_equal_a_comparison_pair_by_pair(monkeypatch: pytest.MonkeyPatch, relative: bool,
                                                   block: int) -> None:
    stability_module = importlib.import_module("ir_rarity.meta.stability")  # the package exports the function
    monkeypatch.setattr(stability_module, "BLOCK_ELEMENTS", block)
    rng = np.random.default_rng(4)
    means = rng.random((60, 9)).round(2)  # rounded: many differences land exactly on the margin
    means[3, 2] = np.nan
    wins_a, wins_b = stability_module._pair_wins(means, 0.05, relative)
    for k, (i, j) in enumerate(zip(*np.triu_indices(9, k=1), strict=True)):
        diff = means[:, i] - means[:, j]
        margin = 0.05 * np.maximum(np.abs(means[:, i]), np.abs(means[:, j])) if relative else 0.05
        assert wins_a[k] == np.sum(diff > margin)
        assert wins_b[k] == np.sum(-diff > margin)
