"""Which files name a campaign, and what identifies their content: numpy and pandas free.

A run argument (a file, a folder, a glob, or a list of them) is listed here (:func:`run_files`, by the rule of
:func:`expand_run_paths`), a file's kind is told by its bytes (:func:`file_kind`) and a campaign read from files
records their signatures (:class:`Origin`). :mod:`ir_rarity.pool.build.sources` reads the runs; this module only looks
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

from ir_rarity.errors import InputError, SkippedFilesNotice, warn

__all__ = ["FileSignature", "Origin", "RunFiles", "expand_run_paths", "file_kind", "file_signature", "origin_of",
           "path_specs", "run_files", "spec_origin"]

_GLOB_CHARS = set("*?[")

def expand_run_paths(spec: str | os.PathLike[str]) -> list[Path]:
    """The files a run argument names: the file itself; a folder's non-hidden regular files; a glob's files.

    Sorted by name (a folder, a glob). The one rule for every reader and for the command line's output checks.
    Nothing is left out silently: hidden entries of a folder, and entries of a folder or glob that are not regular
    files (subfolders, FIFOs, sockets, devices), are named in one :class:`~ir_rarity.errors.SkippedFilesNotice`
    (a file named explicitly, a FIFO too, is read).

    Raises:
        InputError: nothing exists at ``spec``, an empty folder, or a pattern that matches no file.

    """
    text = os.fspath(spec)
    path = Path(text)
    if text == "-" or path.is_file():  # standard input, or a file (even one whose name holds glob characters)
        return [path]
    if path.is_dir():
        try:
            with os.scandir(text) as listing:  # one listing: the entries' types come with their names
                entries = list(listing)
        except OSError as e:
            raise InputError(f"cannot be read ({e.strerror or type(e).__name__})", text) from None
        hidden = sorted((e.name for e in entries if e.name.startswith(".")), key=str)
        files = _regular_files([e for e in entries if not e.name.startswith(".")], text, hidden)
        if not files:
            raise InputError("directory holds no run files", text)
        return files
    if _GLOB_CHARS & set(text):
        files = _regular_files([Path(p) for p in glob.glob(text)], text, [])
        if not files:
            raise InputError("no file matches this pattern", text)
        return files
    if not path.exists():
        raise InputError("no such run file, directory or pattern", text)
    return [path]


def _kind(mode: int) -> str | None:
    """What a file of ``mode`` is, if not a regular file (None)."""
    for test, name in ((stat.S_ISDIR, "folder"), (stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device")):
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def _regular_files(entries: Sequence[Path | os.DirEntry[str]], spec: str, hidden: Sequence[str]) -> list[Path]:
    """The regular files (or links to them) among a folder's or a glob's ``entries``, sorted.

    The rest (subfolders, FIFOs, sockets, devices) and the folder's ``hidden`` entries are named in one
    :class:`~ir_rarity.errors.SkippedFilesNotice` about ``spec``.

    Raises:
        InputError: a broken symbolic link or an entry that cannot be examined, naming it (never skipped silently:
            a run missing from a campaign changes every rarity value).

    """
    files, skipped = [], []
    for entry in entries:
        try:
            if isinstance(entry, os.DirEntry) and entry.is_file():  # the listing's type: no stat (a link: one)
                files.append(Path(entry.path))
                continue
            mode = entry.stat().st_mode
        except FileNotFoundError:
            raise InputError("a broken symbolic link among the run files (its target does not exist)",
                             os.fspath(entry)) from None
        except OSError as e:
            raise InputError(f"cannot be read ({e.strerror or type(e).__name__})", os.fspath(entry)) from None
        kind = _kind(mode)
        if kind is None:
            files.append(Path(entry))
        else:
            skipped.append(f"{os.path.basename(os.fspath(entry))}: {kind}")
    if skipped or hidden:
        warn(f"{spec}: skipped {_skipped(sorted(skipped), hidden)}; name them explicitly to read them",
             SkippedFilesNotice)
    return sorted(files)


def _skipped(others: Sequence[str], hidden: Sequence[str]) -> str:
    """``N entries that are not regular files (a: fifo, ...) and M hidden files (.env, ...)``."""

    def names(items: Sequence[str]) -> str:
        return ", ".join(items[:5]) + (f", and {len(items) - 5} more" if len(items) > 5 else "")

    parts = []
    if others:
        parts.append(f"1 entry that is not a regular file ({names(others)})" if len(others) == 1 else
                     f"{len(others)} entries that are not regular files ({names(others)})")
    if hidden:
        parts.append(f"{len(hidden)} hidden {'entry' if len(hidden) == 1 else 'entries'} ({names(hidden)})")
    return " and ".join(parts)


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


def spec_origin(spec: str) -> Origin | None:
    """The :class:`Origin` of the files a campaign spec names (run files, a saved pool, a count table), or None.

    None where the spec names no readable file (an error of its own elsewhere); files of mixed kinds count as runs.
    """
    try:
        files = run_files(spec)
    except (InputError, OSError):
        return None
    kinds = {file_kind(p) for p in files}
    return origin_of(files, kinds.pop() if len(kinds) == 1 else "runs")


class RunFiles(list[Path]):
    """The files :func:`run_files` listed, remembering which came from listing a folder (for the readers' hints).

    Attributes:
        folders: Each file read from a folder listing (its path as a string) -> that folder as given.

    """

    def __init__(self, files: Sequence[Path] = (), folders: dict[str, str] | None = None) -> None:
        super().__init__(files)
        self.folders: dict[str, str] = dict(folders or {})


def run_files(runs: Any) -> list[Path]:
    """The files a run file, directory, glob pattern or list of them names (listed once, here).

    Returns:
        A :class:`RunFiles` (a list of paths); given one, it is returned as it is (already listed).

    Raises:
        InputError: nothing at a path, an empty list, or a value that names no files.

    """
    if isinstance(runs, RunFiles):
        return runs
    specs = path_specs(runs)
    if specs is None:
        if isinstance(runs, (list, tuple)) and not runs:
            raise InputError("the list of run files is empty")
        raise InputError(f"cannot build a pool from {type(runs).__name__}: give a dict of runs, a run file, a "
                         "directory, a glob pattern or a list of run files")
    files = RunFiles()
    for spec in specs:
        listed = expand_run_paths(spec)
        text = os.fspath(spec)
        if text != "-" and not Path(text).is_file() and Path(text).is_dir():
            files.folders.update((os.fspath(p), text) for p in listed)
        files.extend(listed)
    return files
