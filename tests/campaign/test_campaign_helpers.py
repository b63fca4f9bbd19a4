"""Campaign helpers: judging pool, unjudged share, unique relevant documents, leave-one-team-out.

Hand campaign of conftest.py. Qrels: q1: d1=2, d2=1, d3=0, d5=1; q2: d1=1; d4, d6 and x are unjudged.
Runs in trec_eval order: A q1 = d1 d2 d3 d4, A q2 = d1; B q1 = d2 d4 d1; C q1 = d3 d2 d6, C q2 = x.
Top 2: A q1 d1 d2, q2 d1; B q1 d2 d4; C q1 d3 d2, q2 x.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ir_rarity import ParameterError, Pool, campaign


def test_judging_pool_by_hand(hand_pool: Pool) -> None:
    # Union of the top 2: q1 d1 (A), d2 (A, B, C), d3 (C), d4 (B); q2 d1 (A), x (C).
    got = campaign.judging_pool(hand_pool, 2)
    assert got.to_dict("list") == {"query_id": ["q1", "q1", "q1", "q1", "q2", "q2"],
                                   "doc_id": ["d1", "d2", "d3", "d4", "d1", "x"],
                                   "n_runs": [1, 3, 1, 1, 1, 1]}


def test_judging_pool_matches_a_groupby_on_round1(covid_pool: Pool) -> None:
    frames = [covid_pool.run(n) for n in covid_pool.names]
    top = pd.concat([f.loc[f["rank"] <= 5, ["query_id", "doc_id"]] for f in frames], ignore_index=True)
    expected = top.groupby(["query_id", "doc_id"], sort=True).size().rename("n_runs").reset_index()
    got = campaign.judging_pool(covid_pool, 5)
    pd.testing.assert_frame_equal(got, expected, check_dtype=False)


def test_unjudged_share_by_hand(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    # Top 2: A d1 d2 + d1 -> 0 of 3; B d2 d4 -> 1 of 2 (d4); C d3 d2 + x -> 1 of 3 (x).
    two = campaign.unjudged_share(hand_pool, hand_qrels, 2)
    assert two["n_retrieved"].to_dict() == {"A": 3, "B": 2, "C": 3}
    assert two["n_unjudged"].to_dict() == {"A": 0, "B": 1, "C": 1}
    assert two["unjudged_share"].to_numpy() == pytest.approx([0, 1 / 2, 1 / 3])
    # Top 3: A d1 d2 d3 + d1 -> 0 of 4; B d2 d4 d1 -> 1 of 3; C d3 d2 d6 + x -> 2 of 4.
    three = campaign.unjudged_share(hand_pool, hand_qrels, 3)
    assert three["unjudged_share"].to_numpy() == pytest.approx([0, 1 / 3, 1 / 2])


def test_unique_relevant_by_run_and_team(hand_files: dict[str, Path], hand_pool: Pool,
                                         hand_qrels: pd.DataFrame) -> None:
    # Top 2, relevant: A q1 d1, d2, q2 d1; B q1 d2; C q1 d2 (d3 has label 0). d2 is shared: A has 2 unique.
    counts, docs = campaign.unique_relevant(hand_pool, hand_qrels, 2)
    assert counts.to_dict() == {"A": 2, "B": 0, "C": 0}
    assert docs.to_dict("list") == {"run": ["A", "A"], "query_id": ["q1", "q2"], "doc_id": ["d1", "d1"],
                                    "relevance": [2, 1]}
    # Top 3: B has q1 d1 at rank 3, so only q2 d1 stays unique to A.
    assert campaign.unique_relevant(hand_pool, hand_qrels, 3).counts.to_dict() == {"A": 1, "B": 0, "C": 0}
    # Teams t1 = {A, B}, t2 = {C}: q1 d1 (A and B) and q2 d1 (A) are both unique to t1.
    teams = Pool.from_runs([hand_files[n] for n in "ABC"], teams={"A": "t1", "B": "t1", "C": "t2"})
    counts, docs = campaign.unique_relevant(teams, hand_qrels, 3, by="team")
    assert counts.to_dict() == {"t1": 2, "t2": 0}
    assert list(docs["team"]) == ["t1", "t1"]
    # by="run" ignores teams: A and B share q1 d1.
    assert campaign.unique_relevant(teams, hand_qrels, 3, by="run").counts.to_dict() == {"A": 1, "B": 0, "C": 0}


def test_leave_one_team_out_by_hand(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    # No teams: each run is its own team. Depth 2.
    got = campaign.leave_one_team_out(hand_pool, hand_qrels, ["P@2", "P_rare@2"], depth=2, teams=["A", "C"])
    got = got.set_index(["run", "measure"])
    # Without A: its unique relevant q1 d1 and q2 d1 become non-relevant (n_unique 2).
    # P@2: A q1 d2 only -> 1/2, q2 0 -> 1/4 (was 3/4). B and C keep 1/4, so A ties them: rank 1 -> 1.
    a = got.loc[("A", "P@2")]
    assert (a["n_unique"], a["score"], a["rank"], a["score_without"], a["rank_without"]) == \
        (2, pytest.approx(3 / 4), 1, pytest.approx(1 / 4), 1)
    # P_rare@2: A joins the pool {B, C} as a newcomer: S = 3, d2 in the top 2 of B, C and A -> R = 0; 1/2 on q1,
    # mean 1/4 (was 13/12). B, C in the pool {B, C}: S = 2, d2 S_d = 2 -> 1/4 each.
    a = got.loc[("A", "P_rare@2")]
    assert (a["score"], a["score_without"], a["rank_without"]) == (pytest.approx(13 / 12), pytest.approx(1 / 4), 1)
    # Without C: C has no unique relevant document; qrels unchanged. C newcomer to {A, B}: d2 S_d 3 of S 3 -> 1/4.
    # A in {A, B}: S = 2: q1 d1 (1 + 1/2) + d2 1 -> 5/4; q2 d1 3/2 -> 3/4; mean 1 > 1/4: C ranks 2 (B ties).
    c = got.loc[("C", "P_rare@2")]
    assert (c["n_unique"], c["score"], c["rank"], c["score_without"], c["rank_without"], c["rank_change"]) == \
        (0, pytest.approx(1 / 4), 2, pytest.approx(1 / 4), 2, 0)


def test_leave_one_team_out_on_round1(covid_qrels: pd.DataFrame) -> None:
    from ir_rarity import covid_round1

    pool = Pool.from_runs(covid_round1.runs, split_by_tag=True, teams=(covid_round1.leaderboard, "team"))
    got = campaign.leave_one_team_out(pool, covid_qrels, ["P_rare(alpha=0)@10", "P_rare@10"], 10,
                                      teams=["sabir", "GUIR_S2"])
    unique = campaign.unique_relevant(pool, covid_qrels, 10, by="team").counts
    assert set(got["run"]) == {n for n, t in pool.teams.items() if t in ("sabir", "GUIR_S2")}
    for team, part in got.groupby("team"):
        assert (part["n_unique"] == unique[team]).all() and unique[team] > 0
    p10 = got[got.measure == "P_rare(alpha=0.0)@10"]
    # P@10 can only fall when relevant documents become non-relevant; it falls for these teams.
    assert (p10["score_without"] <= p10["score"] + 1e-15).all() and (p10["score_without"] < p10["score"]).any()
    full = pool.evaluate(covid_qrels, ["P_rare@10"])["P_rare@10"]
    rare = got[got.measure == "P_rare@10"].set_index("run")
    np.testing.assert_allclose(rare["score"], full[rare.index], rtol=0, atol=0)
    assert (rare["rank_change"] == rare["rank_without"] - rare["rank"]).all()


def test_campaign_errors(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    with pytest.raises(ParameterError, match="depth"):
        campaign.judging_pool(hand_pool, 0)
    with pytest.raises(ParameterError, match="by must be"):
        campaign.unique_relevant(hand_pool, hand_qrels, 2, by="org")
    with pytest.raises(ParameterError, match="unknown team"):
        campaign.leave_one_team_out(hand_pool, hand_qrels, ["P_rare@2"], 2, teams=["Z"])
    solo = hand_pool.subset(["A"])
    with pytest.raises(ParameterError, match="two teams"):
        campaign.leave_one_team_out(solo, hand_qrels, ["P_rare@2"], 2)
