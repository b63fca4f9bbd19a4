"""Section 5.2 extensions (graded gain, log rarity, per-topic alpha), nDCG_rare and teams from a leaderboard.

Hand campaign of conftest.py. Qrels: q1: d1=2, d2=1, d3=0, d5=1; q2: d1=1 (N_R: q1 3, q2 1).
Runs in trec_eval order: A q1 = d1 d2 d3 d4, A q2 = d1; B q1 = d2 d4 d1; C q1 = d3 d2 d6, C q2 = x. S = 3.
S_d in the top 2: q1: d1=1 (A), d2=3, d3=1, d4=1; q2: d1=1. In the top 3: q1: d1=2 (A, B), d2=3, d3=2.
"""

from __future__ import annotations

import math
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

from ir_rarity import ParameterError, Pool, covid_round1, nDCG_rare
from ir_rarity.errors import InputError

L = math.log(1.5) / math.log(3)  # log rarity of a document 2 of 3 systems retrieve: log(3/2)/log(3)
C = 1 / math.log2(3)  # weight of rank 2 in DCG: 1/log2(2 + 1)

EXPECTED = {
    # gain='graded', alpha=1, R = 1 - S_d/3. A q1: d1 2*(1 + 2/3) = 10/3, d2 1*(1 + 0) -> (13/3)/2 = 13/6;
    # A q2: d1 1*(5/3) -> 5/6; mean 3/2. B q1: d2 -> 1/2, q2 absent -> 1/4. C q1: d2 -> 1/2 (d3 has label 0).
    "P_rare(gain='graded')@2": {"A": 3 / 2, "B": 1 / 4, "C": 1 / 4},
    # weighting='log', top 2: R(d1) = log(3/1)/log(3) = 1, R(d2) = log(3/3)/log(3) = 0.
    # A q1 (2 + 1)/2, q2 2/2 -> 5/4. B and C: d2 only -> 1/4.
    "P_rare(weighting='log')@2": {"A": 5 / 4, "B": 1 / 4, "C": 1 / 4},
    # weighting='log', top 3: R(d1) = R(d3) = L, R(d2) = 0. A q1: d1 1 + L, d2 1 -> (2 + L)/3; q2 d1 (S_d = 1)
    # 2/3; mean (4 + L)/6. B q1: d2 1, d1 1 + L -> (2 + L)/3, q2 0 -> (2 + L)/6. C q1: d2 1 -> 1/3 -> 1/6.
    "P_rare(weighting='log')@3": {"A": (4 + L) / 6, "B": (2 + L) / 6, "C": 1 / 6},
    # Bounded and log: (1 - a) + a R with R(d1) = 1, R(d2) = 0, a = 0.5. A q1 (1 + 0.5)/2, q2 1/2 -> 5/8.
    "P_rare(alpha=0.5,bounded=True,weighting='log')@2": {"A": 5 / 8, "B": 1 / 8, "C": 1 / 8},
    # alpha_per_topic: alpha(q1) = 1/3, alpha(q2) = 1/1. A q1: d1 1 + (1/3)(2/3) = 11/9, d2 1 -> (20/9)/2 = 10/9;
    # A q2: 1 + 2/3 -> 5/6; mean (10/9 + 5/6)/2 = 35/36. B, C: d2 only (R = 0) -> 1/4.
    "P_rare(alpha_per_topic=True)@2": {"A": 35 / 36, "B": 1 / 4, "C": 1 / 4},
    # AP_rare graded, full depth, S_d: q1 d1=2, d2=3; q2 d1=1. A q1: rank 1 d1 2*(1 + 1/3) = 8/3 -> P@1 8/3;
    # rank 2 d2 1 -> P@2 (8/3 + 1)/2 = 11/6; AP (8/3 + 11/6)/3 = 3/2. A q2: d1 1*(5/3) -> 5/3. Mean 19/12.
    # B q1: d2 1 -> 1; d1 at rank 3 8/3 -> (1 + 8/3)/3 = 11/9; AP (1 + 11/9)/3 = 20/27; mean 10/27.
    # C q1: d2 at rank 2 -> 1/2; AP (1/2)/3 = 1/6; mean 1/12.
    "AP_rare(gain='graded')": {"A": 19 / 12, "B": 10 / 27, "C": 1 / 12},
    # nDCG_rare@2 (graded, alpha=1). Ideal q1: 2 + 1*C (C = 1/log2(3), rank 2's discount); q2: 1.
    # A q1: d1 2*(5/3) = 10/3, d2 1*C -> (10/3 + C)/(2 + C); A q2: 5/3. B q1: d2 at rank 1 -> 1/(2 + C).
    # C q1: d3 (label 0) 0, d2 at rank 2 -> C/(2 + C).
    "nDCG_rare@2": {"A": ((10 / 3 + C) / (2 + C) + 5 / 3) / 2, "B": 1 / (2 + C) / 2, "C": C / (2 + C) / 2},
    # alpha=0: nDCG@2. A q1 (2 + C)/(2 + C) = 1, q2 1 -> 1.
    "nDCG_rare(alpha=0.0)@2": {"A": 1.0, "B": 1 / (2 + C) / 2, "C": C / (2 + C) / 2},
    # gain='binary': ideal q1 1 + C. A q1: d1 5/3, d2 C -> (5/3 + C)/(1 + C); q2 5/3.
    "nDCG_rare(gain='binary')@2": {"A": ((5 / 3 + C) / (1 + C) + 5 / 3) / 2, "B": 1 / (1 + C) / 2,
                                   "C": C / (1 + C) / 2},
}


@pytest.mark.parametrize("measure", sorted(EXPECTED))
def test_extensions_match_hand_values(hand_pool: Pool, hand_qrels: pd.DataFrame, measure: str) -> None:
    table = hand_pool.evaluate(hand_qrels, [measure])
    name = str(ir_measures.parse_measure(measure))
    for run, value in EXPECTED[measure].items():
        assert table.loc[run, name] == pytest.approx(value, abs=1e-14), run


@pytest.mark.parametrize("measure", ["P_rare(gain='graded')@2", "nDCG_rare@2", "P_rare(alpha_per_topic=True)@2"])
def test_extensions_through_ir_measures(hand_pool: Pool, hand_qrels: pd.DataFrame, measure: str) -> None:
    parsed = ir_measures.parse_measure(measure)
    with hand_pool:
        for run, value in EXPECTED[measure].items():
            got = ir_measures.calc_aggregate([parsed], hand_qrels, hand_pool.run(run))[parsed]
            assert got == pytest.approx(value, abs=1e-14)


def test_defaults_keep_reprs_and_values(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    assert str(ir_measures.parse_measure("P_rare(alpha=0.5)@100")) == "P_rare(alpha=0.5)@100"
    assert str(ir_measures.parse_measure("AP_rare")) == "AP_rare"
    explicit = ir_measures.parse_measure("P_rare(gain='binary',weighting='linear',alpha_per_topic=False)@2")
    assert str(explicit) == "P_rare@2"  # defaults are left out of the name
    plain = hand_pool.evaluate(hand_qrels, ["P_rare@2"])["P_rare@2"]
    assert (hand_pool.evaluate(hand_qrels, [explicit])["P_rare@2"] == plain).all()


def test_log_rarity_with_one_system_is_zero(hand_qrels: pd.DataFrame) -> None:
    # S = 1: log(S) = 0, so R = 0 and P_rare = P: q1 d1 relevant at rank 1 -> 1, q2 absent -> 0; mean 1/2.
    pool = Pool.from_runs({"solo": pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]})})
    assert pool.evaluate(hand_qrels, ["P_rare(weighting='log')@1"]).iloc[0, 0] == 0.5


def test_bad_extension_parameters() -> None:
    from ir_rarity import P_rare

    with pytest.raises(ParameterError, match="alpha_per_topic"):
        (P_rare(alpha=0.5, alpha_per_topic=True) @ 2).validate_params()
    with pytest.raises(ParameterError, match="gain"):
        (P_rare(gain="exp") @ 2).validate_params()
    with pytest.raises(ParameterError, match="weighting"):
        (P_rare(weighting="sqrt") @ 2).validate_params()


def test_ndcg_rare_alpha_zero_is_pytrec_eval_ndcg_on_round1(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    pairs = [("nDCG_rare(alpha=0)", "nDCG"), ("nDCG_rare(alpha=0)@10", "nDCG@10"),
             ("nDCG_rare(alpha=0)@100", "nDCG@100")]
    names = [str(ir_measures.parse_measure(m)) for pair in pairs for m in pair]
    long = covid_pool.evaluate(covid_qrels, names, by_query=True)
    table = long.pivot_table(index=["run", "query_id"], columns="measure", values="value")
    assert len(table) == 143 * 30
    for ours, theirs in zip(names[::2], names[1::2], strict=True):
        np.testing.assert_allclose(table[ours], table[theirs], rtol=0, atol=1e-12)
        assert table[theirs].sum() > 0
    # With alpha > 0 every relevant document weighs at least as much, so nDCG_rare >= nDCG.
    rare = covid_pool.evaluate(covid_qrels, ["nDCG_rare@10"], by_query=True)["value"].to_numpy()
    base = long[long.measure == "nDCG@10"]["value"].to_numpy()
    assert (rare >= base - 1e-12).all() and (rare > base).any()


def test_teams_from_a_leaderboard_csv(hand_files: dict[str, Path], hand_qrels: pd.DataFrame, tmp_path: Path) -> None:
    board = tmp_path / "board.csv"
    board.write_text("run,team,org\nA,t1,x\nB,t1,y\nC,t2,y\n")
    runs = [hand_files[n] for n in "ABC"]
    by_tuple = Pool.from_runs(runs, teams=(board, "team"))
    by_string = Pool.from_runs(runs, teams=f"{board}:team")
    by_path = Pool.from_runs(runs, teams=str(board))  # column "team" by default
    for pool in (by_tuple, by_string, by_path):
        assert pool.num_systems == 2
        assert pool.teams == {"A": "t1", "B": "t1", "C": "t2"}
    assert Pool.from_runs(runs, teams=f"{board}:org").teams == {"A": "x", "B": "y", "C": "y"}
    # Teams t1 = {A, B}, t2 = {C}: S = 2; top-2 S_d q1: d1 1 (t1), d2 2; q2: d1 1.
    # A q1: d1 1 + 1/2, d2 1 -> (5/2)/2 = 5/4; q2 (3/2)/2 = 3/4; mean 1.
    assert by_tuple.evaluate(hand_qrels, ["P_rare@2"]).loc["A", "P_rare@2"] == pytest.approx(1.0, abs=1e-15)
    with pytest.raises(InputError, match="no column 'nope'"):
        Pool.from_runs(runs, teams=(board, "nope"))
    with pytest.raises(InputError, match="no such teams file"):
        Pool.from_runs(runs, teams=str(tmp_path / "missing.csv"))


def test_round1_teams_from_the_leaderboard() -> None:
    from ir_rarity.pool.teams import read_teams

    board = covid_round1.leaderboard
    assert read_teams(f"{board}:team") == read_teams((board, "team"))
    assert Pool.from_runs(covid_round1.runs, split_by_tag=True, teams=(board, "team")).num_systems == 56


def test_ndcg_rare_is_exported() -> None:
    assert ir_measures.parse_measure("nDCG_rare@10") == nDCG_rare @ 10
