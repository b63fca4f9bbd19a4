"""Every table names a measure as the user gave it: ``'P_rare(alpha=0)@3'``, not ``'P_rare(alpha=0.0)@3'``.

The strings lose their whitespace outside quotes (``'P_rare( alpha=0.5,  cutoff=3 )'`` is the column
``'P_rare(alpha=0.5,cutoff=3)'``); a measure named twice (``'P_rare(alpha=1.0)@2'`` and ``'P_rare@2'``) is kept
once, under the first string; a measure given as an object is named ``str(measure)``. The values are those of the
parsed measures.
"""

from __future__ import annotations

import json
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import CountTable, Pool
from ir_rarity.cli import main
from ir_rarity.compare.table import campaign_table
from ir_rarity.measures.parse import measure_labels, parse_measure

GIVEN = ["P_rare(alpha=0)@3", "P_rare(alpha=1.0)@2", "P_rare@2", "P_rare( alpha=0.5,  cutoff=3 )", "nDCG@3"]
NAMES = ["P_rare(alpha=0)@3", "P_rare(alpha=1.0)@2", "P_rare(alpha=0.5,cutoff=3)", "nDCG@3"]
PARSED = [str(parse_measure(n)) for n in NAMES]


def _runs(hand_files: dict[str, Path]) -> list[Path]:
    return [hand_files[n] for n in "ABC"]


def _same_values(table: pd.DataFrame, reference: pd.DataFrame) -> None:
    assert list(table.columns) == NAMES
    np.testing.assert_array_equal(table.to_numpy(dtype=float), reference[PARSED].to_numpy(dtype=float))


def test_the_names_differ_from_the_parsed_strings() -> None:
    assert PARSED[0] == "P_rare(alpha=0.0)@3" and PARSED[1] == "P_rare@2"
    labels = measure_labels([*GIVEN, ir_measures.parse_measure("AP")])
    assert list(labels.values()) == [*NAMES, "AP"]


def test_evaluate_table_long_matrix(hand_files: dict[str, Path], hand_qrels: pd.DataFrame) -> None:
    result = ir_rarity.evaluate(_runs(hand_files), hand_qrels, GIVEN)
    reference = ir_rarity.evaluate(_runs(hand_files), hand_qrels, [parse_measure(n) for n in NAMES])
    assert list(reference.table().columns) == PARSED
    _same_values(result.table(), reference.table())
    for name, parsed in zip(NAMES, PARSED, strict=True):
        assert result.table()[name].equals(reference.table()[parsed].rename(name))
        by_name, by_object = result.matrix(name), result.matrix(parse_measure(name))
        pd.testing.assert_frame_equal(by_name, by_object)
        pd.testing.assert_frame_equal(by_name, reference.matrix(parsed), check_like=True)
        assert by_name.attrs["measure"] == name
        assert result.means(name).name == name
    assert result.matrix("P_rare@2").equals(result.matrix("P_rare(alpha=1.0)@2"))  # the first name's measure
    long = result.long()
    assert list(dict.fromkeys(long["measure"])) == NAMES
    np.testing.assert_array_equal(long["value"].to_numpy(), reference.long()["value"].to_numpy())
    assert result.select(["B", "A"]).table().columns.tolist() == NAMES


def test_pool_and_count_table_evaluate(hand_pool: Pool, hand_files: dict[str, Path], hand_qrels: pd.DataFrame
                                       ) -> None:
    reference = hand_pool.evaluate(hand_qrels, [parse_measure(n) for n in NAMES])
    _same_values(hand_pool.evaluate(hand_qrels, GIVEN), reference)
    counts, runs = CountTable.from_pool(hand_pool, depth=3), [str(hand_files[n]) for n in "AB"]
    given = ["P_rare(alpha=0)@3", "P_rare(alpha=1.0)@3", "P_rare@3", "nDCG@3"]
    table = counts.evaluate(hand_qrels, given, runs)
    reference = counts.evaluate(hand_qrels, [parse_measure(n) for n in given], runs)
    assert list(table.columns) == ["P_rare(alpha=0)@3", "P_rare(alpha=1.0)@3", "nDCG@3"]
    np.testing.assert_array_equal(table.to_numpy(), reference[["P_rare(alpha=0.0)@3", "P_rare@3", "nDCG@3"]].to_numpy())
    with_ci = hand_pool.evaluate(hand_qrels, GIVEN, ci=0.9)
    for name in NAMES:
        assert with_ci.columns.get_loc(f"{name} ci low") == with_ci.columns.get_loc(name) + 1
    assert list(dict.fromkeys(hand_pool.evaluate(hand_qrels, GIVEN, by_query=True)["measure"])) == NAMES


def test_the_command_line(hand_files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    def rows(measures: list[str], *extra: str) -> list[dict[str, float]]:
        assert main(["eval", str(hand_files["qrels"]), *map(str, _runs(hand_files)), "-m", *measures,
                     "--format", "jsonl", *extra]) == 0
        return [json.loads(line) for line in capsys.readouterr().out.splitlines()]

    given, parsed = rows(GIVEN), rows(PARSED)
    assert [k for k in given[0] if k != "run"] == NAMES
    for mine, theirs in zip(given, parsed, strict=True):
        assert [mine[n] for n in NAMES] == [theirs[p] for p in PARSED]
    deep = rows(["P_rare@2", "P_rare(alpha=0)@3"], "--depth", "3")  # --depth rewrites; the column stays as given
    assert [k for k in deep[0] if k != "run"] == ["P_rare@2", "P_rare(alpha=0)@3"]


def test_the_campaign_table(hand_files: dict[str, Path], hand_qrels: pd.DataFrame) -> None:
    result = ir_rarity.evaluate(_runs(hand_files), hand_qrels, GIVEN)
    reference = ir_rarity.evaluate(_runs(hand_files), hand_qrels, PARSED)
    mine = campaign_table(result, baselines=["A"], ci=0.9, resamples=200).frame()
    theirs = campaign_table(reference, baselines=["A"], ci=0.9, resamples=200).frame()
    assert [c for c in mine.columns if c in NAMES] == NAMES
    for name, parsed in zip(NAMES, PARSED, strict=True):
        for suffix in ("", " ci low", " ci high", " vs A p-value", " vs A better"):
            pd.testing.assert_series_equal(mine[name + suffix], theirs[parsed + suffix], check_names=False)
    text = campaign_table(result, baselines=["A"], ci=0.9, resamples=200).render("markdown")
    assert all(name in text for name in NAMES) and "P_rare(alpha=0.0)@3" not in text


def test_experiment(hand_files: dict[str, Path], hand_qrels: pd.DataFrame) -> None:
    systems = {n: ir_rarity.read_trec_run(hand_files[n]).rename(columns={"query_id": "qid", "doc_id": "docno"})
               for n in "ABC"}
    topics = pd.DataFrame({"qid": ["q1", "q2"], "query": "x"})
    mine = ir_rarity.Experiment(systems, topics, hand_qrels, GIVEN)
    theirs = ir_rarity.Experiment(systems, topics, hand_qrels, [parse_measure(n) for n in NAMES])
    assert sorted(c for c in mine.columns if c != "name") == sorted(NAMES)
    for name, parsed in zip(NAMES, PARSED, strict=True):
        np.testing.assert_array_equal(mine[name].to_numpy(), theirs[parsed].to_numpy())
    trec = ir_rarity.Experiment(systems, topics, hand_qrels, ["ndcg_cut_3", "P_rare(alpha=0)@3"])
    assert sorted(c for c in trec.columns if c != "name") == sorted(["ndcg_cut_3", "P_rare(alpha=0)@3"])
