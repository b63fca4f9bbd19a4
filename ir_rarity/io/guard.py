"""Outputs never overwrite inputs: one check of every output path against every input, before any work.

An input is a file, a folder (every file in it is read, so anything written into it would be read next time), or
a glob pattern (any file written that matches it would be read next time). An output is a file, or a folder that
a report is written into. Paths are compared after following symlinks, so a link to an input is that input.
"""

from __future__ import annotations

import fnmatch
import glob
import os
from collections.abc import Iterable
from pathlib import Path

from ir_rarity.errors import InputError

__all__ = ["check_outputs"]

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
            an output file is a folder.

    """
    read = _Inputs(inputs)
    given = [(option, path, is_folder) for option, path, is_folder in outputs if path is not None]
    for i, (option, named, _) in enumerate(given):
        for other, other_path, _ in given[:i]:
            if _real(named) == _real(other_path):
                raise InputError(f"{option} and {other} name the same file: one would overwrite the other", named)
    for option, path, is_folder in given:
        _check_kind(option, path, is_folder)
        why = read.conflict(Path(path), is_folder)
        if why is not None:
            raise InputError(f"refusing to write {option} there: {why}", path)
