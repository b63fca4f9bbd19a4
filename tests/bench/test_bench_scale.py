"""The scale benchmark script runs end to end on a small campaign (its figures are not checked here)."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import pytest
from scripts import load_script

import ir_rarity


@pytest.fixture(scope="module")
def five_run_files(tmp_path_factory) -> tuple[Path, int]:
    """The first five runs of the embedded round-1 file, one file each; and their total number of rows."""
    folder = tmp_path_factory.mktemp("runs")
    lines: dict[str, list[str]] = {}
    with gzip.open(ir_rarity.covid_round1.runs, "rt", encoding="utf-8") as f:
        for line in f:
            tag = line.split()[5]
            if tag in lines or len(lines) < 5:
                lines.setdefault(tag, []).append(line)
    for tag, rows in lines.items():
        (folder / f"{tag}.run").write_text("".join(rows), encoding="utf-8")
    return folder, sum(len(rows) for rows in lines.values())


@pytest.mark.slow
def test_bench_prints_every_ratio(five_run_files: tuple[Path, int], monkeypatch, capsys) -> None:
    folder, n_rows = five_run_files
    bench = load_script("bench/bench_scale.py")
    monkeypatch.setattr(sys, "argv", ["bench_scale.py", str(folder / "*.run"), str(ir_rarity.covid_round1.qrels)])
    bench.main()
    out = capsys.readouterr().out
    assert out.startswith(f"5 runs, {n_rows:,} rows;")
    table = [line for line in out.splitlines() if line.startswith("| R") or line.startswith("| M")]
    assert [line.split("|")[1].strip() for line in table] == ["R1", "R2", "R3", "R4", "R4", "M1"]
    for line in table:
        assert line.rstrip(" |").split("|")[-1].strip() in ("yes", "NO")
