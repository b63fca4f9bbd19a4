"""The scale rows of bench/bench_scale.py run end to end on tiny campaigns (their figures are not checked here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripts import load_script


@pytest.mark.slow
def test_scale_rows_print_every_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_script("bench/bench_scale.py")
    results, plot = tmp_path / "points.json", tmp_path / "curve.png"
    bench.scale_main(["--scale", "--data", str(tmp_path), "--runs", "3", "6", "--queries", "4", "--docs", "30",
                      "--repeat", "1", "--msmarco", "20", "30", "2", "--results", str(results), "--plot", str(plot)])
    out = capsys.readouterr().out
    table = [line for line in out.splitlines() if line.startswith("| ") and not line.startswith("| |")]
    labels = [line.split("|")[1].strip() for line in table]
    assert labels == ["S3", "S3", "P3", "S6", "S6", "P6", "T1", "T1", "T2", "T3", "T3", "T4", "MS"]
    for line in table:
        if line.split("|")[1].strip()[0] in "TM":
            assert line.rstrip(" |").split("|")[-1].strip() in ("yes", "NO")
    points = json.loads(results.read_text())
    assert {(p["runs"], p["mode"]) for p in points} == {(3, "two passes"), (3, "in memory"), (6, "two passes"),
                                                         (6, "in memory"), (2, "msmarco")}
    assert all(p["rows"] == p["runs"] * 4 * 30 for p in points if p["mode"] != "msmarco")
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "syn3_4x30" / "qrels.txt").exists()
