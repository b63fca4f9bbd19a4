"""Which team each run belongs to: a mapping, or a leaderboard CSV with a ``run`` column."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ir_rarity.errors import InputError
from ir_rarity.io.raw import short

__all__ = ["read_teams"]


def read_teams(teams: Any) -> dict[str, str]:
    """A ``run -> team`` mapping from a mapping or a CSV file such as a campaign's leaderboard.

    Args:
        teams: A mapping ``run -> team``; a pair ``(csv_path, column)``; a string ``'csv_path:column'``; or a
            CSV path alone (column ``team``). The CSV must have a ``run`` column. A string naming an existing
            file is taken as a path even if it contains a colon.

    Returns:
        The mapping, with team names as strings.

    Raises:
        InputError: a missing file, or a CSV without the ``run`` or team column.

    """
    if isinstance(teams, Mapping):
        return {str(run): str(team) for run, team in teams.items()}
    if isinstance(teams, tuple) and len(teams) == 2:
        path, column = os.fspath(teams[0]), str(teams[1])
    elif isinstance(teams, (str, os.PathLike)):
        path, column = os.fspath(teams), "team"
        if not Path(path).exists() and ":" in path:
            path, column = path.rsplit(":", 1)
    else:
        raise InputError(f"teams must be a mapping run -> team, (csv, column) or 'csv:column', got "
                         f"{type(teams).__name__}")
    if not Path(path).is_file():
        raise InputError("no such teams file", path)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    for needed in ("run", column):
        if needed not in frame.columns:
            found = ", ".join(short(c, 20) for c in list(frame.columns)[:8])
            raise InputError(f"teams file has no column {needed!r} (its first columns: {found})", path)
    return dict(zip(frame["run"], frame[column], strict=True))
