"""Outputs never overwrite inputs: one check of every output path against every input, before any work.

An input is a file, a folder (every file in it is read, so anything written into it would be read next time), or
a glob pattern (any file written that matches it would be read next time). An output is a file, or a folder that
a report is written into. Paths are compared after following symlinks, so a link to an input is that input.

Nothing the user wrote is replaced either: an output folder (``meta --out DIR``, ``pooling --out DIR`` and the
Python functions that write them) must be absent, empty, or hold only what an earlier run of the same command wrote
there, as the manifest it keeps in the folder (:data:`MANIFEST`) lists; else it is refused unless the caller says
to overwrite (:class:`OutputFolder`).

``-`` is standard input where an input is named and can be read once (:func:`check_stdin_once`); an output
option that takes ``-`` for standard output maps it before these checks, and any other refuses it.
"""

from __future__ import annotations

import fnmatch
import glob
import json
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import TracebackType

from ir_rarity.errors import InputError
from ir_rarity.io.files import write_text

__all__ = ["MANIFEST", "OutputFolder", "check_outputs", "check_stdin_once"]

_GLOB_CHARS = set("*?[")


def _real(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.fspath(path))


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


class _Inputs:
    """The inputs a command reads: files (real paths), whole folders, and glob patterns (absolute)."""

    def __init__(self, inputs: Iterable[str | None]) -> None:
        self.files: list[str] = []
        self.folders: list[str] = []
        self.patterns: list[str] = []
        for spec in inputs:
            if not spec:
                continue
            if _GLOB_CHARS & set(spec) and not Path(spec).exists():
                self.patterns.append(os.path.abspath(spec))
                self.files.extend(_real(p) for p in glob.glob(spec))
            elif Path(spec).is_dir():
                self.folders.append(_real(spec))
            elif Path(spec).exists():
                self.files.append(_real(spec))

    def conflict(self, out: Path, is_folder: bool) -> str | None:
        """Why writing ``out`` would destroy or later be read as an input, or None."""
        target, absolute = _real(out), os.path.abspath(out)
        if target in self.files:
            return "it is an input file"
        if any(_inside(target, f) for f in self.folders):
            return "it lies in an input folder, which is read whole"
        if any(fnmatch.fnmatch(target, p) or fnmatch.fnmatch(absolute, p) for p in self.patterns):
            return "it matches an input pattern"
        if is_folder and (any(_inside(f, target) and os.path.dirname(f) == target for f in self.files)
                          or any(os.path.dirname(p) in (target, absolute) for p in self.patterns)):
            return "the folder holds inputs that a later run would read together with the report"
        return None


def _check_kind(option: str, path: str, is_folder: bool) -> None:
    """An output file must not be a folder and its folder must exist; an output folder must not be a file."""
    out = Path(path)
    if not is_folder:
        if out.is_dir():
            raise InputError(f"{option} names a folder, expected an output file", path)
        if not out.parent.is_dir():
            raise InputError(f"the folder of the {option} file does not exist", path)
    elif out.exists() and not out.is_dir():
        raise InputError(f"{option} exists and is not a folder, expected the report folder", path)


def check_outputs(outputs: Iterable[tuple[str, str | None, bool]], inputs: Iterable[str | None]) -> None:
    """Refuse any output that is, or would be read as, an input.

    Args:
        outputs: ``(option, path, is_folder)`` of each output (``path`` None when not given).
        inputs: Input specs as given (files, folders, globs; None or ids of online datasets are skipped).

    Raises:
        InputError: an output is an input file (also through a symlink), lies in an input folder, matches an input
            glob, or is a folder holding an input or matched by a glob; an output file's folder does not exist;
            an output file is a folder; an output is ``-`` (standard output, which the option does not write).

    """
    read = _Inputs(inputs)
    given = [(option, path, is_folder) for option, path, is_folder in outputs if path is not None]
    for option, path, is_folder in given:
        if path == "-":  # not a file named "-": an option writing to standard output maps "-" before this check
            raise InputError(f"{option} cannot write to standard output (-): name the "
                             f"{'folder' if is_folder else 'file'} to write")
    for i, (option, named, _) in enumerate(given):
        for other, other_path, _ in given[:i]:
            if _real(named) == _real(other_path):
                raise InputError(f"{option} and {other} name the same file: one would overwrite the other", named)
    for option, path, is_folder in given:
        _check_kind(option, path, is_folder)
        why = read.conflict(Path(path), is_folder)
        if why is not None:
            raise InputError(f"refusing to write {option} there: {why}", path)


def check_stdin_once(inputs: Iterable[tuple[str, str | Sequence[str] | None]]) -> None:
    """Refuse standard input (``-``) named as more than one input: it can be read only once.

    Args:
        inputs: ``(what, spec)`` of each input, ``spec`` one spec or several (``("RUNS", ["-", "b.run"])``), None
            when not given; ``what`` names it in the message (``QRELS``, ``RUNS``, ``--pool``).

    Raises:
        InputError: ``-`` given twice, naming where: "standard input (-) can be read once: given as RUNS and
            --pool".

    """
    named = [what for what, specs in inputs if specs is not None
             for spec in ([specs] if isinstance(specs, str) else specs) if spec == "-"]
    if len(named) < 2:
        return
    where = list(dict.fromkeys(named))
    given = f"given {len(named)} times as {where[0]}" if len(where) == 1 else f"given as {' and '.join(where)}"
    raise InputError(f"standard input (-) can be read once: {given}")


MANIFEST = "ir_rarity-outputs.json"
"""The manifest an output folder keeps: which command wrote it and the files (relative paths) it wrote there."""
_MANIFEST_FORMAT = "ir_rarity.outputs/1"

_Signature = tuple[int, int, int, int]


def _listing(folder: Path) -> dict[str, _Signature]:
    """Every entry of ``folder`` that is not a folder (files, links, FIFOs...), by relative path (``/``-separated).

    Subfolders are walked, links never followed; an entry's signature (inode, size, modification and
    status-change times) changes whenever it is written, even atomically (a new inode).
    """
    found: dict[str, _Signature] = {}
    pending = [(folder, "")]
    while pending:
        where, prefix = pending.pop()
        try:
            with os.scandir(where) as listing:
                entries = list(listing)
        except FileNotFoundError:
            continue
        except OSError as e:
            raise InputError(f"cannot be listed ({e.strerror or type(e).__name__})", os.fspath(where)) from None
        for entry in entries:
            name = prefix + entry.name
            if entry.is_dir(follow_symlinks=False):
                pending.append((Path(entry.path), name + "/"))
                continue
            with_stat = entry.stat(follow_symlinks=False)
            found[name] = (with_stat.st_ino, with_stat.st_size, with_stat.st_mtime_ns, with_stat.st_ctime_ns)
    return found


def _manifest(folder: Path, command: str) -> set[str] | None:
    """The files the manifest of ``folder`` says ``command`` wrote; None if it is missing, damaged or another's."""
    try:
        st = os.lstat(folder / MANIFEST)
        if not stat.S_ISREG(st.st_mode) or st.st_size > 1 << 24:
            return None
        data = json.loads((folder / MANIFEST).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != _MANIFEST_FORMAT or data.get("command") != command \
            or not isinstance(data.get("files"), list):
        return None
    return {name for name in data["files"] if isinstance(name, str)}


class OutputFolder:
    """An output folder checked before anything is written into it, and its manifest written after.

    Creating it refuses a folder holding any file that an earlier run of ``command`` did not write (its manifest,
    :data:`MANIFEST`, does not list it), unless ``overwrite``. :meth:`record` (or leaving the ``with`` block, even
    on an error) lists in the manifest every file written since, with those of earlier runs still there.

    Args:
        folder: The output folder (created by :meth:`record`'s caller's writes, or on entering the block).
        command: Who writes it (``"meta"``, ``"pooling"``): a folder another command wrote is not this one's.
        overwrite: Replace whatever the folder holds (the user said so: ``--overwrite``, ``overwrite=True``).
        hint: How the user says so, for the message (``"--overwrite"`` on the command line).

    Raises:
        InputError: the folder holds files ``command`` did not write (one named), and ``overwrite`` is false: one
            line, "DIR: holds files this command did not write (summary.md); give --overwrite to replace them, or
            choose another folder".

    """

    def __init__(self, folder: str | os.PathLike[str], command: str, *, overwrite: bool = False,
                 hint: str = "overwrite=True") -> None:
        self.folder, self.command = Path(folder), command
        self._before = _listing(self.folder) if self.folder.is_dir() else {}
        earlier = _manifest(self.folder, command)
        self._earlier = earlier or set()
        foreign = sorted(name for name in self._before
                         if name not in self._earlier and (name != MANIFEST or earlier is None))
        if foreign and not overwrite:
            raise InputError(f"holds files this command did not write ({foreign[0]}); give {hint} to replace them, "
                             "or choose another folder", os.fspath(folder))

    def record(self) -> None:
        """Write the manifest: the files written since the check, and those of earlier runs still there."""
        if not self.folder.is_dir():
            return
        now = _listing(self.folder)
        written = {name for name, signature in now.items() if self._before.get(name) != signature}
        files = sorted(((self._earlier & set(now)) | written) - {MANIFEST})
        write_text(self.folder / MANIFEST, json.dumps({"format": _MANIFEST_FORMAT, "command": self.command,
                                                       "files": files}, indent=1) + "\n")

    def __enter__(self) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        return self.folder

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.record()
