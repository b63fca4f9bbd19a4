"""``Judged@k`` beside unjudged=True: its share of unjudged documents counted by hand, no bounds over relevance
(it reads which documents are judged, not whether they are relevant), and the other measures' bounds unchanged."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ir_rarity
from ir_rarity.cli import main


def _files(tmp_path: Path) -> tuple[Path, Path]:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq2 0 x 1\n")
    runs = tmp_path / "runs.txt"
    runs.write_text("q1 Q0 a 1 5 A\nq1 Q0 d 2 5 A\nq1 Q0 c 3 4 A\nq2 Q0 y 1 2 A\nq2 Q0 x 2 1 A\n"
                    "q1 Q0 b 1 9 B\nq1 Q0 e 2 8 B\nq2 Q0 x 1 3 B\n")
    return qrels, runs


def test_judged_gets_its_share_and_no_bounds(tmp_path: Path) -> None:
    qrels, runs = _files(tmp_path)
    evaluation = ir_rarity.evaluate(runs, qrels, ["Judged@2", "P@2"], split_by_tag=True, unjudged=True)
    # top 2 by trec_eval's order (score desc, docno desc): A q1 d, a (1 of 2 unjudged); A q2 y, x (1 of 2);
    # B q1 b, e (1 of 2); B q2 x (0 of 1)
    shares = evaluation.unjudged("Judged@2")["unjudged"]
    assert shares["A"] == pytest.approx(0.5) and shares["B"] == pytest.approx(0.25)
    assert np.isnan(evaluation.bounds("Judged@2")["high"]).all()
    # P@2 high by hand: A q1 {d, a} both relevant, q2 {y, x} both relevant -> 1; B q1 {b, e}: e -> 1/2, q2 x -> 1/2
    high = evaluation.bounds("P@2")["high"]
    assert high["A"] == pytest.approx(1.0) and high["B"] == pytest.approx(0.5)


def test_eval_unjudged_with_judged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = _files(tmp_path)
    assert main(["eval", str(qrels), str(runs), "--split-by-tag", "-m", "Judged@2", "--unjudged", "-o", "tsv",
                 "-p", "-1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split("\t")
    rows = {r["run"]: r for r in (dict(zip(header, line.split("\t"), strict=True)) for line in lines[1:])}
    assert float(rows["A"]["Judged@2 unjudged"]) == pytest.approx(0.5)
    assert float(rows["B"]["Judged@2 unjudged"]) == pytest.approx(0.25)
    assert rows["A"]["Judged@2 high"] in ("", "nan", "NaN")
