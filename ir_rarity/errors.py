"""Error types raised by ir_rarity.

Every error the package raises on bad input derives from :class:`RarityError`, so callers (and the command
line) can catch the package's own errors apart from programming errors. Each also derives from the built-in
type that fits (``ValueError``, ``LookupError``) so that existing ``except ValueError`` code keeps working.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterable

from ir_rarity.progress import in_notebook

__all__ = [
    "DegeneratePoolWarning",
    "DuplicateDocumentError",
    "InputError",
    "MemberNotice",
    "NoActivePoolError",
    "Notice",
    "ParameterError",
    "RarityError",
    "RarityWarning",
    "SkippedFilesNotice",
    "TeamNotice",
    "deprecated",
    "did_you_mean",
    "warn",
]


class RarityError(Exception):
    """Base class of every error raised by ir_rarity."""


class InputError(RarityError, ValueError):
    """A run, qrels or pool file (or in-memory table) that cannot be read as given.

    Args:
        message: What is wrong.
        source: The file name or a description of the in-memory input.
        line: The 1-based line number in ``source``, when known.

    Attributes:
        message: What is wrong, without the source and line (``str(error)`` has them in front).

    """

    def __init__(self, message: str, source: str | None = None, line: int | None = None) -> None:
        self.message = message
        self.source = source
        self.line = line
        where = ""
        if source is not None:
            where = f"{source}:{line}: " if line is not None else f"{source}: "
        super().__init__(f"{where}{message}")


class DuplicateDocumentError(InputError):
    """A run lists the same document twice for one query.

    trec_eval refuses such a run ("duplicate docs") and so does ir_rarity by default.
    """


class ParameterError(RarityError, ValueError):
    """A measure or function parameter outside its valid range."""


class NoActivePoolError(RarityError, LookupError):
    """A rarity measure was evaluated without a pool to count S_d from."""


class RarityWarning(UserWarning):
    """Base class of the warnings and notices ir_rarity gives."""


class DegeneratePoolWarning(RarityWarning):
    """A rarity or novelty measure computed against a pool of a single system (S = 1)."""


class Notice(RarityWarning):
    """Something the user should know that changes no number they asked for (the CLI prints it as a note)."""


class TeamNotice(Notice):
    """Runs that a team file does not list were each counted as a team of their own."""


class SkippedFilesNotice(Notice):
    """A run folder (or glob) held entries that were not read: hidden files, subfolders, FIFOs, sockets, devices."""


class MemberNotice(Notice):
    """An evaluated run was recognised, by content, as a member of the campaign and scored as that member."""


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def did_you_mean(name: object, known: Iterable[object], what: str = "") -> str:
    """`` (did you mean 'x'?)`` for the known names closest to ``name`` (:func:`difflib.get_close_matches`), or ``""``.

    Args:
        name: The name given, which is not known.
        known: The names that are.
        what: Appended to the hint when no name is close, e.g. ``"; the runs are a, b, c"`` (empty: nothing).

    """
    import difflib

    names = [str(k) for k in known]
    close = difflib.get_close_matches(str(name), names, n=3, cutoff=0.6)
    if not close:  # a different case is as good as a match
        close = [n for n in names if n.lower() == str(name).lower()][:3]
    if close:
        return " (did you mean " + " or ".join(repr(c) for c in close) + "?)"
    return what


def warn(message: str, category: type[Warning]) -> None:
    """Issue a warning attributed to the first caller outside ir_rarity (the user's line, not the package's).

    Called through a library that hosts ir_rarity's measures (ir_measures, PyTerrier: ``pt.Experiment``,
    ``ir_measures.calc_aggregate``), the frames of that library are passed over too, when a caller's line lies
    beyond them (the stock ``ir_measures`` command has none: its warnings stay at ir_measures' line). Python < 3.12
    has no ``skip_file_prefixes``: the stack level is counted here.
    """
    level, frame = 2, sys._getframe(1)
    while frame is not None and _within(frame.f_code.co_filename, (_PACKAGE,)):
        level += 1
        frame = frame.f_back  # type: ignore[assignment]
    files = (getattr(sys.modules.get(name), "__file__", None) for name in _HOSTS)
    hosts = tuple(os.path.dirname(os.path.abspath(file)) for file in files if isinstance(file, str))
    beyond, caller = level, frame
    while caller is not None and _within(caller.f_code.co_filename, hosts):
        beyond += 1
        caller = caller.f_back  # type: ignore[assignment]
    if caller is not None and not caller.f_code.co_filename.startswith("<"):  # a file's line, not runpy's
        level = beyond
    if issubclass(category, Notice) and _in_kernel():
        _note_in_kernel(message, category, level + 1)
        return
    warnings.warn(message, category, stacklevel=level)


def _in_kernel() -> bool:
    return in_notebook()


def _note_in_kernel(message: str, category: type[Warning], level: int) -> None:
    """A :class:`Notice` in a Jupyter kernel: one plain output line ``ir_rarity note: ...``, not a warning.

    A kernel shows a warning on the red stream with its source line; a notice changes no number, and the table it
    concerns says it in its caption. The warnings filters still decide (``ignore``: nothing is shown; ``error``:
    it is raised), through a recorded warning.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.warn(message, category, stacklevel=level + 1)
    for shown in caught:
        print(f"ir_rarity note: {shown.message}", file=sys.stdout, flush=True)


_HOSTS = ("ir_measures", "pyterrier")
"""The libraries that call ir_rarity's measures for their users, whose frames :func:`warn` passes over."""


def _within(filename: str, folders: tuple[str, ...]) -> bool:
    """Whether the file ``filename`` lies in one of ``folders``."""
    path = os.path.abspath(filename)
    return any(path.startswith(folder + os.sep) for folder in folders)


def deprecated(old: str, new: str) -> None:
    """Warn (:class:`DeprecationWarning`, at the user's line) that ``old`` is deprecated in favour of ``new``."""
    warn(f"{old} is deprecated: use {new}", DeprecationWarning)
