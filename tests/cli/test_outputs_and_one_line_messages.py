"""Command-line outputs and messages: outputs never overwrite inputs or each other, one-line errors and notices.

Also a list where a measure is expected, an ir_datasets id that cannot be fetched and CSV files users name (teams,
leaderboard), through the Python API and the command line. A CLI error is exactly one line
``ir-rarity: error: ...``, exit 2.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import assert_cli_error, run_cli
from small_files import RUN

from ir_rarity import InputError, ParameterError, Pool, RarityError, read_trec_qrels


# ------------------------------------------------------------------------------ outputs never overwrite inputs
@pytest.mark.slow
def test_outputs_never_overwrite_inputs(tmp_path: Path, files: dict[str, Path]) -> None:
    runs = tmp_path / "tr"
    runs.mkdir()
    (runs / "a").write_text(RUN)
    teams = tmp_path / "teams.csv"
    teams.write_text("run,team\na,T\n")
    before = {p: p.read_bytes() for p in (teams, runs / "a", files["qrels"])}
    link = tmp_path / "link"
    link.symlink_to(runs / "a")
    cases = [
        (("pool", runs, "--teams", teams, "--out", teams), "it is an input file"),
        (("pool", runs, "--depth", "2", "--judging-pool", runs / "j.csv"), "lies in an input folder"),
        (("meta", files["qrels"], f"{runs}/*", "--out", runs), "holds inputs"),
        (("meta", files["qrels"], runs / "a", "--out", runs), "holds inputs"),
        (("eval", files["qrels"], runs, "-m", "P@1", "--output", runs / "x.tsv"), "lies in an input folder"),
        (("eval", files["qrels"], f"{runs}/*", "-m", "P@1", "--output", runs / "y"), "matches an input pattern"),
        (("eval", files["qrels"], runs / "a", "-m", "P@1", "--output", link), "it is an input file"),
        (("eval", files["qrels"], runs / "a", "-m", "P@1", "--output", files["qrels"]), "it is an input file"),
        (("eval", files["qrels"], runs / "a", "-m", "P@1", "--teams", teams, "--output", teams), "it is an input file"),
    ]
    for args, why in cases:
        assert_cli_error(run_cli(*args), "refusing to write", why)
    assert {p: p.read_bytes() for p in before} == before
    assert sorted(p.name for p in runs.iterdir()) == ["a"]


# ------------------------------------------------------------------------------ every failure is one line
def test_a_list_where_a_measure_is_expected(files: dict[str, Path]) -> None:
    from ir_rarity.meta import system_count_robustness

    pool = Pool.from_runs([files["run"]])
    with pytest.raises(ParameterError, match=r"expected a measure .* got list"):
        system_count_robustness(pool, read_trec_qrels(files["qrels"]), ["P_rare@100"])  # type: ignore[arg-type]


@pytest.mark.slow
def test_an_ir_datasets_id_that_cannot_be_fetched(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    import ir_datasets

    class Offline:
        def has_qrels(self) -> bool:
            return True

        def qrels_iter(self) -> object:
            raise ConnectionError("no network here")

    monkeypatch.setattr(ir_datasets, "load", lambda dataset_id: Offline())
    with pytest.raises(InputError, match="could not be fetched \\(ConnectionError\\); give a local qrels file"):
        Pool.from_runs(files["run"]).evaluate("some/dataset", ["P@1"])
    with pytest.raises(RarityError, match="nor an ir_datasets dataset"):
        monkeypatch.undo()
        Pool.from_runs(files["run"]).evaluate("no-such-dataset-id/anywhere", ["P@1"])
    assert_cli_error(run_cli("eval", "no-such-dataset-id/anywhere", files["run"], "-m", "P@1"),
                     "nor an ir_datasets dataset")


def test_two_outputs_never_overwrite_each_other(tmp_path: Path, files: dict[str, Path]) -> None:
    same = tmp_path / "same.csv"
    assert_cli_error(run_cli("pool", files["run"], "--depth", "2", "--out", same, "--judging-pool", same),
                     "--judging-pool and --out name the same file")
    assert not same.exists()


def test_csv_files_users_name_fail_in_one_line_without_quoting_them(tmp_path: Path, files: dict[str, Path]) -> None:
    broken = tmp_path / "teams.csv"
    broken.write_text('run,team\n"a,T\n')
    with pytest.raises(InputError, match=r"teams\.csv: not a readable teams file"):
        Pool.from_runs(files["run"], teams=str(broken))
    secret = tmp_path / "board.csv"
    secret.write_text("root:x:0:0:TOPSECRETTOKENabcdefghijklmnopqrstuvwxyz,other\n1,2\n")
    done = run_cli("pooling", files["qrels"], files["run"], "--budgets", "1", "--out", tmp_path / "o",
                   "--leaderboard", secret, "--no-reusability")
    assert_cli_error(done, "board.csv", "no column 'run'")
    assert "TOPSECRETTOKENabcdefghijklmnop" not in done.stderr


def test_notices_of_every_command_are_one_line(tmp_path: Path, files: dict[str, Path]) -> None:
    teams = tmp_path / "teams.csv"
    teams.write_text("run,team\nrun2,T\n")  # lists one of the two runs (a file listing none is an error)
    (tmp_path / "run2").write_text(files["run"].read_text())
    done = run_cli("pool", files["run"], tmp_path / "run2", "--teams", teams, "--depth", "2", "--out",
                   tmp_path / "sd.csv")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    assert any(line.startswith("ir-rarity: note: 1 run(s) not in the team file") for line in lines)
    assert all(line.startswith("ir-rarity: ") for line in lines) and "Traceback" not in done.stderr, lines
