"""Where runs come from: in-memory runs, TREC run files, folders, globs, or multi-run files.

Each source is turned into ``(name, frame)`` pairs, frames having the columns ``query_id, doc_id, score``.
Files are read two at a time. The naming rule, the same however many files are given: a file is one run, named
by its file name less a compression suffix, whatever its tag column says (trec_eval 10.0 reads a results file
as one run and ignores the tag). ``split_by_tag=True`` (``--split-by-tag`` on the command line) is the only way
to split a file of several runs into one run per tag, named by the tag.
"""

from __future__ import annotations

import glob
import os
import stat
import zipfile
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ir_rarity.errors import InputError
from ir_rarity.io.frames import as_run_frame
from ir_rarity.io.trec import read_trec_run
from ir_rarity.progress import progress as bar

__all__ = ["MAX_RUNS_PER_FILE", "Origin", "expand_run_paths", "file_kind", "file_signature", "iter_named_runs",
           "iter_run_files", "origin_of", "path_specs", "run_files", "run_name_from_path"]

_COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".zst")
_GLOB_CHARS = set("*?[")


def run_name_from_path(path: Path) -> str:
    """A run's name from its file name, less a compression suffix (``BM25.run.gz`` -> ``BM25.run``; ``-``: stdin)."""
    if os.fspath(path) == "-":
        return "stdin"
    name = path.name
    for suffix in _COMPRESSION_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


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
    for p in files:
        st = p.stat() if os.fspath(p) != "-" else os.stat(0)
        out.append((os.path.realpath(p), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
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


MAX_RUNS_PER_FILE = 10_000
"""The most runs one file may be split into by its tag column (``split_by_tag=True``). A campaign file holds tens
to hundreds of runs (TREC-COVID round 1: 143); a file with more distinct tags than this is refused before it is
split, since every run costs memory and time of its own."""


def _named(path: Path, frame: pd.DataFrame, split_by_tag: bool | None) -> Iterator[tuple[str, pd.DataFrame]]:
    """The naming rule: a file is one run named by the file; split by tag only when ``split_by_tag`` is True.

    Raises:
        InputError: with ``split_by_tag``, a file of more than :data:`MAX_RUNS_PER_FILE` distinct tags.

    """
    columns = ["query_id", "doc_id", "score"]
    if split_by_tag is not True:
        yield run_name_from_path(path), frame[columns]
        return
    n_tags = frame["tag"].nunique()
    if n_tags > MAX_RUNS_PER_FILE:
        raise InputError(f"--split-by-tag would split this file into {n_tags:,} runs (at most "
                         f"{MAX_RUNS_PER_FILE:,}): its tag column does not name runs; read it as one run", str(path))
    for tag, part in frame.groupby("tag", sort=False):
        yield str(tag), part[columns].reset_index(drop=True)


def _read_ahead(files: list[Path], window: int = 4) -> Iterator[pd.DataFrame]:
    """Read ``files`` in order on two threads, at most ``window`` files ahead of the consumer.

    Decompression and pyarrow's parser release the GIL, so a second thread reads the next file while the
    caller works on this one. A read error surfaces when its file's turn comes.
    """
    if len(files) < 2:
        yield from (read_trec_run(p) for p in files)
        return
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="ir_rarity-read") as pool:
        pending: deque[Future[pd.DataFrame]] = deque()
        for path in files:
            pending.append(pool.submit(read_trec_run, path))
            if len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def iter_named_runs(runs: Any, split_by_tag: bool | None = None, progress: bool | None = None
                    ) -> Iterator[tuple[str, pd.DataFrame]]:
    """Yield ``(name, frame)`` for every run in ``runs``.

    Args:
        runs: One of
            * a mapping ``name -> run`` (DataFrame with ir_measures or PyTerrier columns, dict of dicts,
              iterable of ``ScoredDoc``, or a TREC run file path);
            * a TREC run file, a directory (every non-hidden file in it), a glob pattern, or a list of these:
              each file is one run named by its file name (the naming rule of this module).
        split_by_tag: True splits every file into one run per tag, named by the tag (a file of several runs,
            as TREC's gathered submissions); None or False (the default): every file is one run.
        progress: Show a progress bar while reading files (default: when there are 20 files or more and
            stderr is a terminal).

    Raises:
        InputError: an unreadable source, or a source that names no run.

    """
    if isinstance(runs, Mapping):
        for name, run in runs.items():
            yield str(name), as_run_frame(run, source=str(name))
        return
    yield from iter_run_files(run_files(runs), split_by_tag=split_by_tag, progress=progress)


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


def iter_run_files(files: Sequence[Path], split_by_tag: bool | None = None, progress: bool | None = None
                   ) -> Iterator[tuple[str, pd.DataFrame]]:
    """Yield ``(name, frame)`` for every run of ``files`` (already listed), by the naming rule of this module."""
    enabled = False if progress is None and len(files) < 20 else progress  # a few files read in a blink
    for path, frame in bar(zip(files, _read_ahead(list(files)), strict=True), total=len(files),
                           desc="reading runs", unit="file", enabled=enabled):
        yield from _named(path, frame, split_by_tag)
