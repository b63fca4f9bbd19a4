"""``Evaluation.describe()`` and ``attrs()`` state the S each run was scored with (the hand campaign of conftest).

Campaign A, B, C (S = 3). Qrels q1: d1=2, d2=1, d3=0, d5=1; q2: d1=1. At depth 2, S_d of q1: d1 1 (A), d2 3,
d3 1, d4 1; q2: d1 1. P_rare@2 (alpha 1, binary gain): a relevant document at rank <= 2 weighs 1 + (1 - S_d/S).
"""

from __future__ import annotations

import pandas as pd
import pytest

import ir_rarity
from ir_rarity import Pool
from ir_rarity.evaluation import evaluate_campaign

NEW = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d5", "d1"], "score": [2.0, 1.0]})
OTHER = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d5", "d6"], "score": [2.0, 1.0]})


def test_a_run_scored_alone_is_described_with_s_plus_itself(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    result = ir_rarity.evaluate({"N": NEW}, hand_qrels, ["P_rare@2"], pool=hand_pool)
    line = result.describe()
    assert "\n" not in line
    assert line.startswith("pool: S = 3 runs + the run itself (S = 4 for a run that is not a member; a run equal "
                           "to a member is scored as that member, S = 3); S_d at depth 2")
    # By hand with S = 4 (N joins alone): q1 d5 S_d 0 + 1 -> R 3/4, d1 S_d 1 + 1 -> R 1/2: (7/4 + 3/2)/2 = 13/8;
    # q2 not retrieved -> 0; mean 13/16. With S = 3 it would be (5/3 + 4/3)/2 / 2 = 3/4.
    assert result.table().loc["N", "P_rare@2"] == pytest.approx(13 / 16, abs=1e-15)
    attrs = result.attrs()
    assert (attrs["S"], attrs["S_newcomer"], attrs["scored"]) == (3, 4, "alone")


def test_a_member_scored_alone_keeps_the_campaign_s(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    copy_of_a = hand_pool.run("A").rename(columns={"query_id": "qid", "doc_id": "docno"})
    result = ir_rarity.evaluate({"copy": copy_of_a}, hand_qrels, ["P_rare@2"], pool=hand_pool)
    assert "a run equal to a member is scored as that member, S = 3)" in result.describe()
    assert result.table().loc["copy", "P_rare@2"] == pytest.approx(13 / 12, abs=1e-15)  # A's value with S = 3


def test_runs_joined_together_are_described_as_s_plus_k(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    result = ir_rarity.evaluate({"N": NEW, "M": OTHER}, hand_qrels, ["P_rare@2"], pool=hand_pool, joint=True)
    assert result.describe().startswith("pool joined by 2 evaluated runs: S = 3 + 2 joined = 5 runs; S_d at depth 2")
    # By hand with S = 5: q1 d5 S_d 2 (N, M) -> R 3/5, d1 S_d 2 (A, N) -> R 3/5: (8/5 + 8/5)/2 = 8/5; mean 4/5.
    assert result.table().loc["N", "P_rare@2"] == pytest.approx(4 / 5, abs=1e-15)
    assert result.attrs()["S"] == 5 and result.attrs()["joined"] == 2
    assert "S_newcomer" not in result.attrs()


def test_a_campaign_s_own_runs_are_described_with_its_s(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    result = evaluate_campaign(hand_pool, hand_qrels, ["P_rare@2"])
    assert result.describe() == "pool: S = 3 runs; S_d at depth 2; its own runs scored"
    assert "S_newcomer" not in result.attrs() and "joined" not in result.attrs()
