"""Warnings and notices name the user's line, not a line of ir_rarity, whatever door the call came through."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import ir_rarity
from ir_rarity import DegeneratePoolWarning, MemberNotice


def _caught(call) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [w for w in caught if issubclass(w.category, ir_rarity.RarityWarning)]


@pytest.mark.parametrize("door", ["evaluate", "Pool.evaluate", "evaluate_campaign"])
def test_a_warning_is_attributed_to_the_caller(door: str, hand_files, hand_qrels: pd.DataFrame) -> None:
    pool = ir_rarity.Pool.from_runs({"A": ir_rarity.read_trec_run(hand_files["A"])})
    calls = {
        "evaluate": lambda: ir_rarity.evaluate({"A": ir_rarity.read_trec_run(hand_files["A"])}, hand_qrels,
                                               ["P_rare@2"]),
        "Pool.evaluate": lambda: pool.evaluate(hand_qrels, ["P_rare@2"]),
        "evaluate_campaign": lambda: ir_rarity.evaluation.evaluate_campaign(pool, hand_qrels, ["P_rare@2"]),
    }
    caught = _caught(calls[door])
    assert [w.category for w in caught] == [DegeneratePoolWarning]
    assert caught[0].filename == __file__


def test_a_member_notice_is_attributed_to_the_caller(hand_pool: ir_rarity.Pool, hand_qrels: pd.DataFrame) -> None:
    caught = _caught(lambda: ir_rarity.evaluate({"copy": hand_pool.run("A")}, hand_qrels, ["P_rare@2"],
                                                pool=hand_pool))
    assert [w.category for w in caught] == [MemberNotice]
    assert caught[0].filename == __file__
