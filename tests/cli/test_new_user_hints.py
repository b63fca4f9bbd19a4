"""What a new user trips on: each mistake is one line that says what to do, through the CLI and the Python API.

A note in a run folder, a leaderboard whose run column is ``tag``, a teams file of another campaign, one run scored
by a rarity measure without a campaign, and an alpha so large that the score is rarity alone.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import ir_rarity
from ir_rarity import DegeneratePoolWarning, Pool, RarityWarning
from ir_rarity.errors import InputError, TeamNotice
from ir_rarity.pool.teams import read_teams
from tests.cli_helpers import assert_cli_error, run_cli

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n2 0 d1 1\n2 0 d4 1\n"
RUN_A = "1 Q0 d1 1 3.0 a\n1 Q0 d2 2 2.0 a\n1 Q0 d3 3 1.0 a\n2 Q0 d4 1 2.0 a\n2 Q0 d1 2 1.0 a\n"
RUN_B = "1 Q0 d3 1 3.0 b\n1 Q0 d1 2 2.0 b\n2 Q0 d1 1 2.0 b\n2 Q0 d5 2 1.0 b\n"


@pytest.fixture
def campaign(tmp_path: Path) -> dict[str, Path]:
    """Two runs in a folder ``runs`` (``a.run``, ``b.run``) and their qrels."""
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.run").write_text(RUN_A)
    (runs / "b.run").write_text(RUN_B)
    qrels = tmp_path / "qrels"
    qrels.write_text(QRELS)
    return {"runs": runs, "qrels": qrels, "a": runs / "a.run", "b": runs / "b.run"}


# ------------------------------------------------------------------ 1. a file that is not a run, in a run folder
def test_a_note_in_a_run_folder_says_to_name_the_runs_with_a_glob(campaign: dict[str, Path]) -> None:
    readme = campaign["runs"] / "README.txt"
    readme.write_text("These are the runs of our group\n")
    hint = (f"{readme}:1: expected 6 whitespace-separated fields, found 7 (a run folder holds only run files: name "
            f"the runs with a glob such as '{campaign['runs']}/*.run', or move 'README.txt' out of the folder)")
    with pytest.raises(InputError) as info:
        ir_rarity.evaluate(campaign["runs"], campaign["qrels"], ["P@10"])
    assert str(info.value) == hint
    with pytest.raises(InputError) as info:
        Pool.from_runs(str(campaign["runs"]))
    assert str(info.value) == hint
    with pytest.raises(InputError) as info:  # the folder as the pool, a run scored against it
        ir_rarity.evaluate(campaign["a"], campaign["qrels"], ["P_rare@10"], pool=str(campaign["runs"]))
    assert str(info.value) == hint
    assert_cli_error(run_cli("eval", campaign["qrels"], campaign["runs"], "-m", "P_rare@10"), hint)
    # The glob suggested reads the runs.
    table = ir_rarity.evaluate(f"{campaign['runs']}/*.run", campaign["qrels"], ["P_rare@10"]).table()
    assert table["P_rare@10"].to_dict() == pytest.approx({"a.run": 0.225, "b.run": 0.15})


def test_qrels_kept_in_a_run_folder_get_the_folder_hint(campaign: dict[str, Path]) -> None:
    (campaign["runs"] / "qrels.txt").write_text(QRELS)  # 4 fields: the folder's hint, not "QRELS comes first"
    done = run_cli("eval", campaign["qrels"], campaign["runs"], "-m", "P@10")
    assert_cli_error(done, "qrels.txt:1: expected 6 whitespace-separated fields, found 4 (a run folder holds only "
                           "run files: name the runs with a glob such as", "/*.run'")
    assert "QRELS comes first" not in done.stderr


def test_a_file_named_explicitly_keeps_the_readers_own_message(campaign: dict[str, Path]) -> None:
    qrels_copy = campaign["runs"] / "qrels.txt"
    qrels_copy.write_text(QRELS)
    with pytest.raises(InputError) as info:  # named, not listed from a folder: no folder hint
        ir_rarity.evaluate([campaign["a"], qrels_copy], campaign["qrels"], ["P@10"])
    assert str(info.value) == (f"{qrels_copy}:1: expected 6 whitespace-separated fields, found 4 (qrels' 4 fields: "
                               "is this qrels? QRELS comes first, then RUNS)")


def test_a_broken_run_line_after_the_first_is_not_called_a_non_run(campaign: dict[str, Path]) -> None:
    (campaign["runs"] / "c.run").write_text("1 Q0 d1 1 3.0 c\n1 Q0 d2 2 1.0\n")
    with pytest.raises(InputError) as info:
        ir_rarity.evaluate(campaign["runs"], campaign["qrels"], ["P@10"])
    assert str(info.value) == f"{campaign['runs'] / 'c.run'}:2: expected 6 whitespace-separated fields, found 5"


def test_a_note_whose_suffix_the_runs_share_gets_no_glob(tmp_path: Path, campaign: dict[str, Path]) -> None:
    folder = tmp_path / "txt"
    folder.mkdir()
    (folder / "a.txt").write_text(RUN_A)
    (folder / "notes.txt").write_text("read me\n")
    with pytest.raises(InputError) as info:
        ir_rarity.evaluate(folder, campaign["qrels"], ["P@10"])
    assert str(info.value).endswith("found 2 (a run folder holds only run files: move 'notes.txt' out of the "
                                    "folder, or name the run files one by one)")


# ------------------------------------------------------------------ 2. a leaderboard whose run column is 'tag'
def test_a_leaderboard_with_a_tag_column_suggests_the_spec(tmp_path: Path, campaign: dict[str, Path]) -> None:
    board = tmp_path / "leaderboard.csv"
    board.write_text("tag,team,score\na.run,A,0.5\nb.run,B,0.4\n")
    message = (f"{board}: teams file has no column 'run' in its first line (its columns: 'tag', 'team', 'score'; "
               f"did you mean 'tag'? give '{board}:tag:team')")
    with pytest.raises(InputError) as info:
        ir_rarity.evaluate(campaign["runs"], campaign["qrels"], ["P_rare@10"], teams=str(board))
    assert str(info.value) == message
    assert_cli_error(run_cli("eval", campaign["qrels"], campaign["runs"], "-m", "P_rare@10", "--teams", board),
                     message)
    # The spec suggested reads it: S counts the two teams.
    evaluation = ir_rarity.evaluate(campaign["runs"], campaign["qrels"], ["P_rare@10"], teams=f"{board}:tag:team")
    assert evaluation.table()["P_rare@10"].to_dict() == pytest.approx({"a.run": 0.225, "b.run": 0.15})


def test_a_missing_team_column_lists_the_columns(tmp_path: Path) -> None:
    board = tmp_path / "board.csv"
    board.write_text("tag,group\na.run,A\n")
    with pytest.raises(InputError) as info:
        read_teams(f"{board}:tag:team")
    assert str(info.value) == (f"{board}: teams file has no column 'team' in its first line (its columns: 'tag', "
                               f"'group'); name the team column: '{board}:tag:TEAM_COLUMN'")
    board.write_text("Run,Team\na.run,A\n")  # another case: as good as a match
    with pytest.raises(InputError, match=r"did you mean 'Run'\? give '.*board\.csv:Run:team'\)$"):
        read_teams(board)


# ------------------------------------------------------------------ 3. a teams file of another campaign
def test_a_teams_file_matching_no_run_is_an_error(tmp_path: Path, campaign: dict[str, Path]) -> None:
    other = tmp_path / "other.csv"
    other.write_text("run,team\nx.run,A\ny.run,B\n")
    message = (f"{other}: the teams file names none of the campaign's 2 run(s): the campaign has e.g. 'a.run', the "
               "file lists e.g. 'x.run'; give the campaign's leaderboard, or name its run column "
               "('path:run_column:team_column')")
    with pytest.raises(InputError) as info:
        ir_rarity.evaluate(campaign["runs"], campaign["qrels"], ["P_rare@10"], teams=str(other))
    assert str(info.value) == message
    with pytest.raises(InputError) as info:
        Pool.from_runs(str(campaign["runs"]), teams=str(other))
    assert str(info.value) == message
    assert_cli_error(run_cli("eval", campaign["qrels"], campaign["runs"], "-m", "P_rare@10", "--teams", other),
                     message)


def test_a_teams_file_matching_some_runs_still_only_notes(tmp_path: Path, campaign: dict[str, Path]) -> None:
    some = tmp_path / "some.csv"
    some.write_text("run,team\na.run,A\n")
    with pytest.warns(TeamNotice, match="1 run"):
        pool = Pool.from_runs(str(campaign["runs"]), teams=str(some))
    assert pool.num_systems == 2
    with pytest.warns(TeamNotice):  # a mapping in memory that lists no run: a notice, as before
        assert Pool.from_runs(str(campaign["runs"]), teams={"x": "A"}).num_systems == 2


# ------------------------------------------------------------------ 4. one run, a rarity measure, no campaign
def test_one_run_with_a_rarity_measure_and_no_pool_is_a_cli_error(campaign: dict[str, Path]) -> None:
    done = run_cli("eval", campaign["qrels"], campaign["a"], "-m", "P_rare@10", "P@10")
    assert_cli_error(done, "P_rare@10 needs a campaign: one run was given and no --pool (S = 1, so every rarity "
                           "weight is 0); give the campaign's runs, or --pool")
    assert done.stdout == ""
    done = run_cli("eval", campaign["qrels"], campaign["a"], "-m", "P_rare@10", "U_novel@10", "P_rare(alpha=0)@10")
    assert_cli_error(done, "P_rare@10, U_novel@10 need a campaign")  # alpha=0 reads no S_d: not named


def test_one_run_with_standard_measures_or_a_pool_stays_fine(campaign: dict[str, Path]) -> None:
    done = run_cli("eval", campaign["qrels"], campaign["a"], "-m", "P@10", "ASL")
    assert done.returncode == 0, done.stderr
    assert [line.split("\t") for line in done.stdout.splitlines()] == [["P@10", "0.2000"], ["ASL", "1.2500"]]
    done = run_cli("eval", campaign["qrels"], campaign["a"], "-m", "P_rare@10", "--pool", campaign["runs"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["P_rare@10\t0.2250"]
    done = run_cli("eval", campaign["qrels"], campaign["a"], "-m", "P_rare(alpha=0)@10")  # the standard P@10
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["P_rare(alpha=0)@10\t0.2000"]


def test_one_run_in_python_still_warns(campaign: dict[str, Path]) -> None:
    # The Python API keeps computing (deliberate S = 1 tests rely on it) and warns, as before.
    named = r"single system .* \(give the campaign's runs, or pool= / --pool\)$"
    with pytest.warns(DegeneratePoolWarning, match=named):
        table = ir_rarity.evaluate(campaign["a"], campaign["qrels"], ["P_rare@10"]).table()
    assert table.loc["a.run", "P_rare@10"] == pytest.approx(0.2)


# ------------------------------------------------------------------ 5. alpha far above 1
def test_a_large_alpha_warns_once_per_measure(campaign: dict[str, Path]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = ir_rarity.evaluate(campaign["runs"], campaign["qrels"],
                                   ["P_rare(alpha=1e6)@10", "P_rare(alpha=10)@10", "P@10"]).table()
    assert table.loc["a.run", "P_rare(alpha=1e6)@10"] == pytest.approx(25000.2)
    said = [str(w.message) for w in caught if issubclass(w.category, RarityWarning)]
    assert said == ["P_rare(alpha=1e6)@10: alpha = 1e+06 > 10 makes the score almost pure rarity (a relevant document "
                    "gains 1 + alpha R(d), mostly alpha R(d)), its values far above the standard measure's; for a "
                    "score that still counts relevance, in [0, 1], use bounded=True (alpha in [0, 1])"]
    assert caught[0].filename == __file__  # at the user's line
    done = run_cli("eval", campaign["qrels"], campaign["runs"], "-m", "P_rare(alpha=1e6)@10", "R_rare(alpha=100)")
    assert done.returncode == 0, done.stderr
    warned = [line for line in done.stderr.splitlines() if line.startswith("ir-rarity: warning:")]
    assert warned == [
        f"ir-rarity: warning: {said[0]}",
        "ir-rarity: warning: R_rare(alpha=100): alpha = 100 > 10 makes the score almost pure rarity (a relevant "
        "document gains 1 + alpha R(d), mostly alpha R(d)); for a score that still counts relevance, in [0, 1], use "
        "bounded=True (alpha in [0, 1])",
    ]


def test_alpha_up_to_ten_says_nothing(campaign: dict[str, Path]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", RarityWarning)
        ir_rarity.evaluate(campaign["runs"], campaign["qrels"], ["P_rare(alpha=10)@10", "AP_rare(alpha=2)"])
