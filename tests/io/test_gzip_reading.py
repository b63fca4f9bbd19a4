"""Gzip inputs inflated in native code (ir_rarity.io.raw._gunzip), the line bound's fast check, the fast path's checks.

* gzip data gives the bytes ``gzip.decompress`` gives (members in a row, zero padding between and after them),
  whatever the chunk size; damaged data (a corrupt member, a truncated one, bytes after the last member that
  start none) is a one-line error naming the file;
* :func:`ir_rarity.io.raw._longest_line`'s memchr check refuses exactly the chunks the line-by-line measure
  refuses, and gives the same carry;
* the CSV fast path hands every input with an empty field (in a column the caller does not read too) or a comment
  line to the whitespace-splitting parser.
"""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ir_rarity import InputError, read_trec_run
from ir_rarity.io import raw, trec
from ir_rarity.io.raw import open_input

RUN = b"q1 Q0 d1 1 2.5 A\nq1 Q0 d2 2 1.5 A\nq2 Q0 d3 1 0.5 A\n"


def _input(tmp_path: Path, data: bytes) -> bytes:
    path = tmp_path / "r.gz"
    path.write_bytes(data)
    return bytes(open_input(path).data or b"")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(members=st.lists(st.binary(max_size=300).map(lambda b: b.replace(b"\0", b"\n")), min_size=1, max_size=4),
       padding=st.lists(st.integers(0, 3), min_size=4, max_size=4), chunk=st.integers(1, 64),
       level=st.integers(0, 9))
def test_gzip_inflates_as_the_gzip_module_reads_it(tmp_path: Path, members: list[bytes], padding: list[int],
                                                    chunk: int, level: int) -> None:
    padded = zip(members, padding[:len(members)], strict=True)
    data = b"".join(gzip.compress(m, compresslevel=level) + b"\0" * p for m, p in padded)
    with mock.patch.object(raw, "_CHUNK", chunk):  # chunks of a few bytes: every loop of _gunzip is taken
        assert raw._gunzip(io.BytesIO(data), "r.gz", 1 << 20, "too much") == gzip.decompress(data)
    assert _input(tmp_path, data) == gzip.decompress(data)


def test_the_standard_zlib_reads_the_same_bytes(tmp_path: Path) -> None:
    data = gzip.compress(RUN) + gzip.compress(RUN[:20])
    with mock.patch.object(raw, "_inflate_module", return_value=zlib):
        assert _input(tmp_path, data) == RUN + RUN[:20]


@pytest.mark.parametrize(("data", "message"), [
    (gzip.compress(RUN) + b"junk", r"damaged gzip data \(trailing bytes after the last member\)"),
    (gzip.compress(RUN) + b"\0\0\x1f", r"damaged gzip data \(trailing bytes after the last member\)"),
    (gzip.compress(RUN)[:-6], r"damaged gzip data \(truncated: the data ends inside a member\)"),
    (b"\x1f\x8b\x08\x00\x00", r"damaged gzip data \(truncated"),
    (gzip.compress(RUN)[:-8] + b"\0\0\0\0" + gzip.compress(RUN)[-4:], r"damaged gzip data \(a corrupt member"),
], ids=["trailing", "trailing-after-padding", "truncated", "header-only", "crc"])
def test_damaged_gzip_is_one_line_naming_the_file(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "r.gz"
    path.write_bytes(data)
    with pytest.raises(InputError, match=rf"^{tmp_path}/r\.gz: cannot be decoded: {message}") as caught:
        read_trec_run(path)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("text", [b"q1 Q0 d 1 1 A\n" + b"x" * (raw.MAX_LINE_BYTES + 1) + b"\nq1 Q0 e 2 0 A\n",
                                  b"x" * (raw.MAX_LINE_BYTES + 1),
                                  b"q1 Q0 d 1 1 A\n" * 300_000 + b"y" * (raw.MAX_LINE_BYTES + 10)],
                         ids=["middle", "no-newline", "across-chunks"])
def test_a_gzipped_line_over_the_bound_is_refused(tmp_path: Path, text: bytes) -> None:
    path = tmp_path / "r.gz"
    path.write_bytes(gzip.compress(text, compresslevel=1))
    with pytest.raises(InputError, match=r"r\.gz: a line longer than 1,048,576 bytes"):
        read_trec_run(path)


@settings(max_examples=300, deadline=None)
@given(chunk=st.lists(st.sampled_from([b"a", b"bb", b"\n", b"cccc"]), max_size=60).map(b"".join),
       carried=st.integers(0, 12), bound=st.integers(2, 12))
def test_the_fast_line_check_refuses_what_the_exact_one_refuses(chunk: bytes, carried: int, bound: int) -> None:
    with mock.patch.object(raw, "MAX_LINE_BYTES", bound):
        longest, carry = raw._longest_line(chunk, carried)
        if b"\n" in chunk:
            exact, exact_carry = raw._longest_line_exact(chunk, carried)
        else:
            exact = exact_carry = carried + len(chunk)
    assert carry == exact_carry
    assert (longest > bound) == (exact > bound)
    assert longest <= exact


@pytest.mark.parametrize("text", [
    b"q1 Q0 d1 1 2.5 A\nq1  d2 2 1.5 A\n",      # a doubled delimiter: the Q0 field is empty to the CSV reader
    b"q1 Q0 d1 1 2.5 A\nq1 Q0 d2  1.5 A\n",     # ... the rank field
    b"q1 Q0 d1 1 2.5 A\n q1 d2 2 1.5 A\n",      # a leading delimiter
    b"q1 Q0 d1 1 2.5 A\nq1 d2 2 1.5 A \n",      # a trailing one
    b"q1 Q0 d1 1 2.5 A\n#q Q0 d2 2 1.5 A\n",    # a comment line of six fields
], ids=["q0", "rank", "leading", "trailing", "comment"])
def test_the_fast_path_leaves_what_trec_eval_splits_otherwise_to_the_fallback(tmp_path: Path, text: bytes) -> None:
    path = tmp_path / "r.gz"
    path.write_bytes(gzip.compress(text))
    source = open_input(path)
    assert trec._with_csv_reader(trec._bytes(source), 6, {0: ("q", trec.pa.string())}) is None
    if b"#" in text:  # trec_eval skips the comment line
        assert read_trec_run(path)["doc_id"].tolist() == ["d1"]
    else:
        with pytest.raises(InputError, match=r"r\.gz:2: expected 6 whitespace-separated fields, found 5"):
            read_trec_run(path)


def test_the_fast_path_reads_a_uniform_file(tmp_path: Path) -> None:
    path = tmp_path / "r.gz"
    path.write_bytes(gzip.compress(RUN))
    source = open_input(path)
    table = trec._with_csv_reader(trec._bytes(source), 6, {0: ("q", trec.pa.string()), 4: ("s", trec.pa.float64())})
    assert table is not None and table.column_names == ["f0", "f4"]
    assert read_trec_run(path)["score"].tolist() == [2.5, 1.5, 0.5]
