"""Pool composition: leave-one-team-out equals a pool built from scratch without the team; seeded bootstrap."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ir_rarity import Pool, covid_round1
from ir_rarity.compare import composition
from ir_rarity.compare.uncertainty import ranks
from ir_rarity.engine.weighted import WeightedCampaign, values_under
from ir_rarity.errors import MemberNotice, ParameterError
from ir_rarity.evaluation import evaluate_campaign as evaluate
from ir_rarity.measures.parse import parse_measures
from ir_rarity.pool.teams import read_teams

MEASURES = ["P_rare(alpha=0.5)@100", "AP_rare@100", "R_rare@100", "U_novel@100"]
MEASURES_PARSED = parse_measures(MEASURES)


@pytest.fixture(scope="module")
def team_pool() -> Pool:
    return Pool.from_runs(covid_round1.runs, split_by_tag=True, teams=(covid_round1.leaderboard, "team"))


@pytest.mark.parametrize("team", ["sabir", "GUIR_S2", "udel_fang"])
def test_leave_one_team_out_equals_a_pool_built_without_the_team(team_pool, covid_qrels, team):
    teams = read_teams((covid_round1.leaderboard, "team"))
    campaign = WeightedCampaign(team_pool, team_pool.encode_qrels(covid_qrels))
    weights = np.ones(campaign.num_systems)
    weights[campaign.system_names.index(team)] = 0.0
    got = campaign.values(weights, MEASURES_PARSED)
    names = team_pool.names
    others = [n for n in names if teams[n] != team]
    gone = [n for n in names if teams[n] == team]
    scratch = Pool.from_runs({n: team_pool.run(n) for n in others}, teams={n: teams[n] for n in others})
    assert scratch.num_systems == campaign.num_systems - 1
    members = evaluate(scratch, covid_qrels, MEASURES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemberNotice)
        newcomers = evaluate(scratch, covid_qrels, MEASURES, {n: team_pool.run(n) for n in gone})
    for m in members.measures:
        np.testing.assert_allclose(got[m][[names.index(n) for n in others]], members.values[m], rtol=1e-12, atol=0)
        np.testing.assert_allclose(got[m][[names.index(n) for n in gone]], newcomers.values[m], rtol=1e-12, atol=0)


@pytest.mark.slow
def test_composition_ranges_hold_the_scratch_values(team_pool, covid_qrels):
    table = composition(team_pool, covid_qrels, ["P_rare(alpha=0.5)@100"], resamples=30, seed=1)
    m = "P_rare(alpha=0.5)@100"
    full = team_pool.evaluate(covid_qrels, [m])[m]
    np.testing.assert_array_equal(table[m].to_numpy(), full.to_numpy())
    np.testing.assert_array_equal(table[f"{m} rank"].to_numpy(), ranks(full.to_numpy()))
    teams = read_teams((covid_round1.leaderboard, "team"))
    for team in ("sabir", "GUIR_S2"):
        others = [n for n in team_pool.names if teams[n] != team]
        scratch = Pool.from_runs({n: team_pool.run(n) for n in others}, teams={n: teams[n] for n in others})
        values = scratch.evaluate(covid_qrels, [m])[m]
        assert (table.loc[others, f"{m} loto low"] <= values + 1e-12).all()
        assert (table.loc[others, f"{m} loto high"] >= values - 1e-12).all()
    assert (table[f"{m} loto low"] <= table[m]).all() and (table[m] <= table[f"{m} loto high"]).all()
    assert (table[f"{m} loto rank best"] <= table[f"{m} rank"]).all()
    assert (table[f"{m} boot rank low"] <= table[f"{m} boot rank high"]).all()
    again = composition(team_pool, covid_qrels, [m], resamples=30, seed=1)
    assert table.equals(again)  # seeded


def test_weights_count_a_system_as_often_as_drawn(hand_pool, hand_qrels):
    campaign = WeightedCampaign(hand_pool, hand_pool.encode_qrels(hand_qrels))
    rows = campaign.rows(np.array([2.0, 1.0, 0.0]))  # A drawn twice, B once, C not (a newcomer)
    s_d, num_systems = rows.s_d(2)
    assert num_systems.tolist() == [3.0, 3.0, 4.0]  # S = 2 + 1; C scored as if it alone joined: S + 1
    queries, docs = hand_pool.encoded.decode(rows.keys())
    within = rows.rank < 2
    got = {(int(r), str(q), str(d)): float(c) for r, q, d, c, w in zip(rows.run, queries, docs, s_d, within,
                                                                       strict=True) if w}
    # By hand, top 2 per query (trec_eval order; C's q1 ties at 9.0 go docno descending: d3, d2):
    # A: q1 d1, d2; q2 d1. B: q1 d2, d4. C: q1 d3, d2; q2 x.
    assert got == {(0, "q1", "d1"): 2, (0, "q1", "d2"): 3, (0, "q2", "d1"): 2,
                   (1, "q1", "d2"): 3, (1, "q1", "d4"): 1,
                   (2, "q1", "d3"): 0 + 1, (2, "q1", "d2"): 3 + 1, (2, "q2", "x"): 0 + 1}


def test_composition_refuses_measures_that_do_not_depend_on_the_pool(hand_pool, hand_qrels):
    with pytest.raises(ParameterError, match=r"not depend on the pool"):
        composition(hand_pool, hand_qrels, ["P@2"])


def test_values_under_gives_each_weighting_as_the_pool_it_describes(hand_pool, hand_qrels):
    """Weights of 1 are the pool itself; a 0 scores that run as a newcomer against the others."""
    campaign = WeightedCampaign(hand_pool, hand_pool.encode_qrels(hand_qrels))
    measures = parse_measures(["P_rare(alpha=1)@2", "R_rare@2", "U_novel@2"])
    whole, without_c = values_under(campaign, [np.ones(3), np.array([1.0, 1.0, 0.0])], measures)
    pool = evaluate(hand_pool, hand_qrels, measures)
    others = hand_pool.subset(["A", "B"])
    members = evaluate(others, hand_qrels, measures)
    newcomer = evaluate(others, hand_qrels, measures, {"C": hand_pool.run("C")})
    for m in measures:
        np.testing.assert_array_equal(whole[m], pool.values[m])
        np.testing.assert_allclose(without_c[m][:2], members.values[m], rtol=1e-12, atol=0)
        np.testing.assert_allclose(without_c[m][2:], newcomer.values[m], rtol=1e-12, atol=0)
    with pytest.raises(ParameterError):
        campaign.values(np.ones(2), measures)
