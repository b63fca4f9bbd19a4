"""How deep runs are read: one rule (``retention.required_depth``) decides it; judged_only measures read whole runs.

A run cut at the cutoff before its unjudged documents are removed loses the judged documents that would have
moved up into the top k: ``P(judged_only=True)@10`` must read the whole run, as pytrec_eval's ``-J`` does.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import ir_measures
import pytest

import ir_rarity
from ir_rarity.cli import main
from ir_rarity.pool.build.retention import required_depth

MEASURES = ["P(judged_only=True)@10", "nDCG(judged_only=True)@10", "P_rare(alpha=0,judged_only=True)@10"]


def test_required_depth_reads_whole_runs_for_judged_only() -> None:
    parse = ir_measures.parse_measure
    assert required_depth([parse("P@10"), parse("P_rare@20")]) == 20
    assert required_depth([parse("P@10"), parse("P_rare(depth=50)@20")]) == 50
    assert required_depth([parse("P@10"), parse("AP")]) is None
    assert required_depth([parse("P(judged_only=True)@10")]) is None


@pytest.mark.parametrize("measure", MEASURES)
def test_judged_only_alone_equals_pytrec_eval(measure: str, covid_pool: ir_rarity.Pool, covid_qrels,
                                              tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = covid_pool.run("BERT")
    path = tmp_path / "BERT"
    path.write_text("".join(f"{q} Q0 {d} 0 {s!r} BERT\n" for q, d, s in
                            run[["query_id", "doc_id", "score"]].itertuples(index=False)))
    qrels = tmp_path / "qrels"
    qrels.write_bytes(gzip.decompress(Path(ir_rarity.covid_round1.qrels).read_bytes()))
    assert main(["eval", str(qrels), str(path), "-m", measure, "--format", "jsonl", "-p", "-1"]) == 0
    got = json.loads(capsys.readouterr().out)  # one run: {"measure": the measure as given, "value": ...}
    assert got["measure"] == measure
    got = got["value"]
    standard = ir_measures.parse_measure(measure.replace("P_rare(alpha=0,", "P("))
    expected = ir_measures.calc_aggregate([standard], covid_qrels, run[["query_id", "doc_id", "score"]])[standard]
    assert got == pytest.approx(expected, abs=1e-12)
    cut = run[run["rank"] <= 10][["query_id", "doc_id", "score"]]  # what cutting first would have scored
    assert ir_measures.calc_aggregate([standard], covid_qrels, cut)[standard] != pytest.approx(expected)
