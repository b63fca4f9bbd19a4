"""Drawn judgments of the unjudged documents: the model fitted by hand, each draw scored as the front door and
pytrec_eval score those qrels, the sampling law against exact integration, and the percentile intervals against
numpy's percentile of the same draws."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

import ir_rarity
from ir_rarity import Pool
from ir_rarity.engine.judgment_draws import (
    can_draw,
    draw_labels,
    drawn_interval,
    drawn_values,
    fit_model,
    open_pairs,
    sd_bucket,
)
from ir_rarity.engine.judgments import Judgments
from ir_rarity.engine.qrels import UNJUDGED
from ir_rarity.errors import ParameterError
from ir_rarity.measures.parse import parse_measures


def campaign(seed: int = 0, n_runs: int = 6, n_queries: int = 4, n_docs: int = 12, depth: int = 3
             ) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """Runs over a small universe and qrels of a depth-``depth`` pool of the first half of the runs."""
    rng = np.random.default_rng(seed)
    runs, judged = {}, set()
    for r in range(n_runs):
        parts = []
        for q in range(n_queries):
            docs = rng.choice(30, size=n_docs, replace=False)
            parts.append(pd.DataFrame({"query_id": f"q{q}", "doc_id": [f"d{d}" for d in docs],
                                       "score": np.arange(n_docs, 0, -1, dtype=float)}))
            if r < n_runs // 2:
                judged |= {(f"q{q}", f"d{d}") for d in docs[:depth]}
        runs[f"r{r}"] = pd.concat(parts, ignore_index=True)
    pairs = sorted(judged)
    grade = rng.integers(0, 3, size=len(pairs))
    qrels = pd.DataFrame({"query_id": [p[0] for p in pairs], "doc_id": [p[1] for p in pairs], "relevance": grade})
    return runs, qrels


MEASURES = ["P@5", "nDCG@5", "AP", "RR", "P_rare(alpha=0.5)@10", "AP_rare"]


def test_model_fitted_by_hand() -> None:
    runs, qrels = campaign()
    pool = Pool.from_runs(runs)
    judgments = Judgments(qrels)
    model = fit_model(pool, judgments.encoded_for(pool), rel=1, prior=5.0)
    # the rows, by hand: run, query, rank, S_d (runs retrieving the document anywhere), label
    rows = []
    for name, run in runs.items():
        for q, part in run.groupby("query_id", sort=True):
            for rank, doc in enumerate(part["doc_id"]):
                rows.append((name, q, rank, doc))
    frame = pd.DataFrame(rows, columns=["run", "query_id", "rank", "doc_id"])
    frame["s_d"] = frame.groupby(["query_id", "doc_id"])["run"].transform("nunique")
    label = {(q, d): g for q, d, g in qrels.itertuples(index=False)}
    frame["label"] = [label.get((q, d)) for q, d in zip(frame["query_id"], frame["doc_id"], strict=True)]
    alone = frame[frame["s_d"] == 1]
    for rank in range(12):
        at = alone[alone["rank"] == rank]
        if len(at) >= 20:
            assert model.reach[rank] == pytest.approx(at["label"].notna().mean())
    pairs = frame.drop_duplicates(["query_id", "doc_id"])
    pairs = pairs.assign(bucket=np.floor(np.log2(pairs["s_d"])).astype(int))
    queries = sorted(qrels["query_id"].unique())
    for (q, b), part in pairs.groupby(["query_id", "bucket"]):
        judged = part["label"].notna()
        assert model.n_judged[queries.index(q), b] == judged.sum()
        assert model.n_relevant[queries.index(q), b] == (part["label"].fillna(-1) >= 1).sum()
    judged_pairs = pairs[pairs["label"].notna()]
    overall = (judged_pairs["label"] >= 1).mean()
    for b, part in judged_pairs.groupby("bucket"):
        assert model.bucket_rate[b] == pytest.approx(((part["label"] >= 1).sum() + overall) / (len(part) + 1))
    # a run's ratio: its relevant judged rows over the Beta means of its judged rows, both plus one
    mean = (model.n_relevant + 5.0 * model.bucket_rate) / (model.n_judged + 5.0)
    judged_rows = frame[frame["label"].notna()]
    for i, name in enumerate(pool.names):
        mine = judged_rows[judged_rows["run"] == name]
        expected = sum(mean[queries.index(q), int(np.log2(s))] for q, s in zip(mine["query_id"], mine["s_d"],
                                                                                 strict=True))
        observed = (mine["label"] >= 1).sum()
        assert model.log_ratio[i] == pytest.approx(np.log((observed + 1) / (expected + 1)))
    assert model.run_sd == pytest.approx(np.std(model.log_ratio))


def test_each_draw_is_the_score_of_its_qrels() -> None:
    """Draw by draw, the values equal the front door's and pytrec_eval's for the qrels extended by that draw."""
    runs, qrels = campaign(seed=3)
    pool = Pool.from_runs(runs)
    judgments = Judgments(qrels)
    encoded = judgments.encoded_for(pool)
    measures = parse_measures(MEASURES)
    chosen = [1, 4, 5]
    values = drawn_values(pool, encoded, chosen, measures, draws=6, seed=11)
    # the same draws, made again from the same generator
    rng = np.random.default_rng(11)
    model = fit_model(pool, encoded, 1)
    pairs = open_pairs(pool, encoded, chosen)
    labels = draw_labels(model, pairs, 6, rng)
    queries, docs = pool.encoded.decode(pairs.keys)
    names = [pool.names[i] for i in chosen]
    for d in range(6):
        extra = pd.DataFrame({"query_id": queries, "doc_id": docs, "relevance": labels[d]})
        extended = pd.concat([qrels, extra], ignore_index=True)
        door = ir_rarity.evaluate(pool, extended, measures).select(names)
        for m in measures:
            np.testing.assert_allclose(values[m][d], door.values[m], rtol=0, atol=1e-12)
        trec = [m for m in measures if not ir_rarity.engine.is_engine_measure(m)]  # P, nDCG, AP, RR: pytrec_eval
        for row, n in enumerate(names):
            got = {(str(v.measure), v.query_id): v.value for v in ir_measures.iter_calc(trec, extended, runs[n])}
            for m in trec:
                for j, q in enumerate(door.query_ids):
                    assert values[m][d, row, j] == pytest.approx(got.get((str(m), q), 0.0), abs=1e-12)


def test_draw_law_against_exact_integration() -> None:
    """One open pair at rank 0: its drawn relevance rate is reach x E[min(1, theta phi)], integrated exactly."""
    runs, qrels = campaign(seed=5, n_runs=8)
    pool = Pool.from_runs(runs)
    encoded = Judgments(qrels).encoded_for(pool)
    model = fit_model(pool, encoded, 1)
    pairs = open_pairs(pool, encoded, [7])
    first = np.flatnonzero(pairs.rank == 0)[:3]
    chosen = type(pairs)(keys=pairs.keys[first], query=pairs.query[first], bucket=pairs.bucket[first],
                         rank=pairs.rank[first], run=pairs.run[first])
    n = 200_000
    drawn = draw_labels(model, chosen, n, np.random.default_rng(0))
    for i in range(len(first)):
        q, b = chosen.query[i], chosen.bucket[i]
        rate = model.bucket_rate[b]
        a = model.n_relevant[q, b] + model.prior * rate
        c = model.n_judged[q, b] - model.n_relevant[q, b] + model.prior * (1 - rate)
        mu, sd = model.log_ratio[chosen.run[i]], model.run_sd

        def inner(z: float, a: float = a, c: float = c, mu: float = mu, sd: float = sd) -> float:
            phi = np.exp(mu + sd * z)
            return float(stats.norm.pdf(z) * integrate.quad(
                lambda t: stats.beta.pdf(t, a, c) * min(1.0, t * phi), 0, 1, limit=200)[0])

        exact = model.reach[0] * integrate.quad(inner, -8, 8, limit=200)[0]
        p = (drawn[:, i] > 0).mean()
        assert abs(p - exact) < 4.5 * np.sqrt(exact * (1 - exact) / n) + 1e-9


def test_intervals_are_numpys_percentiles_of_the_draws() -> None:
    runs, qrels = campaign(seed=2)
    pool = Pool.from_runs(runs)
    encoded = Judgments(qrels).encoded_for(pool)
    m = parse_measures(["P@5"])[0]
    values = drawn_values(pool, encoded, [0, 3, 4], [m], draws=50, seed=1)[m]
    low, high = drawn_interval(values, 0.9)
    means = values.mean(axis=2)
    np.testing.assert_allclose(low, np.percentile(means, 5, axis=0), atol=1e-15)
    np.testing.assert_allclose(high, np.percentile(means, 95, axis=0), atol=1e-15)
    low, high = drawn_interval(values, 0.8, topics=True, seed=4)
    picked = np.random.default_rng(4).integers(0, values.shape[2], size=(50, values.shape[2]))
    resampled = np.array([[values[d, r, picked[d]].mean() for r in range(3)] for d in range(50)])
    np.testing.assert_allclose(low, np.percentile(resampled, 10, axis=0), atol=1e-15)
    np.testing.assert_allclose(high, np.percentile(resampled, 90, axis=0), atol=1e-15)
    with pytest.raises(ParameterError, match="level"):
        drawn_interval(values, 1.0)


def test_without_open_documents_every_draw_is_the_score() -> None:
    """A campaign whose runs are all judged leaves nothing open: every draw is today's score."""
    runs, _ = campaign(seed=4)
    every = pd.concat(runs.values()).drop_duplicates(["query_id", "doc_id"])
    qrels = every.assign(relevance=np.arange(len(every)) % 3)[["query_id", "doc_id", "relevance"]]
    pool = Pool.from_runs(runs)
    encoded = Judgments(qrels).encoded_for(pool)
    measures = parse_measures(MEASURES)
    values = drawn_values(pool, encoded, [0, 2], measures, draws=3, seed=0)
    door = ir_rarity.evaluate(pool, qrels, measures).select([pool.names[0], pool.names[2]])
    for m in measures:
        for d in range(3):
            np.testing.assert_allclose(values[m][d], door.values[m], atol=1e-12)


def test_measures_that_read_judged_ness_are_refused() -> None:
    assert not can_draw(parse_measures(["Bpref"])[0])
    assert not can_draw(parse_measures(["P(judged_only=True)@5"])[0])
    assert can_draw(parse_measures(["nDCG@10"])[0])
    runs, qrels = campaign()
    pool = Pool.from_runs(runs)
    with pytest.raises(ParameterError, match="Bpref"):
        drawn_values(pool, Judgments(qrels).encoded_for(pool), [0], parse_measures(["Bpref"]), 2)


def test_buckets() -> None:
    assert sd_bucket(np.array([0, 1, 2, 3, 4, 7, 8, 100])).tolist() == [0, 0, 1, 1, 2, 2, 3, 6]
    assert UNJUDGED < 0


def test_rbp_draws_are_plain_rbp_of_each_draws_qrels() -> None:
    """RBP reads relevant rows only, so it is drawn too: each draw equals a plain loop over Moffat & Zobel's sum
    (TOIS 2008) on the qrels extended by that draw, and its interval holds the draws' percentiles."""
    runs, qrels = campaign(seed=5)
    pool = Pool.from_runs(runs)
    encoded = Judgments(qrels).encoded_for(pool)
    measures = parse_measures(["RBP(p=0.8)", "RBP(p=0.5,rel=2)@4"])
    assert all(can_draw(m) for m in measures)
    chosen = [0, 3, 5]
    values = drawn_values(pool, encoded, chosen, measures, draws=5, seed=2)
    assert all(np.ptp(values[m], axis=0).max() > 0 for m in measures)  # the draws open some documents
    rng = np.random.default_rng(2)
    pairs = open_pairs(pool, encoded, chosen)
    labels = draw_labels(fit_model(pool, encoded, 1), pairs, 5, rng)
    queries, docs = pool.encoded.decode(pairs.keys)
    query_ids = sorted(qrels["query_id"].unique())
    base = {(q, d): g for q, d, g in qrels.itertuples(index=False)}
    for d in range(5):
        label = dict(base)
        label.update({(q, doc): int(g) for q, doc, g in zip(queries, docs, labels[d], strict=True)
                      if g != UNJUDGED})
        for m, (p, rel, k) in zip(measures, [(0.8, 1, None), (0.5, 2, 4)], strict=True):
            for row, i in enumerate(chosen):
                run = runs[pool.names[i]]
                for j, q in enumerate(query_ids):
                    ranked = run[run["query_id"] == q].sort_values(["score", "doc_id"], ascending=False)["doc_id"]
                    read = list(ranked)[:k] if k else list(ranked)
                    plain = sum((1 - p) * p ** n for n, doc in enumerate(read) if label.get((q, doc), -1) >= rel)
                    assert values[m][d, row, j] == pytest.approx(plain, abs=1e-12)
