"""Two references for score ties: pytrec_eval/ir_measures (scores as C floats) and trec_eval 10.0 (as doubles).

The expected values of ``scores="float64"`` were computed by trec_eval 10.0 built from NIST's source
(usnistgov/trec_eval tag v10.0) on five TREC-COVID round-1 runs (``tests/data/trec_eval_10``); trec_eval prints
4 decimals, so values are compared within half a unit of the 4th.
"""

from __future__ import annotations

from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import CountTable, Pool, covid_round1
from ir_rarity.engine.codes import trec_order
from ir_rarity.engine.runs import ranked_as_scores
from ir_rarity.errors import ParameterError

EXPECTED = Path(__file__).parents[1] / "data" / "trec_eval_10" / "expected.tsv"
MEASURES = {"P_10": "P@10", "P_100": "P@100", "map": "AP", "ndcg_cut_10": "nDCG@10", "ndcg_cut_100": "nDCG@100",
            "recall_100": "R@100", "recip_rank": "RR"}
HALF_UNIT = 0.5e-4 + 1e-12


@pytest.fixture(scope="module")
def expected() -> pd.DataFrame:
    frame = pd.read_csv(EXPECTED, sep="\t", dtype={"run": str, "query": str, "measure": str, "value": float})
    frame["measure"] = frame["measure"].map(MEASURES)
    return frame


@pytest.fixture(scope="module")
def runs() -> dict[str, pd.DataFrame]:
    frame = ir_rarity.read_trec_run(covid_round1.runs)
    return {str(tag): rows[["query_id", "doc_id", "score"]] for tag, rows in frame.groupby("tag", sort=False)}


def _per_query(evaluation: ir_rarity.Evaluation) -> pd.DataFrame:
    long = evaluation.long().rename(columns={"query_id": "query"})
    return long[["run", "query", "measure", "value"]]


def test_float64_gives_trec_eval_10s_values(expected: pd.DataFrame, runs: dict[str, pd.DataFrame],
                                            covid_qrels: pd.DataFrame) -> None:
    wanted = sorted(expected["run"].unique())
    result = ir_rarity.evaluate({n: runs[n] for n in wanted}, covid_qrels, list(MEASURES.values()), scores="float64")
    got = expected.merge(_per_query(result), on=["run", "query", "measure"], suffixes=("", "_got"))
    assert len(got) == len(expected) == 1050
    worst = (got["value"] - got["value_got"]).abs().max()
    assert worst <= HALF_UNIT, got.loc[(got["value"] - got["value_got"]).abs().idxmax()].to_dict()
    assert result.table().loc["BERT", "nDCG@10"] == pytest.approx(0.1736, abs=0.5e-4)


def test_float32_gives_pytrec_evals_values_which_differ(expected: pd.DataFrame, runs: dict[str, pd.DataFrame],
                                                        covid_qrels: pd.DataFrame) -> None:
    result = ir_rarity.evaluate({"BERT": runs["BERT"]}, covid_qrels, ["nDCG@10", "AP"])
    assert result.table().loc["BERT", "nDCG@10"] == pytest.approx(0.1731, abs=0.5e-4)
    reference = ir_measures.calc_aggregate([ir_measures.nDCG @ 10], covid_qrels, runs["BERT"])
    assert result.table().loc["BERT", "nDCG@10"] == pytest.approx(reference[ir_measures.nDCG @ 10], abs=1e-15)
    got = expected.merge(_per_query(result), on=["run", "query", "measure"], suffixes=("", "_got"))
    differ = got[(got["value"] - got["value_got"]).abs() > HALF_UNIT]
    assert set(differ["measure"]) == {"nDCG@10", "AP"} and "30" in set(differ["query"])


def test_pytrec_eval_given_trec_eval_10s_ranks_gives_its_values(expected: pd.DataFrame,
                                                                runs: dict[str, pd.DataFrame],
                                                                covid_qrels: pd.DataFrame) -> None:
    """The path of measures ir_measures computes: scores replaced by ranks in trec_eval 10.0's order."""
    measures = [ir_measures.parse_measure(m) for m in MEASURES.values()]
    for name in ("BERT", "tm_lda400"):
        rows = [(name, m.query_id, str(m.measure), m.value)
                for m in ir_measures.iter_calc(measures, covid_qrels, ranked_as_scores(runs[name]))]
        got = expected.merge(pd.DataFrame(rows, columns=["run", "query", "measure", "value_got"]),
                             on=["run", "query", "measure"])
        assert len(got) == 30 * len(MEASURES)
        assert (got["value"] - got["value_got"]).abs().max() <= HALF_UNIT


def test_ranked_as_scores_orders_as_trec_eval_10() -> None:
    frame = pd.DataFrame({"query_id": ["1", "1", "1", "2", "2"], "doc_id": ["a", "b", "c", "x", "y"],
                          "score": [1.00000001, 1.00000002, 1.00000002, 5.0, 5.0]})
    got = ranked_as_scores(frame)
    # Query 1: b and c tie as doubles (docno descending: c first), a below them; query 2: y before x.
    assert got["score"].tolist() == [1.0, 2.0, 3.0, 1.0, 2.0]
    assert frame["score"].tolist()[0] == 1.00000001  # the caller's frame is not changed


def test_trec_order_breaks_float32_ties_by_the_double_score_in_float64() -> None:
    score = np.array([1.00000001, 1.00000002, 0.5, 1.00000002])
    doc = np.array([3, 0, 2, 1])
    assert trec_order(score, doc).tolist() == [0, 3, 1, 2]  # one float32 tie: docno descending
    assert trec_order(score, doc, precision="float64").tolist() == [3, 1, 0, 2]


def test_a_pool_records_its_precision_through_save_and_counts(tmp_path: Path, runs: dict[str, pd.DataFrame],
                                                              covid_qrels: pd.DataFrame) -> None:
    picked = {n: runs[n] for n in ("BERT", "run1", "tm_lda400")}
    pool = Pool.from_runs(picked, scores="float64")
    pool.save(tmp_path / "p.npz")
    loaded = Pool.load(tmp_path / "p.npz")
    assert loaded.scores == "float64" and "float64" in loaded.info().describe()
    CountTable.from_pool(pool, depth=10).to_parquet(tmp_path / "c.parquet")
    counts = CountTable.read_parquet(tmp_path / "c.parquet")
    assert counts.scores == "float64"
    a = ir_rarity.evaluate({"BERT": runs["BERT"]}, covid_qrels, ["nDCG@10", "P_rare(alpha=0.5)@10"], pool=pool)
    b = ir_rarity.evaluate({"BERT": runs["BERT"]}, covid_qrels, ["nDCG@10", "P_rare(alpha=0.5)@10"],
                           pool=tmp_path / "c.parquet")
    assert a.table().equals(b.table()) and a.table().loc["BERT", "nDCG@10"] == pytest.approx(0.1736, abs=0.5e-4)
    assert a.members == b.members == {"BERT": "BERT"}
    with pytest.raises(ParameterError, match="comparing scores as float64, not float32"):
        ir_rarity.evaluate({"BERT": runs["BERT"]}, covid_qrels, ["nDCG@10"], pool=pool, scores="float32")
    with pytest.raises(ParameterError, match="scores must be 'float32'"):
        Pool.from_runs(picked, scores="double")  # type: ignore[arg-type]


def test_the_command_line_flag(tmp_path: Path, runs: dict[str, pd.DataFrame], capsys: pytest.CaptureFixture[str]
                               ) -> None:
    import gzip
    import json

    from ir_rarity.cli import main

    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(gzip.decompress(Path(covid_round1.qrels).read_bytes()))
    files = []
    for name in ("BERT", "run1"):
        frame = runs[name].assign(q0="Q0", rank=0, tag=name)[["query_id", "q0", "doc_id", "rank", "score", "tag"]]
        frame.to_csv(tmp_path / name, sep=" ", header=False, index=False)
        files.append(str(tmp_path / name))
    values = {}
    for flag in ([], ["--trec-eval-10"]):
        assert main(["eval", str(qrels), *files, "-m", "nDCG@10", "--format", "jsonl", *flag]) == 0
        rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        values[bool(flag)] = {row["run"]: row["nDCG@10"] for row in rows}
    assert round(values[False]["BERT"], 4) == 0.1731 and round(values[True]["BERT"], 4) == 0.1736
    assert values[False]["run1"] == values[True]["run1"]
