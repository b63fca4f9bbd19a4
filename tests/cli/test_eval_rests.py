"""``ir-rarity eval --unjudged --ties``: each run's object carries "M unjudged", "M low", "M high", "M ties low",
"M ties high", equal to the Python API's values, which a hand-worked campaign checks."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

import ir_rarity
from ir_rarity.cli import main

RUNS = {
    # a: x (relevant), u (unjudged), y (non-relevant); b ties x, y and z at one score
    "a": [("q", "x", 3.0), ("q", "u", 2.0), ("q", "y", 1.0)],
    "b": [("q", "x", 1.0), ("q", "y", 1.0), ("q", "z", 1.0)],
}
QRELS = [("q", "x", 1), ("q", "y", 0), ("q", "z", 1)]


def _files(tmp_path: Path) -> tuple[Path, list[Path]]:
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in QRELS))
    runs = []
    for name, rows in RUNS.items():
        path = tmp_path / name
        path.write_text("".join(f"{q} Q0 {d} {i + 1} {s} {name}\n" for i, (q, d, s) in enumerate(rows)))
        runs.append(path)
    return qrels, runs


def test_jsonl_carries_every_rest_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = _files(tmp_path)
    assert main(["eval", str(qrels), *map(str, runs), "-m", "P@2", "--unjudged", "--ties", "-o", "jsonl",
                 "-p", "-1"]) == 0
    rows = {r["run"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    # a: P@2 reads x, u: u unjudged (1/2); low 1/2, high 1 (u relevant); no ties
    assert {k: rows["a"][k] for k in ("P@2", "P@2 unjudged", "P@2 low", "P@2 high", "P@2 ties low",
                                      "P@2 ties high")} == {"P@2": 0.5, "P@2 unjudged": 0.5, "P@2 low": 0.5,
                                                            "P@2 high": 1.0, "P@2 ties low": 0.5,
                                                            "P@2 ties high": 0.5}
    # b: trec_eval's order z, y, x (docno descending): P@2 = 1/2; all judged; the orders give 1/2 (y first
    # two) to 1 (x, z first two)
    assert (rows["b"]["P@2"], rows["b"]["P@2 unjudged"], rows["b"]["P@2 high"]) == (0.5, 0.0, 0.5)
    assert (rows["b"]["P@2 ties low"], rows["b"]["P@2 ties high"]) == (0.5, 1.0)


def test_tsv_columns_equal_the_python_api(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = _files(tmp_path)
    assert main(["eval", str(qrels), *map(str, runs), "-m", "AP", "RBP(p=0.5)", "--unjudged", "--ties",
                 "-o", "tsv", "-p", "-1"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t", index_col="run")
    result = ir_rarity.evaluate([str(p) for p in runs], str(qrels), ["AP", "RBP(p=0.5)"], unjudged=True, ties=True)
    for m in ("AP", "RBP(p=0.5)"):
        assert table[f"{m} high"].to_dict() == pytest.approx(result.bounds(m)["high"].to_dict(), abs=1e-15)
        assert table[f"{m} ties high"].to_dict() == pytest.approx(result.ties(m)["ties high"].to_dict(), abs=1e-15)
    # RBP(p=0.5) of a: x at rank 1 -> 1/2; residual: u at rank 2 (1/4) + beyond rank 3 (1/8)
    assert table.loc["a", "RBP(p=0.5) residual"] == pytest.approx(0.375, abs=1e-15)


def test_a_rank_column_against_the_score_order_is_named_with_both_values(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("q 0 x 1\nq 0 y 0\nq 0 z 0\n")
    # one score for all: trec_eval's order is z, y, x (docno descending); the rank column says x, y, z
    (tmp_path / "tied").write_text("q Q0 x 1 0.5 t\nq Q0 y 2 0.5 t\nq Q0 z 3 0.5 t\n")
    (tmp_path / "plain").write_text("q Q0 x 1 3 p\nq Q0 y 2 2 p\nq Q0 z 3 1 p\n")
    assert main(["eval", str(qrels), str(tmp_path / "tied"), str(tmp_path / "plain"), "-m", "P@1", "RR",
                 "--ties"]) == 0
    err = capsys.readouterr().err
    warning = [line for line in err.splitlines() if "rank column" in line]
    # P@1: z (non-relevant) first by score -> 0; x first by the rank column -> 1. plain agrees: not named.
    assert len(warning) == 1 and "1 run(s)" in warning[0]
    assert "tied (P@1 0.0000 by score, 1.0000 by rank column; 1 query)" in warning[0]
    assert "plain" not in warning[0]


def test_per_query_output_says_where_the_per_query_values_are(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = _files(tmp_path)
    assert main(["eval", str(qrels), *map(str, runs), "-m", "P@2", "--unjudged", "-q"]) != 0
    assert "Evaluation.bounds(m, per_query=True)" in capsys.readouterr().err


def test_frames_with_a_rank_column_are_checked_too() -> None:
    from ir_rarity.compare.rank_column import RankColumnWarning, rank_column_check

    runs = {"tied": pd.DataFrame({"qid": "q", "docno": ["x", "y", "z"], "score": 0.5, "rank": [0, 1, 2]}),
            "plain": pd.DataFrame({"qid": "q", "docno": ["x", "y", "z"], "score": [3.0, 2.0, 1.0], "rank": [0, 1, 2]})}
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["x", "y", "z"], "relevance": [1, 0, 0]})
    result = ir_rarity.evaluate(runs, qrels, ["P@1", "RR"])
    with pytest.warns(RankColumnWarning, match=r"tied \(P@1 0.0000 by score, 1.0000 by rank column; 1 query\)"):
        table = rank_column_check(result, runs)
    assert list(table.index) == ["tied"]
    assert table.loc["tied", ["RR score order", "RR rank order"]].tolist() == [1 / 3, 1.0]  # z, y, x vs x, y, z
