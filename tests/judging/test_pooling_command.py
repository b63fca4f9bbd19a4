"""The ``ir-rarity pooling`` sub-command on the hand campaign of conftest.py (one-line errors, files written)."""

from __future__ import annotations

import argparse
import csv
import io
from contextlib import redirect_stderr
from pathlib import Path

import pytest
from cli_helpers import assert_cli_error, run_cli

from ir_rarity.cli import commands as cli
from ir_rarity.judging import simulation


@pytest.mark.slow
def test_pooling_command_writes_the_report(hand_files: dict[str, Path], tmp_path: Path) -> None:
    runs = [hand_files[n] for n in "ABC"]
    out = tmp_path / "report"
    result = run_cli("pooling", hand_files["qrels"], *runs, "--out", out, "--strategies", "depth", "rbp(p=0.5)",
                     "mtf", "--budgets", "1", "2", "-m", "P@2", "P_rare@2", "--loto-teams", "all", "--incomplete")
    assert result.returncode == 0, result.stderr
    for name in ("found.csv", "found.png", "reusability.csv", "incomplete.csv", "summary.md"):
        assert (out / name).stat().st_size > 0, name
    rows = list(csv.DictReader((out / "found.csv").open()))
    # Qrels q1: d1=2, d2=1, d3=0, d5=1; q2: d1=1. Depth order q1: d1 d2 d6 (rank 1, by docno) ..., q2: d1 x.
    # Budget 1: q1 d1 (relevant), q2 d1 (relevant) -> 2 relevant.
    depth = {r["budget"]: r for r in rows if r["strategy"] == "depth"}
    assert depth["1"]["relevant"] == "2" and depth["1"]["judged"] == "2"
    assert "| depth |" in result.stdout
    assert not any(p.name.endswith(".tmp") for p in out.iterdir())


@pytest.mark.slow
def test_pooling_command_refuses_to_write_over_inputs(hand_files: dict[str, Path], tmp_path: Path) -> None:
    runs = [hand_files[n] for n in "ABC"]
    assert_cli_error(run_cli("pooling", hand_files["qrels"], *runs, "--out", tmp_path), "refusing")
    assert_cli_error(run_cli("pooling", hand_files["qrels"], *runs, "--out", hand_files["A"]), "not a folder")
    assert_cli_error(run_cli("pooling", hand_files["qrels"], *runs, "--out", tmp_path / "r", "--strategies", "x"),
                     "unknown pooling strategy")


def _board(tmp_path: Path, header: str) -> Path:
    path = tmp_path / "board.csv"
    path.write_text(f"{header},team,contributed judgments\nA,ta,yes\nB,tb,yes\nC,tc,no\n")
    return path


@pytest.mark.slow
def test_leaderboard_names_its_run_column(hand_files: dict[str, Path], tmp_path: Path) -> None:
    runs = [hand_files[n] for n in "ABC"]
    board = _board(tmp_path, "tag")  # TREC's leaderboards name runs 'tag'
    out = tmp_path / "report"
    result = run_cli("pooling", hand_files["qrels"], *runs, "--out", out, "--strategies", "depth", "mtf",
                     "mtf(rule=skip)", "depth(ties=runs)", "--budgets", "1", "2", "-m", "P_rare@2",
                     "--no-reusability", "--no-plots", "--leaderboard", f"{board}:tag")
    assert result.returncode == 0, result.stderr
    assert (out / "summary.md").stat().st_size > 0
    assert any(p.name.startswith("official") for p in out.iterdir())
    assert "| mtf(rule=skip) |" in result.stdout and "| depth(ties=runs) |" in result.stdout


def _main_without_simulating(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> tuple[int, str]:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the simulation ran before the inputs were checked")

    monkeypatch.setattr(simulation, "simulate", refuse)
    err = io.StringIO()
    with redirect_stderr(err):
        status = cli.main(argv)
    return status, err.getvalue()


@pytest.mark.parametrize(("header", "spec_column", "words"), [
    ("tag", None, ("leaderboard", "no column")),          # the default run column is 'run'
    ("run", "tag", ("leaderboard", "no column")),         # a column the file lacks
    ("run", "run", ("official run(s) not in the pool",)),  # runs the pool lacks
])
def test_a_bad_leaderboard_fails_in_one_line_before_simulating(
        hand_files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, header: str,
        spec_column: str | None, words: tuple[str, ...]) -> None:
    board = _board(tmp_path, header)
    if words[0].startswith("official"):
        board.write_text("run,contributed judgments\nA,yes\nZ,yes\n")
    spec = str(board) if spec_column is None else f"{board}:{spec_column}"
    argv = ["pooling", str(hand_files["qrels"]), *(str(hand_files[n]) for n in "ABC"), "--out",
            str(tmp_path / "report"), "--leaderboard", spec]
    status, err = _main_without_simulating(monkeypatch, argv)
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ir-rarity: error: "), err
    assert all(w in lines[0] for w in words), lines[0]
    assert not (tmp_path / "report").exists()


def test_every_input_is_checked_before_simulating(hand_files: dict[str, Path], tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    base = ["pooling", str(hand_files["qrels"]), *(str(hand_files[n]) for n in "ABC"), "--out",
            str(tmp_path / "report")]
    for extra in (["--teams", str(tmp_path / "missing.csv")], ["--loto-teams", "some"],
                  ["--leaderboard", str(tmp_path / "missing.csv")]):
        status, err = _main_without_simulating(monkeypatch, [*base, *extra])
        assert status == 2 and len(err.strip().splitlines()) == 1, (extra, err)
    status, err = _main_without_simulating(monkeypatch, ["pooling", str(tmp_path / "nope"), *base[2:]])
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert isinstance(cli.build_parser(), argparse.ArgumentParser)
