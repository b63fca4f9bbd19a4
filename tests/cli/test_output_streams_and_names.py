"""Outputs: a FIFO, a device or /dev/stdout is written in place, as a stream; a regular file is replaced atomically.

Run names holding a tab or a line break cannot shift a tsv row's columns: tsv refuses them in one line naming
the run; csv and jsonl quote them; markdown and latex keep each row on one line.
"""

from __future__ import annotations

import csv
import io
import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ir_rarity.errors import InputError
from ir_rarity.io.files import is_stream, write_atomic, write_text
from ir_rarity.tables import render
from tests.cli_helpers import BIN, assert_cli_error, run_cli

ROWS = [("a\tb", 0.5), ("c\nd", 0.25), ('e,"f', 1.0)]


def _read_fifo(path: Path, out: list[bytes]) -> threading.Thread:
    def reader() -> None:
        with open(path, "rb") as f:
            out.append(f.read())
    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    return thread


def test_write_to_a_fifo_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    thread = _read_fifo(fifo, got)
    write_atomic(fifo, "one\ttwo\n")
    thread.join(10)
    assert got == [b"one\ttwo\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # not replaced by a regular file
    assert [p.name for p in tmp_path.iterdir()] == ["fifo"]  # no temporary file left
    got.clear()
    thread = _read_fifo(fifo, got)
    write_text(fifo, "through a writer\n")  # write_with: a temporary file, then copied into the stream
    thread.join(10)
    assert got == [b"through a writer\n"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_dev_null_and_regular_files(tmp_path: Path) -> None:
    assert is_stream("/dev/null") and is_stream("/dev/stdout")
    write_atomic("/dev/null", "gone\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    regular = tmp_path / "out.tsv"
    regular.write_text("old\n")
    os.chmod(regular, 0o640)
    before = os.stat(regular).st_ino
    assert not is_stream(regular) and not is_stream(tmp_path / "new.tsv")
    write_atomic(regular, "new\n")
    assert regular.read_text() == "new\n" and stat.S_IMODE(os.stat(regular).st_mode) == 0o640
    assert os.stat(regular).st_ino != before  # replaced atomically (os.replace), as before


def test_cli_output_to_dev_stdout_appends_to_the_log(tmp_path: Path, files: dict[str, Path]) -> None:
    log = tmp_path / "log"
    log.write_text("earlier line\n")
    with open(log, "ab") as out:  # ir-rarity eval ... -o /dev/stdout >> log
        done = subprocess.run([str(BIN / "ir-rarity"), "eval", str(files["qrels"]), str(files["run"]), "-m", "P@2",
                               "--output", "/dev/stdout"], stdout=out, stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert log.read_text().splitlines() == ["earlier line", "P@2\t0.5000"]  # one run: as ir_measures prints


@pytest.mark.slow
def test_cli_output_to_a_fifo_and_dev_null(tmp_path: Path, files: dict[str, Path]) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    thread = _read_fifo(fifo, got)
    done = run_cli("eval", files["qrels"], files["run"], "-m", "P@2", "--output", fifo)
    thread.join(10)
    assert done.returncode == 0, done.stderr
    assert got == [b"P@2\t0.5000\n"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    done = run_cli("eval", files["qrels"], files["run"], "-m", "P@2", "--output", "/dev/null")
    assert done.returncode == 0, done.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_run_names_with_tabs_or_line_breaks_api() -> None:
    with pytest.raises(InputError, match=r"cannot write the run 'a\\tb' as tsv"):
        render(["run", "P@2"], ROWS, "tsv")
    assert list(csv.reader(io.StringIO(render(["run", "P@2"], ROWS, "csv")))) == [
        ["run", "P@2"], ["a\tb", "0.5000"], ["c\nd", "0.2500"], ['e,"f', "1.0000"]]
    assert [json.loads(line)["run"] for line in render(["run", "P@2"], ROWS, "jsonl").splitlines()] == [
        "a\tb", "c\nd", 'e,"f']
    text = render(["run", "P@2"], ROWS, "latex")  # TeX reads a line break as a space: a row stays one line
    assert "\t" not in text and sum("0.2500" in line and "c d" in line for line in text.splitlines()) == 1
    text = render(["run", "P@2"], ROWS, "markdown")  # character references: the rendered cell is the name
    assert "\t" not in text and sum("0.2500" in line and "c&#10;d" in line for line in text.splitlines()) == 1


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="a tab in a file name")
def test_run_names_with_tabs_cli(tmp_path: Path, files: dict[str, Path]) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "x\ty").write_text(files["run"].read_text())
    (runs / "b").write_text(files["run"].read_text().replace("d1", "d9"))
    done = run_cli("eval", files["qrels"], runs / "x\ty", runs / "b", "-m", "P@2")
    assert_cli_error(done, r"the run 'x\ty'", "tsv")
    done = run_cli("eval", files["qrels"], runs / "x\ty", runs / "b", "-m", "P@2", "--format", "csv")
    assert done.returncode == 0, done.stderr
    assert sorted(row[0] for row in csv.reader(io.StringIO(done.stdout))) == ["b", "run", "x\ty"]
