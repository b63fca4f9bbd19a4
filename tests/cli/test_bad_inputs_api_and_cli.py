"""Bad input: every row of the README's Reliability table, through the Python API and the command line.

Each row either raises one of ir_rarity's own errors (the CLI: one line ``ir-rarity: error: ...``, exit 2, no
traceback) or is handled as trec_eval handles it; and no input file or object is ever changed.
"""

from __future__ import annotations

import gzip
import hashlib
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_helpers import assert_cli_error, run_cli

import ir_rarity
from ir_rarity import (
    ASL,
    AP_rare,
    DuplicateDocumentError,
    InputError,
    P_rare,
    ParameterError,
    Pool,
    RarityError,
    read_trec_qrels,
    read_trec_run,
)

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\n"
RUN_A = "q1 Q0 d1 1 3.0 A\nq1 Q0 d2 2 2.0 A\nq1 Q0 d3 3 1.0 A\nq2 Q0 d1 1 1.0 A\n"
RUN_B = "q1 Q0 d3 1 3.0 B\nq1 Q0 d4 2 2.0 B\n"


def digest(paths: list[Path]) -> dict[Path, str]:
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in {"qrels": QRELS, "A": RUN_A, "B": RUN_B}.items():
        out[name] = tmp_path / name
        out[name].write_text(text)
    return out


# ------------------------------------------------------------------------------------------ malformed files
BAD_RUNS = {
    "wrong column count": (b"q1 Q0 d1 1 3.0 A\nq1 Q0 d2 2 2.0\n", r"bad:2: expected 6 whitespace-separated fields"),
    "extra column": (b"q1 Q0 d1 1 3.0 A x\n", r"bad:1: expected 6 .* found 7"),
    "non-numeric score": (b"q1 Q0 d1 1 high A\n", r"bad:1: field 5 must be a number \(the score\), found 'high'"),
    "NaN score": (b"q1 Q0 d1 1 1.0 A\nq1 Q0 d2 2 nan A\n", r"bad:2: field 5 must be a number, not NaN"),
    "empty file": (b"", r"bad: empty run file"),
    "blank lines only": (b"\n \n\t\n", r"bad: empty run file"),
    "not UTF-8": ("q1 Q0 d\xe9 1 1.0 A\n".encode("latin-1"), r"bad:1: cannot be decoded: not UTF-8"),
}
BAD_QRELS = {
    "wrong column count": (b"q1 0 d1 1\nq1 0 d2\n", r"bad:2: expected 4 whitespace-separated fields, found 3"),
    "non-numeric label": (b"q1 0 d1 yes\n", r"bad:1: field 4 must be an integer"),
    "fractional label": (b"q1 0 d1 1.5\n", r"bad:1: field 4 must be an integer"),
    "label beyond 64 bits": (b"q1 0 d1 99999999999999999999999\n", r"bad:1: field 4 must be an integer"),
    "empty file": (b"", r"bad: empty qrels file"),
    "judged twice": (b"q1 0 d1 1\nq1 0 d1 0\n", r"bad:2: query 'q1' judges document 'd1' twice"),
}


@pytest.mark.parametrize("case", list(BAD_RUNS))
def test_bad_run_file_api(tmp_path: Path, files, case: str) -> None:
    data, message = BAD_RUNS[case]
    bad = tmp_path / "bad"
    bad.write_bytes(data)
    with pytest.raises(InputError, match=message):
        read_trec_run(bad)
    with pytest.raises(InputError, match=message):
        Pool.from_runs([bad, files["A"]])
    assert bad.read_bytes() == data


@pytest.mark.parametrize("case", list(BAD_QRELS))
def test_bad_qrels_file_api(tmp_path: Path, files, case: str) -> None:
    data, message = BAD_QRELS[case]
    bad = tmp_path / "bad"
    bad.write_bytes(data)
    with pytest.raises(InputError, match=message):  # the reader names the file and the line
        read_trec_qrels(bad)
    with pytest.raises(InputError, match=message):
        Pool.from_runs([files["A"], files["B"]]).evaluate(bad, ["P_rare@2", "P@2"])
    assert bad.read_bytes() == data


@pytest.mark.slow
def test_bad_files_cli(tmp_path: Path, files) -> None:
    """One CLI call per malformed run and qrels file: one line, exit 2, the file (and line) named."""
    for table, kind in ((BAD_RUNS, "run"), (BAD_QRELS, "qrels")):
        for case, (data, message) in table.items():
            bad = tmp_path / f"bad_{kind}_{case.replace(' ', '_')}"
            bad.write_bytes(data)
            args = (bad, files["A"]) if kind == "qrels" else (files["qrels"], bad, files["A"])
            before = digest([bad, *files.values()])
            result = run_cli("eval", *args, "-m", "P_rare@2", "P@2")
            where = message.split(":")[0].replace("bad", bad.name) if message.startswith("bad") else ""
            assert_cli_error(result, where)
            assert digest([bad, *files.values()]) == before, case


@pytest.mark.slow
def test_corrupt_gzip(tmp_path: Path, files) -> None:
    truncated = tmp_path / "cut.gz"
    truncated.write_bytes(gzip.compress(RUN_A.encode())[:-12])
    garbage = tmp_path / "garbage.gz"
    garbage.write_bytes(b"\x1f\x8b\x08\x00garbage")
    plain = tmp_path / "plain.gz"  # compression is told by content, not by name: this is a plain run file
    plain.write_bytes(RUN_A.encode())
    assert read_trec_run(plain).equals(read_trec_run(files["A"]))
    for bad in (truncated, garbage):
        with pytest.raises(InputError, match=rf"{bad.name}: cannot be decoded"):
            read_trec_run(bad)
        with pytest.raises(InputError, match="cannot be decoded"):
            Pool.from_runs([bad, files["A"]])
    assert_cli_error(run_cli("eval", files["qrels"], truncated, files["A"], "-m", "P@2"), "cut.gz", "decoded")
    qrels_gz = tmp_path / "qrels.gz"
    qrels_gz.write_bytes(gzip.compress(QRELS.encode())[:-12])
    with pytest.raises(InputError, match=r"qrels\.gz: cannot be decoded"):
        read_trec_qrels(qrels_gz)
    assert_cli_error(run_cli("eval", qrels_gz, files["A"], "-m", "P@2"), "qrels.gz")


@pytest.mark.slow
def test_duplicate_document_in_a_run(tmp_path: Path, files) -> None:
    dup = tmp_path / "dup"
    dup.write_text("q1 Q0 d1 1 3.0 D\nq1 Q0 d2 2 2.0 D\nq1 Q0 d1 3 1.0 D\n")
    with pytest.raises(DuplicateDocumentError, match="'d1' more than once for query 'q1'"):
        Pool.from_runs([dup, files["A"]])
    first = Pool.from_runs([dup, files["A"]], duplicates="first").run("dup")
    assert first["doc_id"].tolist() == ["d1", "d2"] and first["score"].tolist() == [3.0, 2.0]
    assert_cli_error(run_cli("eval", files["qrels"], dup, files["A"], "-m", "P@2"), "more than once")
    result = run_cli("eval", files["qrels"], dup, files["A"], "-m", "P@2", "--duplicates", "first")
    assert result.returncode == 0, result.stderr


def test_nan_scores_in_memory() -> None:
    frame = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [1.0, np.nan]})
    with pytest.raises(InputError, match="NaN"):
        Pool.from_runs({"r": frame})


def test_infinite_scores_order_as_in_trec_eval(tmp_path: Path, files) -> None:
    run = tmp_path / "inf"
    run.write_text("q1 Q0 d1 1 -inf I\nq1 Q0 d2 2 1e300 I\nq1 Q0 d3 3 inf I\nq1 Q0 d4 4 0 I\n")
    ranked = Pool.from_runs([run]).run("inf")
    # inf first, -inf last; 1e300 is +inf as a C float (trec_eval stores scores as float), tied with inf,
    # and ties go by docno descending.
    assert ranked["doc_id"].tolist() == ["d3", "d2", "d4", "d1"]
    result = run_cli("eval", files["qrels"], run, "-m", "P@1", "-q", "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert "q1,P@1,1.0000" in result.stdout  # d3 (label 2) first


# ------------------------------------------------------------------------------------------ trec_eval semantics
@pytest.mark.slow
def test_negative_labels_are_non_relevant(tmp_path: Path, files) -> None:
    negative, zero = tmp_path / "neg", tmp_path / "zero"
    negative.write_text(QRELS.replace("q1 0 d2 0", "q1 0 d2 -1"))
    zero.write_text(QRELS)
    pool = Pool.from_runs([files["A"], files["B"]])
    measures = ["P@2", "P_rare@2", "AP_rare", "ASL"]
    pd.testing.assert_frame_equal(pool.evaluate(negative, measures), pool.evaluate(zero, measures))
    out = [run_cli("eval", q, files["A"], files["B"], "-m", *measures).stdout for q in (negative, zero)]
    assert out[0] == out[1] and out[0].count("\n") == 3


@pytest.mark.slow
def test_queries_in_only_one_of_run_and_qrels(tmp_path: Path, files) -> None:
    extra = tmp_path / "extra"
    extra.write_text(RUN_A + "q9 Q0 d1 1 5.0 A\n")  # q9: not judged -> ignored
    only_q1 = tmp_path / "only_q1"
    only_q1.write_text(RUN_A.replace("q2 Q0 d1 1 1.0 A\n", ""))  # q2 judged, not retrieved -> 0 in the mean
    pool = Pool.from_runs({"A": files["A"], "extra": extra, "only_q1": only_q1})
    table = pool.evaluate(files["qrels"], ["P@1", "P_rare@1"], by_query=True)
    assert set(table["query_id"]) == {"q1", "q2"}
    p1 = table[table["measure"] == "P@1"].set_index(["run", "query_id"])["value"]
    assert p1[("extra", "q1")] == p1[("A", "q1")] == 1.0 and p1[("only_q1", "q2")] == 0.0
    result = run_cli("eval", files["qrels"], files["A"], only_q1, "-m", "P@1", "--format", "csv")
    assert result.returncode == 0 and "only_q1,0.5000" in result.stdout and "A,1.0000" in result.stdout


@pytest.mark.slow
def test_two_runs_with_the_same_name(tmp_path: Path, files) -> None:
    (tmp_path / "other").mkdir()
    twin = tmp_path / "other" / "A"
    twin.write_text(RUN_B.replace(" B\n", " A\n"))  # tag A too: one file given alone is split by its tags
    with pytest.raises(InputError, match="two runs are named 'A'"):
        Pool.from_runs([files["A"], twin])
    assert_cli_error(run_cli("eval", files["qrels"], files["A"], twin, "-m", "P@2"), "two runs are named 'A'")
    # Evaluated runs and the campaign's runs are apart: A is scored against the pool that holds "other/A".
    done = run_cli("eval", files["qrels"], files["A"], "--pool", twin, "-m", "P@2")
    assert done.returncode == 0 and done.stdout.splitlines()[0].startswith("P@2\t")  # one run: as ir_measures


# ------------------------------------------------------------------------------------------ parameters
@pytest.mark.parametrize(("measure", "message"), [
    (P_rare(alpha=-0.5) @ 2, "alpha must be >= 0"),
    (AP_rare(alpha=-1), "alpha must be >= 0"),
    (P_rare(alpha=math.nan) @ 2, "alpha must be >= 0 and finite"),
    (P_rare(alpha=math.inf) @ 2, "alpha must be >= 0 and finite"),
    (P_rare(alpha=1.5, bounded=True) @ 2, "bounded variant needs alpha in"),
    (P_rare(depth=0) @ 2, "depth must be a positive integer"),
    (AP_rare(depth=-3), "depth must be a positive integer"),
    (P_rare @ 0, "cutoff must be a positive integer"),
    (ASL @ "g3-1", "needs A <= B"),
    (ASL @ "g0-2", "needs A >= 1"),
])
def test_parameters_out_of_range_api(files, measure, message: str) -> None:
    pool = Pool.from_runs([files["A"], files["B"]])
    with pytest.raises(ParameterError, match=message):
        pool.evaluate(files["qrels"], [measure])


@pytest.mark.parametrize(("args", "message"), [
    (["-m", "P_rare(alpha=2,bounded=True)@2"], "bounded variant needs alpha in"),
    (["-m", "P_rare(alpha=-1)@2"], "P_rare: alpha must be >= 0 and finite, got -1.0"),  # read here, then checked
    (["-m", "P_rare(depth=0)@2"], "depth must be a positive integer"),
    (["-m", "P@2", "--depth", "0"], "--depth must be a positive integer"),
    (["-m", "ASL@g5-2"], "needs A <= B"),
    (["-m", "ASL@g0-2"], "needs A >= 1"),
])
def test_parameters_out_of_range_cli(files, args: list[str], message: str) -> None:
    assert_cli_error(run_cli("eval", files["qrels"], files["A"], files["B"], *args), message)


def test_pool_depth_must_be_positive(files, tmp_path: Path) -> None:
    pool = Pool.from_runs([files["A"], files["B"]])
    for depth in (0, -1):
        with pytest.raises(ParameterError, match="depth must be a positive integer"):
            pool.counts(depth)
    assert_cli_error(run_cli("pool", files["A"], files["B"], "--depth", "0", "--out", tmp_path / "sd.csv"), "--depth")
    assert not (tmp_path / "sd.csv").exists()


@pytest.mark.slow
def test_one_run_pool_with_the_bounded_variant(files) -> None:
    pool = Pool.from_runs([files["A"]])
    for measure in ("P_rare(bounded=True,alpha=0.5)@2", "AP_rare(bounded=True,alpha=0.5)"):
        with pytest.raises(ParameterError, match="needs at least 2 systems"):
            pool.evaluate(files["qrels"], [measure])
    # The command line refuses any rarity measure on one run without --pool first (tests/cli/test_new_user_hints.py).
    assert_cli_error(run_cli("eval", files["qrels"], files["A"], "-m", "P_rare(bounded=True,alpha=0.5)@2"),
                     "P_rare(bounded=True,alpha=0.5)@2 needs a campaign: one run was given and no --pool")
    assert_cli_error(run_cli("eval", files["qrels"], files["A"], "--pool", files["A"], "-m",
                             "P_rare(bounded=True,alpha=0.5)@2"), "at least 2 systems")


# ------------------------------------------------------------------------------------------ unusual docnos
UNUSUAL = ['"quoted"', "it's", "#hash", "a#b", "naïve", "文書", "emoji😀", "x" * 5000, "d,1", "<d>&amp;"]


@pytest.mark.slow
def test_unusual_docnos_are_kept_exactly(tmp_path: Path) -> None:
    run = tmp_path / "odd.run"
    run.write_text("".join(f"q#1 Q0 {d} {i} {len(UNUSUAL) - i} odd\n" for i, d in enumerate(UNUSUAL)),
                   encoding="utf-8")
    qrels = tmp_path / "odd.qrels"
    qrels.write_text("".join(f"q#1 0 {d} {i % 2}\n" for i, d in enumerate(UNUSUAL)), encoding="utf-8")
    frame = read_trec_run(run)
    assert frame["doc_id"].tolist() == UNUSUAL and frame["query_id"].tolist() == ["q#1"] * len(UNUSUAL)
    assert read_trec_qrels(qrels)["doc_id"].tolist() == UNUSUAL
    pool = Pool.from_runs([run])
    assert sorted(pool.counts()["doc_id"]) == sorted(UNUSUAL)
    value = pool.evaluate(qrels, ["P@10", "AP"]).loc["odd.run"]
    assert value["P@10"] == 0.5
    result = run_cli("eval", qrels, run, "-m", "P@10", "-q", "--format", "jsonl")
    assert result.returncode == 0, result.stderr
    assert '"query_id": "q#1"' in result.stdout and '"value": 0.5' in result.stdout
    out = tmp_path / "sd.csv"
    assert run_cli("pool", run, "--out", out).returncode == 0
    assert sorted(pd.read_csv(out, dtype=str, keep_default_na=False)["doc_id"]) == sorted(UNUSUAL)


# ------------------------------------------------------------------------------------------ inputs never changed
def test_inputs_are_never_changed(files) -> None:
    frame = read_trec_run(files["A"])[["query_id", "doc_id", "score"]]
    frame["query_id"] = frame["query_id"].map({"q1": 1, "q2": 2})  # int ids: converted in a copy, not here
    qrels = read_trec_qrels(files["qrels"])
    qrels["query_id"] = qrels["query_id"].map({"q1": 1, "q2": 2})
    keep_frame, keep_qrels = frame.copy(deep=True), qrels.copy(deep=True)
    pool = Pool.from_runs({"A": frame, "B": files["B"]})
    pool.evaluate(qrels, ["P_rare@2", "AP_rare", "P@2", "ASL"])
    with pool:
        import ir_measures

        ir_measures.calc_aggregate([P_rare @ 2], qrels, frame)
    pd.testing.assert_frame_equal(frame, keep_frame)
    pd.testing.assert_frame_equal(qrels, keep_qrels)


@pytest.mark.slow
def test_outputs_never_overwrite_inputs(files, tmp_path: Path) -> None:
    before = digest(list(files.values()))
    assert_cli_error(run_cli("eval", files["qrels"], files["A"], files["B"], "-m", "P@2", "--output", files["qrels"]),
                     "it is an input file")
    assert_cli_error(run_cli("eval", files["qrels"], files["A"], "-m", "P@2", "--output", files["A"]), "refusing")
    link = tmp_path / "link"
    link.symlink_to(files["B"])
    assert_cli_error(run_cli("eval", files["qrels"], files["A"], files["B"], "-m", "P@2", "--output", link), "refusing")
    renamed = tmp_path / "A.csv"
    renamed.write_text(RUN_A)
    assert_cli_error(run_cli("pool", renamed, files["B"], "--out", renamed), "it is an input file")
    assert_cli_error(run_cli("pool", tmp_path / "?.csv", "--judging-pool", renamed, "--depth", "2"), "refusing")
    assert_cli_error(run_cli("meta", files["qrels"], tmp_path, "--out", tmp_path), "refusing")
    assert digest(list(files.values())) == before and renamed.read_text() == RUN_A


def test_errors_are_rarity_errors() -> None:
    assert issubclass(InputError, RarityError) and issubclass(ParameterError, RarityError)
    assert issubclass(ir_rarity.DuplicateDocumentError, InputError)
