"""Tokenizing by trec_eval 10.0's rules, on both parsers of ``ir_rarity.io.trec`` (runs and qrels alike).

The reference below is written from trec_eval 10.0's ``get_trec_results.c`` / ``get_qrels.c``: a line ends at
LF; its fields are separated by runs of C ``isspace`` characters (space, tab, CR, vertical tab, form feed), so
leading and trailing whitespace make no field and CRLF is a plain line end; blank lines are skipped. ir_rarity
adds: a line whose first non-blank character is ``#`` is a comment, a UTF-8 byte order mark at the start is
dropped, and a line must have exactly 6 (run) or 4 (qrels) fields.

Each input is read twice: as the reader chooses (the pyarrow CSV fast path when the input is uniformly
delimited) and with the fast path switched off (the whitespace-splitting parser); both must equal the reference.
"""

from __future__ import annotations

import gzip
import re
import tempfile
from pathlib import Path
from unittest import mock

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ir_rarity import InputError, Pool, read_trec_qrels, read_trec_run
from ir_rarity.io import trec
from ir_rarity.io.raw import open_input

BOM = "\ufeff"
_SPACE = " \t\r\x0b\x0c"  # C isspace, but LF (the line end)


def reference(data: bytes, n_fields: int) -> list[list[str]] | None:
    """Fields of every line by trec_eval's rule; None when a line has another number of fields."""
    text = data.decode("utf-8")
    text = text.removeprefix(BOM)
    rows = []
    for line in text.split("\n"):
        fields = [f for f in re.split(f"[{_SPACE}]+", line) if f]
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != n_fields:
            return None
        rows.append(fields)
    return rows


def reference_run(data: bytes) -> pd.DataFrame | None:
    rows = reference(data, 6)
    if not rows:
        return None
    return pd.DataFrame({"query_id": [r[0] for r in rows], "doc_id": [r[2] for r in rows],
                         "score": [float(r[4]) for r in rows], "tag": [r[5] for r in rows]})


def reference_qrels(data: bytes) -> pd.DataFrame | None:
    rows = reference(data, 4)
    if not rows:
        return None
    return pd.DataFrame({"query_id": [r[0] for r in rows], "doc_id": [r[2] for r in rows],
                         "relevance": [int(r[3]) for r in rows]})


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.astype({c: object for c in ("query_id", "doc_id", "tag") if c in frame.columns})


def read_both_ways(path: Path, read: object) -> list[pd.DataFrame]:
    """The frame as the reader chooses, and with the fast path off."""
    assert callable(read)
    chosen = read(path)
    with mock.patch.object(trec, "_with_csv_reader", return_value=None):
        fallback = read(path)
    return [chosen, fallback]


def _fast(path: Path) -> bool:
    """Whether the fast path (pyarrow's CSV reader) reads ``path``."""
    source = open_input(path)
    n = 6 if path.name.startswith("run") else 4
    return trec._with_csv_reader(trec._bytes(source), n, {0: ("q", trec.pa.string())}) is not None


# ------------------------------------------------------------------------------------------ strategies
_ID = st.text(alphabet="abcXYZ019_-.#é", min_size=1, max_size=5)
_SEP = st.text(alphabet=" \t", min_size=1, max_size=3)
_EDGE = st.text(alphabet=" \t", max_size=2)


@st.composite
def lines_of(draw: st.DrawFn, kind: str, uniform: bool) -> bytes:
    """A run or qrels file: rows with random whitespace (or one uniform delimiter), comments, blanks, CRLF, BOM."""
    n_rows = draw(st.integers(1, 8))
    delimiter = draw(st.sampled_from([" ", "\t"]))
    crlf = draw(st.booleans())
    out = [BOM] if draw(st.booleans()) else []
    for row in range(n_rows):
        if kind == "run":
            fields = [draw(_ID), "Q0", draw(_ID), str(draw(st.integers(0, 99))),
                      repr(draw(st.floats(allow_nan=False, allow_infinity=False, width=64))), draw(_ID)]
        else:
            fields = [draw(_ID), "0", f"{draw(_ID)}{row}", str(draw(st.integers(-2, 4)))]  # judged once each
        if uniform:
            line = delimiter.join(f.replace("#", "x") for f in fields)
        else:
            line = draw(_EDGE) + "".join(f + draw(_SEP) for f in fields[:-1]) + fields[-1] + draw(_EDGE)
            extra = draw(st.sampled_from(["", "", "blank", "comment", "spaces"]))
            if extra == "comment":
                out.append(draw(_EDGE) + "#" + " ".join(draw(_ID) for _ in range(len(fields))) + "\n")
            elif extra == "blank":
                out.append("\n")
            elif extra == "spaces":
                out.append(draw(_EDGE) + "\n")
        out.append(line + ("\r\n" if crlf else "\n"))
    if draw(st.booleans()):  # no line end at the end of the file
        out[-1] = out[-1].rstrip("\r\n")
    return "".join(out).encode("utf-8")


def _write(folder: str, name: str, data: bytes, compress: bool) -> Path:
    path = Path(folder) / (name + (".gz" if compress else ""))
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


PROPERTY = settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))


def _check(kind: str, data: bytes, compress: bool) -> None:
    read, expected = (read_trec_run, reference_run(data)) if kind == "run" else (read_trec_qrels,
                                                                                 reference_qrels(data))
    with tempfile.TemporaryDirectory() as folder:
        path = _write(folder, kind, data, compress)
        if expected is None:  # no row at all: an empty file, on both parsers
            with pytest.raises(InputError, match="empty"):
                read(path)
            with mock.patch.object(trec, "_with_csv_reader", return_value=None), pytest.raises(InputError):
                read(path)
            return
        for frame in read_both_ways(path, read):
            pd.testing.assert_frame_equal(_plain(frame), expected, check_dtype=False)
        if kind == "run":  # the Table a campaign read from files takes its runs from: the same rows, no pandas
            for frame in read_both_ways(path, lambda p: trec.read_trec_run_table(p).to_pandas()):
                pd.testing.assert_frame_equal(_plain(frame), expected, check_dtype=False)


@pytest.mark.slow
@PROPERTY
@given(st.sampled_from(["run", "qrels"]), st.booleans(), st.data())
def test_readers_equal_the_reference_on_random_whitespace(kind: str, compress: bool, data: st.DataObject) -> None:
    _check(kind, data.draw(lines_of(kind, uniform=False)), compress)


@pytest.mark.slow
@PROPERTY
@given(st.sampled_from(["run", "qrels"]), st.booleans(), st.data())
def test_readers_equal_the_reference_on_uniform_files(kind: str, compress: bool, data: st.DataObject) -> None:
    content = data.draw(lines_of(kind, uniform=True))
    _check(kind, content, compress)
    if content.endswith(b"\n"):  # these are files the fast path takes (pyarrow refuses one line without LF)
        with tempfile.TemporaryDirectory() as folder:
            assert _fast(_write(folder, kind, content, compress))


# ------------------------------------------------------------------------------------------ regressions
def test_a_trailing_space_makes_no_new_run_name(tmp_path: Path) -> None:
    # Tab-separated, a trailing space on the second line: before, the fast path read the tag "BRPHJ_BM25 ",
    # and splitting by tag gave a second run (S + 1).
    text = "1\tQ0\td1\t1\t2.0\tBRPHJ_BM25\n1\tQ0\td2\t2\t1.0\tBRPHJ_BM25 \n2\tQ0\td1\t1\t1.0\tBRPHJ_BM25\n"
    path = tmp_path / "run.txt"
    path.write_text(text)
    assert read_trec_run(path)["tag"].tolist() == ["BRPHJ_BM25"] * 3
    assert Pool.from_runs(path, split_by_tag=True).names == ["BRPHJ_BM25"]
    assert Pool.from_runs(path).num_systems == 1


def test_a_leading_space_makes_no_phantom_query(tmp_path: Path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text("q1\t0\td1\t1\n q1\t0\td2\t1\n")
    assert read_trec_qrels(path)["query_id"].tolist() == ["q1", "q1"]


@pytest.mark.parametrize("compress", [False, True])
@pytest.mark.parametrize("text", ["q1 Q0 d1 1 2.0 A\r\nq1 Q0 d2 2 1.0 A\r\n",     # fast path
                                  "q1  Q0 d1 1 2.0 A\r\nq1 Q0 d2 2 1.0 A\r\n"])   # the other parser
def test_a_byte_order_mark_is_dropped_on_every_path(tmp_path: Path, compress: bool, text: str) -> None:
    path = _write(str(tmp_path), "run", (BOM + text).encode(), compress)
    for frame in read_both_ways(path, read_trec_run):
        assert frame["query_id"].tolist() == ["q1", "q1"] and frame["tag"].tolist() == ["A", "A"]


def test_a_comment_line_of_six_words_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("# qid Q0 docno rank score tag\nq1 Q0 d1 1 2.0 A\n")
    for frame in read_both_ways(path, read_trec_run):
        assert frame["query_id"].tolist() == ["q1"]


def test_a_lone_carriage_return_is_whitespace_inside_a_line(tmp_path: Path) -> None:
    # trec_eval: one line of 12 fields (an error here); a CSV reader would have read two lines.
    path = tmp_path / "run.txt"
    path.write_bytes(b"q1 Q0 d1 1 2.0 A\rq1 Q0 d2 2 1.0 A\n")
    with pytest.raises(InputError, match=r"run.txt:1: expected 6 whitespace-separated fields, found 12"):
        read_trec_run(path)


def test_errors_still_name_the_line_after_comments_and_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text(BOM + "# header\nq1 Q0 d1 1 2.0 A\nq1 Q0 d2 2 nan A\n")
    with pytest.raises(InputError, match=r"run.txt:3: field 5 must be a number"):
        read_trec_run(path)
