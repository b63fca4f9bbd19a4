"""One tie rule: exactly rounded means, and every statistic that decides a tie through ir_rarity.stats.ties.

Runs are built to tie through different per-query values (whose floating-point sums differ in the last bit when
added left to right); the expected values come from exact arithmetic (fractions) and scipy.
"""

from __future__ import annotations

import math
from fractions import Fraction

import ir_measures
import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from ir_rarity.campaign import _rank_among
from ir_rarity.compare import compare_values
from ir_rarity.compare.uncertainty import ranks
from ir_rarity.engine.means import aggregate, exact_means, exact_sums
from ir_rarity.measures.base import ExactMeanAgg
from ir_rarity.meta import system_ranking
from ir_rarity.meta.curves import score_matrices, tau_alpha_curve
from ir_rarity.pool.pool import Pool
from ir_rarity.stats import kendall_tau, kendall_tau_b, paired_pvalues, run_means, tau_ap
from ir_rarity.stats.ties import TOLERANCE, better, differences, rank, snap, tie

# Per-query P@10 values of four runs over five queries. A and B are the same multiset in another order, C has other
# values with the same exact sum (2.4 = 24 relevant documents), D one relevant document more.
QUERIES = ["1", "2", "3", "4", "5"]
VALUES = {
    "A": [0.1, 0.2, 0.3, 0.8, 1.0],
    "B": [1.0, 0.8, 0.3, 0.2, 0.1],
    "C": [0.7, 0.7, 0.3, 0.4, 0.3],
    "D": [0.7, 0.7, 0.3, 0.4, 0.4],
}
EXACT = {name: sum(Fraction(round(v * 10), 10) for v in vals) / 5 for name, vals in VALUES.items()}


def _matrix() -> pd.DataFrame:
    return pd.DataFrame(VALUES, index=QUERIES).T.rename_axis("run")


def test_the_built_runs_differ_when_added_left_to_right() -> None:
    left_to_right = {name: np.add.accumulate(np.array(vals))[-1] / 5 for name, vals in VALUES.items()}
    assert len({left_to_right["A"], left_to_right["B"], left_to_right["C"]}) > 1  # the problem being solved
    assert EXACT["A"] == EXACT["B"] == EXACT["C"] < EXACT["D"]


def test_exact_means_do_not_depend_on_the_order() -> None:
    means = exact_means(np.array([VALUES["A"], VALUES["B"]]))
    assert means[0] == means[1] == math.fsum(VALUES["A"]) / 5
    rng = np.random.default_rng(1)
    values = rng.random((3, 200))
    shuffled = values[:, rng.permutation(200)]
    assert np.array_equal(exact_means(values), exact_means(shuffled))
    assert np.array_equal(exact_sums(values), [float(sum(map(Fraction, row))) for row in values.tolist()])


def test_exact_means_skip_nan_when_asked() -> None:
    values = np.array([[0.5, np.nan, 0.25], [np.nan, np.nan, np.nan]])
    assert np.array_equal(exact_means(values, skipna=True), [0.375, np.nan], equal_nan=True)
    assert np.isnan(exact_means(values)).all()


def test_the_aggregator_of_ir_rarity_measures_is_the_tables_mean() -> None:
    measure = ir_measures.parse_measure("P_rare(alpha=0.5)@10")
    agg = measure.aggregator()
    assert isinstance(agg, ExactMeanAgg)
    for v in VALUES["B"]:
        agg.add(v)
    assert agg.result() == aggregate(measure, np.array([VALUES["A"]]))[0]
    asl = ir_measures.parse_measure("ASL").aggregator()
    for v in (3.0, float("nan"), 5.0):
        asl.add(v)
    assert asl.result() == 4.0


def test_tie_and_better_follow_the_stated_tolerance() -> None:
    assert tie(0.45079999999999987, 0.4508)
    assert not tie(0.4508, 0.4508 + 2e-12)
    assert tie(300.0, 300.0 + 1e-10)  # relative beyond 1
    assert not tie(1e-13, 5e-12) and tie(0.0, 1e-13)  # absolute below 1
    assert not tie(np.nan, np.nan)
    assert better(0.5, 0.4) and not better(0.4508, 0.45079999999999987) and better(1.0, 2.0, higher_is_better=False)
    assert TOLERANCE == 1e-12


def test_snap_merges_ties_and_keeps_every_other_value() -> None:
    x = np.array([0.6000000000000001, 0.3, np.nan, 0.6, 0.7])
    assert np.array_equal(snap(x), [0.6, 0.3, np.nan, 0.6, 0.7], equal_nan=True)
    by_rows = snap(np.array([[0.6, 0.6000000000000001], [0.2, 0.1]]), axis=1)
    assert by_rows[0, 0] == by_rows[0, 1] and list(by_rows[1]) == [0.2, 0.1]
    assert np.array_equal(differences(np.array([0.1 + 0.2, 1.0]), np.array([0.3, 0.5])), [0.0, 0.5])


def test_ranks_are_competition_ranks_of_the_exact_means() -> None:
    means = run_means(_matrix())
    exact = pd.Series(EXACT)
    expected = sps.rankdata([-float(v) for v in exact], method="min")  # fractions: exact ties
    assert list(rank(means.to_numpy())) == list(expected) == [2, 2, 2, 1]
    assert list(system_ranking(_matrix())) == [3.0, 3.0, 3.0, 1.0]
    assert list(ranks(np.vstack([means.to_numpy(), means.to_numpy()[::-1]]))[0]) == [2, 2, 2, 1]
    assert list(_rank_among(means.to_numpy()[:1], means.to_numpy()[1:], True)) == [2]  # only D is better


def test_tau_b_and_tau_ap_see_the_ties() -> None:
    other = pd.Series({"A": 0.3, "B": 0.2, "C": 0.1, "D": 0.4})
    exact_a = [EXACT[n] for n in other.index]
    ranked = sps.rankdata([-v for v in exact_a], method="min")  # exact comparison of fractions
    expected = sps.kendalltau(-ranked, other.to_numpy()).statistic
    assert kendall_tau(_matrix(), other) == pytest.approx(expected, abs=1e-15)
    assert kendall_tau_b(run_means(_matrix()).to_numpy(), other.to_numpy()) == pytest.approx(expected, abs=1e-14)
    # tau_AP breaks the tie by name, so A, B, C (tied) against themselves in any per-query order give 1.
    assert tau_ap(_matrix(), _matrix().iloc[:, ::-1]) == 1.0


def test_better_worse_and_wilcoxon_count_a_tie_as_a_tie() -> None:
    noisy = np.array([[0.1 + 0.2, 0.5, 0.25, 0.7], [0.3, 0.4, 0.25, 0.6]])
    got = compare_values({ir_measures.P @ 10: noisy}, ["x", "y"], ["y"], test="wilcoxon").iloc[0]
    assert (got["better"], got["worse"], got["ties"]) == (2, 0, 2)
    assert got["pvalue"] == pytest.approx(sps.wilcoxon([0.1, 0.1]).pvalue)  # the zero differences left out
    assert np.isnan(paired_pvalues(np.array([[0.1 + 0.2, 0.5], [0.3, 0.5]]), np.array([[0, 1]]), "t"))[0]


def _tied_campaign() -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """Runs whose P@10 per query is VALUES' (k relevant documents in a top 10), and their qrels."""
    qrels = pd.DataFrame([(q, f"rel{i}", 1) for q in QUERIES for i in range(10)],
                         columns=["query_id", "doc_id", "relevance"])
    runs = {}
    for name, vals in VALUES.items():
        rows = [(q, f"rel{i}" if i < round(v * 10) else f"{name}-other{i}", 10.0 - i)
                for q, v in zip(QUERIES, vals, strict=True) for i in range(10)]
        runs[name] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return runs, qrels


def test_a_campaign_table_marks_every_run_that_ties_the_best() -> None:
    from ir_rarity import evaluate
    from ir_rarity.compare.table import campaign_table

    runs, qrels = _tied_campaign()
    evaluation = evaluate({n: runs[n] for n in "ABC"}, qrels, ["P@10", "P_rare(alpha=0.5)@10"])
    table = evaluation.table()
    assert table.loc["A", "P@10"] == table.loc["B", "P@10"] == table.loc["C", "P@10"]  # one float for A and B
    text = campaign_table(evaluation).render("markdown")
    assert text.count("**0.4800**") == 3


def _dense_ranks(values: list[Fraction] | list[int]) -> list[int]:
    order = sorted(set(values))
    return [order.index(v) for v in values]


def test_tau_on_round_1_equals_scipy_on_exact_fractions(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    """Kendall's tau-b between P@100 and P_rare(alpha=0.5)@100 on round 1, against both means in exact fractions.

    The embedded runs hold each run's top 100, so a run's top 100 is all its rows; S is the number of runs and S_d
    the number of runs that retrieved d for the query. P_rare(0.5)@100 = (1/100) sum over the relevant documents
    retrieved of 1 + (1/2)(1 - S_d/S) (Türkmen, Lease & Kutlu, ECIR 2023, eq. 1), a rational number.
    """
    from ir_rarity import covid_round1, read_trec_run

    curve = tau_alpha_curve(covid_pool, covid_qrels, alphas=[0.5], cutoff=100)
    got = float(curve.loc[curve["pair"].str.startswith("P_rare"), "tau"].iloc[0])
    rows = read_trec_run(covid_round1.runs).rename(columns={"tag": "run"})[["query_id", "doc_id", "run"]]
    assert rows.groupby(["run", "query_id"]).size().max() <= 100
    n_systems = rows["run"].nunique()
    s_d = rows.groupby(["query_id", "doc_id"])["run"].nunique().rename("s_d").reset_index()
    relevant = covid_qrels[covid_qrels["relevance"] >= 1][["query_id", "doc_id"]]
    found = rows.merge(relevant, on=["query_id", "doc_id"]).merge(s_d, on=["query_id", "doc_id"])
    n_queries = covid_qrels["query_id"].nunique()
    p100, rare = {}, {}
    for run, group in found.groupby("run"):
        p100[run] = Fraction(len(group), 100 * n_queries)
        rare[run] = sum((1 + Fraction(1, 2) * (1 - Fraction(int(d), n_systems)) for d in group["s_d"]),
                        Fraction(0)) / (100 * n_queries)
    names = sorted(rows["run"].unique())
    exact_p = [p100.get(n, Fraction(0)) for n in names]
    exact_rare = [rare.get(n, Fraction(0)) for n in names]
    expected = sps.kendalltau(_dense_ranks(exact_rare), _dense_ranks(exact_p)).statistic
    assert got == pytest.approx(expected, abs=1e-15)
    assert len(set(exact_p)) < len(exact_p) and len(set(exact_rare)) < len(exact_rare)  # ties: the case tested
    naive = score_matrices(covid_pool, covid_qrels, ["P@100", "P_rare(alpha=0.5)@100"], None)
    left_to_right = {m: np.add.accumulate(t.to_numpy(), axis=1)[:, -1] for m, t in naive.items()}
    assert sps.kendalltau(left_to_right["P_rare(alpha=0.5)@100"], left_to_right["P@100"]).statistic != expected
