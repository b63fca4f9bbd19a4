"""Teams and leaderboard files: errors quote no cell of the file; a run with two teams or none is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from ir_rarity.errors import InputError
from ir_rarity.pool.pool import Pool
from ir_rarity.pool.teams import read_teams
from tests.cli_helpers import assert_cli_error, run_cli

SECRET = "DB_PASSWORD=hunter2secret,API_KEY=sk-live-abcdef,HOST=prod.internal\n"


@pytest.mark.slow
def test_a_secret_first_line_is_never_quoted(tmp_path: Path, files: dict[str, Path]) -> None:
    board = tmp_path / "env.csv"
    board.write_text(SECRET + "a,b,c\n")
    with pytest.raises(InputError) as info:
        read_teams(board)
    for secret in ("hunter2", "sk-live", "prod.internal", "DB_PASSWORD", "API_KEY"):
        assert secret not in str(info.value)
    assert "env.csv" in str(info.value) and "'run'" in str(info.value)
    for option, extra in (("--teams", ()), ("--leaderboard", ("--no-reusability",))):
        if option == "--teams":
            done = run_cli("eval", files["qrels"], files["run"], "-m", "P@2", "--teams", board)
        else:
            done = run_cli("pooling", files["qrels"], files["run"], "--budgets", "1", "--out", tmp_path / "o",
                           option, board, *extra)
        assert_cli_error(done, "env.csv", "no column")
        for secret in ("hunter2", "sk-live", "prod.internal", "DB_PASSWORD", "API_KEY"):
            assert secret not in done.stderr, (option, done.stderr)


def test_a_run_with_two_teams_is_refused(tmp_path: Path, files: dict[str, Path]) -> None:
    teams = tmp_path / "teams.csv"
    teams.write_text("run,team\nA,T1\n\nB,T2\nA,T3\n")
    with pytest.raises(InputError, match=r"teams\.csv:5: run 'A' is listed with a second team, 'T3': line 2"):
        read_teams(teams)
    with pytest.raises(InputError, match=r"teams\.csv:5: run 'A'"):
        Pool.from_runs(files["run"], teams=str(teams))
    assert_cli_error(run_cli("eval", files["qrels"], files["run"], "-m", "P@2", "--teams", teams),
                     "teams.csv:5:", "'A'", "second team")


def test_an_empty_team_is_refused(tmp_path: Path, files: dict[str, Path]) -> None:
    teams = tmp_path / "teams.csv"
    teams.write_text("run,team\nA,\nB,T2\n")
    with pytest.raises(InputError, match=r"teams\.csv:2: run 'A' has an empty 'team' cell"):
        read_teams(teams)
    assert_cli_error(run_cli("pool", files["run"], "--depth", "2", "--out", tmp_path / "s.csv", "--teams", teams),
                     "teams.csv:2:", "'A'", "empty")


def test_a_run_listed_twice_with_the_same_team_is_fine(tmp_path: Path) -> None:
    teams = tmp_path / "teams.csv"
    teams.write_text("run,team\nA,T1\nB,T2\nA,T1\n\n")
    assert read_teams(teams) == {"A": "T1", "B": "T2"}
