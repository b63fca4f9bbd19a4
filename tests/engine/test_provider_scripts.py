"""Measures ir_measures computes with a script (trec's gdeval.pl for ERR@k): its values, and its limits in one line."""

from __future__ import annotations

import ir_measures
import pandas as pd
import pytest

import ir_rarity
from ir_rarity.errors import ParameterError

RUN = [("d1", 2.0), ("d2", 1.0), ("d3", 0.5)]
LABELS = {"d1": 1, "d2": 0, "d3": 2}


def _frames(query_id: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    run = pd.DataFrame({"query_id": query_id, "doc_id": [d for d, _ in RUN], "score": [s for _, s in RUN]})
    qrels = pd.DataFrame({"query_id": query_id, "doc_id": list(LABELS), "relevance": list(LABELS.values())})
    return run, qrels


def test_err_with_numeric_query_ids_is_ir_measures_value() -> None:
    run, qrels = _frames("7")
    expected = ir_measures.calc_aggregate([ir_measures.ERR @ 10], qrels, run)[ir_measures.ERR @ 10]
    # ERR by hand (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009) as gdeval.pl computes it, with its maximum grade
    # 4: R(g) = (2^g - 1) / 2^4 for the grades 1, 0, 2 at ranks 1, 2, 3
    r = [(2**g - 1) / 16 for g in (1, 0, 2)]
    by_hand = r[0] + (1 - r[0]) * r[1] / 2 + (1 - r[0]) * (1 - r[1]) * r[2] / 3
    assert expected == pytest.approx(by_hand, abs=1e-5)  # gdeval.pl prints 5 decimals
    result = ir_rarity.evaluate({"r": run}, qrels, ["ERR@10"])
    assert result.table().loc["r", "ERR@10"] == pytest.approx(expected, abs=1e-12)


def test_err_with_a_text_query_id_is_one_line_naming_the_query(capfd: pytest.CaptureFixture[str]) -> None:
    run, qrels = _frames("covid-1")
    with pytest.raises(ParameterError) as caught:
        ir_rarity.evaluate({"r": run}, qrels, ["ERR@10", "P@1"])
    message = str(caught.value)
    assert "\n" not in message
    assert "ERR@10" in message and "'covid-1'" in message and "gdeval.pl" in message
    assert capfd.readouterr().err == ""  # refused before the script could print its own error
