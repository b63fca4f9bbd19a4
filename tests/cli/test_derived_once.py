"""One ``ir-rarity eval`` derives each value once: each measure string parsed once and its measure checked once
(the ``{measure: label}`` mapping made at the command line travels down), the qrels read once and encoded once
against the campaign."""

from __future__ import annotations

import io

import ir_measures
import pandas as pd
import pytest
from derivations import counting

from ir_rarity import covid_round1
from ir_rarity.cli.commands import main
from ir_rarity.io.trec import read_trec_qrels

MEASURES = ["P@10", "P_rare(alpha=0.5)@100", "AP_rare", "ASL@g1-10"]


def test_eval_parses_each_measure_once_and_encodes_the_qrels_once(capsys: pytest.CaptureFixture[str]) -> None:
    with counting() as derived:
        status = main(["eval", str(covid_round1.qrels), str(covid_round1.runs), "--split-by-tag", "-m", *MEASURES,
                       "-o", "csv"])
    out = capsys.readouterr().out
    assert status == 0
    assert dict(derived.parses) == {m: 1 for m in MEASURES}
    assert dict(derived.ir_measures_parses) == {m: 1 for m in MEASURES}
    assert derived.rechecks == []  # before: 13 (each layer checked the measures again)
    assert derived.reads == 1
    assert list(derived.encodings.values()) == [1]  # one campaign, its qrels encoded once
    # the values: P@10 of two runs as ir_measures (pytrec_eval) computes it from the files on its own
    table = pd.read_csv(io.StringIO(out), index_col="run")
    assert list(table.columns) == MEASURES and len(table) == 143
    qrels = read_trec_qrels(covid_round1.qrels)
    runs = pd.read_csv(covid_round1.runs, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank",
                                                                          "score", "tag"], dtype=str)
    for name in ("BBGhelani1", "sheikh_bm25_all"):
        run = runs[runs["tag"] == name].assign(score=lambda f: f["score"].astype(float))
        expected = ir_measures.calc_aggregate([ir_measures.P @ 10], qrels, run[["query_id", "doc_id", "score"]])
        assert table.loc[name, "P@10"] == pytest.approx(expected[ir_measures.P @ 10], abs=5e-5)
