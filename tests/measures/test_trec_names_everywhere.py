"""A trec_eval name of one measure (``map``, ``P.2``, ``ndcg_cut.5``) is read wherever a measure is, through
ir_measures' own ``parse_trec_measure``: the values equal those trec_eval 10.0 printed for the same files, the column
keeps the name given. A name of several measures (``all_trec``, ``P.5,10``) is left to ``ir-rarity eval -m``.

Expected values: ``trec_eval -c -m P.2 -m map -m ndcg_cut.5 -m recip_rank -m bpref -m Rprec qrels run`` (trec_eval
10.0, usnistgov/trec_eval commit f4253652) on the files below (grades 3, 2, 1, 0 and -1; a tie of scores; a query the
run misses; a run query the qrels lack).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ir_measures import AP, P, nDCG

import ir_rarity
from ir_rarity.errors import ParameterError
from ir_rarity.measures.parse import parse_measure

QRELS = "q1 0 d1 3\nq1 0 d2 -1\nq1 0 d3 1\nq1 0 d4 2\nq1 0 d9 0\nq2 0 d1 2\nq2 0 d5 1\nq3 0 d7 1\n"
RUN = ("q1 Q0 d2 1 9 r\nq1 Q0 d8 2 8 r\nq1 Q0 d4 3 7 r\nq1 Q0 d1 4 7 r\nq1 Q0 d9 5 6 r\nq1 Q0 d3 6 5 r\n"
       "q2 Q0 d6 1 3 r\nq2 Q0 d5 2 2 r\nq2 Q0 d1 3 1 r\nq4 Q0 d1 1 1 r\n")
TREC_EVAL_10 = {"P.2": 0.1667, "map": 0.3426, "ndcg_cut.5": 0.3671, "recip_rank": 0.2778, "bpref": 0.5556,
                "Rprec": 0.2778}


def test_trec_names_evaluate_as_trec_eval(tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    table = ir_rarity.evaluate(run, qrels, list(TREC_EVAL_10), progress=False).table()
    assert list(table.columns) == list(TREC_EVAL_10)
    for name, value in TREC_EVAL_10.items():
        assert abs(table[name].iloc[0] - value) <= 0.5e-4, name


def test_the_measure_is_ir_measures_own() -> None:
    assert parse_measure("map") == AP
    assert parse_measure("P.10") == P @ 10
    assert parse_measure("ndcg_cut.10") == nDCG @ 10


@pytest.mark.parametrize("text", ["all_trec", "P.5,10", "gm_map", "P.abc"])
def test_names_of_several_measures_or_none_stay_errors(text: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ParameterError, match="cannot parse measure"):
        parse_measure(text)
    assert capsys.readouterr().out == ""  # parse_trec_measure('all_trec') would print its skipped measures here
