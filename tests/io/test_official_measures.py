"""-m official / measures="official": the official measures ir_datasets documents for a benchmark."""

from __future__ import annotations

from pathlib import Path

import pytest

from ir_rarity import ParameterError
from ir_rarity.cli import main
from ir_rarity.io.datasets import expand_official, official_measures


def test_a_benchmarks_official_measures() -> None:
    # MS MARCO passage dev (small): MRR@10 is its official measure (ir_datasets' documentation says so).
    assert official_measures("msmarco-passage/dev/small") == ["RR@10"]
    assert expand_official(["P@10", "official"], "msmarco-passage/dev/small") == ["P@10", "RR@10"]
    assert expand_official("official", "msmarco-passage/dev/small") == ["RR@10"]
    assert expand_official(["P@10"], "not even looked at") == ["P@10"]


def test_without_a_benchmark_the_error_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ParameterError, match="documents no official measures for 'vaswani'"):
        official_measures("vaswani")
    with pytest.raises(ParameterError, match="is no ir_datasets id"):
        official_measures("no/such/benchmark")
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d 1\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 d 1 1.0 r\n")
    assert main(["eval", str(qrels), str(run), "-m", "official"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'official' measures come from an ir_datasets benchmark" in err[0]
