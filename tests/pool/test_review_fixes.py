"""Cases an independent review found: file names with glob characters, teams given with a built pool, hexadecimal
labels on the fast reading path, and saved pools with scores beyond float32's range."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import InputError, Pool, read_trec_qrels


def test_a_run_file_whose_name_holds_glob_characters_is_that_file(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a[1]").write_text("q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.0 x\n")
    (folder / "a1").write_text("q1 Q0 d3 1 2.0 y\n")
    (folder / "b").write_text("q1 Q0 d1 1 2.0 z\n")
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "relevance": [1]})
    table = ir_rarity.evaluate(str(folder), qrels, ["P@1"]).table()
    assert sorted(table.index) == ["a1", "a[1]", "b"]
    assert table["P@1"].to_dict() == {"a1": 0.0, "a[1]": 1.0, "b": 1.0}  # by hand: a[1] and b put d1 first
    pool = Pool.from_runs([str(folder / "a[1]"), str(folder / "b")])
    assert pool.names == ["a[1]", "b"] and pool.run("a[1]")["doc_id"].tolist() == ["d1", "d2"]


def test_teams_with_a_built_pool_are_refused(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    with pytest.raises(InputError, match="teams apply to runs being pooled"):
        ir_rarity.evaluate({"new": hand_pool.run("A")}, hand_qrels, ["P_rare@2"], pool=hand_pool,
                           teams={"A": "T", "B": "T"})


@pytest.mark.parametrize("label", ["0x10", "0X1F", "0x8000000000000000"])
def test_hexadecimal_labels_are_refused_on_every_path(tmp_path: Path, label: str) -> None:
    uniform = tmp_path / "uniform"
    uniform.write_text(f"1 0 d1 {label}\n1 0 d2 0\n")  # one delimiter throughout: the fast path's input
    mixed = tmp_path / "mixed"
    mixed.write_text(f"1 0 d1 {label}\n1 0 d2  0\n")  # two spaces: the fallback path's input
    for path in (uniform, mixed):
        with pytest.raises(InputError, match="must be an integer"):
            read_trec_qrels(path)


def test_a_docno_holding_0x_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "qrels"
    path.write_text("1 0 0xdoc 1\n1 0 d2 0\n")
    assert read_trec_qrels(path)["doc_id"].tolist() == ["0xdoc", "d2"]


def test_a_saved_pool_with_scores_beyond_float32_loads_without_warning(tmp_path: Path) -> None:
    pool = Pool.from_runs({"r": pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"],
                                              "score": [1e39, 1.0]})})
    path = tmp_path / "pool.npz"
    pool.save(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = Pool.load(path)
    assert loaded.run("r")["doc_id"].tolist() == ["d1", "d2"] and np.isclose(loaded.run("r")["score"][0], 1e39)


def test_split_by_tag_applies_to_the_pool_named_by_files(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    run = {"mine": covid_pool.run(covid_pool.names[0])}
    by_file = ir_rarity.evaluate(run, covid_qrels, ["P_rare@10"], pool=ir_rarity.covid_round1.runs, split_by_tag=True)
    by_pool = ir_rarity.evaluate(run, covid_qrels, ["P_rare@10"], pool=covid_pool)
    assert by_file.info.num_systems == 143
    assert by_file.table()["P_rare@10"].iloc[0] == by_pool.table()["P_rare@10"].iloc[0]


@pytest.mark.parametrize("measures", [["RR@10", "infAP"], ["RR@10", "P@1"]])
def test_measures_through_ir_measures_see_each_document_once(measures: list[str]) -> None:
    import ir_measures

    pool = Pool.from_runs({"a": pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["x", "y", "z"],
                                               "score": [3.0, 2.0, 1.0]})})
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["A"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q1"] * 4, "doc_id": ["A", "x", "y", "A"], "score": [10.0, 5.0, 4.0, 0.1]})
    with pytest.raises(ir_rarity.DuplicateDocumentError, match="more than once"):
        ir_rarity.evaluate({"r": run}, qrels, measures, pool=pool)
    got = ir_rarity.evaluate({"r": run}, qrels, measures, pool=pool, duplicates="first").table()
    once = run.iloc[:3]  # the highest-scored occurrence of A kept
    for m in measures:
        expected = ir_measures.calc_aggregate([ir_measures.parse_measure(m)], qrels, once)
        assert got[m].iloc[0] == pytest.approx(next(iter(expected.values())))  # by hand: A first, RR = 1


def test_a_measure_pool_naming_the_same_files_in_another_order_is_that_pool(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    for name, docs in {"a": "d1 d2", "b": "d2 d3", "c": "d3 d1"}.items():
        (folder / name).write_text("".join(f"q1 Q0 {d} {i} {3 - i}.0 {name}\n" for i, d in enumerate(docs.split())))
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "relevance": [1]})
    files = [str(folder / n) for n in "cba"]
    table = ir_rarity.evaluate(files, qrels, [f"P_rare(pool='{folder}')@2"]).table()
    assert list(table.index) == ["c", "b", "a"]
    with pytest.raises(ir_rarity.ParameterError, match="names its own pool"):
        ir_rarity.evaluate(files[:2], qrels, [f"P_rare(pool='{folder}')@2"])
