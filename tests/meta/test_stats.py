"""Tests for ir_rarity.meta.stats (Türkmen, Lease & Kutlu, ECIR 2023, Sections 4.2-4.4)."""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pandas as pd
import pytest
from scipy import special
from scipy import stats as sps

from ir_rarity.errors import InputError, ParameterError
from ir_rarity.meta.stats import (
    DiscriminativePowerResult,
    StabilityResult,
    discriminative_power,
    kendall_tau,
    stability,
    system_ranking,
    tau_ap,
)

# ------------------------------------------------------------------------------------------------------
# Hand-computed fixture: 3 runs x 4 queries
#   A = [.9 .7 .8 .6]  mean .75   within-run SS .05
#   B = [.5 .6 .4 .3]  mean .45   within-run SS .05
#   C = [.2 .3 .1 .4]  mean .25   within-run SS .05
# ------------------------------------------------------------------------------------------------------


@pytest.fixture
def small() -> pd.DataFrame:
    return pd.DataFrame(
        [[0.9, 0.7, 0.8, 0.6], [0.5, 0.6, 0.4, 0.3], [0.2, 0.3, 0.1, 0.4]],
        index=["A", "B", "C"],
        columns=["q1", "q2", "q3", "q4"],
    )


def t_two_sided(t: float, df: float) -> float:
    """Two-sided Student-t p-value via the regularized incomplete beta: I_{df/(df+t^2)}(df/2, 1/2)."""
    return float(special.betainc(df / 2.0, 0.5, df / (df + t * t)))


def t3_two_sided(t: float) -> float:
    """Closed form for 3 degrees of freedom: p = 1 - (2/pi) (x / (1 + x^2) + atan x), x = |t| / sqrt(3)."""
    x = abs(t) / math.sqrt(3.0)
    return 1.0 - 2.0 / math.pi * (x / (1.0 + x * x) + math.atan(x))


def random_scores(n_runs: int, n_queries: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    # Run-specific effectiveness plus query difficulty, so that some pairs differ and some do not.
    quality = rng.uniform(0.1, 0.6, size=(n_runs, 1))
    difficulty = rng.uniform(-0.2, 0.2, size=(1, n_queries))
    values = np.clip(quality + difficulty + rng.normal(0, 0.15, size=(n_runs, n_queries)), 0, 1)
    return pd.DataFrame(
        values, index=[f"run{i:03d}" for i in range(n_runs)], columns=[f"q{j}" for j in range(n_queries)]
    )


# ------------------------------------------------------------------------------------------------------
# system_ranking
# ------------------------------------------------------------------------------------------------------


def test_system_ranking_hand(small: pd.DataFrame) -> None:
    assert system_ranking(small).to_dict() == {"A": 1.0, "B": 2.0, "C": 3.0}
    assert system_ranking(small, higher_is_better=False).to_dict() == {"A": 3.0, "B": 2.0, "C": 1.0}


def test_system_ranking_ties_and_nan() -> None:
    means = pd.Series({"x": 0.5, "y": 0.7, "z": 0.5, "w": 0.1})
    assert system_ranking(means).to_dict() == {"x": 2.5, "y": 1.0, "z": 2.5, "w": 4.0}
    # NaN-aware mean: r1 = (0.5 + 0.1 + 0.3) / 3 = 0.3, r2 = (0.2 + 0.6) / 2 = 0.4 despite the missing query.
    frame = pd.DataFrame({"q1": [0.5, 0.2], "q2": [0.1, np.nan], "q3": [0.3, 0.6]}, index=["r1", "r2"])
    assert system_ranking(frame).to_dict() == {"r1": 2.0, "r2": 1.0}


# ------------------------------------------------------------------------------------------------------
# kendall_tau
# ------------------------------------------------------------------------------------------------------


def naive_tau_b(x: list[float], y: list[float]) -> float:
    """(P - Q) / sqrt((P + Q + T) (P + Q + U)) by enumerating pairs (T: tied only in x, U: only in y)."""
    p = q = t = u = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            t += 1
        elif dy == 0:
            u += 1
        elif dx == dy:
            p += 1
        else:
            q += 1
    return (p - q) / math.sqrt((p + q + t) * (p + q + u))


def test_kendall_tau_hand(small: pd.DataFrame) -> None:
    # Measure 1 orders A > B > C (means .75 .45 .25); measure 2 orders B > A > C.
    other = pd.Series({"A": 0.3, "B": 0.6, "C": 0.1})
    # Pairs: (A,B) discordant, (A,C) concordant, (B,C) concordant -> (2 - 1) / 3.
    assert kendall_tau(small, other) == pytest.approx(1 / 3)
    assert kendall_tau(small, small) == pytest.approx(1.0)
    # A lower-is-better second measure with the reversed means is the same ranking.
    assert kendall_tau(small, -small, higher_is_better=(True, False)) == pytest.approx(1.0)
    assert kendall_tau(small, -small) == pytest.approx(-1.0)


def test_kendall_tau_alignment_and_ties() -> None:
    a = pd.Series({"r1": 0.1, "r2": 0.4, "r3": 0.4, "r4": 0.9, "extra": 0.5})
    b = pd.Series({"r4": 0.8, "r3": 0.2, "r2": 0.3, "r1": 0.3, "other": 0.0})
    runs = ["r1", "r2", "r3", "r4"]
    expected = naive_tau_b([a[r] for r in runs], [b[r] for r in runs])
    assert kendall_tau(a, b) == pytest.approx(expected)
    # Hand: pairs (r1,r2) a<, b= -> U; (r1,r3) a< b> -> Q; (r1,r4) P; (r2,r3) a= b> -> T; (r2,r4) P; (r3,r4) P
    # P=3 Q=1 T=1 U=1: (3 - 1) / sqrt(5 * 5) = 0.4
    assert expected == pytest.approx(0.4)


def test_kendall_tau_needs_two_common_runs() -> None:
    with pytest.raises(InputError):
        kendall_tau(pd.Series({"a": 1.0, "b": 2.0}), pd.Series({"a": 1.0, "c": 2.0}))
    with pytest.raises(ParameterError):
        kendall_tau(pd.Series({"a": 1.0, "b": 2.0}), pd.Series({"a": 1.0, "b": 2.0}), variant="a")  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------------
# tau_ap
# ------------------------------------------------------------------------------------------------------


def ranking(order: str) -> pd.Series:
    """Means that rank the single-letter systems in ``order`` best first."""
    return pd.Series({name: float(len(order) - k) for k, name in enumerate(order)})


def test_tau_ap_top_weighted() -> None:
    truth = ranking("abcd")
    # Swap at the bottom, list a b d c: C(2)=1/1, C(3)=2/2, C(4)=2/3 -> 2/3 * 8/3 - 1 = 7/9.
    assert tau_ap(ranking("abdc"), truth) == pytest.approx(7 / 9)
    # Swap at the top, list b a c d: C(2)=0/1, C(3)=2/2, C(4)=3/3 -> 2/3 * 2 - 1 = 1/3.
    assert tau_ap(ranking("bacd"), truth) == pytest.approx(1 / 3)
    # Kendall's tau cannot tell the two apart.
    assert kendall_tau(ranking("abdc"), truth) == pytest.approx(kendall_tau(ranking("bacd"), truth))
    assert tau_ap(truth, truth) == pytest.approx(1.0)
    assert tau_ap(ranking("dcba"), truth) == pytest.approx(-1.0)


def test_tau_ap_asymmetric() -> None:
    a, b = ranking("abcd"), ranking("bcad")
    # tau_AP(a, b): list a b c d vs truth b c a d: C(2)=0/1, C(3)=1/2, C(4)=3/3 -> 2/3 * 1.5 - 1 = 0.
    assert tau_ap(a, b) == pytest.approx(0.0)
    # tau_AP(b, a): list b c a d vs truth a b c d: C(2)=1/1, C(3)=0/2, C(4)=3/3 -> 2/3 * 2 - 1 = 1/3.
    assert tau_ap(b, a) == pytest.approx(1 / 3)
    assert tau_ap(a, b, symmetric=True) == pytest.approx(1 / 6)
    assert tau_ap(b, a, symmetric=True) == pytest.approx(1 / 6)


def test_tau_ap_ties_and_direction(small: pd.DataFrame) -> None:
    tied = pd.Series({"A": 1.0, "B": 1.0, "C": 0.0})
    # Ties broken by name: list A B C against truth B A C -> C(2)=0/1, C(3)=2/2 -> 2/2 * 1 - 1 = 0.
    assert tau_ap(tied, pd.Series({"A": 0.5, "B": 0.9, "C": 0.1})) == pytest.approx(0.0)
    assert tau_ap(tied, tied) == pytest.approx(1.0)
    assert tau_ap(small, -small, higher_is_better=(True, False)) == pytest.approx(1.0)
    assert tau_ap(small, small, higher_is_better=False) == pytest.approx(1.0)


def test_tau_ap_random_matches_naive() -> None:
    rng = np.random.default_rng(7)
    names = [f"s{i}" for i in range(12)]
    a = pd.Series(rng.random(12), index=names)
    b = pd.Series(rng.random(12), index=names)
    list_order = list(a.sort_values(ascending=False).index)
    truth_pos = {name: k for k, name in enumerate(b.sort_values(ascending=False).index)}
    total = 0.0
    for i in range(1, len(list_order)):
        above = list_order[:i]
        total += sum(truth_pos[x] < truth_pos[list_order[i]] for x in above) / i
    expected = 2.0 / (len(names) - 1) * total - 1.0
    assert tau_ap(a, b) == pytest.approx(expected)
    # Run order in the input does not matter.
    assert tau_ap(a.iloc[::-1], b.sample(frac=1.0, random_state=1)) == pytest.approx(expected)


# ------------------------------------------------------------------------------------------------------
# discriminative_power
# ------------------------------------------------------------------------------------------------------


def test_ttest_rel_hand(small: pd.DataFrame) -> None:
    # Differences A-B = [.4 .1 .4 .3]: mean .3, var .06/3 = .02, t = .3 / sqrt(.02/4) = 3 sqrt(2).
    # A-C = [.7 .4 .7 .2]: mean .5, var .18/3 = .06, t = .5 / sqrt(.015).
    # B-C = [.3 .3 .3 -.1]: mean .2, var .12/3 = .04, t = .2 / .1 = 2.
    expected = {
        ("A", "B"): t3_two_sided(3 * math.sqrt(2)),
        ("A", "C"): t3_two_sided(0.5 / math.sqrt(0.015)),
        ("B", "C"): t3_two_sided(2.0),
    }
    assert expected[("A", "B")] == pytest.approx(0.02398, abs=1e-5)
    res = discriminative_power(small, method="ttest_rel", alpha=0.05)
    for (x, y), p in expected.items():
        assert res.pvalues.loc[x, y] == pytest.approx(p, rel=1e-9)
        assert res.pvalues.loc[y, x] == pytest.approx(p, rel=1e-9)
    n_sig = sum(p < 0.05 for p in expected.values())
    assert (res.significant_pairs, res.total_pairs) == (n_sig, 3)
    assert np.isnan(np.diag(res.pvalues.to_numpy())).all()
    assert res.method == "ttest_rel"
    assert res.alpha == 0.05
    assert res.ratio == pytest.approx(n_sig / 3)


def test_ttest_ind_and_paper_hand(small: pd.DataFrame) -> None:
    # Pooled variance: every run has SS .05, so s_p^2 = .1 / 6 and se = sqrt(s_p^2 * (1/4 + 1/4)).
    se = math.sqrt(0.1 / 6 * 0.5)
    expected = {("A", "B"): 0.3 / se, ("A", "C"): 0.5 / se, ("B", "C"): 0.2 / se}
    for method in ("ttest_ind", "paper"):
        res = discriminative_power(small, method=method, alpha=0.05)
        for (x, y), t in expected.items():
            assert res.pvalues.loc[x, y] == pytest.approx(t_two_sided(t, 6), rel=1e-6)
        assert res.significant_pairs == sum(t_two_sided(t, 6) < 0.05 for t in expected.values())
        pairs = res.pairs()
        assert list(pairs.columns) == ["run_a", "run_b", "pvalue", "significant"]
        assert list(zip(pairs.run_a, pairs.run_b, strict=True)) == list(expected)


def test_tukey_hsd_hand(small: pd.DataFrame) -> None:
    # One-way ANOVA error: SS_within = 3 * .05 = .15 on 12 - 3 = 9 df; q = |diff| / sqrt(MSE / 4).
    mse = 0.15 / 9
    expected = {("A", "B"): 0.3, ("A", "C"): 0.5, ("B", "C"): 0.2}
    res = discriminative_power(small, method="tukey_hsd", alpha=0.05)
    for (x, y), diff in expected.items():
        q = diff / math.sqrt(mse / 4)
        assert res.pvalues.loc[x, y] == pytest.approx(sps.studentized_range.sf(q, 3, 9), rel=1e-4)
    # p = .0232 (A,B), .0010 (A,C), .1263 (B,C): two pairs significant at .05, one at .01.
    assert res.significant_pairs == 2
    assert discriminative_power(small, method="tukey_hsd", alpha=0.01).significant_pairs == 1


def exact_sign_flip_p(d: np.ndarray) -> float:
    """Exact two-sided sign-flip p-value by enumerating all 2^n sign vectors."""
    observed = abs(d.sum())
    hits = sum(
        abs(np.dot(signs, d)) >= observed - 1e-12 for signs in itertools.product([-1, 1], repeat=len(d))
    )
    return hits / 2 ** len(d)


def test_randomization_hand(small: pd.DataFrame) -> None:
    # A-B and A-C: all differences positive, only the two constant sign vectors reach |sum|: 2/16.
    # B-C = [.3 .3 .3 -.1], |sum| = .8 is reached by +++x and ---x: 4/16.
    values = small.to_numpy()
    assert exact_sign_flip_p(values[0] - values[1]) == pytest.approx(2 / 16)
    assert exact_sign_flip_p(values[1] - values[2]) == pytest.approx(4 / 16)
    res = discriminative_power(small, method="randomization", trials=40_000, seed=3)
    assert res.pvalues.loc["A", "B"] == pytest.approx(2 / 16, abs=0.01)
    assert res.pvalues.loc["A", "C"] == pytest.approx(2 / 16, abs=0.01)
    assert res.pvalues.loc["B", "C"] == pytest.approx(4 / 16, abs=0.01)
    assert res.significant_pairs == 0  # with 4 queries p >= 1/8 always
    again = discriminative_power(small, method="randomization", trials=40_000, seed=3)
    pd.testing.assert_frame_equal(res.pvalues, again.pvalues)


def test_randomization_p_value_floor() -> None:
    frame = random_scores(2, 30, seed=1)
    frame.iloc[0] = frame.iloc[1] + 0.3  # run0 better on every query
    res = discriminative_power(frame, method="randomization", trials=999, seed=0)
    # No sign vector except all-plus / all-minus reaches the observed sum: p = (0 or 1 + 1) / 1000.
    assert res.pvalues.iloc[0, 1] <= 2 / 1000
    assert res.significant_pairs == 1


@pytest.fixture(scope="module")
def random_20x30() -> pd.DataFrame:
    return random_scores(20, 30, seed=2023)


def test_paper_equals_ttest_ind_counts(random_20x30: pd.DataFrame) -> None:
    """Two-group Tukey HSD (the authors' per-pair statsmodels call) is the pooled two-sample t-test.

    Slow (~0.13 s per pair: statsmodels inverts the studentized range for every call), so 9 runs, one alpha.
    """
    sample = random_20x30.iloc[::2].iloc[:9]
    paper = discriminative_power(sample, method="paper", alpha=0.05)
    fast = discriminative_power(sample, method="ttest_ind", alpha=0.05)
    assert paper.total_pairs == fast.total_pairs == 36
    assert paper.significant_pairs == fast.significant_pairs
    assert 0 < fast.significant_pairs < 36  # the data is informative, not trivially all/none
    np.testing.assert_allclose(paper.pvalues.to_numpy(), fast.pvalues.to_numpy(), rtol=1e-5, atol=1e-9)
    pd.testing.assert_frame_equal(paper.significant, fast.significant)


def test_methods_consistent_on_random(random_20x30: pd.DataFrame) -> None:
    counts = {}
    for method in ("ttest_ind", "ttest_rel", "tukey_hsd", "randomization"):
        res = discriminative_power(random_20x30, method=method, alpha=0.05, trials=2000, seed=1)
        assert isinstance(res, DiscriminativePowerResult)
        assert res.total_pairs == 190
        p = res.pvalues.to_numpy()
        np.testing.assert_array_equal(np.isnan(p), np.eye(20, dtype=bool))
        np.testing.assert_allclose(p, p.T)
        assert res.significant_pairs == int(np.triu(p < 0.05, k=1).sum())
        counts[method] = res.significant_pairs
    # Family-wise control makes all-pairs Tukey HSD the most conservative; alpha .01 <= alpha .05.
    assert counts["tukey_hsd"] <= min(counts.values())
    assert (
        discriminative_power(random_20x30, method="ttest_ind", alpha=0.01).significant_pairs
        <= counts["ttest_ind"]
    )
    # Paired tests remove the shared query-difficulty effect, so they separate more pairs here.
    assert counts["ttest_rel"] >= counts["ttest_ind"]
    # Randomization and paired t-test agree closely.
    assert abs(counts["randomization"] - counts["ttest_rel"]) <= 10


def test_direction_does_not_change_counts(random_20x30: pd.DataFrame) -> None:
    for method in ("ttest_ind", "ttest_rel", "randomization"):
        up = discriminative_power(random_20x30, method=method, trials=500, seed=5)
        down = discriminative_power(random_20x30, method=method, trials=500, seed=5, higher_is_better=False)
        assert up.significant_pairs == down.significant_pairs


def test_nan_handling(small: pd.DataFrame) -> None:
    frame = small.copy()
    frame.loc["A", "q2"] = np.nan
    frame.loc["D"] = frame.loc["B"]  # identical to B: zero-variance paired difference
    res = discriminative_power(frame, method="ttest_rel")
    # A-B on the complete queries q1 q3 q4: differences [.4 .4 .3].
    a = frame.loc["A", ["q1", "q3", "q4"]].to_numpy(float)
    b = frame.loc["B", ["q1", "q3", "q4"]].to_numpy(float)
    assert res.pvalues.loc["A", "B"] == pytest.approx(sps.ttest_rel(a, b).pvalue)
    assert np.isnan(res.pvalues.loc["B", "D"])
    assert not res.significant.loc["B", "D"]
    # Unpaired: A keeps its 3 scores, B its 4.
    ind = discriminative_power(frame, method="ttest_ind")
    assert ind.pvalues.loc["A", "B"] == pytest.approx(sps.ttest_ind(a, frame.loc["B"].to_numpy(float)).pvalue)
    # Vectorised masked path equals scipy's nan_policy="omit" on every pair.
    values = frame.to_numpy(float)
    i, j = np.triu_indices(len(frame), k=1)
    omit = sps.ttest_ind(values[i], values[j], axis=1, nan_policy="omit").pvalue
    np.testing.assert_allclose(ind.pvalues.to_numpy()[i, j], omit, rtol=1e-9)
    for method in ("randomization", "tukey_hsd", "paper"):
        assert discriminative_power(frame, method=method, trials=200, seed=0).total_pairs == 6


def test_discriminative_power_errors(small: pd.DataFrame) -> None:
    with pytest.raises(ParameterError):
        discriminative_power(small, method="wilcoxon")  # type: ignore[arg-type]
    with pytest.raises(ParameterError):
        discriminative_power(small, method="ttest_rel", alpha=1.5)
    with pytest.raises(InputError):
        discriminative_power(small.iloc[:1], method="ttest_rel")
    with pytest.raises(InputError):
        discriminative_power(small.to_numpy(), method="ttest_rel")  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------------
# stability
# ------------------------------------------------------------------------------------------------------


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


def test_stability_speed() -> None:
    """Paper scale (143 runs, 30 queries, 1000 trials) must take well under 3 s (typically ~0.1 s)."""
    frame = random_scores(143, 30, seed=0)
    start = time.perf_counter()
    score = stability(frame, trials=1000, seed=0)
    elapsed = time.perf_counter() - start
    assert 0.0 < score <= 1.0
    assert elapsed < 3.0, f"stability took {elapsed:.2f}s"
