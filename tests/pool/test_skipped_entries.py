"""Nothing in a run folder is left out silently: hidden entries, subfolders and FIFOs are named in one notice.

A FIFO (or socket, device, subfolder) in a run folder, and its hidden files, used to be dropped without a word: a
campaign of three runs and a FIFO was read as S = 2 without the user knowing a run was missing. They are still not
read (a FIFO's bytes would be gone for the next reader, a ``.DS_Store`` is no run), but one
:class:`~ir_rarity.errors.SkippedFilesNotice` names them; a FIFO named explicitly is read in full.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import warnings
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import run_cli
from conftest import HAND_RUNS

from ir_rarity import Pool
from ir_rarity.errors import SkippedFilesNotice
from ir_rarity.pool.build.paths import expand_run_paths


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """A run folder: runs A and B, a FIFO, a hidden file and a subfolder (its run C is not read)."""
    folder = tmp_path / "runs"
    folder.mkdir()
    for name in "AB":
        (folder / name).write_text(HAND_RUNS[name])
    os.mkfifo(folder / "pipe")
    (folder / ".env").write_text("SECRET=1\n")
    (folder / "more").mkdir()
    (folder / "more" / "C").write_text(HAND_RUNS["C"])
    return folder


def _listed(spec: str | Path) -> tuple[list[str], list[str]]:
    """The names of the files ``spec`` names, and the messages of the notices given."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        files = expand_run_paths(spec)
    return [p.name for p in files], [str(w.message) for w in caught if w.category is SkippedFilesNotice]


def test_a_folder_names_what_it_skipped(runs: Path) -> None:
    names, notices = _listed(runs)
    assert names == ["A", "B"]
    assert notices == [f"{runs}: skipped 2 entries that are not regular files (more: folder, pipe: fifo) and "
                       "1 hidden entry (.env); name them explicitly to read them"]


def test_a_socket_and_a_glob(runs: Path, tmp_path: Path) -> None:
    short = Path(os.path.realpath("/tmp")) / f"ir_rarity_sock_{os.getpid()}"  # AF_UNIX paths are short
    short.mkdir()
    try:
        (short / "A").write_text(HAND_RUNS["A"])
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(str(short / "sock"))
            names, notices = _listed(short)
        assert names == ["A"]
        assert notices == [f"{short}: skipped 1 entry that is not a regular file (sock: socket); name them "
                           "explicitly to read them"]
    finally:
        shutil.rmtree(short)
    names, notices = _listed(f"{runs}/*")  # a glob: hidden names are not matched; the FIFO and the folder are
    assert names == ["A", "B"]
    assert notices == [f"{runs}/*: skipped 2 entries that are not regular files (more: folder, pipe: fifo); name "
                       "them explicitly to read them"]


def test_a_plain_folder_gives_no_notice(runs: Path) -> None:
    shutil.rmtree(runs / "more")
    (runs / "pipe").unlink()
    (runs / ".env").unlink()
    assert _listed(runs) == (["A", "B"], [])


def test_the_pool_is_the_same_and_the_command_says_it_in_one_line(runs: Path, hand_files: dict) -> None:
    with pytest.warns(SkippedFilesNotice, match=r"skipped 2 entries .* and 1 hidden entry \(\.env\)"):
        pool = Pool.from_runs(runs)
    expected = Pool.from_runs([hand_files["A"], hand_files["B"]])
    assert pool.names == ["A", "B"] and pool.num_systems == 2
    pd.testing.assert_frame_equal(pool.counts(), expected.counts())
    out = run_cli("pool", runs, "--out", runs.parent / "counts.csv")
    assert out.returncode == 0, out.stderr
    notes = [line for line in out.stderr.splitlines() if "skipped" in line]
    assert notes == [f"ir-rarity: note: {runs}: skipped 2 entries that are not regular files (more: folder, "
                     "pipe: fifo) and 1 hidden entry (.env); name them explicitly to read them"]
    counts = pd.read_csv(runs.parent / "counts.csv")
    assert counts.set_index(["query_id", "doc_id"])["S_d"].to_dict() == \
        expected.counts().set_index(["query_id", "doc_id"])["S_d"].to_dict()


def test_a_fifo_named_explicitly_is_read_in_full(runs: Path, hand_files: dict, tmp_path: Path) -> None:
    writer = subprocess.Popen(["bash", "-c", f'cat "{hand_files["C"]}" > "{runs / "pipe"}"'])
    with warnings.catch_warnings():
        warnings.simplefilter("error", SkippedFilesNotice)  # named: nothing skipped, no notice
        pool = Pool.from_runs([runs / "A", runs / "B", runs / "pipe"])
    writer.wait(timeout=30)
    expected = Pool.from_runs([hand_files[n] for n in "ABC"])
    assert pool.num_systems == 3
    pd.testing.assert_frame_equal(pool.counts(), expected.counts())
