"""Which team each run belongs to: a mapping, or a leaderboard CSV naming its run and team columns.

S counts teams when a pool is built with them (so that one team's near-identical runs do not make its documents
look common). A run the team file does not list counts as a team of its own (:func:`assign_teams`, with one
:class:`~ir_rarity.errors.TeamNotice`); a team file that lists none of the campaign's runs is refused.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ir_rarity.errors import InputError, TeamNotice, warn
from ir_rarity.io.csvfile import read_csv_columns
from ir_rarity.io.raw import short

__all__ = ["TeamMap", "assign_teams", "read_teams", "teams_file"]


def _spec(teams: Any) -> tuple[str, str, str]:
    """``(path, run column, team column)`` of a teams file given as a path, a string or a tuple."""
    if isinstance(teams, tuple) and len(teams) in (2, 3):
        path = os.fspath(teams[0])
        run, team = ("run", str(teams[1])) if len(teams) == 2 else (str(teams[1]), str(teams[2]))
        return path, run, team
    if isinstance(teams, (str, os.PathLike)):
        path = os.fspath(teams)
        if Path(path).exists() or ":" not in path:
            return path, "run", "team"
        head, team = path.rsplit(":", 1)
        if ":" in head and not Path(head).exists():
            file, run = head.rsplit(":", 1)
            if Path(file).exists():
                return file, run, team
        return head, "run", team
    raise InputError(f"teams must be a mapping run -> team, (csv, team column), (csv, run column, team column), "
                     f"'csv:team_column' or 'csv:run_column:team_column', got {type(teams).__name__}")


def teams_file(teams: Any) -> Path:
    """The file a teams specification names (for the command line's output checks)."""
    return Path(_spec(teams)[0])


def read_teams(teams: Any) -> dict[str, str]:
    """A ``run -> team`` mapping from a mapping or a CSV file such as a campaign's leaderboard.

    Args:
        teams: A mapping ``run -> team``; a pair ``(csv_path, team_column)`` or a triple ``(csv_path, run_column,
            team_column)``; a string ``'csv_path:team_column'`` or ``'csv_path:run_column:team_column'`` (official
            TREC leaderboards name runs ``tag``: ``'leaderboard.csv:tag:team'``); or a CSV path alone (columns
            ``run`` and ``team``). A string naming an existing file is taken as a path even if it contains a colon.

    Returns:
        The mapping, with run and team names as strings.

    Raises:
        InputError: a missing file, a CSV without the run or team column, a run with an empty team cell, or a
            run listed with two different teams (the message names the file, the line and the run).

    """
    if isinstance(teams, TeamMap):
        return teams  # read from its file already
    if isinstance(teams, Mapping):
        return {str(run): str(team) for run, team in teams.items()}
    path, run_column, team_column = _spec(teams)
    if not Path(path).is_file():
        raise InputError("no such teams file", path)
    frame = read_csv_columns(path, (), "teams")
    _check_columns([str(c) for c in frame.columns], run_column, team_column, path)
    return TeamMap(_team_map(frame, run_column, team_column, path), source=path)


class TeamMap(dict[str, str]):
    """A ``run -> team`` mapping read from a file, remembering the file (for errors naming it).

    Attributes:
        source: The file the mapping was read from.

    """

    def __init__(self, teams: Mapping[str, str], source: str) -> None:
        super().__init__(teams)
        self.source = source


_RUN_COLUMNS = ("tag", "runtag", "run_tag", "runid", "run_id", "run_name", "runname", "system")
"""Columns that name runs in leaderboards (official TREC leaderboards: ``tag``), suggested for a missing ``run``."""


def _check_columns(columns: Sequence[str], run_column: str, team_column: str, path: str) -> None:
    """Refuse a teams file without its run or team column, listing its columns and the spec that would read it.

    The columns are listed only when the first line reads as a header (every field a name such as ``tag`` or
    ``team score``): a file given by mistake may begin with anything, e.g. a password, and no cell of it is quoted.

    Raises:
        InputError: ``leaderboard.csv: teams file has no column 'run' in its first line (its columns: 'tag',
            'team'; did you mean 'tag'? give 'leaderboard.csv:tag:team')``.

    """
    for column, role in ((run_column, "run"), (team_column, "team")):
        if column in columns:
            continue
        if not columns or not all(_COLUMN_NAME.fullmatch(c) for c in columns):
            raise InputError(f"teams file has no column {short(column, 20)} in its first line (its header, of "
                             f"{len(columns)} field(s)); name the columns: 'path:run_column:team_column'", path)
        others = [c for c in columns if c not in (run_column, team_column)]
        close = difflib.get_close_matches(column, others, n=1, cutoff=0.6)
        close = close or [c for c in others if c.lower() == column.lower()][:1]
        if not close and role == "run":
            close = [c for c in others if c.lower() in _RUN_COLUMNS][:1]
        shown = ", ".join(repr(c) for c in columns[:8]) + (", ..." if len(columns) > 8 else "")
        if close:
            run, team = (close[0], team_column) if role == "run" else (run_column, close[0])
            hint = f"; did you mean {close[0]!r}? give {f'{path}:{run}:{team}'!r})"
        else:
            spec = f"{path}:RUN_COLUMN:{team_column}" if role == "run" else f"{path}:{run_column}:TEAM_COLUMN"
            hint = f"); name the {role} column: {spec!r}"
        raise InputError(f"teams file has no column {short(column, 20)} in its first line (its columns: "
                         f"{shown}{hint}", path)


_COLUMN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_ .-]{0,29}")
"""What a header field that names a column looks like (listed in messages); anything else is never quoted."""


def _team_map(frame: Any, run_column: str, team_column: str, path: str) -> dict[str, str]:
    """``run -> team`` from the rows of a teams file, refusing an empty team and a run given two teams.

    Raises:
        InputError: naming the file, the line and the run.

    """
    teams: dict[str, str] = {}
    first_line: dict[str, int] = {}
    for line, run, team in zip(frame.index, frame[run_column], frame[team_column], strict=True):
        if not team.strip():
            raise InputError(f"run {short(run)} has an empty {short(team_column, 20)} cell: every run listed needs "
                             "its team (leave the run out to count it as a team of its own)", path, int(line))
        if run in teams and teams[run] != team:
            raise InputError(f"run {short(run)} is listed with a second team, {short(team)}: line "
                             f"{first_line[run]} gives {short(teams[run])}", path, int(line))
        teams.setdefault(run, team)
        first_line.setdefault(run, int(line))
    return teams


def assign_teams(names: Sequence[str], teams: Mapping[str, str]) -> list[str]:
    """The team of each run; a run ``teams`` does not list is a team of its own (named as the run), with a notice.

    Returns:
        One team name per run of ``names``.

    Raises:
        InputError: ``teams`` read from a file (a :class:`TeamMap`) that lists none of ``names``: the wrong file, or
            runs named otherwise (the message names the file, the number of runs and a name of each).

    """
    missing = [n for n in names if n not in teams]
    if isinstance(teams, TeamMap) and names and len(missing) == len(names):
        listed = next(iter(teams), None)
        example = f"the file lists e.g. {short(listed)}" if listed is not None else "the file lists no run"
        raise InputError(f"the teams file names none of the campaign's {len(names):,} run(s): the campaign has e.g. "
                         f"{short(names[0])}, {example}; give the campaign's leaderboard, or name its run column "
                         "('path:run_column:team_column')", teams.source)
    if missing:
        shown = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
        warn(f"{len(missing)} run(s) not in the team file count as a team of their own each: {shown}",
                      TeamNotice)
    return [str(teams[n]) if n in teams else str(n) for n in names]
