"""The unjudged share of the documents a measure reads and the bounds they leave open, against references.

``high`` is defined as the value on the qrels extended with every unjudged document the run's measure reads, at the
lowest relevant grade: ir_measures (pytrec_eval, trec_eval's code) on exactly those extended qrels is the reference
for the standard measures, plain-Python definitions (S_d counted by hand) for the rarity ones. ``low`` is the value.
"""

from __future__ import annotations

from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity.evaluation import evaluate_campaign

STANDARD = ["P@5", "nDCG@5", "nDCG", "AP", "RR", "R@5", "Rprec", "AP@5"]
ALPHA = 0.5


def _campaign(seed: int, n_runs: int = 4, n_queries: int = 3, n_docs: int = 8
              ) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    rng = np.random.default_rng(seed)
    docs = [f"d{i:02d}" for i in range(16)]
    runs = {}
    for r in range(n_runs):
        parts = [pd.DataFrame({"qid": f"q{q}", "docno": rng.choice(docs, size=n_docs, replace=False),
                               "score": rng.permutation(n_docs).astype(float) + 1.0}) for q in range(n_queries)]
        runs[f"r{r}"] = pd.concat(parts, ignore_index=True)
    qrels = [(f"q{q}", d, int(rng.choice([0, 0, 1, 2]))) for q in range(n_queries) for d in docs
             if rng.random() < 0.45]
    qrels.append(("q0", "d15", 1))  # every query judged at least once; grade 1 is the lowest relevant grade
    return runs, pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]).drop_duplicates(
        ["query_id", "doc_id"])


def _ranked(frame: pd.DataFrame, q: str) -> list[str]:
    part = frame[frame["qid"] == q]
    return [d for _, d in sorted(zip(part["score"], part["docno"], strict=True), reverse=True)]


def _extended(qrels: pd.DataFrame, run: pd.DataFrame, cutoff: int | None, grade: int) -> pd.DataFrame:
    judged = set(zip(qrels["query_id"], qrels["doc_id"], strict=True))
    added = [(q, d, grade) for q in sorted(set(run["qid"])) for d in _ranked(run, q)[:cutoff] if (q, d) not in judged]
    return pd.concat([qrels, pd.DataFrame(added, columns=["query_id", "doc_id", "relevance"])], ignore_index=True)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_high_equals_ir_measures_on_the_qrels_extended_with_the_run_s_unjudged_documents(seed: int) -> None:
    runs, qrels = _campaign(seed)
    result = ir_rarity.evaluate(runs, qrels, STANDARD, unjudged=True)
    for name in STANDARD:
        measure = ir_measures.parse_measure(name)
        cutoff = measure["cutoff"] if "cutoff" in measure.params else None
        bounds = result.bounds(name, per_query=True).set_index(["run", "query_id"])
        for run, frame in runs.items():
            extended = _extended(qrels, frame, cutoff, grade=1)
            frame_ir = frame.rename(columns={"qid": "query_id", "docno": "doc_id"})
            expected = {m.query_id: m.value for m in ir_measures.iter_calc([measure], extended, frame_ir)}
            original = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, frame_ir)}
            for q, value in expected.items():
                assert bounds.loc[(run, q), "high"] == pytest.approx(value, abs=1e-12), (name, run, q)
                assert bounds.loc[(run, q), "low"] == pytest.approx(original[q], abs=1e-12), (name, run, q)
        assert (result.bounds(name)["low"] == result.table()[name]).all()  # low is the value, exactly


def test_the_unjudged_share_and_bounds_by_hand() -> None:
    runs = {"a": pd.DataFrame({"qid": "q", "docno": ["x", "u", "y", "v"], "score": [4.0, 3.0, 2.0, 1.0]}),
            "b": pd.DataFrame({"qid": "q", "docno": ["x", "y"], "score": [2.0, 1.0]})}
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["x", "y", "z"], "relevance": [0, 2, 3]})
    result = ir_rarity.evaluate(runs, qrels, ["P@3", "AP"], unjudged=True)
    # a reads x, u, y at P@3: u unjudged -> 1/3; AP reads all four: u, v unjudged -> 1/2; b: none unjudged
    assert result.unjudged("P@3")["unjudged"].to_dict() == pytest.approx({"a": 1 / 3, "b": 0.0}, abs=1e-15)
    assert result.unjudged("AP").loc["a", "unjudged"] == 0.5
    # high: the lowest relevant grade of these qrels is 2 (labels 0, 2, 3). P@3 of a: u and y relevant -> 2/3.
    assert result.bounds("P@3").loc["a"].to_dict() == pytest.approx({"low": 1 / 3, "high": 2 / 3}, abs=1e-15)
    # AP of a with u, v relevant too: N_R = 2 + 2 = 4; relevant at ranks 2, 3, 4 -> (1/2 + 2/3 + 3/4) / 4
    assert result.bounds("AP").loc["a", "high"] == pytest.approx((1 / 2 + 2 / 3 + 3 / 4) / 4, abs=1e-15)
    # b retrieved nothing unjudged: its bounds meet
    assert result.bounds("AP").loc["b", "high"] == result.bounds("AP").loc["b", "low"]


def _s_d(runs: dict[str, pd.DataFrame], q: str, depth: int | None) -> dict[str, int]:
    counts: dict[str, int] = {}
    for frame in runs.values():
        for d in _ranked(frame, q)[:depth]:
            counts[d] = counts.get(d, 0) + 1
    return counts


@pytest.mark.parametrize("seed", [3, 4])
def test_rarity_bounds_and_the_judged_share_of_rare_documents(seed: int) -> None:
    runs, qrels = _campaign(seed, n_runs=5)
    k = 5
    names = [f"P_rare(alpha={ALPHA})@{k}", f"AP_rare(alpha={ALPHA})"]
    result = ir_rarity.evaluate(runs, qrels, names, unjudged=True)
    s = len(runs)
    for run, frame in runs.items():
        for q in sorted(qrels["query_id"].unique()):
            label = {d: int(g) for _, d, g in qrels[qrels["query_id"] == q].itertuples(index=False)}
            ranking = _ranked(frame, q)
            opened = {**label, **{d: 1 for d in ranking if d not in label}}  # AP_rare reads the whole ranking
            opened_k = {**label, **{d: 1 for d in ranking[:k] if d not in label}}
            top, whole = _s_d(runs, q, k), _s_d(runs, q, None)

            def ap_rare(lab: dict[str, int], ranking: list[str] = ranking,
                        whole: dict[str, int] = whole) -> float:
                n_rel, hits, total = sum(g >= 1 for g in lab.values()), 0.0, 0.0
                for i, d in enumerate(ranking):
                    if lab.get(d, 0) >= 1:
                        hits += 1 + ALPHA * (1 - whole[d] / s)
                        total += hits / (i + 1)
                return total / n_rel if n_rel else 0.0

            p_high = sum(1 + ALPHA * (1 - top[d] / s) for d in ranking[:k] if opened_k.get(d, 0) >= 1) / k
            row = result.bounds(names[0], per_query=True).set_index(["run", "query_id"]).loc[(run, q)]
            assert row["high"] == pytest.approx(p_high, abs=1e-12)
            row = result.bounds(names[1], per_query=True).set_index(["run", "query_id"]).loc[(run, q)]
            assert row["high"] == pytest.approx(ap_rare(opened), abs=1e-12)
            assert row["low"] == pytest.approx(ap_rare(label), abs=1e-12)
            rare = [d for d in ranking[:k] if top[d] <= 2]
            share = result.unjudged(names[0], per_query=True).set_index(["run", "query_id"]).loc[(run, q)]
            expected = sum(d in label for d in rare) / len(rare) if rare else np.nan
            assert share["rare judged"] == pytest.approx(expected, abs=1e-15, nan_ok=True)
            assert share["unjudged"] == pytest.approx(sum(d not in label for d in ranking[:k]) / k, abs=1e-15)


def test_a_run_scored_against_a_pool_has_its_own_bounds() -> None:
    runs, qrels = _campaign(5)
    pool = ir_rarity.Pool.from_runs(runs)
    new = runs["r0"].assign(docno=runs["r1"]["docno"].to_numpy()[::-1])
    result = ir_rarity.evaluate({"new": new}, qrels, ["P@5", "AP"], pool=pool, unjudged=True)
    frame_ir = new.rename(columns={"qid": "query_id", "docno": "doc_id"})
    for name, cutoff in (("P@5", 5), ("AP", None)):
        extended = _extended(qrels, new, cutoff, grade=1)
        expected = ir_measures.calc_aggregate([ir_measures.parse_measure(name)], extended, frame_ir)
        assert result.bounds(name).loc["new", "high"] == pytest.approx(next(iter(expected.values())), abs=1e-12)


def test_a_measure_outside_the_engine_has_its_share_and_no_bounds() -> None:
    runs = {"a": pd.DataFrame({"qid": "q", "docno": ["x", "u"], "score": [2.0, 1.0]})}
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["x"], "relevance": [1]})
    result = ir_rarity.evaluate(runs, qrels, ["P@2", "RR@2"], unjudged=True)  # RR@k goes through ir_measures
    assert result.unjudged("RR@2").loc["a", "unjudged"] == 0.5  # u of x, u
    assert np.isnan(result.bounds("RR@2").loc["a", "high"])
    alone = ir_rarity.evaluate(runs, qrels, ["RR@2"], unjudged=True)  # no engine measure: nothing read
    assert np.isnan(alone.unjudged("RR@2").loc["a", "unjudged"])


def test_a_campaign_holding_only_what_its_measures_read(tmp_path: Path) -> None:
    """A campaign read from files for P_rare@2 and AP keeps each ranking's top 2 (S_d's depth) and its judged rows
    below: P_rare@2's bounds need no more; AP's need every row, and say so."""
    for name, docs in (("a", "x u y v w"), ("b", "y x")):
        (tmp_path / name).write_text("".join(f"q Q0 {d} {i} {9 - i} {name}\n" for i, d in enumerate(docs.split())))
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["x", "y", "w"], "relevance": [1, 0, 1]})
    pool = ir_rarity.Pool.from_runs([tmp_path / "a", tmp_path / "b"],
                                    retention=ir_rarity.pool.required_rows([ir_measures.parse_measure("P_rare(alpha=0)@2"),
                                                                            ir_measures.AP],
                                                                           ir_rarity.engine.Judgments(qrels)))
    result = evaluate_campaign(pool, qrels, ["P_rare(alpha=0)@2"], unjudged=True)
    assert result.bounds("P_rare(alpha=0)@2").loc["a"].tolist() == [0.5, 1.0]  # x, u: u unjudged
    with pytest.raises(ir_rarity.ParameterError, match="AP's high bound needs every document of each ranking"):
        evaluate_campaign(pool, qrels, ["AP"], unjudged=True)
