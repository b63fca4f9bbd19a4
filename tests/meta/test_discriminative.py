"""Discriminative power (Türkmen, Lease & Kutlu, ECIR 2023, Section 4.3): every method against hand values and scipy."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import special
from scipy import stats as sps
from score_tables import random_scores

from ir_rarity import Pool
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.meta import DiscriminativePowerResult, discriminative_power, per_query_matrix
from ir_rarity.stats import paper_hsd


def t_two_sided(t: float, df: float) -> float:
    """Two-sided Student-t p-value via the regularized incomplete beta: I_{df/(df+t^2)}(df/2, 1/2)."""
    return float(special.betainc(df / 2.0, 0.5, df / (df + t * t)))


def t3_two_sided(t: float) -> float:
    """Closed form for 3 degrees of freedom: p = 1 - (2/pi) (x / (1 + x^2) + atan x), x = |t| / sqrt(3)."""
    x = abs(t) / math.sqrt(3.0)
    return 1.0 - 2.0 / math.pi * (x / (1.0 + x * x) + math.atan(x))




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


def test_discriminative_power_paper_uses_the_vectorized_decisions(covid_pool: Pool, covid_qrels: pd.DataFrame
                                                                  ) -> None:
    ap_scores = per_query_matrix(covid_pool, covid_qrels, "AP@100")
    result = discriminative_power(ap_scores, method="paper")
    _, reject = paper_hsd(ap_scores.to_numpy(), 0.05)
    assert result.significant_pairs == int(reject.sum())
    assert result.total_pairs == 143 * 142 // 2
