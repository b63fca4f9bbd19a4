"""Bad input read through the Python API and the command line, class by class.

Missing ids in frames, field counts of run and qrels lines, pipes and streams, bounded reads (endless and
decompression-bomb inputs), unknown compressions and archives, unreadable folders, and errors that never quote
more than the offending field. A CLI error is exactly one line ``ir-rarity: error: ...``, exit 2.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_helpers import BIN, assert_cli_error, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from small_files import QRELS, RUN

import ir_rarity
from ir_rarity import CountTable, InputError, Pool, read_trec_qrels, read_trec_run

# ------------------------------------------------------------------------------ missing ids in frames
MISSING = [None, np.nan, pd.NA, pd.NaT]


@pytest.mark.parametrize("missing", MISSING, ids=["None", "NaN", "pd.NA", "NaT"])
@pytest.mark.parametrize("column", ["qid", "docno"])
def test_missing_ids_in_run_frames_are_refused(missing: object, column: str) -> None:
    a = pd.DataFrame({"qid": ["1", "1"], "docno": [1.0, 2.0], "score": [2.0, 1.0]}).astype(object)
    a.loc[1, column] = missing
    b = pd.DataFrame({"qid": ["1"], "docno": [9.0], "score": [1.0]})
    with pytest.raises(InputError, match=rf"A: column '{'query_id' if column == 'qid' else 'doc_id'}' has a missing "
                                         r"id at row 1"):
        Pool.from_runs({"A": a, "B": b})


def test_a_missing_docno_never_becomes_a_retrieved_document() -> None:
    a = pd.DataFrame({"qid": ["1", "1"], "docno": [1.0, np.nan], "score": [2.0, 1.0]})
    b = pd.DataFrame({"qid": ["1"], "docno": [9.0], "score": [1.0]})
    with pytest.raises(InputError, match="missing id"):
        Pool.from_runs({"A": a, "B": b})
    categorical = a.assign(docno=pd.Categorical(["1", None]))
    with pytest.raises(InputError, match="missing id"):
        Pool.from_runs({"A": categorical, "B": b})


@pytest.mark.parametrize("missing", MISSING, ids=["None", "NaN", "pd.NA", "NaT"])
def test_missing_ids_in_qrels_and_count_tables(files: dict[str, Path], missing: object) -> None:
    pool = Pool.from_runs(files["run"])
    qrels = pd.DataFrame({"query_id": ["q1", missing], "doc_id": ["d1", "d2"], "relevance": [1, 1]})
    with pytest.raises(InputError, match="qrels: column 'query_id' has a missing id at row 1"):
        pool.evaluate(qrels, ["P@2"])
    table = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", missing], "S_d": [1, 1]})
    with pytest.raises(InputError, match="missing"):
        CountTable(table, num_systems=2, depth=10)


def test_ids_of_mismatched_kinds_are_normalised_one_way() -> None:
    # float query and doc ids (1.0, as pandas makes an int column with a gap) name the same as int or str ones
    run = pd.DataFrame({"query_id": [1.0, 1.0, 2.0], "doc_id": [10.0, 11.0, 10.0], "score": [2.0, 1.0, 1.0]})
    qrels_int = pd.DataFrame({"query_id": [1, 1, 2], "doc_id": [10, 12, 10], "relevance": [1, 1, 1]})
    qrels_str = qrels_int.astype(str)
    pool = Pool.from_runs({"r": run})
    for qrels in (qrels_int, qrels_str):
        table = pool.evaluate(qrels, ["P@2", "R@2"])
        assert table.loc["r", "P@2"] == pytest.approx((1 / 2 + 1 / 2) / 2)  # by hand: one relevant in each top 2
        assert table.loc["r", "R@2"] == pytest.approx((1 / 2 + 1) / 2)
    assert pool.run("r")["doc_id"].tolist() == ["10", "11", "10"]
    fractional = pd.DataFrame({"query_id": ["1"], "doc_id": [2.5], "score": [1.0]})
    assert Pool.from_runs({"f": fractional}).run("f")["doc_id"].tolist() == ["2.5"]


def test_labels_beyond_int64_in_frames() -> None:
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "relevance": [10**20]})
    with pytest.raises(InputError, match=r"64-bit integers, found '100000000000000000000' at row 0"):
        ir_rarity.io.frames.as_qrels_frame(qrels)


def test_missing_ids_cli(tmp_path: Path, files: dict[str, Path]) -> None:
    # a frame reaches the CLI only through files; a file's empty field is a field-count error (class 2)
    bad = tmp_path / "bad"
    bad.write_text("q1 Q0  1 1.0 A\n")
    assert_cli_error(run_cli("eval", files["qrels"], bad, "-m", "P@1"), "bad:1", "expected 6", "found 5")


# ------------------------------------------------------------------------------ field counts
@pytest.mark.parametrize(("text", "line", "found"), [
    ("q1 Q0 d1 1 3.0 A 7\nq1 Q0 d2 2 2.0 A 5\n", 1, 7),   # a seventh field after a numeric sixth one
    ("q1 Q0 d1 1 3.0 A\nq1 Q0 d2 2 2.0 A 5\n", 2, 7),
    ("q1 Q0 d1 1 3.0\n", 1, 5),
    ("q1\tQ0\td1\t1\t3.0\tA\tB\n", 1, 7),
    ("q1 Q0 d1 1 3.0 A\n\nq1  Q0 d2 2 2.0 A x y\n", 3, 8),
])
def test_run_lines_have_exactly_six_fields(tmp_path: Path, files: dict[str, Path], text: str, line: int,
                                           found: int) -> None:
    bad = tmp_path / "bad"
    bad.write_text(text)
    message = rf"bad:{line}: expected 6 whitespace-separated fields, found {found}$"
    with pytest.raises(InputError, match=message):
        read_trec_run(bad)
    assert_cli_error(run_cli("eval", files["qrels"], bad, "-m", "P@2"), f"bad:{line}:", f"found {found}")


@pytest.mark.parametrize(("text", "line", "found"), [("q1 0 d1 1\nq1 0 d2 1 0\n", 2, 5), ("q1 d1 1\n", 1, 3),
                                                     ("q1 0 d1 1 2 3\n", 1, 6)])
def test_qrels_lines_have_exactly_four_fields(tmp_path: Path, files: dict[str, Path], text: str, line: int,
                                              found: int) -> None:
    bad = tmp_path / "badq"
    bad.write_text(text)
    with pytest.raises(InputError, match=rf"badq:{line}: expected 4 whitespace-separated fields, found {found}"):
        read_trec_qrels(bad)
    assert_cli_error(run_cli("eval", bad, files["run"], "-m", "P@2"), f"badq:{line}:", f"found {found}")


_FIELD = st.text(alphabet="abcQ019.-", min_size=1, max_size=4)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(_FIELD, min_size=0, max_size=9), min_size=1, max_size=6))
def test_fuzz_field_counts_give_an_error_never_a_value(tmp_path_factory: pytest.TempPathFactory,
                                                       lines: list[list[str]]) -> None:
    path = tmp_path_factory.mktemp("fields") / "run"
    path.write_text("".join(" ".join(fields) + "\n" for fields in lines))
    counts = [len(f) for f in lines if f]
    if counts and all(c == 6 for c in counts):
        try:
            read_trec_run(path)  # well formed: a value or a clear error about a field
        except InputError as e:
            assert "field 5" in str(e)
        return
    with pytest.raises(InputError):
        read_trec_run(path)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["1", "x", None, np.nan, pd.NA, 2.0]), min_size=1, max_size=6),
       st.integers(0, 1))
def test_fuzz_frames_with_missing_ids_give_an_error_never_a_value(ids: list[object], which: int) -> None:
    n = len(ids)
    frame = pd.DataFrame({"query_id": ["q"] * n, "doc_id": [f"d{i}" for i in range(n)], "score": [1.0] * n})
    column = "query_id" if which == 0 else "doc_id"
    frame[column] = pd.Series(ids, dtype=object)
    has_missing = any(v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)) for v in ids)
    try:
        pool = Pool.from_runs({"r": frame}, duplicates="first")
    except InputError as e:
        assert has_missing and "missing id" in str(e)
        return
    assert not has_missing and len(pool.run("r")) > 0


# ------------------------------------------------------------------------------ streams
@pytest.mark.slow
def test_pipes_and_process_substitution_equal_the_file(files: dict[str, Path]) -> None:
    expected = run_cli("eval", files["qrels"], files["run"], "-m", "P@1", "-p", "-1")
    assert expected.returncode == 0 and "1.0" in expected.stdout
    shell = f'"{BIN / "ir-rarity"}" eval <(cat "{files["qrels"]}") <(cat "{files["run"]}") -m P@1 -p -1'
    done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].split("\t")[1] == expected.stdout.splitlines()[0].split("\t")[1]  # P@1 value
    piped = subprocess.run([str(BIN / "ir-rarity"), "eval", str(files["qrels"]), "-", "-m", "P@1", "-p", "-1", "-o",
                            "csv"],  # csv names the run (tsv prints one run's lines as ir_measures does)
                           input=gzip.compress(RUN.encode()), capture_output=True, timeout=120)
    assert piped.returncode == 0 and piped.stdout.decode().splitlines()[1] == "stdin,1.0"
    qrels_in = subprocess.run([str(BIN / "ir-rarity"), "eval", "-", str(files["run"]), "-m", "P@1", "-p", "-1", "-o",
                               "csv"],
                              input=QRELS.encode(), capture_output=True, timeout=120)
    assert qrels_in.returncode == 0 and qrels_in.stdout.decode().splitlines()[1] == "run,1.0"


def test_a_long_stream_is_read_whole(tmp_path: Path) -> None:
    lines = "".join(f"q1 Q0 d{i} {i} {1e6 - i} A\n" for i in range(20000))  # well beyond 8 KiB
    source = tmp_path / "lines"
    source.write_text(lines)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["bash", "-c", f'cat "{source}" > "{fifo}"'])  # blocks until the reader opens it
    frame = read_trec_run(fifo)
    writer.wait(timeout=30)
    assert len(frame) == 20000 and frame["doc_id"].iloc[0] == "d0"


# ------------------------------------------------------------------------------ bounded resources
def _peak_child_kb(args: list[str]) -> tuple[subprocess.CompletedProcess, int]:
    """Run ``args`` under a fresh Python whose only child it is, and return the result and the child's peak RSS."""
    probe = ("import resource, subprocess, sys\n"
             "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
             "sys.stderr.write(done.stderr)\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.exit(done.returncode)\n")
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=300)
    return done, int(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_dev_zero_and_a_decompression_bomb_stop_early(tmp_path: Path, files: dict[str, Path]) -> None:
    bomb = tmp_path / "bomb.gz"
    with gzip.open(bomb, "wb", compresslevel=1) as f:
        block = b"q1 Q0 d1 1 1.0 A\n" * 65536
        for _ in range(150):  # 160 MB of lines in about 0.6 MB
            f.write(block)
    done, peak = _peak_child_kb([str(BIN / "ir-rarity"), "eval", str(files["qrels"]), str(bomb), "-m", "P@1"])
    assert_cli_error(done, "bomb.gz", "expanding more than 20 times")
    assert peak < 500 * 1024, peak
    done, peak = _peak_child_kb([str(BIN / "ir-rarity"), "eval", str(files["qrels"]), "/dev/zero", "-m", "P@1"])
    assert_cli_error(done, "/dev/zero", "a line longer than")
    assert peak < 500 * 1024, peak
    with pytest.raises(InputError, match="line longer"):
        read_trec_run("/dev/zero")


# ------------------------------------------------------------------------------ nothing leaks
@pytest.mark.slow
def test_errors_quote_at_most_the_offending_field(tmp_path: Path, files: dict[str, Path]) -> None:
    secret = tmp_path / "secrets.txt"
    secret.write_text("root:x:0:0:TOPSECRET-PASSWORD-LINE:/root:/bin/bash\n")
    long_field = tmp_path / "long"
    long_field.write_text(f"q1 Q0 d1 1 {'9' * 30}x{'SECRET' * 50} A\n")
    measure = f"P_rare(pool='{secret}')@1"
    ir = subprocess.run([str(BIN / "ir_measures"), str(files["qrels"]), str(files["run"]), measure],
                        capture_output=True, text=True, timeout=120)
    assert ir.returncode != 0 and "TOPSECRET" not in ir.stderr + ir.stdout
    for args in (("eval", files["qrels"], secret, "-m", "P@1"), ("eval", secret, files["run"], "-m", "P@1"),
                 ("eval", files["qrels"], files["run"], "--pool", secret, "-m", "P_rare@1"),
                 ("eval", files["qrels"], long_field, "-m", "P@1")):
        done = run_cli(*args)
        assert_cli_error(done)
        assert "TOPSECRET" not in done.stderr and done.stderr.count("SECRET") <= 2, done.stderr
    with pytest.raises(InputError) as caught:
        read_trec_run(long_field)
    assert "characters)" in str(caught.value) and len(str(caught.value)) < 200


# ------------------------------------------------------------------------------ every failure is one line
@pytest.mark.slow
def test_unknown_compressions_and_archives(tmp_path: Path, files: dict[str, Path]) -> None:
    zst = tmp_path / "run.zst"
    zst.write_bytes(b"\x28\xb5\x2f\xfd" + b"\0" * 20)
    tar = tmp_path / "run.tar"
    tar.write_bytes(b"\0" * 257 + b"ustar" + b"\0" * 300)
    for path, word in ((zst, "damaged zstd data"), (tar, "tar archive")):  # zstd read; a damaged frame refused
        with pytest.raises(InputError, match=word):
            read_trec_run(path)
        assert_cli_error(run_cli("eval", files["qrels"], path, "-m", "P@1"), path.name, word)
    for module, suffix in (("bz2", "bz2"), ("lzma", "xz"), ("zstandard", "zst")):
        packed = tmp_path / f"run.{suffix}"
        packed.write_bytes(__import__(module).compress(RUN.encode()))
        assert read_trec_run(packed).equals(read_trec_run(files["run"]))


def test_unreadable_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, Path]) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()

    listing = os.scandir

    def refuse(path: object = ".") -> object:  # the tests run as root, where chmod does not lock anyone out
        if Path(os.fspath(path)).name == "locked":  # type: ignore[arg-type]
            raise PermissionError(13, "Permission denied")
        return listing(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", refuse)
    with pytest.raises(InputError, match="locked: cannot be read \\(Permission denied\\)"):
        Pool.from_runs(folder)
