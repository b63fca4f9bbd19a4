"""Rprec's expected value over tie orders (McSherry & Najork, ECIR 2008: P at the query's own cutoff N_R) against
the mean over every order of every tie group, enumerated and scored by pytrec_eval."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import pytrec_eval

import ir_rarity


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rprec_expected_is_the_mean_over_every_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(9)]
    qrels = {f"q{q}": {d: int(rng.integers(0, 3)) for d in rng.choice(docs, size=6, replace=False)}
             for q in range(3)}
    runs = {}
    for r in range(2):
        parts = []
        for q in qrels:
            picked = rng.choice(docs, size=7, replace=False)
            scores = rng.integers(0, 3, size=7).astype(float)  # heavy ties: groups of up to 7
            parts.append(pd.DataFrame({"query_id": q, "doc_id": picked, "score": scores}))
        runs[f"r{r}"] = pd.concat(parts, ignore_index=True)
    frame = pd.DataFrame([(q, d, g) for q, j in qrels.items() for d, g in j.items()],
                         columns=["query_id", "doc_id", "relevance"])
    evaluation = ir_rarity.evaluate(runs, frame, ["Rprec"], ties=True)
    got = evaluation.ties("Rprec", per_query=True).set_index(["run", "query_id"])
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"Rprec"})
    spread: list[float] = []
    for name, run in runs.items():
        for q, part in run.groupby("query_id"):
            groups = [list(g["doc_id"]) for _, g in part.groupby("score", sort=True)][::-1]  # best score first
            values = []
            for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
                ranking = [d for order in orders for d in order]
                scored = {q: {d: float(len(ranking) - i) for i, d in enumerate(ranking)}}
                values.append(evaluator.evaluate(scored)[q]["Rprec"])
            row = got.loc[(name, q)]
            spread.append(max(values) - min(values))
            assert row["ties expected"] == pytest.approx(float(np.mean(values)), abs=1e-12)
            assert row["ties low"] == pytest.approx(min(values), abs=1e-12)
            assert row["ties high"] == pytest.approx(max(values), abs=1e-12)
    assert max(spread) > 0  # some tie group straddles a query's cutoff N_R
