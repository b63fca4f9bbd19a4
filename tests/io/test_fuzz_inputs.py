"""Fuzzing: random bytes as run, qrels and pool files.

Only ir_rarity's own errors (:class:`RarityError`) may escape the API; the command line exits non-zero with
exactly one line on stderr and never a traceback.
"""

from __future__ import annotations

import contextlib
import gzip
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ir_rarity import Pool, RarityError, read_trec_qrels, read_trec_run

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
VALID_RUN = b"q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1 tag\n"
VALID_QRELS = b"q1 0 d1 1\nq1 0 d2 0\n"

pytestmark = pytest.mark.slow  # fuzzing every reader (hypothesis)


# Random bytes, plus mutations of valid files: they get past the first checks and reach the deeper ones.
def _mutated(valid: bytes) -> st.SearchStrategy[bytes]:
    return st.tuples(st.integers(0, len(valid)), st.binary(max_size=8), st.integers(0, 4)).map(
        lambda t: valid[: t[0]] + t[1] + valid[t[0] + t[2]:])


def _contents(valid: bytes) -> st.SearchStrategy[tuple[bytes, bool]]:
    return st.tuples(st.one_of(st.binary(max_size=200), _mutated(valid)), st.booleans())


def _write(folder: str, name: str, data: bytes, compress: bool) -> Path:
    path = Path(folder) / (name + (".gz" if compress else ""))
    path.write_bytes(gzip.compress(data) if compress and data[:1] != b"\x1f" else data)
    return path


@FUZZ
@example((b"\x1f\x8b\x08\x00\x00", True)).via("truncated gzip")
@example((b"q1 Q0 d1 1 1e999999 t\n", False)).via("overflowing score")
@example((b"q1 Q0 d1 1 nan t\n", False)).via("NaN score")
@given(_contents(VALID_RUN))
def test_fuzz_run_reader_and_pool(content: tuple[bytes, bool]) -> None:
    data, compress = content
    with tempfile.TemporaryDirectory() as folder:
        path = _write(folder, "run", data, compress)
        for read in (read_trec_run, lambda p: Pool.from_runs([p]), lambda p: Pool.from_runs(p)):
            written = path.read_bytes()
            with contextlib.suppress(RarityError):
                read(path)
            assert path.read_bytes() == written  # the input is never changed


@FUZZ
@example((b"q1 0 d1 99999999999999999999999\n", False)).via("label beyond int64")
@given(_contents(VALID_QRELS))
def test_fuzz_qrels_reader(content: tuple[bytes, bool]) -> None:
    data, compress = content
    with tempfile.TemporaryDirectory() as folder:
        path = _write(folder, "qrels", data, compress)
        with contextlib.suppress(RarityError):
            read_trec_qrels(path)
        pool = Pool.from_runs({"A": {"q1": {"d1": 1.0, "d2": 0.5}}, "B": {"q1": {"d2": 1.0}}})
        with contextlib.suppress(RarityError):
            pool.evaluate(path, ["P_rare@2", "AP_rare", "P@2"])


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@example(b"q1 Q0 d1 1 1e999999 t\n", b"q1 0 d1 99999999999999999999999\n")
@given(st.one_of(st.binary(max_size=120), _mutated(VALID_RUN)), st.one_of(st.binary(max_size=60),
                                                                          _mutated(VALID_QRELS)))
def test_fuzz_cli(run: bytes, qrels: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        run_path, qrels_path = _write(folder, "run", run, False), _write(folder, "qrels", qrels, False)
        result = subprocess.run([sys.executable, "-m", "ir_rarity", "eval", str(qrels_path), str(run_path), "-m",
                                 "P_rare@2", "AP_rare", "P@2"], capture_output=True, text=True, timeout=120)
        assert "Traceback" not in result.stderr
        if result.returncode != 0:
            assert len(result.stderr.strip().splitlines()) == 1, result.stderr
            assert result.stderr.startswith("ir-rarity: error: "), result.stderr
        assert run_path.read_bytes() == run and qrels_path.read_bytes() == qrels
