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
