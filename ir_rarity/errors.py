"""Error types raised by ir_rarity.

Every error the package raises on bad input derives from :class:`RarityError`, so callers (and the command
line) can catch the package's own errors apart from programming errors. Each also derives from the built-in
type that fits (``ValueError``, ``LookupError``) so that existing ``except ValueError`` code keeps working.
"""

from __future__ import annotations

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
    "TeamNotice",
]


class RarityError(Exception):
    """Base class of every error raised by ir_rarity."""


class InputError(RarityError, ValueError):
    """A run, qrels or pool file (or in-memory table) that cannot be read as given.

    Args:
        message: What is wrong.
        source: The file name or a description of the in-memory input.
        line: The 1-based line number in ``source``, when known.

    """

    def __init__(self, message: str, source: str | None = None, line: int | None = None) -> None:
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


class MemberNotice(Notice):
    """An evaluated run was recognised, by content, as a member of the campaign and scored as that member."""
