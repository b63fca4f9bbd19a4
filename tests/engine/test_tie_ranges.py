"""The range and mean of a score over every order of its tied documents, against exhaustive enumeration.

Small campaigns with heavy ties (scores drawn from three values): for every run and query, every order of the
tied documents is enumerated (the product of the groups' factorials), each order scored by a plain-Python
definition of the measure (S_d held as the campaign counts it in trec_eval's order), and the min, max and mean
compared with ``Evaluation.ties``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest

import ir_rarity

ALPHA = 0.5


def _campaign(seed: int, n_runs: int = 4, n_queries: int = 2, n_docs: int = 6
              ) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(10)]
    runs = {}
    for r in range(n_runs):
        parts = []
        for q in range(n_queries):
            chosen = rng.choice(docs, size=n_docs, replace=False)
            parts.append(pd.DataFrame({"qid": f"q{q}", "docno": chosen,
                                       "score": rng.choice([1.0, 2.0, 3.0], size=n_docs)}))
        runs[f"r{r}"] = pd.concat(parts, ignore_index=True)
    qrels = []
    for q in range(n_queries):
        for d in docs:
            if rng.random() < 0.7:
                qrels.append((f"q{q}", d, int(rng.choice([0, 0, 1, 2]))))
    return runs, pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])


def _trec_order(frame: pd.DataFrame) -> list[tuple[str, float]]:
    """(docno, score) in trec_eval's order: score descending, ties by docno descending."""
    rows = list(zip(frame["docno"], frame["score"], strict=True))
    return sorted(rows, key=lambda x: (x[1], x[0]), reverse=True)


def _orders(ranking: list[tuple[str, float]]) -> list[list[str]]:
    """Every ranking that keeps the scores' order and permutes the documents of each tied score."""
    groups = [[d for d, _ in g] for _, g in itertools.groupby(ranking, key=lambda x: x[1])]
    return [[d for part in choice for d in part] for choice in itertools.product(
        *(list(itertools.permutations(g)) for g in groups))]


# ---------------------------------------------------------------- plain definitions, one ranking at a time
def _p(ranking: list[str], label: dict[str, int], k: int) -> float:
    return sum(label.get(d, -1) >= 1 for d in ranking[:k]) / k


def _ndcg(ranking: list[str], label: dict[str, int], k: int) -> float:
    dcg = sum(max(label.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(ranking[:k]))
    ideal = sorted((g for g in label.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def _ap(ranking: list[str], label: dict[str, int], weight: Callable[[str], float] | None = None) -> float:
    n_rel = sum(g >= 1 for g in label.values())
    total, hits = 0.0, 0.0
    for i, d in enumerate(ranking):
        if label.get(d, -1) >= 1:
            hits += weight(d) if weight else 1.0
            total += hits / (i + 1)
    return total / n_rel if n_rel else 0.0


def _rr(ranking: list[str], label: dict[str, int]) -> float:
    return next((1.0 / (i + 1) for i, d in enumerate(ranking) if label.get(d, -1) >= 1), 0.0)


def _bpref(ranking: list[str], label: dict[str, int]) -> float:
    n_rel = sum(g >= 1 for g in label.values())
    n_nonrel = sum(g == 0 for g in label.values())
    bound, above, total = min(n_rel, n_nonrel), 0, 0.0
    for d in ranking:
        if label.get(d, -1) >= 1:
            total += 1.0 - (min(above, n_rel) / bound if bound else 0.0)
        elif label.get(d, -1) == 0:
            above += 1
    return total / n_rel if n_rel else 0.0


def _r_rare(ranking: list[str], label: dict[str, int], k: int, weight: Callable[[str], float]) -> float:
    every = sum(weight(d) for d, g in label.items() if g >= 1)
    return sum(weight(d) for d in ranking[:k] if label.get(d, -1) >= 1) / every if every else 0.0


def _p_rare(ranking: list[str], label: dict[str, int], k: int, weight: Callable[[str], float]) -> float:
    return sum(weight(d) for d in ranking[:k] if label.get(d, -1) >= 1) / k


def _definitions(names: list[str], label: dict[str, int], top_k: dict[str, int], whole: dict[str, int],
                 n_systems: int, k: int) -> dict[str, Callable[[list[str]], float]]:
    """Each measure of ``names`` as a function of one ranking (S_d held as counted: ``top_k``, ``whole``)."""
    def rare_top(d: str) -> float:
        return 1 + ALPHA * (1 - top_k[d] / n_systems)

    def rare_whole(d: str) -> float:
        return 1 + ALPHA * (1 - whole[d] / n_systems)

    return {"P@3": lambda o: _p(o, label, k), "nDCG@3": lambda o: _ndcg(o, label, k), "AP": lambda o: _ap(o, label),
            "RR": lambda o: _rr(o, label), names[4]: lambda o: _p_rare(o, label, k, rare_top),
            names[5]: lambda o: _ap(o, label, rare_whole), "Bpref": lambda o: _bpref(o, label),
            names[7]: lambda o: _r_rare(o, label, k, rare_top)}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_range_and_mean_equal_every_order_enumerated(seed: int) -> None:
    runs, qrels = _campaign(seed)
    k = 3
    names = ["P@3", "nDCG@3", "AP", "RR", f"P_rare(alpha={ALPHA})@3", f"AP_rare(alpha={ALPHA})", "Bpref",
             f"R_rare(alpha={ALPHA})@3"]
    result = ir_rarity.evaluate(runs, qrels, names, ties=True)
    n_systems = len(runs)
    for q in sorted(qrels["query_id"].unique()):
        label = {d: int(g) for d, g in qrels.loc[qrels["query_id"] == q, ["doc_id", "relevance"]].to_numpy()}
        rankings = {name: _trec_order(f[f["qid"] == q]) for name, f in runs.items()}
        # S_d as the campaign counts it: runs retrieving d in their top k (P_rare) or at any rank (AP_rare)
        top_k = {d: sum(d in [x for x, _ in r[:k]] for r in rankings.values()) for d in label}
        whole = {d: sum(d in [x for x, _ in r] for r in rankings.values()) for d in label}
        definitions = _definitions(names, label, top_k, whole, n_systems, k)
        for name, ranking in rankings.items():
            orders = _orders(ranking)
            for measure, define in definitions.items():
                values = [define(o) for o in orders]
                got = result.ties(measure, per_query=True).set_index(["run", "query_id"]).loc[(name, q)]
                assert got["value"] == pytest.approx(define([d for d, _ in ranking]), abs=1e-12), measure
                assert got["ties low"] == pytest.approx(min(values), abs=1e-12), (measure, name, q)
                assert got["ties high"] == pytest.approx(max(values), abs=1e-12), (measure, name, q)
                expected = sum(values) / len(values) if measure not in names[6:] else np.nan  # no closed form
                assert got["ties expected"] == pytest.approx(expected, abs=1e-12, nan_ok=True), (measure, q)


def test_a_run_without_ties_has_one_value() -> None:
    runs = {"a": pd.DataFrame({"qid": "q", "docno": ["x", "y", "z"], "score": [3.0, 2.0, 1.0]}),
            "b": pd.DataFrame({"qid": "q", "docno": ["y", "x", "z"], "score": [1.0, 1.0, 1.0]})}
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["x", "z"], "relevance": [1, 1]})
    table = ir_rarity.evaluate(runs, qrels, ["P@1", "AP"], ties=True)
    a, b = table.ties("P@1").loc["a"], table.ties("P@1").loc["b"]
    assert a["ties low"] == a["ties high"] == a["value"] == 1.0
    # b ties all three: trec_eval's order is z, y, x (docno descending): P@1 = 1; range 0..1, mean 2/3
    assert (b["value"], b["ties low"], b["ties high"]) == (1.0, 0.0, 1.0)
    assert b["ties expected"] == pytest.approx(2 / 3, abs=1e-15)
    # AP of b over the 6 orders of {x, y, z} with x, z relevant (N_R = 2): by hand 1, 1, 5/6, 5/6, 7/12, 7/12
    assert table.ties("AP").loc["b", "ties expected"] == pytest.approx((2 + 5 / 3 + 7 / 6) / 6, abs=1e-15)
    assert table.ties("AP").loc["b", "ties low"] == pytest.approx(7 / 12, abs=1e-15)


def test_ties_are_not_gathered_unless_asked() -> None:
    runs = {"a": pd.DataFrame({"qid": "q", "docno": ["x", "y"], "score": [1.0, 1.0]})}
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["x"], "relevance": [1]})
    result = ir_rarity.evaluate(runs, qrels, ["P@1"])  # the campaign keeps each run's top 1 only
    with pytest.raises(ir_rarity.ParameterError, match=r"P@1: its 'ties low' values were not gathered; evaluate "
                                                       r"with ties=True \(ir-rarity eval --ties\)"):
        result.ties("P@1")
    gathered = ir_rarity.evaluate(runs, qrels, ["P@1"], ties=True)
    assert tuple(gathered.ties("P@1").loc["a", ["value", "ties low", "ties high"]]) == (0.0, 0.0, 1.0)


@pytest.mark.parametrize("seed", [5, 6])
def test_measures_without_s_d_equal_every_order_scored_as_its_own_run(seed: int) -> None:
    """ASL, Rprec, Bpref and RBP read no S_d: each order of the tied documents, written as a run with distinct
    scores and scored by the front door, is one value the range must span, and its ends must be reached."""
    runs, qrels = _campaign(seed, n_runs=2, n_queries=1, n_docs=6)
    names = ["ASL", "Rprec", "Bpref", "RBP(p=0.8)@4"]
    result = ir_rarity.evaluate(runs, qrels, names, ties=True)
    for name, frame in runs.items():
        orders = _orders(_trec_order(frame))
        written = {f"o{i}": pd.DataFrame({"qid": "q0", "docno": o, "score": np.arange(len(o), 0, -1.0)})
                   for i, o in enumerate(orders)}
        every = ir_rarity.evaluate(written, qrels, names).table()
        tied = {m: result.ties(m).loc[name] for m in names}
        for m in names:
            assert tied[m]["ties low"] == pytest.approx(every[m].min(), abs=1e-12), (m, name)
            assert tied[m]["ties high"] == pytest.approx(every[m].max(), abs=1e-12), (m, name)
        assert tied["RBP(p=0.8)@4"]["ties expected"] == pytest.approx(every["RBP(p=0.8)@4"].mean(), abs=1e-12)
