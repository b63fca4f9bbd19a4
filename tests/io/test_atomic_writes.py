"""Atomic writes: whole files or nothing, normal permissions, no temporary files left behind."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ir_rarity.io.files import write_atomic, write_text, write_with


def test_write_and_permissions_follow_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = write_atomic(tmp_path / "out.tsv", "a\tb\n")
    finally:
        os.umask(old)
    assert path.read_text() == "a\tb\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["out.tsv"]


def test_failed_write_keeps_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "report.md"
    path.write_text("old")

    def fail(tmp: Path) -> None:
        tmp.write_text("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        write_with(path, fail)
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]


def test_replacing_a_file_keeps_its_permissions_and_a_new_file_gets_the_umask(tmp_path: Path) -> None:
    existing = tmp_path / "out.tsv"
    existing.write_text("old")
    existing.chmod(0o640)
    write_text(existing, "new")
    assert existing.read_text() == "new" and stat.S_IMODE(existing.stat().st_mode) == 0o640
    old_mask = os.umask(0o027)
    try:
        fresh = write_text(tmp_path / "fresh.tsv", "x")
    finally:
        os.umask(old_mask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o640


def test_writing_to_a_symlink_writes_through_it(tmp_path: Path) -> None:
    target = tmp_path / "real.tsv"
    target.write_text("old")
    link = tmp_path / "link.tsv"
    link.symlink_to(target)
    write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"


def test_sigterm_removes_the_temporary_file(tmp_path: Path) -> None:
    code = ("import time, sys\n"
            "from ir_rarity.io.files import write_with\n"
            "def slow(tmp):\n"
            "    tmp.write_text('partial')\n"
            "    print('writing', flush=True)\n"
            "    time.sleep(30)\n"
            f"write_with({str(tmp_path / 'out.txt')!r}, slow)\n")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "writing"
    child.send_signal(signal.SIGTERM)
    child.wait(timeout=30)
    assert child.returncode == 128 + signal.SIGTERM
    assert list(tmp_path.iterdir()) == []
