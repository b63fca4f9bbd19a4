"""Paired tests and corrections against scipy and statsmodels called directly, on real TREC-COVID round-1 values."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from ir_rarity.compare import compare_values, comparison_pairs
from ir_rarity.engine.result import Evaluation
from ir_rarity.errors import ParameterError
from ir_rarity.evaluation import evaluate_campaign as evaluate
from ir_rarity.stats import correct, paired_pvalues

RUNS = ["BBGhelani1", "BBGhelani2", "sab20.1.meta.docs", "run2", "BERT", "BITEM_BL", "crowd1"]
MEASURES = ["P_rare(alpha=0.5)@100", "AP_rare@100", "ASL"]


@pytest.fixture(scope="module")
def round1(covid_pool, covid_qrels) -> Evaluation:
    return evaluate(covid_pool, covid_qrels, MEASURES)


def _rows(evaluation: Evaluation, measure: str) -> dict[str, np.ndarray]:
    m = next(x for x in evaluation.measures if str(x) == measure)
    return {n: evaluation.values[m][evaluation.names.index(n)] for n in RUNS}


def _subset(evaluation: Evaluation) -> tuple[dict, list[str]]:
    idx = [evaluation.names.index(n) for n in RUNS]
    return {m: evaluation.values[m][idx] for m in evaluation.measures}, RUNS


@pytest.mark.parametrize("measure", MEASURES)
def test_t_and_wilcoxon_equal_scipy(round1, measure):
    values, names = _subset(round1)
    rows = _rows(round1, measure)
    for test in ("t", "wilcoxon"):
        got = compare_values(values, names, ["BBGhelani1"], test=test)
        got = got[got["measure"] == measure].set_index("run")
        for run in RUNS[1:]:
            a, b = rows[run], rows["BBGhelani1"]
            both = ~np.isnan(a) & ~np.isnan(b)  # ASL has queries without a value: left out pairwise
            if test == "t":
                expected = stats.ttest_rel(a, b, nan_policy="omit").pvalue
            else:  # values equal but for rounding noise (BBGhelani2's 5.6e-17 on one query) are zero differences
                d = a[both] - b[both]
                d[np.isclose(a[both], b[both], rtol=1e-12, atol=1e-12)] = 0.0
                expected = stats.wilcoxon(d).pvalue
            assert got.loc[run, "pvalue"] == pytest.approx(expected, rel=1e-9, abs=1e-15)
            assert got.loc[run, "queries"] == both.sum()


def test_queries_without_a_value_are_left_out_pairwise(round1):
    values, names = _subset(round1)
    asl = next(m for m in round1.measures if str(m) == "ASL")
    holes = values[asl].copy()  # round 1 gives every query an ASL: make some undefined, as ASL is without relevant
    holes[1, [0, 3]] = np.nan
    holes[0, [3, 7]] = np.nan
    got = compare_values({asl: holes}, names, ["BBGhelani1"], test="t").set_index("run")
    assert got.loc["BBGhelani2", "queries"] == 27 and got.loc["BERT", "queries"] == 28
    for k, run in enumerate(RUNS[1:], start=1):
        expected = stats.ttest_rel(holes[k], holes[0], nan_policy="omit").pvalue
        assert got.loc[run, "pvalue"] == pytest.approx(expected, rel=1e-9)
    wil = compare_values({asl: holes}, names, ["BBGhelani1"], test="wilcoxon").set_index("run")
    both = ~np.isnan(holes[1]) & ~np.isnan(holes[0])
    assert wil.loc["BBGhelani2", "pvalue"] == pytest.approx(stats.wilcoxon(holes[1][both] - holes[0][both]).pvalue)


def test_randomization_matches_scipy_exact_permutation_test(round1):
    values, names = _subset(round1)
    m = round1.measures[0]
    few = {m: values[m][:, :12]}  # 12 queries: scipy enumerates all 4096 sign patterns
    got = compare_values(few, names, ["BBGhelani1"], test="randomization", trials=200_000, seed=3)
    again = compare_values(few, names, ["BBGhelani1"], test="randomization", trials=200_000, seed=3)
    assert got["pvalue"].tolist() == again["pvalue"].tolist()  # seeded
    for k, run in enumerate(RUNS[1:], start=1):
        exact = stats.permutation_test((few[m][k], few[m][0]), lambda x, y, axis: np.mean(x - y, axis=axis),
                                       permutation_type="samples", n_resamples=np.inf).pvalue
        assert got.set_index("run").loc[run, "pvalue"] == pytest.approx(exact, abs=0.005)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["bonferroni", "holm", "fdr_bh", "sidak", "fdr_by"])
def test_corrections_equal_statsmodels(round1, method):
    values, names = _subset(round1)
    got = compare_values(values, names, all_pairs=True, correction=method, alpha=0.05)
    for _, part in got.groupby("measure"):
        reject, corrected, _, _ = multipletests(part["pvalue"].to_numpy(), alpha=0.05, method=method)
        np.testing.assert_allclose(part["pvalue_corrected"].to_numpy(), corrected, rtol=1e-12)
        assert part["significant"].tolist() == reject.tolist()
    assert len(got) == 3 * 21


def test_undefined_pvalues_are_left_out_of_the_family():
    p = np.array([0.01, np.nan, 0.04, 0.03])
    reject, corrected = correct(p, "holm", 0.05)
    _, expected, _, _ = multipletests([0.01, 0.04, 0.03], method="holm")
    np.testing.assert_allclose(corrected[[0, 2, 3]], expected)
    assert np.isnan(corrected[1]) and not reject[1]


def test_lower_is_better_counts_both_ways(round1):
    values, names = _subset(round1)
    asl = _rows(round1, "ASL")
    forward = compare_values(values, names, ["BBGhelani1"]).query("measure == 'ASL'").set_index("run")
    backward = compare_values(values, names, ["BITEM_BL"]).query("measure == 'ASL'").set_index("run")
    a, b = asl["BBGhelani1"], asl["BITEM_BL"]
    lower = int(np.sum(b < a))  # lower ASL is better
    assert forward.loc["BITEM_BL", "better"] == lower
    assert forward.loc["BITEM_BL", "worse"] == int(np.sum(b > a))
    assert backward.loc["BBGhelani1", "better"] == forward.loc["BITEM_BL", "worse"]
    assert backward.loc["BBGhelani1", "run_better"] != forward.loc["BITEM_BL", "run_better"]
    # BBGhelani1 has the lower mean ASL: it is the better run, as the oriented difference says
    assert np.nanmean(a) < np.nanmean(b) and bool(backward.loc["BBGhelani1", "run_better"])
    assert backward.loc["BBGhelani1", "difference"] > 0
    # a higher-is-better measure counts the other way round
    p_rare = _rows(round1, "P_rare(alpha=0.5)@100")
    hib = compare_values(values, names, ["BBGhelani1"]).query("measure == 'P_rare(alpha=0.5)@100'").set_index("run")
    assert hib.loc["BITEM_BL", "better"] == int(np.sum(p_rare["BITEM_BL"] > p_rare["BBGhelani1"]))


def test_pairs_and_bad_input():
    assert comparison_pairs(["a", "b", "c"], all_pairs=True) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert comparison_pairs(["a", "b", "c"], ["b"]) == [("a", "b"), ("c", "b")]
    with pytest.raises(ParameterError, match="not one of the evaluated runs"):
        comparison_pairs(["a", "b"], ["z"])
    with pytest.raises(ParameterError, match="unknown test"):
        paired_pvalues(np.zeros((2, 3)), np.array([[0, 1]]), "anova")
    with pytest.raises(ParameterError, match="unknown correction"):
        correct(np.array([0.1]), "magic")


@pytest.mark.slow
@pytest.mark.parametrize("method", ["bonferroni", "holm", "fdr_bh"])
def test_a_comparison_and_its_mirror_are_one_hypothesis(round1, method):
    values, names = _subset(round1)
    baselines = ["BBGhelani1", "run2", "crowd1"]  # 3 of the 7 runs
    got = compare_values(values, names, baselines, test="t", correction=method, alpha=0.05)
    # By hand: each baseline meets the 6 other runs (18 rows a measure); 3 of them are the baselines' pairs
    # (BBGhelani1-run2, BBGhelani1-crowd1, run2-crowd1) listed both ways round: 18 - 3 = 15 hypotheses.
    assert len(got) == 3 * 18 and got.attrs["family"] == 15
    for measure, part in got.groupby("measure", sort=False):
        rows = _rows(round1, str(measure))
        seen: dict[frozenset[str], dict] = {}
        for row in part.to_dict("records"):
            seen.setdefault(frozenset((row["run"], row["reference"])), row)
        assert len(seen) == 15
        keys = list(seen)
        p = np.array([stats.ttest_rel(*(rows[n] for n in sorted(k)), nan_policy="omit").pvalue for k in keys])
        np.testing.assert_allclose([seen[k]["pvalue"] for k in keys], p, rtol=1e-9)
        reject, corrected, _, _ = multipletests([seen[k]["pvalue"] for k in keys], alpha=0.05, method=method)
        for k, c, r in zip(keys, corrected, reject, strict=True):
            assert seen[k]["pvalue_corrected"] == pytest.approx(c, rel=1e-12) and seen[k]["significant"] == r
        for row in part.to_dict("records"):  # the mirror carries its hypothesis' numbers
            first = seen[frozenset((row["run"], row["reference"]))]
            for col in ("pvalue", "pvalue_corrected", "significant"):
                assert row[col] == first[col]
