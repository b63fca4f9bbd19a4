"""Rank-biased precision and its residual (Moffat & Zobel, TOIS 2008) against a plain-Python reference."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ir_rarity


def _reference(ranking: list[str], label: dict[str, int], p: float, rel: int, cutoff: int | None
               ) -> tuple[float, float]:
    """RBP and its residual straight from the definition: sums over ranks 1..m, then p^m for what lies beyond."""
    read = ranking[:cutoff] if cutoff is not None else ranking
    value = residual = 0.0
    for i, d in enumerate(read, start=1):
        if d not in label:
            residual += (1 - p) * p ** (i - 1)
        elif label[d] >= rel:
            value += (1 - p) * p ** (i - 1)
    return value, residual + p ** len(read)


@pytest.mark.parametrize(("name", "p", "rel", "cutoff"), [("RBP(p=0.8)", 0.8, 1, None), ("RBP(p=0.5)@5", 0.5, 1, 5),
                                                          ("RBP(p=0.95,rel=2)", 0.95, 2, None)])
def test_rbp_and_its_residual_equal_the_definition(name: str, p: float, rel: int, cutoff: int | None) -> None:
    rng = np.random.default_rng(7)
    docs = [f"d{i}" for i in range(30)]
    runs = {f"r{r}": pd.DataFrame({"qid": "q", "docno": rng.choice(docs, size=12, replace=False),
                                   "score": rng.permutation(12) + 1.0}) for r in range(3)}
    runs["short"] = pd.DataFrame({"qid": "q", "docno": ["d1", "d2"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": "q", "doc_id": docs[:18], "relevance": rng.choice([0, 1, 2], size=18)})
    result = ir_rarity.evaluate(runs, qrels, [name], unjudged=True)
    label = dict(zip(qrels["doc_id"], qrels["relevance"], strict=True))
    for run, frame in runs.items():
        ranking = [d for _, d in sorted(zip(frame["score"], frame["docno"], strict=True), reverse=True)]
        value, residual = _reference(ranking, label, p, rel, cutoff)
        assert result.table().loc[run, name] == pytest.approx(value, abs=1e-14)
        assert result.unjudged(name).loc[run, "residual"] == pytest.approx(residual, abs=1e-14)


def test_rbp_by_hand() -> None:
    run = pd.DataFrame({"qid": "q", "docno": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["a", "c"], "relevance": [1, 0]})
    result = ir_rarity.evaluate({"r": run}, qrels, ["RBP(p=0.5)"], unjudged=True)
    # a relevant at rank 1: (1 - 0.5) * 1 = 0.5; b unjudged at rank 2: 0.5 * 0.5 = 0.25; beyond rank 3: 0.5^3
    assert result.table().loc["r", "RBP(p=0.5)"] == 0.5
    assert result.unjudged("RBP(p=0.5)").loc["r", "residual"] == 0.25 + 0.125
    # high: b judged relevant (grade 1): 0.5 + 0.25
    assert result.bounds("RBP(p=0.5)").loc["r", "high"] == 0.75

