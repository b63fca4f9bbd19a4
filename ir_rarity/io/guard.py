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
    files: list[str] = []
    folders: list[str] = []
    patterns: list[str] = []
    for spec in inputs:
        if not spec:
            continue
        if _GLOB_CHARS & set(spec) and not Path(spec).exists():
            patterns.append(os.path.abspath(spec))
            files.extend(_real(p) for p in glob.glob(spec))
        elif Path(spec).is_dir():
            folders.append(_real(spec))
        elif Path(spec).exists():
            files.append(_real(spec))
    given = [(option, path) for option, path, _ in outputs if path is not None]
    for i, (option, named) in enumerate(given):
        for other, other_path in given[:i]:
            if _real(named) == _real(other_path):
                raise InputError(f"{option} and {other} name the same file: one would overwrite the other", named)
    for option, path, is_folder in outputs:
        if path is None:
            continue
        out = Path(path)
        if not is_folder:
            if out.is_dir():
                raise InputError(f"{option} names a folder, expected an output file", path)
            if not out.parent.is_dir():
                raise InputError(f"the folder of the {option} file does not exist", path)
        elif out.exists() and not out.is_dir():
            raise InputError(f"{option} exists and is not a folder, expected the report folder", path)
        target = _real(out)
        absolute = os.path.abspath(out)
        why = None
        if target in files:
            why = "it is an input file"
        elif any(_inside(target, f) for f in folders):
            why = "it lies in an input folder, which is read whole"
        elif any(fnmatch.fnmatch(target, p) or fnmatch.fnmatch(absolute, p) for p in patterns):
            why = "it matches an input pattern"
        elif is_folder and (any(_inside(f, target) and os.path.dirname(f) == target for f in files)
                            or any(os.path.dirname(p) in (target, absolute) for p in patterns)):
            why = "the folder holds inputs that a later run would read together with the report"
        if why is not None:
            raise InputError(f"refusing to write {option} there: {why}", path)
