"""Which files name a campaign, and what identifies their content: numpy and pandas free.

A run argument (a file, a folder, a glob, or a list of them) is listed here (:func:`run_files`, by the rule of
:func:`expand_run_paths`), a file's kind is told by its bytes (:func:`file_kind`) and a campaign read from files
records their signatures (:class:`Origin`). :mod:`ir_rarity.pool.sources` reads the runs; this module only looks
at the file system, so the disk cache's key can be made, and a cached campaign found, without importing a reader
(the warm path of the ir_measures provider).
"""

from __future__ import annotations

import glob
import os
import stat
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ir_rarity.errors import InputError

__all__ = ["FileSignature", "Origin", "expand_run_paths", "file_kind", "file_signature", "origin_of", "path_specs",
           "run_files"]

_GLOB_CHARS = set("*?[")

def expand_run_paths(spec: str | os.PathLike[str]) -> list[Path]:
    """The files a run argument names: the file itself; a folder's non-hidden regular files; a glob's files.

    Sorted by name (a folder, a glob). The one rule for every reader and for the command line's output checks.

    Raises:
        InputError: nothing exists at ``spec``, an empty folder, or a pattern that matches no file.

    """
    text = os.fspath(spec)
    path = Path(text)
    if text == "-" or path.is_file():  # standard input, or a file (even one whose name holds glob characters)
        return [path]
    if path.is_dir():
        try:
            entries = [p for p in path.iterdir() if not p.name.startswith(".")]
        except OSError as e:
            raise InputError(f"cannot be read ({e.strerror or type(e).__name__})", text) from None
        files = _regular_files(entries)
        if not files:
            raise InputError("directory holds no run files", text)
        return files
    if _GLOB_CHARS & set(text):
        files = _regular_files([Path(p) for p in glob.glob(text)])
        if not files:
            raise InputError("no file matches this pattern", text)
        return files
    if not path.exists():
        raise InputError("no such run file, directory or pattern", text)
    return [path]


def _regular_files(entries: Sequence[Path]) -> list[Path]:
    """The regular files (or links to them) among a folder's or a glob's ``entries``, sorted; subfolders skipped.

    Raises:
        InputError: a broken symbolic link or an entry that cannot be examined, naming it (never skipped silently:
            a run missing from a campaign changes every rarity value).

    """
    files = []
    for p in entries:
        try:
            mode = p.stat().st_mode
        except FileNotFoundError:
            raise InputError("a broken symbolic link among the run files (its target does not exist)",
                             os.fspath(p)) from None
        except OSError as e:
            raise InputError(f"cannot be read ({e.strerror or type(e).__name__})", os.fspath(p)) from None
        if stat.S_ISREG(mode):
            files.append(p)
    return sorted(files)


def file_kind(path: str | os.PathLike[str]) -> str:
    """``"pool"`` (a saved ``.npz``), ``"counts"`` (a parquet count table) or ``"runs"``, by the file's bytes.

    Four magic bytes are not enough (a run whose first query id is ``PAR1`` begins like a parquet file): a parquet
    file also ends with ``PAR1`` (the footer magic of the Apache Parquet format) and a zip archive has a valid
    end-of-central-directory record (``zipfile.is_zipfile``). Three small reads, whatever the file's size.
    """
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return "runs"  # a pipe or device: never read ahead (its bytes would be gone for the reader)
        with open(path, "rb") as f:
            head = f.read(4)
            if head == b"PAR1" and st.st_size >= 12:
                f.seek(-4, os.SEEK_END)
                return "counts" if f.read(4) == b"PAR1" else "runs"
        if head == b"PK\x03\x04" and zipfile.is_zipfile(path):
            return "pool"
    except OSError:
        return "runs"  # the run reader gives the error, naming the file
    return "runs"


FileSignature = tuple[str, int, int, int, int]
"""A file's real path, inode, size, modification and status-change times (ns)."""


def file_signature(files: Sequence[Path]) -> tuple[FileSignature, ...]:
    """What identifies the content of ``files`` without reading them.

    The status-change time and the inode change whenever a file's content is replaced, even by a copy that keeps
    the size and modification time (``cp -p``, ``rsync -t``), so a changed file never passes for the one read
    before.
    """
    out = []
    folders: dict[str, str] = {}  # a folder's real path, resolved once for all its files
    for p in files:
        text = os.fspath(p)
        st = os.lstat(text) if text != "-" else os.stat(0)
        if text != "-" and not stat.S_ISLNK(st.st_mode):  # not a link: its folder's real path and its name
            folder = os.path.dirname(text)
            if folder not in folders:
                folders[folder] = os.path.realpath(folder)
            real = os.path.join(folders[folder], os.path.basename(text))
        else:
            real = os.path.realpath(p)
            st = os.stat(text) if text != "-" else st
        out.append((real, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(out)


@dataclass(frozen=True)
class Origin:
    """Where a campaign was read from: what its files were read as, and their signatures.

    Attributes:
        kind: ``"runs"``, ``"pool"`` (a saved ``.npz``) or ``"counts"`` (a ``.parquet`` count table).
        files: :func:`file_signature` of the files, in the order read.

    """

    kind: str
    files: tuple[FileSignature, ...]

    def names(self) -> list[str]:
        """The files' paths."""
        return [f[0] for f in self.files]

    def same_campaign(self, other: Origin) -> bool:
        """Whether ``other`` names the same files read the same way, in any order.

        The order of the runs changes neither S nor S_d.
        """
        return self.kind == other.kind and sorted(self.files) == sorted(other.files)


def path_specs(spec: Any) -> list[str | os.PathLike[str]] | None:
    """``spec`` as a list of paths when it names files (a path or a list of paths), else None."""
    if isinstance(spec, (str, os.PathLike)):
        return [spec]
    if isinstance(spec, (list, tuple)) and spec and all(isinstance(s, (str, os.PathLike)) for s in spec):
        return list(spec)
    return None


def origin_of(files: Sequence[Path], kind: str) -> Origin:
    """The :class:`Origin` of a campaign read from ``files`` as ``kind``."""
    return Origin(kind, file_signature(files))

def run_files(runs: Any) -> list[Path]:
    """The files a run file, directory, glob pattern or list of them names (listed once, here).

    Raises:
        InputError: nothing at a path, an empty list, or a value that names no files.

    """
    specs = path_specs(runs)
    if specs is None:
        if isinstance(runs, (list, tuple)) and not runs:
            raise InputError("the list of run files is empty")
        raise InputError(f"cannot build a pool from {type(runs).__name__}: give a dict of runs, a run file, a "
                         "directory, a glob pattern or a list of run files")
    return [p for spec in specs for p in expand_run_paths(spec)]
