"""compare_judges on a hand campaign and on the embedded round 1, every figure against an independent computation:
kappa (scikit-learn), alpha (frequencies of the pooled labels), S_d (runs counted by hand), scores (ir_measures'
own pytrec_eval path), tau and tau_AP (the package's statistics), intervals (scipy's bootstrap), group tests (scipy's
Welch test, statsmodels' Holm)."""

from __future__ import annotations

import math
import warnings
from collections import Counter
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.multitest import multipletests

import ir_rarity
from ir_rarity import Pool, covid_round1
from ir_rarity.analysis.judges import JudgeComparison, compare_judges, lenient_judge
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.stats import kendall_tau, tau_ap

DOCS = [f"d{i}" for i in range(8)]


def _hand_runs() -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(2)
    runs = {}
    for name in ["r1", "r2", "r3", "r4", "r5"]:
        rows = []
        for q in ["1", "2", "3"]:
            docs = rng.choice(DOCS, size=5, replace=False)
            rows += [(q, d, float(10 - k)) for k, d in enumerate(docs)]
        runs[name] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return runs


def _hand_qrels() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(4)
    keys = [(q, d) for q in ["1", "2", "3"] for d in DOCS]
    a = pd.DataFrame([(q, d, int(rng.integers(0, 3))) for q, d in keys], columns=["query_id", "doc_id", "relevance"])
    b = a.copy()
    moved = rng.random(len(b)) < 0.4
    b.loc[moved, "relevance"] = rng.integers(0, 3, int(moved.sum()))
    b = b.drop(index=[0, 5])  # judge b left two holes
    return a, b


def _alpha_from_frequencies(a: np.ndarray, b: np.ndarray, level: str) -> float:
    """Alpha of two judges who judged every unit: D_o the mean difference of a unit's two labels, D_e the mean
    difference of two labels drawn without replacement from the pooled 2N labels (Krippendorff 2011)."""
    pooled = Counter([*a.tolist(), *b.tolist()])
    values = sorted(pooled)
    n = sum(pooled.values())

    def delta(c: float, k: float) -> float:
        if level == "nominal":
            return float(c != k)
        if level == "interval":
            return float((c - k) ** 2)
        lo, hi = sorted((values.index(c), values.index(k)))
        return (sum(pooled[values[g]] for g in range(lo, hi + 1)) - (pooled[c] + pooled[k]) / 2) ** 2

    observed = float(np.mean([delta(x, y) for x, y in zip(a, b, strict=True)]))
    expected = sum(pooled[c] * pooled[k] * delta(c, k) for c in values for k in values) / (n * (n - 1))
    return 1.0 - observed / expected


@pytest.fixture(scope="module")
def hand() -> tuple[dict[str, pd.DataFrame], pd.DataFrame, pd.DataFrame, JudgeComparison, pd.DataFrame]:
    runs = _hand_runs()
    a, b = _hand_qrels()
    groups = pd.DataFrame({"run": ["r1", "r2", "r3", "r4", "r5"], "kind": ["x", "x", "y", "y", "y"]})
    result = compare_judges([a, b], runs, ["P@3", "AP"], names=["a", "b"], leaderboard=groups, group_column="kind",
                            resamples=500, seed=3)
    merged = a.merge(b, on=["query_id", "doc_id"], suffixes=("_a", "_b"))
    return runs, a, b, result, merged


Hand = tuple[dict[str, pd.DataFrame], pd.DataFrame, pd.DataFrame, JudgeComparison, pd.DataFrame]


def test_hand_agreement(hand: Hand) -> None:
    _runs, _a, _b, result, merged = hand
    la, lb = merged["relevance_a"].to_numpy(), merged["relevance_b"].to_numpy()
    row = result.agreement.iloc[0]
    assert (row["judge_a"], row["judge_b"], row["n_both"], row["n_a_only"], row["n_b_only"]) == ("a", "b", 22, 2, 0)
    assert row["kappa"] == pytest.approx(cohen_kappa_score(la >= 1, lb >= 1), abs=1e-12)
    assert row["kappa_linear"] == pytest.approx(cohen_kappa_score(la, lb, weights="linear"), abs=1e-12)
    assert row["kappa_quadratic"] == pytest.approx(cohen_kappa_score(la, lb, weights="quadratic"), abs=1e-12)
    for level in ("nominal", "ordinal", "interval"):
        assert row[f"alpha_{level}"] == pytest.approx(_alpha_from_frequencies(la, lb, level), abs=1e-12)


def test_hand_by_rarity(hand: Hand) -> None:
    runs, _a, _b, result, merged = hand
    la, lb = merged["relevance_a"].to_numpy(), merged["relevance_b"].to_numpy()
    # S_d by hand: how many of the 5 runs list the document for the query; S = 5, buckets 0, 1, 2-5
    listed = Counter((q, d) for run in runs.values() for q, d in zip(run["query_id"], run["doc_id"], strict=True))
    s_d = np.array([listed[(q, d)] for q, d in zip(merged["query_id"], merged["doc_id"], strict=True)])
    by = result.by_rarity[result.by_rarity["judge_a"] == "a"].set_index("s_d")
    assert list(by.index) == ["0", "1", "2-5"]
    for name, mask in (("0", s_d == 0), ("1", s_d == 1), ("2-5", s_d >= 2)):
        assert by.loc[name, "n_both"] == int(mask.sum())
        if len(set(la[mask] >= 1) | set(lb[mask] >= 1)) > 1:
            assert by.loc[name, "kappa"] == pytest.approx(cohen_kappa_score(la[mask] >= 1, lb[mask] >= 1), abs=1e-12)


def test_hand_scores_and_rankings(hand: Hand) -> None:
    runs, a, b, result, _merged = hand
    # scores: ir_measures' own path (pytrec_eval) per judge; rankings by the package's statistics
    means = {}
    for judge, qrels in (("a", a), ("b", b)):
        for measure in ("P@3", "AP"):
            per_query = {}
            for name, run in runs.items():
                frame = pd.DataFrame(ir_measures.iter_calc([ir_measures.parse_measure(measure)], qrels, run))
                per_query[name] = frame.set_index("query_id")["value"]
            means[(judge, measure)] = pd.DataFrame(per_query).T.fillna(0.0)
    board = result.leaderboards.set_index(["measure", "judge", "run"])["score"]
    for (judge, measure), table in means.items():
        expected = table.reindex(columns=["1", "2", "3"], fill_value=0.0).mean(axis=1)
        for name in runs:
            assert board[(measure, judge, name)] == pytest.approx(expected[name], abs=1e-12)
    for measure in ("P@3", "AP"):
        ranks = result.rankings.set_index("measure").loc[measure]
        ma = result.evaluations["a"].means(measure)
        mb = result.evaluations["b"].means(measure)
        assert ranks["tau"] == pytest.approx(kendall_tau(ma, mb, higher_is_better=True), abs=1e-15)
        assert ranks["tau_ap"] == pytest.approx(tau_ap(mb, ma, higher_is_better=True), abs=1e-15)


def test_hand_run_differences(hand: Hand) -> None:
    runs, _a, _b, result, _merged = hand
    # per-run differences: the mean of per-query differences and scipy's bootstrap interval of them
    runs_table = result.runs.set_index(["measure", "run"])
    ev_a, ev_b = result.evaluations["a"], result.evaluations["b"]
    for name in runs:
        qa = ev_a.matrix("AP").loc[name]
        qb = ev_b.matrix("AP").loc[name]
        d = (qb - qa.reindex(qb.index)).to_numpy()
        row = runs_table.loc[("AP", name)]
        assert row["diff"] == pytest.approx(d.mean(), abs=1e-12)
        if np.ptp(d) > 0:
            ci = sps.bootstrap((d,), np.mean, n_resamples=500, rng=np.random.default_rng(3),
                               method="percentile").confidence_interval
            assert (row["diff_low"], row["diff_high"]) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_hand_group_tests(hand: Hand) -> None:
    result = hand[3]
    # groups: Welch's test on the runs' mean differences, Holm over the family
    assert result.groups is not None
    pvalues = []
    for measure in ("P@3", "AP"):
        diffs = result.runs[result.runs["measure"] == measure].set_index("run")["diff"]
        x, y = diffs[["r1", "r2"]].to_numpy(), diffs[["r3", "r4", "r5"]].to_numpy()
        with warnings.catch_warnings():  # scipy on near-equal differences
            warnings.simplefilter("ignore", RuntimeWarning)
            p = sps.ttest_ind(x, y, equal_var=False).pvalue
        pvalues.append(p)  # two groups: x against y is one hypothesis (y against x is its mirror, not tested)
        got = result.groups[result.groups["measure"] == measure].set_index("group")
        assert got.loc["x", "gap"] == pytest.approx(x.mean() - y.mean(), abs=1e-12)
        assert got.loc["x", "p_value"] == pytest.approx(p, abs=1e-12)
    holm = multipletests(np.array(pvalues), method="holm")[1]
    assert result.groups["p_corrected"].to_numpy() == pytest.approx(holm, abs=1e-12)


def test_fill_judge_is_added_and_refusals() -> None:
    runs = _hand_runs()
    a, b = _hand_qrels()
    result = compare_judges([b, a], runs, ["P@3"], names=["holes", "full"], combine="fill", resamples=100)
    assert result.judges == ["holes", "full", "holes+full"]
    filled = result.agreement.set_index(["judge_a", "judge_b"]).loc[("holes", "holes+full")]
    assert (filled["n_both"], filled["n_a_only"], filled["n_b_only"], filled["kappa"]) == (22, 0, 2, 1.0)
    with pytest.raises(ParameterError, match="at least two"):
        compare_judges([a], runs, ["P@3"])
    with pytest.raises(ParameterError, match="group column"):
        compare_judges([a, b], runs, ["P@3"], leaderboard=pd.DataFrame({"run": ["r1"]}))
    with pytest.raises(ParameterError, match="correction"):
        compare_judges([a, b], runs, ["P@3"], correction="nonsense")


@pytest.mark.slow
def test_round1_with_a_lenient_judge() -> None:
    pool = Pool.from_runs(covid_round1.runs, split_by_tag=True)
    qrels = ir_rarity.read_trec_qrels(covid_round1.qrels)
    second = lenient_judge(qrels, pool.counts(), pool.num_systems, seed=1)
    measures = ["P@10", "P_rare(alpha=0.5)@10"]
    result = compare_judges([qrels, second], pool, measures, names=["nist", "lenient"], resamples=200,
                            leaderboard=covid_round1.leaderboard, group_column="runtype")
    merged = qrels.merge(second, on=["query_id", "doc_id"], suffixes=("_a", "_b"))
    la, lb = merged["relevance_a"].to_numpy(), merged["relevance_b"].to_numpy()
    row = result.agreement.iloc[0]
    assert row["n_both"] == len(qrels) == 8691
    assert row["kappa"] == pytest.approx(cohen_kappa_score(la >= 1, lb >= 1), abs=1e-12)
    assert row["kappa_quadratic"] == pytest.approx(cohen_kappa_score(la, lb, weights="quadratic"), abs=1e-12)
    for level in ("nominal", "ordinal", "interval"):
        assert row[f"alpha_{level}"] == pytest.approx(_alpha_from_frequencies(la, lb, level), abs=1e-12)
    # the buckets partition the judged documents; S_d from the pool's own table, by hand per bucket
    counts = pool.counts().set_index(["query_id", "doc_id"])["S_d"]
    s_d = counts.reindex(pd.MultiIndex.from_frame(merged[["query_id", "doc_id"]])).fillna(0).to_numpy()
    by = result.by_rarity[result.by_rarity["judge_a"] == "nist"].set_index("s_d")
    assert list(by.index) == ["0", "1", "2-5", "6-71", "72-143"]
    bounds = {"0": (0, 0), "1": (1, 1), "2-5": (2, 5), "6-71": (6, 71), "72-143": (72, 143)}
    for name, (lo, hi) in bounds.items():
        mask = (s_d >= lo) & (s_d <= hi)
        assert by.loc[name, "n_both"] == int(mask.sum())
        assert by.loc[name, "kappa"] == pytest.approx(cohen_kappa_score(la[mask] >= 1, lb[mask] >= 1), abs=1e-12)
    # leaderboards: the front door under each judge; tau and tau_AP by the package's statistics; top 10 by hand
    nist = result.evaluations["nist"]
    for measure in measures:
        ma = ir_rarity.evaluate(covid_round1.runs, qrels, [measure], split_by_tag=True).means(measure)
        mb = ir_rarity.evaluate(covid_round1.runs, second, [measure], split_by_tag=True).means(measure)
        assert np.array_equal(nist.means(measure).to_numpy(), ma.to_numpy())
        got = result.rankings.set_index("measure").loc[measure]
        assert got["tau"] == pytest.approx(kendall_tau(ma, mb, higher_is_better=True), abs=1e-15)
        assert got["tau_ap"] == pytest.approx(tau_ap(mb, ma, higher_is_better=True), abs=1e-15)
        top_a = {r for r in ma.index if (ma > ma[r] + 1e-12).sum() < 10}
        top_b = {r for r in mb.index if (mb > mb[r] + 1e-12).sum() < 10}
        assert got["top10_overlap"] == pytest.approx(len(top_a & top_b) / max(len(top_a), len(top_b)), abs=1e-15)
    assert result.groups["group"].tolist() == ["automatic", "automatic"]  # type: ignore[index]
    assert not math.isnan(float(result.groups["p_value"].iloc[0]))  # type: ignore[index]
    assert result.runs["judge_b"].unique().tolist() == ["lenient"]


def test_three_groups_each_against_the_rest() -> None:
    runs = _hand_runs()
    a, b = _hand_qrels()
    groups = pd.DataFrame({"run": ["r1", "r2", "r3", "r4", "r5"], "kind": ["x", "x", "y", "y", "z"]})
    result = compare_judges([a, b], runs, ["AP"], leaderboard=groups, group_column="kind", correction="bonferroni",
                            resamples=100)
    assert result.groups is not None
    got = result.groups.set_index("group")
    assert list(got.index) == ["x", "y", "z"]
    diffs = result.runs.set_index("run")["diff"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p_x = sps.ttest_ind(diffs[["r1", "r2"]], diffs[["r3", "r4", "r5"]], equal_var=False).pvalue
        p_y = sps.ttest_ind(diffs[["r3", "r4"]], diffs[["r1", "r2", "r5"]], equal_var=False).pvalue
    assert got.loc["x", "p_value"] == pytest.approx(p_x, abs=1e-12)
    assert got.loc["x", "p_corrected"] == pytest.approx(min(1.0, 2 * p_x), abs=1e-12)  # z (one run) is no test
    assert got.loc["y", "p_corrected"] == pytest.approx(min(1.0, 2 * p_y), abs=1e-12)
    assert math.isnan(got.loc["z", "p_value"]) and not got.loc["z", "rejected"]


def test_blank_groups_take_no_part_and_a_run_given_two_groups_is_refused(tmp_path: Path) -> None:
    runs = _hand_runs()
    a, b = _hand_qrels()
    board = tmp_path / "board.csv"
    # r5 has no kind (a blank cell), r1 is listed twice with the same kind: r1, r2 against r3, r4 only
    board.write_text("run,kind\nr1,x\nr2,x\nr3,y\nr4,y\nr5,\nr1,x\n")
    result = compare_judges([a, b], runs, ["AP"], leaderboard=str(board), group_column="kind", resamples=100)
    assert result.groups is not None
    assert result.groups["group"].tolist() == ["x"]
    assert (int(result.groups["n_group"].iloc[0]), int(result.groups["n_rest"].iloc[0])) == (2, 2)
    diffs = result.runs.set_index("run")["diff"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p = sps.ttest_ind(diffs[["r1", "r2"]], diffs[["r3", "r4"]], equal_var=False).pvalue
    assert float(result.groups["p_value"].iloc[0]) == pytest.approx(p, abs=1e-12)
    frame = pd.DataFrame({"run": ["r1", "r2", "r3", "r4", "r5"], "kind": ["x", "x", "y", "y", None]})
    from_frame = compare_judges([a, b], runs, ["AP"], leaderboard=frame, group_column="kind", resamples=100)
    assert from_frame.groups is not None and from_frame.groups["group"].tolist() == ["x"]
    board.write_text("run,kind\nr1,x\nr2,x\nr3,y\nr1,y\n")
    with pytest.raises(InputError, match=r"board.csv:5: lists run 'r1' again with another 'kind'"):
        compare_judges([a, b], runs, ["AP"], leaderboard=str(board), group_column="kind", resamples=100)
