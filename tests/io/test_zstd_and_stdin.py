"""Zstandard-compressed inputs and runs on standard input: the same rows and values as the plain files.

trec_eval 10.0 reads a results file from standard input (``-``); ``zstd`` output is read wherever a file is read
(runs, qrels, pipes, standard input), told by its magic bytes, every frame; a frame cut short is an error.
"""

from __future__ import annotations

import gzip
import io
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import zstandard
from cli_helpers import assert_cli_error, run_cli

from ir_rarity.data import covid_round1
from ir_rarity.errors import InputError
from ir_rarity.io.trec import read_trec_qrels, read_trec_run


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The embedded round-1 qrels and one run (the first 3,000 lines of run BERT), as plain files."""
    folder = tmp_path_factory.mktemp("plain")
    lines = gzip.decompress(covid_round1.runs.read_bytes()).decode().splitlines(keepends=True)
    bert = [line for line in lines if line.split()[5] == "BERT"][:3000]
    files = {"run": folder / "BERT", "qrels": folder / "qrels.txt"}
    files["run"].write_text("".join(bert))
    files["qrels"].write_bytes(gzip.decompress(covid_round1.qrels.read_bytes()))
    return files


def _zstd(data: bytes, frames: int = 1) -> bytes:
    """``data`` compressed in ``frames`` consecutive zstd frames (as ``cat a.zst b.zst`` makes)."""
    step = -(-len(data) // frames)
    return b"".join(zstandard.ZstdCompressor(level=3).compress(data[i:i + step])
                    for i in range(0, len(data), step))


@pytest.mark.parametrize("frames", [1, 3])
def test_zstd_run_and_qrels_equal_plain(plain: dict[str, Path], tmp_path: Path, frames: int) -> None:
    for kind, reader in (("run", read_trec_run), ("qrels", read_trec_qrels)):
        packed = tmp_path / f"{kind}.zst"
        packed.write_bytes(_zstd(plain[kind].read_bytes(), frames))
        expected = reader(plain[kind])
        got = reader(packed)
        assert len(got) == len(expected) > 100
        pd.testing.assert_frame_equal(got, expected)


def test_zstd_cut_short_is_one_line(plain: dict[str, Path], tmp_path: Path) -> None:
    whole = _zstd(plain["run"].read_bytes())
    cut = tmp_path / "cut.zst"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(InputError, match=r"damaged zstd data.*ends inside a frame"):
        read_trec_run(cut)
    assert_cli_error(run_cli("eval", plain["qrels"], cut, "-m", "P@10"), "cut.zst", "damaged zstd data")


def _table(stdout: str) -> pd.DataFrame:
    """The printed means: a table (a header ``run``, a row per run) or, for one run, ``measure<TAB>value`` lines
    as the ir_measures command prints them (a one-row table named ``run``)."""
    lines = [line for line in stdout.splitlines() if line and not line.startswith("#")]
    if lines[0].startswith("run\t"):
        return pd.read_csv(io.StringIO("\n".join(lines)), sep="\t", index_col=0)
    pairs = [line.split("\t") for line in lines]
    return pd.DataFrame([[float(v) for _, v in pairs]], columns=[m for m, _ in pairs], index=["run"])


def _eval(*args: object, stdin: bytes | None = None) -> pd.DataFrame:
    done = subprocess.run([sys.executable, "-m", "ir_rarity", "eval", *map(str, args), "-m", "P@10", "AP",
                           "nDCG@10"], input=stdin, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    return _table(done.stdout.decode())


def test_stdin_and_zstd_round_trips(plain: dict[str, Path], tmp_path: Path) -> None:
    """A run from a file, from stdin (plain and zstd) and from a zstd file; zstd qrels: the same values."""
    packed_run = tmp_path / "BERT.zst"
    packed_run.write_bytes(_zstd(plain["run"].read_bytes(), 2))
    packed_qrels = tmp_path / "qrels.zst"
    packed_qrels.write_bytes(_zstd(plain["qrels"].read_bytes()))
    expected = _eval(plain["qrels"], plain["run"])
    assert expected.columns.tolist() == ["P@10", "AP", "nDCG@10"] and expected.to_numpy().min() > 0
    for got in (_eval(plain["qrels"], "-", stdin=plain["run"].read_bytes()),
                _eval(plain["qrels"], "-", stdin=packed_run.read_bytes()),
                _eval(packed_qrels, packed_run), _eval(packed_qrels, plain["run"])):
        assert got.to_numpy().tolist() == expected.to_numpy().tolist()


def test_a_zstd_bomb_is_refused_while_reading(tmp_path: Path) -> None:
    """40 MB of run lines in a few kilobytes of zstd: past 20 times its size plus 32 MiB, reading stops."""
    line = b"q1 Q0 d1 1 1.0 r\n"
    bomb = tmp_path / "bomb.zst"
    bomb.write_bytes(zstandard.ZstdCompressor(level=19).compress(line * (40_000_000 // len(line))))
    assert bomb.stat().st_size < 100_000
    with pytest.raises(InputError, match="zstd data expanding more than 20 times its size"):
        read_trec_run(bomb)
