"""The ``ir-rarity pooling`` sub-command on the hand campaign of conftest.py (one-line errors, files written)."""

from __future__ import annotations

import csv
from pathlib import Path

from cli_helpers import assert_cli_error, run_cli


def test_pooling_command_writes_the_report(hand_files: dict[str, Path], tmp_path: Path) -> None:
    runs = [hand_files[n] for n in "ABC"]
    out = tmp_path / "report"
    result = run_cli("pooling", hand_files["qrels"], *runs, "--out", out, "--strategies", "depth", "rbp(p=0.5)",
                     "mtf", "--budgets", "1", "2", "-m", "P@2", "P_rare@2", "--loto-teams", "all", "--incomplete")
    assert result.returncode == 0, result.stderr
    for name in ("found.csv", "found.png", "reusability.csv", "incomplete.csv", "summary.md"):
        assert (out / name).stat().st_size > 0, name
    rows = list(csv.DictReader((out / "found.csv").open()))
    # Qrels q1: d1=2, d2=1, d3=0, d5=1; q2: d1=1. Depth order q1: d1 d2 (rank 1; d2 in 2 runs first) ..., q2: d1 x.
    # Budget 1: q1 d2 (relevant), q2 d1 (relevant) -> 2 relevant.
    depth = {r["budget"]: r for r in rows if r["strategy"] == "depth"}
    assert depth["1"]["relevant"] == "2" and depth["1"]["judged"] == "2"
    assert "| depth |" in result.stdout
    assert not any(p.name.endswith(".tmp") for p in out.iterdir())


def test_pooling_command_refuses_to_write_over_inputs(hand_files: dict[str, Path], tmp_path: Path) -> None:
    runs = [hand_files[n] for n in "ABC"]
    assert_cli_error(run_cli("pooling", hand_files["qrels"], *runs, "--out", tmp_path), "refusing")
    assert_cli_error(run_cli("pooling", hand_files["qrels"], *runs, "--out", hand_files["A"]), "not a folder")
    assert_cli_error(run_cli("pooling", hand_files["qrels"], *runs, "--out", tmp_path / "r", "--strategies", "x"),
                     "unknown pooling strategy")
