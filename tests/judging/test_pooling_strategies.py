"""Pooling strategies, budget simulation, reusability and official runs (ir_rarity.judging).

Tiny campaign (one query q1), ranks from 1:
    A: d1 d2 d3      B: d2 d4 d5      C: d6 d3 d1
    qrels: d1=1, d2=0, d3=1, d4=1 (d5, d6 outside the qrels: non-relevant to the oracle)
Runs retrieving each document (S_d): d1 2, d2 2, d3 2, d4 1, d5 1, d6 1.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps

from ir_rarity import Pool, campaign
from ir_rarity.errors import MemberNotice, ParameterError
from ir_rarity.judging import (
    MMNS,
    MTF,
    RBP,
    RRF,
    Candidates,
    DepthK,
    RarityRBP,
    contributing_runs,
    official_vs_all,
    parse_strategy,
    pool_qrels,
    query_budgets,
    reusability,
    simulate,
)

TINY_RUNS = {"A": ["d1", "d2", "d3"], "B": ["d2", "d4", "d5"], "C": ["d6", "d3", "d1"]}
TINY_QRELS = pd.DataFrame({"query_id": "q1", "doc_id": ["d1", "d2", "d3", "d4"], "relevance": [1, 0, 1, 1]})
SEED_ABC = 1  # np.random.default_rng(1).permutation(3) == [0, 1, 2]: ties between runs go to A, then B, then C


@pytest.fixture
def tiny() -> tuple[Pool, Candidates]:
    runs = {name: pd.DataFrame({"query_id": "q1", "doc_id": docs, "score": [3.0, 2.0, 1.0]})
            for name, docs in TINY_RUNS.items()}
    pool = Pool.from_runs(runs)
    return pool, Candidates.from_pool(pool, TINY_QRELS)


def _order(strategy: object, cands: Candidates, seed: int = SEED_ABC) -> list[str]:
    order = parse_strategy(strategy).order(cands, seed=seed)  # type: ignore[arg-type]
    return list(order.frame()["doc_id"])


def test_seed_gives_the_tie_order_the_hand_cases_assume() -> None:
    assert list(np.random.default_rng(SEED_ABC).permutation(3)) == [0, 1, 2]


def test_depth_order_by_hand(tiny: tuple[Pool, Candidates]) -> None:
    # best rank 1: d1 (2 runs), d2 (2 runs), d6 (1 run); rank 2: d3 (2), d4 (1); rank 3: d5.
    assert _order(DepthK(), tiny[1]) == ["d1", "d2", "d6", "d3", "d4", "d5"]
    assert _order(DepthK(ties="runs"), tiny[1]) == ["d1", "d2", "d6", "d3", "d4", "d5"]
    assert _order(DepthK(k=1), tiny[1]) == ["d1", "d2", "d6"]
    # Within the top 2, d2 is in 2 runs, d1 in 1 (C has it third), d3 in 1 (A has it third): with ties by runs
    # d2 leads rank 1; by docno (the default) d1 does. The same documents either way.
    assert _order("depth(k=2,ties=runs)", tiny[1]) == ["d2", "d1", "d6", "d3", "d4"]
    assert _order("depth(k=2)", tiny[1]) == ["d1", "d2", "d6", "d3", "d4"]
    assert str(DepthK(k=2)) == "depth(k=2)" and str(parse_strategy("depth(ties=runs)")) == "depth(ties=runs)"


def test_depth_tie_rules_by_hand() -> None:
    # X: d9 d2   Y: d9 d3   Z: d1 d4;  qrels d1=0, d2=1, d3=0, d4=1, d9=1.
    # Rank 1: d1 (1 run), d9 (2 runs); rank 2: d2, d3, d4 (1 run each, docno order).
    # ties=docno: d1 d9 d2 d3 d4 -> relevant found at budgets 1..5: 0 1 2 2 3.
    # ties=runs:  d9 d1 d2 d3 d4 -> 1 1 2 2 3.
    runs = {"X": ["d9", "d2"], "Y": ["d9", "d3"], "Z": ["d1", "d4"]}
    pool = Pool.from_runs({n: pd.DataFrame({"query_id": "q1", "doc_id": d, "score": [2.0, 1.0]})
                           for n, d in runs.items()})
    qrels = pd.DataFrame({"query_id": "q1", "doc_id": ["d1", "d2", "d3", "d4", "d9"], "relevance": [0, 1, 0, 1, 1]})
    table = simulate(pool, qrels, ["depth", "depth(ties=runs)"], [1, 2, 3, 4, 5]).table()
    found = table.pivot(index="budget", columns="strategy", values="relevant")
    assert found["depth"].tolist() == [0, 1, 2, 2, 3]
    assert found["depth(ties=runs)"].tolist() == [1, 1, 2, 2, 3]
    assert _order("depth", Candidates.from_pool(pool, qrels)) == ["d1", "d9", "d2", "d3", "d4"]
    assert _order("depth(ties=runs)", Candidates.from_pool(pool, qrels)) == ["d9", "d1", "d2", "d3", "d4"]


def test_depth_ties_by_docno_are_ascending_code_points() -> None:
    # Six runs, each retrieving one document at rank 1: every document ties on its best rank (and on its 1 run),
    # so both rules order them by docno alone: ascending, the strings compared code point by code point
    # ("D" 68 < "a" 97 < "d" 100 < "e" 101 < "é" 233; "d10" < "d9" as "1" < "9": no natural ordering of numbers).
    docs = ["d9", "é", "d10", "a", "e", "D1"]
    pool = Pool.from_runs({f"R{i}": pd.DataFrame({"query_id": "q1", "doc_id": [d], "score": [1.0]})
                           for i, d in enumerate(docs)})
    cands = Candidates.from_pool(pool, pd.DataFrame({"query_id": "q1", "doc_id": docs, "relevance": 1}))
    for rule in ("depth", "depth(ties=runs)"):
        assert _order(rule, cands) == ["D1", "a", "d10", "d9", "e", "é"], rule


def test_rbp_order_by_hand(tiny: tuple[Pool, Candidates]) -> None:
    # p = 0.5, weights .5 .25 .125: d1 .625, d2 .75, d3 .375, d4 .25, d5 .125, d6 .5.
    assert _order(RBP(p=0.5), tiny[1]) == ["d2", "d1", "d6", "d3", "d4", "d5"]
    np.testing.assert_allclose(RBP(p=0.5).weights(tiny[1]), [0.625, 0.75, 0.375, 0.25, 0.125, 0.5])


def test_rrf_order_by_hand(tiny: tuple[Pool, Candidates]) -> None:
    # k = 60: d1 1/61+1/63, d2 1/62+1/61, d3 1/63+1/62, d4 1/62, d5 1/63, d6 1/61.
    assert _order(RRF(k=60), tiny[1]) == ["d2", "d1", "d3", "d6", "d4", "d5"]


def test_rarity_order_by_hand(tiny: tuple[Pool, Candidates]) -> None:
    # beta = 1, p = .5: RBP weight / S_d: d1 .3125, d2 .375, d3 .1875, d4 .25, d5 .125, d6 .5.
    assert _order(RarityRBP(beta=1, p=0.5), tiny[1]) == ["d6", "d2", "d1", "d4", "d3", "d5"]
    assert _order(RarityRBP(beta=0, p=0.5), tiny[1]) == _order(RBP(p=0.5), tiny[1])


def test_mtf_order_by_hand(tiny: tuple[Pool, Candidates]) -> None:
    # rule=cormack (default): A d1 rel (A stays 0), d2 non-rel (A -1); B (0) meets d2, judged non-rel through A:
    # counted for B without a judgment (B -1); C (0) d6 non-rel (C -1). All at -1, A first: d3 rel, A exhausted;
    # B d4 rel (stays -1), d5 non-rel, exhausted; C meets d3 and d1, both judged: nothing new.
    assert _order(MTF(), tiny[1]) == ["d1", "d2", "d6", "d3", "d4", "d5"]
    # rule=skip: B passes over d2 uncounted and judges d4 (rel, B stays 0), d5 non-rel (B -1, exhausted);
    # C (0) d6 non-rel (C -1); A and C tie at -1, A first: d3 rel; C has only judged documents left.
    assert _order(MTF(rule="skip"), tiny[1]) == ["d1", "d2", "d4", "d5", "d6", "d3"]
    assert str(MTF()) == "mtf" and str(parse_strategy("mtf(rule=skip)")) == "mtf(rule=skip)"


def test_mtf_rules_relevant_found_per_budget_by_hand(tiny: tuple[Pool, Candidates]) -> None:
    # Labels of the two orders above (d1 1, d2 0, d3 1, d4 1, d5 and d6 outside the qrels: 0):
    # cormack d1 d2 d6 d3 d4 d5 -> 1 0 0 1 1 0 -> found at budgets 1..6: 1 1 1 2 3 3
    # skip    d1 d2 d4 d5 d6 d3 -> 1 0 1 0 0 1 ->                         1 1 2 2 2 3
    table = simulate(tiny[0], TINY_QRELS, ["mtf", "mtf(rule=skip)"], range(1, 7), seed=SEED_ABC).table()
    found = table.pivot(index="budget", columns="strategy", values="relevant")
    assert found["mtf"].tolist() == [1, 1, 1, 2, 3, 3]
    assert found["mtf(rule=skip)"].tolist() == [1, 1, 2, 2, 2, 3]


def test_strategy_word_parameters_are_checked() -> None:
    for spec, message in (("mtf(rule=other)", "rule must be one of cormack, skip"),
                          ("depth(ties=score)", "ties must be one of docno, runs"),
                          ("rbp(p=high)", "takes a number"), ("depth(k=inf)", "positive integer"),
                          ("mtf(rule)", "name=value")):
        with pytest.raises(ParameterError, match=message):
            parse_strategy(spec)


def test_mmns_order_by_hand(tiny: tuple[Pool, Candidates]) -> None:
    # gamma = 1 (MM): A d1 rel (2/3), d2 non-rel (1/2), tie A B C at 1/2 -> A d3 rel, A exhausted; B d4 rel (2/3),
    # d5 non-rel, exhausted; C d6; C exhausted.
    assert _order(MMNS(gamma=1), tiny[1]) == ["d1", "d2", "d3", "d4", "d5", "d6"]
    # gamma = .9: after d2, A = 1.9/3.9 < 1/2: B d4 (2/3), d5 (B exhausted), C d6 (1/2 beats 0.487), then A d3.
    assert _order(MMNS(gamma=0.9), tiny[1]) == ["d1", "d2", "d4", "d5", "d6", "d3"]


def test_adaptive_orders_are_deterministic_under_a_seed(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    cands = Candidates.from_pool(covid_pool, covid_qrels, depth=20)
    for strategy in (MTF(), MMNS()):
        a, b = strategy.order(cands, seed=7), strategy.order(cands, seed=7)
        np.testing.assert_array_equal(a.doc, b.doc)
        assert sorted(a.doc.tolist()) == list(range(cands.n_docs))  # every candidate, once


def test_depth_k_reproduces_the_judging_pool(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    cands = Candidates.from_pool(covid_pool, covid_qrels)
    for k in (1, 7):
        got = DepthK(k).order(cands).frame()[["query_id", "doc_id"]]
        expected = campaign.judging_pool(covid_pool, k)[["query_id", "doc_id"]]
        pd.testing.assert_frame_equal(got.sort_values(["query_id", "doc_id"]).reset_index(drop=True),
                                      expected.reset_index(drop=True), check_dtype=False)


@pytest.mark.slow
def test_simulation_counts_equal_an_independent_recount(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    sim = simulate(covid_pool, covid_qrels, ["depth", "rbp", "mmns", "rarity(beta=1)"], [3, 25], depth=50)
    table = sim.table().set_index(["strategy", "budget"])
    for strategy, order in sim.orders.items():
        for budget in (3, 25):
            pooled = order.frame(budget)
            assert pooled.groupby("query_id").size().max() <= budget
            merged = pooled.merge(covid_qrels, on=["query_id", "doc_id"], how="left")
            assert table.loc[(strategy, budget), "relevant"] == int((merged["relevance"] >= 1).sum())
            assert table.loc[(strategy, budget), "outside_qrels"] == int(merged["relevance"].isna().sum())
            assert table.loc[(strategy, budget), "judged"] == len(pooled)
    # Every document of the runs' top 50 judged: all strategies find the same relevant documents.
    full = simulate(covid_pool, covid_qrels, ["depth", "mtf"], [100000], depth=50).table()["relevant"]
    top = pd.concat([covid_pool.run(n).query("rank <= 50")[["query_id", "doc_id"]] for n in covid_pool.names])
    recount = top.drop_duplicates().merge(covid_qrels, on=["query_id", "doc_id"])
    assert full.tolist() == [int((recount["relevance"] >= 1).sum())] * 2


def test_total_budgets_are_shared_equally() -> None:
    assert query_budgets(100, 30, total=True).tolist() == [4] * 10 + [3] * 20
    assert query_budgets(7, 3, total=False).tolist() == [7, 7, 7]


def test_bad_strategies_and_budgets_are_refused(tiny: tuple[Pool, Candidates]) -> None:
    pool = tiny[0]
    with pytest.raises(ParameterError, match="unknown pooling strategy"):
        simulate(pool, TINY_QRELS, ["nope"], [1])
    with pytest.raises(ParameterError, match="p must be in"):
        parse_strategy("rbp(p=2)")
    with pytest.raises(ParameterError, match="budget"):
        simulate(pool, TINY_QRELS, ["depth"], [0])


@pytest.mark.slow
def test_reusability_equals_a_recomputation(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    covid_pool = covid_pool.subset(covid_pool.names[::5])  # 29 runs keep the recomputation quick
    sim = simulate(covid_pool, covid_qrels, ["rbp", "mtf"], [5], depth=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemberNotice)
        table = reusability(sim, covid_pool, covid_qrels, ["P@10", "P_rare(alpha=0.5)@10"], depth=20, loto=False)
    def relevant_in_top10(qrels: pd.DataFrame, name: str) -> int:
        """P@10 from scratch, exactly: ir_measures' per-query values are k/10, so the mean ranks as the sum of k."""
        return sum(round(m.value * 10) for m in ir_measures.iter_calc([p10], qrels, covid_pool.run(name)))

    p10 = ir_measures.P @ 10
    for strategy in ("rbp(p=0.8)", "mtf"):
        pooled = sim.orders[strategy].frame(5)[["query_id", "doc_id"]]
        restricted = covid_qrels.merge(pooled, on=["query_id", "doc_id"])  # judged inside the pool only
        names = covid_pool.names
        before = [relevant_in_top10(covid_qrels, n) for n in names]
        after = [relevant_in_top10(restricted, n) for n in names]
        row = table[(table["strategy"] == strategy) & (table["measure"] == "P@10")].iloc[0]
        assert row["tau"] == pytest.approx(sps.kendalltau(after, before).statistic)
        # Rarity: the same measure against the same pool, qrels dropped (not relabelled) outside the pool.
        rare = covid_pool.evaluate(restricted, ["P_rare(alpha=0.5)@10"])["P_rare(alpha=0.5)@10"]
        base = covid_pool.evaluate(covid_qrels, ["P_rare(alpha=0.5)@10"])["P_rare(alpha=0.5)@10"]
        row = table[(table["strategy"] == strategy) & (table["measure"] == "P_rare(alpha=0.5)@10")].iloc[0]
        assert row["tau"] == pytest.approx(sps.kendalltau(rare, base).statistic)


@pytest.mark.slow
def test_leave_one_team_out_in_a_pool_equals_a_recomputation(covid_qrels: pd.DataFrame) -> None:
    from ir_rarity import covid_round1

    board = pd.read_csv(covid_round1.leaderboard, dtype=str)
    board = board[board["team"].isin(list(dict.fromkeys(board["team"]))[:14])]  # 14 teams keep the test quick
    full_pool = Pool.from_runs(covid_round1.runs, split_by_tag=True)
    covid_pool = Pool.from_runs({n: full_pool.run(n) for n in board["run"]},
                                teams=dict(zip(board["run"], board["team"], strict=True)))
    sim = simulate(covid_pool, covid_qrels, ["depth"], [10], depth=10)
    # Leave out the team of several runs with most relevant documents of its own in that pool.
    unique = campaign.unique_relevant(covid_pool, pool_qrels(covid_qrels, sim.orders["depth"].frame(10)), 10,
                                      by="team").counts
    several = board["team"].value_counts()
    team = max((t for t in unique.index if several[t] >= 2), key=lambda t: (unique[t], t))
    own = [n for n in covid_pool.names if covid_pool.teams[n] == team]
    assert len(own) >= 2
    table = reusability(sim, covid_pool, covid_qrels, ["P@10"], depth=10, teams=[team])
    # From scratch: relevant documents of the pool that only the team's runs have in their top 10 lose relevance.
    pooled = sim.orders["depth"].frame(10)[["query_id", "doc_id"]]
    restricted = covid_qrels.merge(pooled, on=["query_id", "doc_id"])
    tops = pd.concat([covid_pool.run(n).query("rank <= 10").assign(team=covid_pool.teams[n])
                      for n in covid_pool.names])
    teams_of = tops.groupby(["query_id", "doc_id"])["team"].agg(set)
    only = {key for key, ts in teams_of.items() if ts == {team}}
    keys = list(zip(restricted["query_id"], restricted["doc_id"], strict=True))
    assert any(k in only and r >= 1 for k, r in zip(keys, restricted["relevance"], strict=True))  # not vacuous
    without = restricted.assign(relevance=[0 if k in only else r for k, r in zip(keys, restricted["relevance"],
                                                                                  strict=True)])
    p10 = ir_measures.P @ 10
    others = [n for n in covid_pool.names if n not in own]
    before = {n: ir_measures.calc_aggregate([p10], restricted, covid_pool.run(n))[p10] for n in covid_pool.names}
    after = {n: ir_measures.calc_aggregate([p10], without, covid_pool.run(n))[p10] for n in covid_pool.names}
    drops = [sum(after[o] > after[n] for o in others) - sum(before[o] > before[n] for o in others) for n in own]
    row = table.iloc[0]
    assert row["loto_mean_drop"] == pytest.approx(np.mean(drops))
    assert row["loto_max_drop"] == max(drops)


def test_official_runs_set_s_d(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    from ir_rarity import covid_round1

    official = contributing_runs(covid_round1.leaderboard)
    assert len(official) == 56
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemberNotice)
        runs, summary = official_vs_all(covid_pool, covid_qrels, ["P@10", "P_rare(alpha=1)@10"], official)
    assert summary.set_index("measure").loc["P@10", "tau"] == pytest.approx(1.0)
    # One additional run by hand: S = 56 official runs + itself, S_d = official runs with d in their top 10 + 1.
    extra = next(n for n in covid_pool.names if n not in official)
    tops = pd.concat([covid_pool.run(n).query("rank <= 10") for n in official])
    s_d = tops.groupby(["query_id", "doc_id"]).size()
    run = covid_pool.run(extra).query("rank <= 10").merge(covid_qrels, on=["query_id", "doc_id"], how="left")
    counts = np.array([s_d.get((q, d), 0) + 1 for q, d in zip(run["query_id"], run["doc_id"], strict=True)])
    gain = np.where(run["relevance"].fillna(-1) >= 1, 1 + (1 - counts / 57), 0.0)
    per_query = pd.Series(gain).groupby(run["query_id"].to_numpy()).sum() / 10
    expected = per_query.reindex(sorted(covid_qrels["query_id"].unique()), fill_value=0).mean()
    got = runs[(runs["run"] == extra) & (runs["measure"] == "P_rare@10")]["score_official"].iloc[0]
    assert got == pytest.approx(expected)


def test_pool_qrels_relabels_outside_the_pool() -> None:
    judged = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d3"]})
    got = pool_qrels(TINY_QRELS, judged)
    assert got["relevance"].tolist() == [0, 0, 1, 0]
    assert pool_qrels(TINY_QRELS, judged, drop=True)["doc_id"].tolist() == ["d3"]


def test_report_files(tmp_path: Path, tiny: tuple[Pool, Candidates]) -> None:
    from ir_rarity.judging import write_report

    sim = simulate(tiny[0], TINY_QRELS, ["depth", "mtf(rule=skip)"], [1, 3], seed=SEED_ABC)
    summary = write_report(tmp_path / "out", sim, plots=True)
    assert (tmp_path / "out" / "found.png").stat().st_size > 0
    text = summary.read_text()
    assert "| depth | 1 | 1 |" in text  # d1 (rel), d2, d6: one relevant at budgets 1 and 3
    assert "| mtf(rule=skip) | 1 | 2 |" in text  # d1 (rel), d2, d4 (rel)
