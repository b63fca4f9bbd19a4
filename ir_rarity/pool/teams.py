"""Which team each run belongs to: a mapping, or a leaderboard CSV naming its run and team columns.

S counts teams when a pool is built with them (so that one team's near-identical runs do not make its documents
look common). A run the team file does not list counts as a team of its own (:func:`assign_teams`, with one
:class:`~ir_rarity.errors.TeamNotice`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ir_rarity.errors import InputError, TeamNotice, warn
from ir_rarity.io.csvfile import read_csv_columns
from ir_rarity.io.raw import short

__all__ = ["assign_teams", "read_teams", "teams_file"]


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
    if isinstance(teams, Mapping):
        return {str(run): str(team) for run, team in teams.items()}
    path, run_column, team_column = _spec(teams)
    if not Path(path).is_file():
        raise InputError("no such teams file", path)
    frame = read_csv_columns(path, (run_column, team_column), "teams")
    return _team_map(frame, run_column, team_column, path)


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

    """
    missing = [n for n in names if n not in teams]
    if missing:
        shown = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
        warn(f"{len(missing)} run(s) not in the team file count as a team of their own each: {shown}",
                      TeamNotice)
    return [str(teams[n]) if n in teams else str(n) for n in names]
