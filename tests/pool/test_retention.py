"""A campaign read from files keeps only the rows its measures read, and gives the whole runs' values.

The reference is the same campaign built from whole runs (``Pool.from_runs``), and for the hand-worked campaign
the values worked out by hand and ir_measures' own providers (pytrec_eval, its judged provider).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import Pool
from ir_rarity.engine.judgments import Judgments
from ir_rarity.errors import ParameterError
from ir_rarity.measures.parse import measure_labels
from ir_rarity.pool.build.retention import JudgedPairs, Retention, required_rows
from ir_rarity.pool.resolve import resolve_campaign

MEASURES = ["P@10", "P@50", "R@100", "AP", "nDCG@10", "nDCG", "RR", "Rprec", "Bpref", "NumRet", "NumRet(rel=1)",
            "Judged", "Judged@5", "Judged@10", "AP(judged_only=True)", "P(judged_only=True)@10", "P_rare@10",
            "AP_rare@10", "nDCG_rare(depth=10)@20", "P_rare(depth=5)@50", "R_rare@10", "ASL", "ASL@g1-10",
            "ASL(length=50)", "U_novel@10", "AP(rel=2)", "Bpref(rel=2)"]


def _write_run(frame: pd.DataFrame, path: Path) -> Path:
    lines = [f"{q} Q0 {d} {i} {s!r} tag" for i, (q, d, s) in enumerate(zip(frame["query_id"], frame["doc_id"],
                                                                              frame["score"], strict=True))]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def covid_files(tmp_path_factory: pytest.TempPathFactory, covid_pool: Pool) -> list[Path]:
    """25 runs of the embedded round-1 campaign (top 100 each), one file a run."""
    folder = tmp_path_factory.mktemp("retention_runs")
    return [_write_run(covid_pool.run(name), folder / name) for name in covid_pool.names[::6][:25]]


def _thin(files: list[Path], qrels: pd.DataFrame, measures: list[str]) -> Pool:
    retention = required_rows(list(measure_labels(measures)), Judgments(qrels))
    assert retention is not None
    campaign = resolve_campaign([str(f) for f in files], retention=retention, cache=False)
    assert isinstance(campaign, Pool)
    return campaign


def test_evaluate_on_files_keeps_fewer_rows_and_gives_the_whole_runs_values(
        covid_files: list[Path], covid_qrels: pd.DataFrame) -> None:
    whole = Pool.from_runs([str(f) for f in covid_files])
    thin = _thin(covid_files, covid_qrels, MEASURES)
    assert thin.encoded.n_rows < 0.6 * whole.encoded.n_rows  # rows below rank 20 kept only when judged
    assert thin.encoded.returned is not None
    with warnings.catch_warnings():  # ASL's notice of rankings of different lengths
        warnings.simplefilter("ignore", ir_rarity.RarityWarning)
        expected = whole.evaluate(covid_qrels, MEASURES)
        got = thin.evaluate(covid_qrels, MEASURES)
        front_door = ir_rarity.evaluate([str(f) for f in covid_files], covid_qrels, MEASURES).table()
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    pd.testing.assert_frame_equal(front_door[expected.columns].loc[expected.index], expected, check_exact=True,
                                  check_names=False)


def test_standard_measures_equal_pytrec_eval_on_the_kept_rows(covid_files: list[Path],
                                                                covid_qrels: pd.DataFrame) -> None:
    measures = ["AP", "Bpref", "Rprec", "nDCG", "NumRet", "P@10", "RR"]
    thin = _thin(covid_files, covid_qrels, measures)
    got = thin.evaluate(covid_qrels, measures)
    for path in covid_files[:5]:
        run = ir_measures.read_trec_run(str(path))
        qrels = ir_measures.util.QrelsConverter(covid_qrels).as_namedtuple_iter()
        expected = ir_measures.pytrec_eval.calc_aggregate([ir_measures.parse_measure(m) for m in measures],
                                                           list(qrels), list(run))
        for measure in measures:
            assert got.loc[path.name, measure] == pytest.approx(expected[ir_measures.parse_measure(measure)],
                                                                 rel=1e-12, abs=1e-15)


@pytest.fixture
def tied_files(tmp_path: Path) -> tuple[list[Path], pd.DataFrame]:
    """Runs of ten documents with a block of tied scores straddling rank 3, judged documents deep in the runs."""
    a = pd.DataFrame({"query_id": "q1", "doc_id": [f"d{i}" for i in range(10)],
                      "score": [9.0, 8.0, 5.0, 5.0, 5.0, 5.0, 5.0, 2.0, 1.0, 0.5]})
    b = pd.DataFrame({"query_id": "q1", "doc_id": [f"d{9 - i}" for i in range(8)],
                      "score": [7.0, 6.0, 6.0, 6.0, 3.0, 2.0, 1.0, 0.0]})
    c = pd.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 4, "doc_id": ["d0", "d5", "d8", "e1", "e2", "e3", "e4"],
                      "score": [3.0, 2.0, 1.0, 4.0, 4.0, 4.0, 4.0]})
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q1", "q2", "q2"],
                          "doc_id": ["d8", "d6", "d1", "d2", "e4", "e9"], "relevance": [2, 1, 0, 1, 1, 1]})
    return [_write_run(a, tmp_path / "A"), _write_run(b, tmp_path / "B"), _write_run(c, tmp_path / "C")], qrels


def test_hand_worked_campaign(tied_files: tuple[list[Path], pd.DataFrame]) -> None:
    files, qrels = tied_files
    measures = ["AP", "NumRet", "Judged@3", "P_rare@2", "ASL"]
    thin = _thin(files, qrels, measures)
    # A keeps d0, d1 (top 2, the S_d depth), d2..d6 (tied with the third as float32, for Judged@3) and d8 (judged).
    a = thin.run("A")
    assert set(a["doc_id"]) == {"d0", "d1", "d2", "d3", "d4", "d5", "d6", "d8"}
    assert a.loc[a["doc_id"] == "d8", "rank"].item() == 9  # its rank in the whole run, from 1
    got = thin.evaluate(qrels, measures)
    per_query = thin.evaluate(qrels, measures, by_query=True).set_index(["run", "query_id", "measure"])["value"]
    # A on q1, in trec_eval order d0 d1 d6 d5 d4 d3 d2 d7 d8 d9 (ties by docno descending); relevant: d6 (rank 3),
    # d2 (rank 7), d8 (rank 9); d1 is judged non-relevant.
    assert per_query[("A", "q1", "AP")] == pytest.approx((1 / 3 + 2 / 7 + 3 / 9) / 3, abs=1e-15)
    assert per_query[("A", "q1", "ASL")] == pytest.approx((3 + 6 + 7) / 3, abs=1e-15)  # 2, 5, 6 above
    assert per_query[("A", "q1", "NumRet")] == 10.0
    assert per_query[("C", "q2", "NumRet")] == 4.0
    # Judged@3 in ir_measures' order (ties by docno ascending): A's top 3 of q1 are d0, d1, d2: two judged.
    assert per_query[("A", "q1", "Judged@3")] == pytest.approx(2 / 3, abs=1e-15)
    judged = ir_measures.judged.calc_aggregate  # the provider's own, independent computation
    for path in files:
        run = list(ir_measures.read_trec_run(str(path)))
        expected = judged([ir_measures.Judged @ 3], list(ir_measures.util.QrelsConverter(qrels)
                                                          .as_namedtuple_iter()), run)[ir_measures.Judged @ 3]
        assert got.loc[path.name, "Judged@3"] == pytest.approx(expected, abs=1e-15)
    whole = Pool.from_runs([str(f) for f in files])
    with warnings.catch_warnings():  # ASL's notice of rankings of different lengths
        warnings.simplefilter("ignore", ir_rarity.RarityWarning)
        pd.testing.assert_frame_equal(got, whole.evaluate(qrels, measures), check_exact=True)


def test_a_pool_read_for_some_measures_refuses_what_it_cannot_count(
        tied_files: tuple[list[Path], pd.DataFrame], tmp_path: Path) -> None:
    files, qrels = tied_files
    thin = _thin(files, qrels, ["AP", "P_rare@2"])
    assert thin.counts(2)["S_d"].sum() > 0
    for call in (lambda: thin.counts(), lambda: thin.counts(5), lambda: thin.fingerprints(None),
                 lambda: thin.evaluate(qrels, ["AP_rare"]), lambda: thin.save(tmp_path / "thin.npz")):
        with pytest.raises(ParameterError):
            call()
    assert not (tmp_path / "thin.npz").exists()
    sub = thin.subset(["C", "A"])
    pd.testing.assert_frame_equal(sub.evaluate(qrels, ["AP", "NumRet"]),
                                  Pool.from_runs([str(files[2]), str(files[0])]).evaluate(qrels, ["AP", "NumRet"]),
                                  check_exact=True)


@pytest.mark.parametrize(("measures", "expected"), [
    (["P@10", "P_rare@100"], Retention(depth=100)),  # a finite judged depth is cut at
    (["P@10"], Retention(depth=10)),
    (["AP", "P_rare@20"], Retention(depth=20, judged_depth=math.inf)),
    (["P_rare(depth=5)@50"], Retention(depth=50)),
    (["NumRet", "P@5"], Retention(depth=5, returned=True)),
    (["Judged@5", "nDCG@10"], Retention(depth=10, ties=(5,), returned=True)),
    (["ASL@g1-10"], Retention(depth=1, judged_depth=math.inf, returned=True)),
    (["U_novel@10"], Retention(depth=10)),
    (["AP_rare"], None),  # S_d over whole runs
    (["U_novel"], None),
    (["ERR@10"], None),  # computed by ir_measures' providers, from whole runs
])
def test_what_each_measure_reads(measures: list[str], expected: Retention | None) -> None:
    qrels = pd.DataFrame({"query_id": ["1"], "doc_id": ["d"], "relevance": [1]})
    assert required_rows(list(measure_labels(measures)), Judgments(qrels)) == expected


def test_judged_pairs_match_query_and_docno_together() -> None:
    import pyarrow as pa

    pairs = JudgedPairs(pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "b"], "relevance": [1, 0]}))
    docs = pa.array(["a", "b", "c"])
    query = np.array([0, 0, 0, 1, 1, 1])
    doc = np.array([0, 1, 2, 0, 1, 2])
    assert pairs.rows(["1", "2"], query, docs, doc).tolist() == [True, False, False, False, True, False]
    assert pairs.rows(["3", "2"], query, docs, doc).tolist() == [False, False, False, False, True, False]
