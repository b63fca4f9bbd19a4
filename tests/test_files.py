"""Atomic writes: whole files or nothing, normal permissions, no temporary files left behind."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ir_rarity.io.files import write_atomic, write_with


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
