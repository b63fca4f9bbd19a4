"""The campaign objects' own evaluate methods are deprecated: they warn, and give the front door's values."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest

import ir_rarity
from ir_rarity import CountTable, Pool

MEASURES = ["P_rare(alpha=0.5)@2", "P@2", "AP@2"]


def test_pool_evaluate_warns_and_equals_the_front_door(hand_files: dict[str, Path]) -> None:
    pool = Pool.from_runs([hand_files[n] for n in "ABC"])
    door = ir_rarity.evaluate(pool, hand_files["qrels"], MEASURES)
    with pytest.warns(DeprecationWarning, match=r"Pool\.evaluate is deprecated: use ir_rarity\.evaluate\(pool"):
        table = pool.evaluate(hand_files["qrels"], MEASURES)
    pd.testing.assert_frame_equal(table, door.table())
    with pytest.warns(DeprecationWarning, match=r"Pool\.evaluation is deprecated"):
        evaluation = pool.evaluation(hand_files["qrels"], MEASURES)
    pd.testing.assert_frame_equal(evaluation.long(), door.long())


def test_count_table_evaluate_warns_and_equals_the_front_door(hand_files: dict[str, Path]) -> None:
    pool = Pool.from_runs([hand_files[n] for n in "ABC"])
    table = CountTable.from_pool(pool, 2)
    new = {"mine": pool.run(pool.names[0]).iloc[::-1].assign(score=lambda f: range(len(f)))}
    door = ir_rarity.evaluate(new, hand_files["qrels"], MEASURES, pool=table)
    with pytest.warns(DeprecationWarning, match=r"CountTable\.evaluate is deprecated"):
        old = table.evaluate(hand_files["qrels"], MEASURES, new)
    pd.testing.assert_frame_equal(old, door.table())


def test_the_front_door_does_not_warn(hand_files: dict[str, Path]) -> None:
    pool = Pool.from_runs([hand_files[n] for n in "ABC"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        ir_rarity.evaluate(pool, hand_files["qrels"], MEASURES)
