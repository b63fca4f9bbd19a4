"""Where runs come from: in-memory runs, TREC run files, folders, globs, or multi-run files.

Each source is turned into ``(name, frame)`` pairs, frames having the columns ``query_id, doc_id, score``.
Files are read two at a time. The naming rule, the same however many files are given: a file is one run, named
by its file name less a compression suffix, whatever its tag column says (trec_eval 10.0 reads a results file
as one run and ignores the tag). ``split_by_tag=True`` (``--split-by-tag`` on the command line) is the only way
to split a file of several runs into one run per tag, named by the tag.
"""

from __future__ import annotations

import os
from collections import Counter, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ir_rarity.engine.codes import ScorePrecision
from ir_rarity.engine.runs import Duplicates
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.io.frames import as_run_frame
from ir_rarity.io.trec import read_trec_run, read_trec_run_table
from ir_rarity.pool.build.paths import (  # listed and signed without a reader; re-exported here, where they were
    Origin,
    RunFiles,
    expand_run_paths,
    file_kind,
    file_signature,
    origin_of,
    path_specs,
    run_files,
)
from ir_rarity.pool.build.runs import top_k
from ir_rarity.progress import progress as bar

if TYPE_CHECKING:
    from ir_rarity.typing import RunsLike

__all__ = ["MAX_RUNS_PER_FILE", "Origin", "expand_run_paths", "file_kind", "file_signature", "iter_named_runs",
           "iter_run_files", "iter_run_tables", "origin_of", "path_specs", "read_runs", "run_files",
           "run_name_from_path"]

_COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".zst")


def run_name_from_path(path: Path) -> str:
    """A run's name from its file name, less a compression suffix (``BM25.run.gz`` -> ``BM25.run``; ``-``: stdin)."""
    if os.fspath(path) == "-":
        return "stdin"
    name = path.name
    for suffix in _COMPRESSION_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


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
        leading = list(frame.columns[:len(columns)]) == columns  # as read_trec_run gives them: a positional slice
        yield run_name_from_path(path), frame.iloc[:, :len(columns)] if leading else frame[columns]
        return
    n_tags = frame["tag"].nunique()
    if n_tags > MAX_RUNS_PER_FILE:
        raise InputError(f"--split-by-tag would split this file into {n_tags:,} runs (at most "
                         f"{MAX_RUNS_PER_FILE:,}): its tag column does not name runs; read it as one run", str(path))
    for tag, part in frame.groupby("tag", sort=False):
        yield str(tag), part[columns].reset_index(drop=True)


def _read_ahead(files: list[Path], read: Callable[[Path], Any] = read_trec_run, window: int = 4) -> Iterator[Any]:
    """``read`` each of ``files`` in order on two threads, at most ``window`` files ahead of the consumer.

    Decompression, pyarrow's parser and numpy's sorts release the GIL, so the two threads share the cores while
    the caller works on an earlier file (``read`` may reduce a run as well as read it: :func:`iter_run_tables`). A
    read error surfaces when its file's turn comes.
    """
    if len(files) < 2:
        yield from (read(p) for p in files)
        return
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="ir_rarity-read") as pool:
        pending: deque[Future[Any]] = deque()
        for path in files:
            pending.append(pool.submit(read, path))
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


def iter_run_files(files: Sequence[Path], split_by_tag: bool | None = None, progress: bool | None = None
                   ) -> Iterator[tuple[str, pd.DataFrame]]:
    """Yield ``(name, frame)`` for every run of ``files`` (already listed), by the naming rule of this module."""
    for path, frame in _files_read(files, read_trec_run, progress):
        yield from _named(path, frame, split_by_tag)


def iter_run_tables(files: Sequence[Path], split_by_tag: bool | None = None, progress: bool | None = None,
                    prepare: Callable[[str, Any], Any] | None = None) -> Iterator[tuple[str, Any]]:
    """:func:`iter_run_files` for a reader that takes its runs' columns from pyarrow: no DataFrame is made.

    Yields ``(name, table)``, the table a pyarrow Table with the columns ``query_id, doc_id, score``, or what
    ``prepare(name, table)`` makes of it, called on the thread that read the file; with ``split_by_tag=True``,
    ``(name, frame)`` as :func:`iter_run_files` (the split is pandas', and ``prepare`` is not called).
    """
    if split_by_tag is True:
        yield from iter_run_files(files, split_by_tag=split_by_tag, progress=progress)
        return

    def read(path: Path) -> tuple[str, Any]:
        name, table = run_name_from_path(path), read_trec_run_table(path).select(["query_id", "doc_id", "score"])
        return name, table if prepare is None else prepare(name, table)

    for _, named in _files_read(files, read, progress):
        yield named


def _files_read(files: Sequence[Path], read: Callable[[Path], Any], progress: bool | None
                ) -> Iterator[tuple[Path, Any]]:
    """Each file with what ``read`` gives of it, read ahead on two threads, with a progress bar of the files."""
    enabled = False if progress is None and len(files) < 20 else progress  # a few files read in a blink
    try:
        yield from bar(zip(files, _read_ahead(list(files), read), strict=True), total=len(files),
                       desc="reading runs", unit="file", enabled=enabled)
    except InputError as e:
        folders = files.folders if isinstance(files, RunFiles) else {}
        if e.source not in folders or e.line != 1 or not e.message.startswith(f"expected {_RUN_FIELDS} "):
            raise
        raise InputError(_not_a_run(e.message, e.source, folders), e.source, e.line) from None


_RUN_FIELDS = 6


def _not_a_run(message: str, source: str, folders: Mapping[str, str]) -> str:
    """A field-count error on the first line of a file a folder listing gave, with what to do about it.

    Such a file is not a run at all (a ``README.txt``, qrels kept with the runs): the hint says a run folder holds
    only run files and suggests a glob of the suffix the folder's other files share.
    """
    folder = folders[source]
    own = Path(source).suffix
    suffixes = Counter(Path(f).suffix for f, d in folders.items() if d == folder and f != source)
    common = [s for s, _ in suffixes.most_common() if s and s != own][:1]
    base = message.split(" (", 1)[0]  # the field counts, less the reader's own guess (qrels given as RUNS?)
    glob_hint = (f"name the runs with a glob such as {os.path.join(folder, '*' + common[0])!r}, or move "
                 f"{Path(source).name!r} out of the folder" if common else
                 f"move {Path(source).name!r} out of the folder, or name the run files one by one")
    return f"{base} (a run folder holds only run files: {glob_hint})"


def read_runs(runs: RunsLike, *, depth: int | None = None, duplicates: Duplicates = "error",
              split_by_tag: bool | None = None, progress: bool | None = None, scores: ScorePrecision = "float32"
              ) -> dict[str, pd.DataFrame]:
    """Runs to evaluate (a mapping of runs, run files, a folder, a glob or a list of them) as named frames.

    Files are listed once and read once; each run read from a file is cut to its top ``depth`` documents per
    query when a depth is given (what the measures read; in trec_eval order, scores compared as ``scores``),
    so memory stays bounded by what is scored.

    Raises:
        InputError: unreadable input, or two runs with the same name.

    """
    from_files = not isinstance(runs, Mapping) and path_specs(runs) is not None
    named = (iter_run_files(run_files(runs), split_by_tag=split_by_tag, progress=progress) if from_files
             else iter_named_runs(runs, split_by_tag=split_by_tag, progress=progress))
    frames: dict[str, pd.DataFrame] = {}
    for name, frame in named:
        if name in frames:
            raise InputError(f"two evaluated runs are named {name!r}; run names must be unique")
        frames[name] = (top_k(frame, depth, name, duplicates, scores) if from_files and depth is not None
                        else frame)
    if not frames:
        raise ParameterError("no runs to evaluate")
    return frames
