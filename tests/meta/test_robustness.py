"""Pool.subset, Algorithm 1 (number of systems) and the synthetic experiment of Section 3 / Figure 1."""

from __future__ import annotations

from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

from ir_rarity import Pool
from ir_rarity.engine.samples import SubsetScorer, newcomer_prefix_scores
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.meta import synthetic_rank_curve, system_count_robustness

# ------------------------------------------------------------------ Pool.subset


def test_subset_hand_equals_rebuilt(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    for names in (["A", "B"], ["C", "A"], ["B"], ["C", "B", "A"]):
        sub = hand_pool.subset(names)
        ref = Pool.from_runs({n: hand_pool.run(n) for n in names})
        assert sub.names == names and sub.num_systems == len(names)
        for depth in (None, 1, 2):
            pd.testing.assert_frame_equal(sub.counts(depth), ref.counts(depth))
        for n in names:
            pd.testing.assert_frame_equal(sub.run(n), ref.run(n))
        measures = ["P_rare(alpha=1)@2", "AP_rare(alpha=0.5)"]
        pd.testing.assert_frame_equal(sub.evaluate(hand_qrels, measures), ref.evaluate(hand_qrels, measures))


def test_subset_teams(hand_files: dict[str, Path]) -> None:
    teams = {"A": "t1", "B": "t1", "C": "t2"}
    pool = Pool.from_runs([hand_files[n] for n in "ABC"], teams=teams)
    sub = pool.subset(["A", "B"])
    assert sub.num_systems == 1 and sub.teams == {"A": "t1", "B": "t1"}
    ref = Pool.from_runs({n: pool.run(n) for n in "AB"}, teams=teams)
    pd.testing.assert_frame_equal(sub.counts(), ref.counts())
    assert pool.subset(["C", "A"]).teams == {"C": "t2", "A": "t1"}


def test_subset_errors(hand_pool: Pool) -> None:
    with pytest.raises(KeyError):
        hand_pool.subset(["A", "Z"])
    with pytest.raises(InputError):
        hand_pool.subset([])
    with pytest.raises(InputError):
        hand_pool.subset(["A", "A"])


def test_subset_round1_counts(covid_pool: Pool) -> None:
    names = covid_pool.names[3::7]
    sub = covid_pool.subset(names)
    ref = Pool.from_runs({n: covid_pool.run(n) for n in names})
    assert len(sub) == len(names) and sub.num_systems == len(names)
    pd.testing.assert_frame_equal(sub.counts(100), ref.counts(100))
    pd.testing.assert_frame_equal(sub.counts(10), ref.counts(10))


# ------------------------------------------------------------------ Algorithm 1


def test_subset_scorer_equals_scoring_the_subset_pool(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    scorer = SubsetScorer(covid_pool, covid_qrels)
    rng = np.random.default_rng(5)
    # the first six score the sample's relevant rows only, the others all its rows
    for measure in ["P_rare(alpha=1)@100", "AP_rare(alpha=0.5)@100", "P_rare(bounded=True)@10", "AP_rare",
                    "nDCG_rare(rel=2)@20", "R_rare(alpha=0.5)@100", "AP_rare(judged_only=True)@100", "ASL",
                    "R_rare(judged_only=True)@50", "U_novel@100", "U_novel"]:
        m = ir_measures.parse_measure(measure)
        picked = rng.choice(len(covid_pool), size=9, replace=False)
        names = [covid_pool.names[i] for i in picked]
        ref = evaluate_campaign(covid_pool.subset(names), covid_qrels, [m]).values[m]
        np.testing.assert_array_equal(scorer.scores(m, picked), ref)


@pytest.mark.filterwarnings("ignore::ir_rarity.errors.DegeneratePoolWarning")  # samples of one team
def test_subset_scorer_of_a_team_pool_equals_scoring_the_subset_pool(hand_files: dict[str, Path],
                                                                    hand_qrels: pd.DataFrame) -> None:
    pool = Pool.from_runs([hand_files[n] for n in "ABC"], teams={"A": "t1", "B": "t1", "C": "t2"})
    m = ir_measures.parse_measure("P_rare(alpha=1)@2")
    for picked in ([0, 1], [2, 0], [1, 2, 0]):
        ref = evaluate_campaign(pool.subset([pool.names[i] for i in picked]), hand_qrels, [m]).values[m]
        np.testing.assert_array_equal(SubsetScorer(pool, hand_qrels).scores(m, picked), ref)


def test_robustness_hand(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    # P_rare@2 means: full pool A > B = C. Sample {A, B} or {A, C}: tau 1. Sample {B, C}: B and C still tie on
    # their own (d2 is retrieved by both, so its rarity is 0), tau undefined. N = 3 is the full pool: tau 1.
    table = system_count_robustness(hand_pool, hand_qrels, "P_rare(alpha=1)@2", sizes=(2, 3), trials=30, seed=0)
    assert list(table.columns) == ["size", "mean_tau", "std", "trials", "undefined", "p2.5", "p97.5"]
    assert table["p2.5"].tolist() == pytest.approx([1.0, 1.0]) and table["p97.5"].tolist() == pytest.approx([1.0, 1.0])
    assert list(table["size"]) == [2, 3]
    assert table["mean_tau"].tolist() == pytest.approx([1.0, 1.0])
    assert 0 < table["undefined"].iloc[0] < 30
    assert table["undefined"].iloc[1] == 0


def test_robustness_errors(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    with pytest.raises(ParameterError):
        system_count_robustness(hand_pool, hand_qrels, "P@2", sizes=(2,), trials=2)
    with pytest.raises(ParameterError):
        system_count_robustness(hand_pool, hand_qrels, "P_rare@2", sizes=(4,), trials=2)
    with pytest.raises(ParameterError):
        system_count_robustness(hand_pool, hand_qrels, "P_rare@2", sizes=(1,), trials=2)
    with pytest.raises(ParameterError):
        system_count_robustness(hand_pool, hand_qrels, "P_rare@2", sizes=(2,), trials=0)
    other = hand_pool.subset(list(hand_pool.names))
    with pytest.raises(ParameterError, match="another pool"):
        system_count_robustness(hand_pool, hand_qrels, "P_rare@2", sizes=(2,), trials=2,
                                scorer=SubsetScorer(other, hand_qrels))


def test_robustness_with_a_shared_scorer_equals_one_of_its_own(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    scorer = SubsetScorer(hand_pool, hand_qrels)
    for measure in ("P_rare(alpha=1)@2", "AP_rare(alpha=1)@2"):  # one scorer for both, as the report uses it
        shared = system_count_robustness(hand_pool, hand_qrels, measure, sizes=(2, 3), trials=20, seed=3,
                                         scorer=scorer)
        own = system_count_robustness(hand_pool, hand_qrels, measure, sizes=(2, 3), trials=20, seed=3)
        pd.testing.assert_frame_equal(shared, own)


def test_robustness_teams_uses_subset(hand_files: dict[str, Path], hand_qrels: pd.DataFrame) -> None:
    pool = Pool.from_runs([hand_files[n] for n in "ABC"], teams={"A": "t1", "B": "t1", "C": "t2"})
    table = system_count_robustness(pool, hand_qrels, "P_rare(alpha=1)@2", sizes=(2, 3), trials=10, seed=1)
    assert table["mean_tau"].dropna().between(-1, 1).all()


def test_robustness_round1_deterministic(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    args = (covid_pool, covid_qrels, "AP_rare(alpha=1)@100")
    first = system_count_robustness(*args, sizes=(2, 4, 16), trials=15, seed=7)
    again = system_count_robustness(*args, sizes=(2, 4, 16), trials=15, seed=7)
    pd.testing.assert_frame_equal(first, again)
    assert first["mean_tau"].between(-1, 1).all()
    assert (first["std"] >= 0).all()
    assert (first["undefined"] <= 15).all()
    # S_d from 16 of 143 runs barely changes the ranking of those 16 runs.
    assert first["mean_tau"].iloc[-1] > 0.8


# ------------------------------------------------------------------ Section 3 synthetic experiment


def test_synthetic_hand(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    # q1: relevant d1 (S_d 1 at depth 2), d2 (S_d 3), d5 (S_d 0); real P_rare@2 on q1 with S = 3:
    # alpha 0: A 1, B 0.5, C 0.5; alpha 1: A 4/3, B 0.5, C 0.5. The newcomer makes S = 4.
    curve = synthetic_rank_curve(hand_pool, hand_qrels, "q1", measure_cutoff=2, alphas=(0, 1))
    assert list(curve.columns) == ["system", "alpha", "n_relevant", "rank", "value", "num_systems"]
    got = {(r.system, r.alpha, r.n_relevant): (r.rank, r.value) for r in curve.itertuples()}
    assert len(got) == 8
    # The real systems are rescored with the newcomer in the pool (S = 4, its documents counted in S_d).
    # rare, alpha 1: each simulated doc has S_d = 1 of S = 4, weight 1 + 3/4; A becomes (1.75 + 1.25)/2 = 1.5.
    assert got[("rare", 1.0, 1)] == (2, pytest.approx(1.75 / 2))
    assert got[("rare", 1.0, 2)] == (1, pytest.approx(1.75))
    # common, alpha 1: d2 first (S_d 3 + 1 = 4, weight 1): 0.5, below A's (1.75 + 1)/2 = 1.375. Then d1 too
    # (S_d 1 + 1 = 2, weight 1.5): 1.25, and A, with the same S_d, also scores (1.5 + 1)/2 = 1.25: a tie.
    assert got[("common", 1.0, 1)] == (2, pytest.approx(0.5))
    assert got[("common", 1.0, 2)] == (1, pytest.approx(1.25))
    # alpha 0 is P@2: both systems alike, and a tie with A goes to the newcomer.
    for system in ("rare", "common"):
        assert got[(system, 0.0, 1)] == (2, pytest.approx(0.5))
        assert got[(system, 0.0, 2)] == (1, pytest.approx(1.0))
    assert (curve["num_systems"] == 4).all()


def test_synthetic_errors(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    with pytest.raises(InputError):
        synthetic_rank_curve(hand_pool, hand_qrels, "nope", measure_cutoff=2)
    with pytest.raises(ParameterError):
        synthetic_rank_curve(hand_pool, hand_qrels, "q1", measure_cutoff=0)
    with pytest.raises(ParameterError):
        synthetic_rank_curve(hand_pool, hand_qrels, "q1", measure_cutoff=2, max_relevant=0)


def test_synthetic_round1_alpha_zero_curves_coincide(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    curve = synthetic_rank_curve(covid_pool, covid_qrels, "12", alphas=(0, 1), max_relevant=60)
    zero = curve[curve["alpha"] == 0].pivot(index="n_relevant", columns="system", values="rank")
    assert (zero["rare"] == zero["common"]).all()
    assert zero["rare"].is_monotonic_decreasing
    one = curve[curve["alpha"] == 1].pivot(index="n_relevant", columns="system", values="rank")
    assert (one["rare"] <= one["common"]).all()  # rare relevant documents are worth more
    assert curve["rank"].between(1, len(covid_pool) + 1).all()


def _topic_6_with_synthetic(qrels: pd.DataFrame, n: int) -> tuple[pd.DataFrame, list[str], pd.DataFrame]:
    """Topic 6's judgments, the docnos of n simulated relevant documents, and the qrels extended with them."""
    topic = qrels[qrels["query_id"] == "6"]
    rare = [f"ir_rarity-synthetic-{i:04d}" for i in range(1, n + 1)]
    extended = pd.concat([topic, pd.DataFrame({"query_id": "6", "doc_id": rare, "relevance": 1})],
                         ignore_index=True)
    return topic, rare, extended


def test_synthetic_prefix_rows_equal_run_rows(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    curve = synthetic_rank_curve(covid_pool, covid_qrels, "6", alphas=(0.5,), max_relevant=40)
    _, rare, extended = _topic_6_with_synthetic(covid_qrels, 40)
    m = ir_measures.parse_measure("P_rare(alpha=0.5)@100")
    for n in (1, 17, 40):
        run = pd.DataFrame({"query_id": "6", "doc_id": rare[:n], "score": np.arange(n, 0, -1.0)})
        direct = float(evaluate_campaign(covid_pool, extended, [m], {"rare": run}).values[m][0, 0])
        row = curve[(curve["system"] == "rare") & (curve["n_relevant"] == n)]
        assert float(row["value"].iloc[0]) == direct


def test_newcomer_prefixes_equal_the_cut_runs_scored_alone(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    """Every query's ranking cut at n scores as the cut run itself, for measures of every family."""
    run = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2"], "doc_id": ["d5", "d1", "d3", "d1", "y"],
                        "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
    measures = [ir_measures.parse_measure(m) for m in ("P_rare(alpha=1)@2", "AP_rare(alpha=0.5)", "R_rare@2",
                                                       "nDCG_rare@3", "ASL", "AP_rare(judged_only=True)")]
    got = newcomer_prefix_scores(hand_pool, hand_qrels, measures, run, [1, 2, 3])
    for i, n in enumerate((1, 2, 3)):
        cut = run.groupby("query_id").head(n)
        alone = evaluate_campaign(hand_pool, hand_qrels, measures, {"new": cut})
        for m in measures:
            np.testing.assert_array_equal(got[m].newcomer[i], alone.values[m][0])
            assert got[m].members.shape == (3, len(hand_pool), 2)


def test_members_with_a_newcomer_equal_a_really_joined_pool(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    run = pd.DataFrame({"query_id": ["q1", "q1", "q1"], "doc_id": ["d5", "d1", "d4"], "score": [3.0, 2.0, 1.0]})
    measures = [ir_measures.parse_measure(m) for m in ("P_rare(alpha=1)@2", "R_rare(alpha=0.5)@2", "AP_rare@3")]
    got = newcomer_prefix_scores(hand_pool, hand_qrels, measures, run, [1, 2, 3])
    for i, n in enumerate((1, 2, 3)):
        joined = Pool.from_runs({**{name: hand_pool.run(name) for name in hand_pool.names}, "new": run.head(n)})
        values = evaluate_campaign(joined, hand_qrels, measures).values
        for m in measures:
            np.testing.assert_allclose(got[m].members[i], values[m][:-1], rtol=0, atol=1e-12)
            np.testing.assert_allclose(got[m].newcomer[i], values[m][-1], rtol=0, atol=1e-12)


def test_newcomer_prefix_lengths_must_be_positive(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d5"], "score": [1.0]})
    with pytest.raises(ParameterError):
        newcomer_prefix_scores(hand_pool, hand_qrels, [ir_measures.parse_measure("P_rare@2")], run, [0])


@pytest.mark.slow
def test_synthetic_rank_equals_a_really_joined_pool(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    curve = synthetic_rank_curve(covid_pool, covid_qrels, "6", alphas=(1.0,), max_relevant=30)
    topic, rare, extended = _topic_6_with_synthetic(covid_qrels, 30)
    campaign = {name: covid_pool.run(name) for name in covid_pool.names}
    for system in ("rare", "common"):
        for n in (5, 30):
            row = curve[(curve["system"] == system) & (curve["n_relevant"] == n)]
            if row.empty:
                continue
            docs = rare[:n] if system == "rare" else None
            if docs is None:  # the common system's documents: the n most retrieved relevant ones
                counts = covid_pool.counts(100)
                counts = counts[counts["query_id"] == "6"].set_index("doc_id")["S_d"]
                relevant = topic.loc[topic["relevance"] >= 1, "doc_id"]
                ranked = sorted(relevant, key=lambda d: (-counts.get(d, 0), d))
                docs = ranked[:n]
            hyp = pd.DataFrame({"query_id": "6", "doc_id": docs, "score": np.arange(n, 0, -1.0)})
            joined = Pool.from_runs({**campaign, "hypothetical": hyp})
            values = joined.evaluate(extended, ["P_rare@100"])["P_rare@100"]
            # evaluate() averages over the qrels' queries: here only topic 6, so these are topic-6 values.
            rank = 1 + int((values.drop("hypothetical") > values["hypothetical"]).sum())
            assert int(row["rank"].iloc[0]) == rank, (system, n)
            assert float(row["value"].iloc[0]) == pytest.approx(values["hypothetical"], abs=1e-12)
