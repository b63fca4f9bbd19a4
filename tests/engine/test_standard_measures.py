"""trec_eval's standard measures in the engine equal pytrec_eval (through ir_measures) run by run, query by query.

Checked on the embedded TREC-COVID round 1 (143 runs) and on a small synthetic campaign built to stress the
details: float32 score ties (also between scores that differ only in float64), negative and graded labels,
queries without relevant documents, queries a run lacks, runs shorter than the cutoffs.
"""

from __future__ import annotations

from typing import Any

import ir_measures
import numpy as np
import pandas as pd
import pytest

from ir_rarity import Pool
from ir_rarity.engine.standard import covers
from ir_rarity.evaluation import evaluate_campaign as evaluate

GAINS = {0: 0, 1: 1, 2: 4}

PYTREC_MEASURES = [
    "P@1", "P@5", "P@10", "P@100", "P@1000", "P(rel=2)@10", "P(judged_only=True)@10",
    "R@5", "R@100", "R@1000", "R(rel=2)@50", "R(judged_only=True)@20",
    "AP", "AP@10", "AP@100", "AP(rel=2)", "AP(judged_only=True)", "AP(rel=2,judged_only=True)@20",
    "nDCG", "nDCG@10", "nDCG@100", "nDCG(judged_only=True)", "nDCG(judged_only=True)@10",
    "RR", "RR(rel=2)", "RR(judged_only=True)",
    "Rprec", "Rprec(rel=2)", "Rprec(judged_only=True)",
    "Bpref", "Bpref(rel=2)", "Bpref(rel=3)",
    "NumRet", "NumRelRet", "NumRet(rel=2)",
]


def _measures() -> list[Any]:
    out = [ir_measures.parse_measure(m) for m in PYTREC_MEASURES]
    return [*out, ir_measures.nDCG(gains=GAINS), ir_measures.nDCG(gains=GAINS) @ 10]


def _reference(provider: Any, measures: list[Any], qrels: pd.DataFrame, runs: dict[str, pd.DataFrame],
               query_ids: pd.Index) -> dict[Any, np.ndarray]:
    """Per-query values from an ir_measures provider, run by run; a query a run lacks scores 0 (calc_aggregate)."""
    column = {q: j for j, q in enumerate(query_ids)}
    out = {m: np.zeros((len(runs), len(query_ids))) for m in measures}
    evaluator = provider.evaluator(measures, qrels)
    for i, frame in enumerate(runs.values()):
        for metric in evaluator.iter_calc(frame):
            out[metric.measure][i, column[metric.query_id]] = metric.value
    return out


def _compare(ours: dict[Any, np.ndarray], theirs: dict[Any, np.ndarray]) -> None:
    for m, expected in theirs.items():
        np.testing.assert_allclose(ours[m], expected, rtol=0, atol=1e-12, err_msg=str(m))


def test_covers_the_standard_measures_and_leaves_the_rest() -> None:
    assert all(covers(m) for m in _measures())
    assert covers(ir_measures.parse_measure("Judged"))  # order-free: in the engine
    assert covers(ir_measures.parse_measure("Judged@10"))  # in ir_measures' judged order: in the engine too
    for other in ["RR@10", "nDCG(dcg='exp-log2')@10", "ERR@10", "SetP", "infAP", "P_rare@10", "ASL"]:
        assert not covers(ir_measures.parse_measure(other)), other


@pytest.fixture(scope="module")
def covid(covid_pool: Pool, covid_qrels: pd.DataFrame) -> tuple[Pool, pd.DataFrame, dict[str, pd.DataFrame]]:
    return covid_pool, covid_qrels, {n: covid_pool.run(n) for n in covid_pool.names}


@pytest.mark.slow
def test_round1_every_run_query_and_parameter_equals_pytrec_eval(covid: Any) -> None:
    pool, qrels, runs = covid
    measures = _measures()
    result = evaluate(pool, qrels, measures)
    assert result.values[measures[0]].shape == (143, 30)
    theirs = _reference(ir_measures.pytrec_eval, measures, qrels, runs, result.query_ids)
    _compare(result.values, theirs)
    zero = [str(m) for m in measures if theirs[m].sum() == 0]
    assert zero == ["Bpref(rel=3)"]  # real values, not zeros against zeros (round 1 has no label 3)


@pytest.mark.slow
def test_round1_judged_equals_the_judged_provider(covid: Any) -> None:
    """Judged is ir_measures' measure: Judged@k gives its judged provider's values (ties by docno ascending), also
    where a tie straddles rank k (tests/engine/test_host_measures.py checks the tie cases one by one)."""
    pool, qrels, runs = covid
    measures = [ir_measures.Judged @ k for k in (5, 10, 100)] + [ir_measures.Judged]
    result = evaluate(pool, qrels, measures)
    _compare(result.values, _reference(ir_measures.judged, measures, qrels, runs, result.query_ids))


def _synthetic(seed: int = 7) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    rng = np.random.default_rng(seed)
    docs = np.array([f"D{i:03d}" for i in range(60)] + ["a", "B", "b-1", "zz"])
    runs: dict[str, pd.DataFrame] = {}
    for r in range(9):
        parts = []
        for q in range(7):
            if r == 3 and q == 2:
                continue  # a query this run lacks
            n = int(rng.integers(1, 40)) if r != 5 else 3  # run 5: shorter than every cutoff
            picked = rng.choice(docs, size=n, replace=False)
            score = rng.integers(0, 6, size=n).astype(np.float64)  # many exact ties
            score[rng.random(n) < 0.3] += 1e-9  # differ in float64, tie in float32
            parts.append(pd.DataFrame({"query_id": f"q{q}", "doc_id": picked, "score": score}))
        runs[f"run{r}"] = pd.concat(parts, ignore_index=True)
    judged = []
    for q in range(8):  # q7: judged but retrieved by no run
        picked = rng.choice(docs, size=25, replace=False)
        labels = rng.choice([-1, 0, 0, 1, 2, 3], size=25) if q != 4 else np.zeros(25, dtype=int)  # q4: none relevant
        judged.append(pd.DataFrame({"query_id": f"q{q}", "doc_id": picked, "relevance": labels}))
    return runs, pd.concat(judged, ignore_index=True)


def test_synthetic_ties_and_labels_equal_pytrec_eval() -> None:
    runs, qrels = _synthetic()
    measures = _measures()
    result = evaluate(Pool.from_runs(runs), qrels, measures)
    _compare(result.values, _reference(ir_measures.pytrec_eval, measures, qrels, runs, result.query_ids))
    alone = evaluate(Pool.from_runs({"other": runs["run0"]}), qrels, measures, runs)  # runs scored against a pool
    _compare(alone.values, result.values)


def test_synthetic_judged_by_hand_in_the_judged_providers_order() -> None:
    runs, qrels = _synthetic()
    measures = [ir_measures.parse_measure(m) for m in ["Judged@5", "Judged@30", "Judged"]]
    result = evaluate(Pool.from_runs(runs), qrels, measures)
    judged = set(zip(qrels["query_id"], qrels["doc_id"], strict=True))
    for i, frame in enumerate(runs.values()):
        # ir_measures' judged provider: float64 score descending, ties by docno ascending; k / min(k, n)
        ordered = frame.assign(neg=-frame["score"].astype(np.float64)).sort_values(["query_id", "neg", "doc_id"])
        for j, qid in enumerate(result.query_ids):
            docs = list(ordered.loc[ordered["query_id"] == qid, "doc_id"])
            for m in measures:
                top = docs if m["cutoff"] is ir_measures.measures.base._NOT_PROVIDED else docs[:m["cutoff"]]
                expected = sum((qid, d) in judged for d in top) / len(top) if top else 0.0
                assert result.values[m][i, j] == pytest.approx(expected, abs=1e-15), (m, i, qid)
