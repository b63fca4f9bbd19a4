"""Campaign tables with what each score rests on: the columns, the bracketed cells and the caption's sentences."""

from __future__ import annotations

import pandas as pd
import pytest

import ir_rarity
from ir_rarity.compare import campaign_table

RUNS = {"a": pd.DataFrame({"qid": "q", "docno": ["x", "u", "y"], "score": [3.0, 2.0, 1.0]}),
        "b": pd.DataFrame({"qid": "q", "docno": ["x", "y", "z"], "score": [1.0, 1.0, 1.0]})}
QRELS = pd.DataFrame({"query_id": "q", "doc_id": ["x", "y", "z"], "relevance": [1, 0, 1]})


def test_frame_and_marked_table() -> None:
    result = ir_rarity.evaluate(RUNS, QRELS, ["P@2"], unjudged=True, ties=True)
    table = campaign_table(result, unjudged=True, ties=True)
    frame = table.frame()
    assert list(frame.columns) == ["P@2", "P@2 unjudged", "P@2 low", "P@2 high", "P@2 ties low", "P@2 ties high"]
    # a: x, u read, u unjudged: [1/2, 1]; b: z, y in trec_eval's order, x, z first at best: ties [1/2, 1]
    assert frame.loc["a"].tolist() == pytest.approx([0.5, 0.5, 0.5, 1.0, 0.5, 0.5])
    assert frame.loc["b"].tolist() == pytest.approx([0.5, 0.0, 0.5, 0.5, 0.5, 1.0])
    text = table.render("markdown", 2)
    assert "| P@2 unjudged | P@2 bounds | P@2 ties |" in text
    assert "\\[0.50, 1.00\\]" in text
    assert "Unjudged: mean share of the documents each measure reads" in text and "Ties: min and max" in text


def test_asking_without_gathering_says_how() -> None:
    result = ir_rarity.evaluate(RUNS, QRELS, ["P@2"])
    with pytest.raises(ir_rarity.ParameterError, match="evaluate with unjudged=True"):
        campaign_table(result, unjudged=True)
