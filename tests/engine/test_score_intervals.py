"""``Evaluation.interval(measure, covers=...)``: topics against scipy's bootstrap, unjudged and all against numpy's
percentile of an independent recomputation of the same draws, a one-document case against its two outcomes, and the
tie range against brute-force enumeration of tie orders."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import ir_rarity
from ir_rarity import Pool
from ir_rarity.engine.judgment_draws import drawn_values
from ir_rarity.errors import ParameterError


def campaign(seed: int = 0) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    rng = np.random.default_rng(seed)
    runs, judged = {}, set()
    for r in range(6):
        parts = []
        for q in range(6):
            docs = rng.choice(20, size=10, replace=False)
            parts.append(pd.DataFrame({"query_id": f"q{q}", "doc_id": [f"d{d}" for d in docs],
                                       "score": np.arange(10, 0, -1, dtype=float)}))
            if r < 3:
                judged |= {(f"q{q}", f"d{d}") for d in docs[:3]}
        runs[f"r{r}"] = pd.concat(parts, ignore_index=True)
    pairs = sorted(judged)
    labels = rng.integers(0, 3, size=len(pairs))
    return runs, pd.DataFrame({"query_id": [p[0] for p in pairs], "doc_id": [p[1] for p in pairs],
                               "relevance": labels})


def test_topics_is_scipys_bootstrap() -> None:
    runs, qrels = campaign()
    evaluation = ir_rarity.evaluate(Pool.from_runs(runs), qrels, ["P@5"])
    got = evaluation.interval("P@5", "topics", 0.9, resamples=400, seed=7)
    values = evaluation.matrix("P@5")
    for run in values.index:
        ref = stats.bootstrap((values.loc[run].to_numpy(),), np.mean, n_resamples=400, confidence_level=0.9,
                              method="percentile", rng=np.random.default_rng(7))
        assert got.loc[run, "low"] == pytest.approx(ref.confidence_interval.low, abs=1e-12)
        assert got.loc[run, "high"] == pytest.approx(ref.confidence_interval.high, abs=1e-12)
    assert got.attrs["covers"] == "topics" and got.attrs["level"] == 0.9 and "bootstrap" in got.attrs["what"]
    t = evaluation.interval("P@5", "topics", 0.9, method="t")
    x = values.iloc[0].to_numpy()
    ref_low, _ = stats.t.interval(0.9, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    assert t["low"].iloc[0] == pytest.approx(ref_low, abs=1e-12)


@pytest.mark.parametrize("measure", ["P@5", "nDCG@5", "AP", "P_rare(alpha=0.5)@10"])
def test_unjudged_and_all_are_the_percentiles_of_the_draws(measure: str) -> None:
    runs, qrels = campaign(seed=1)
    pool = Pool.from_runs(runs)
    evaluation = ir_rarity.evaluate(pool, qrels, [measure])
    m = evaluation.measures[0]
    encoded = evaluation.judgments.encoded_for(pool)
    for covers in ("unjudged", "all"):
        got = evaluation.interval(measure, covers, 0.8, draws=40, seed=5)
        rng = np.random.default_rng(5)
        drawn = drawn_values(pool, encoded, list(range(len(pool))), [m], 40, rng)[m]
        if covers == "all":  # the same generator then draws the queries of each draw
            picked = rng.integers(0, drawn.shape[2], size=(40, drawn.shape[2]))
            means = np.array([[drawn[d, r, picked[d]].mean() for r in range(len(pool))] for d in range(40)])
        else:
            means = drawn.mean(axis=2)
        np.testing.assert_allclose(got["low"], np.percentile(means, 10, axis=0), atol=1e-12)
        np.testing.assert_allclose(got["high"], np.percentile(means, 90, axis=0), atol=1e-12)
        assert got.attrs["covers"] == covers and got.attrs["draws"] == 40
    assert evaluation.interval(measure, "all", 0.8, draws=40).attrs["ties"].startswith("not added")
    with_ties = ir_rarity.evaluate(pool, qrels, [measure], ties=True)  # no tied scores: the tie range adds nothing
    widened = with_ties.interval(measure, "all", 0.8, draws=40, seed=5)
    assert widened.attrs["ties"] == "added"
    np.testing.assert_allclose(widened[["low", "high"]], got[["low", "high"]], atol=1e-12)


def test_one_open_document_has_two_outcomes() -> None:
    """Every run judged but one document: the interval of P@1 is the score without and with it relevant."""
    runs = {f"r{i}": pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"],
                                   "doc_id": ["a", "b", "c", "d"] if i else ["x", "b", "c", "d"],
                                   "score": [2.0, 1.0, 2.0, 1.0]}) for i in range(4)}
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d"],
                          "relevance": [1, 0, 1, 1]})
    evaluation = ir_rarity.evaluate(Pool.from_runs(runs), qrels, ["P@1"])
    got = evaluation.interval("P@1", "unjudged", 0.5, draws=400, seed=0)
    # r0's only open document x is at rank 1 of q1: its P@1 mean is 0.5 (x non-relevant) or 1.0 (relevant)
    assert got.loc["r0", "P@1"] == 0.5
    assert set(got.loc["r0", ["low", "high"]]) <= {0.5, 0.75, 1.0}
    assert got.loc["r0", "low"] == 0.5
    for run in ("r1", "r2", "r3"):  # nothing open: the interval is the score
        assert got.loc[run, "low"] == got.loc[run, "high"] == got.loc[run, "P@1"] == 1.0


def test_ties_is_the_range_over_every_order() -> None:
    runs = {"a": pd.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 3,
                               "doc_id": ["d1", "d2", "d3", "d4", "e1", "e2", "e3"],
                               "score": [3.0, 2.0, 2.0, 2.0, 1.0, 1.0, 0.5]}),
            "b": pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["d2", "e3"], "score": [1.0, 1.0]})}
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["d1", "d4", "e2", "e3"],
                          "relevance": [1, 1, 1, 0]})
    evaluation = ir_rarity.evaluate(Pool.from_runs(runs), qrels, ["P@2"], ties=True)
    got = evaluation.interval("P@2", "ties")
    relevant = {("q1", "d1"), ("q1", "d4"), ("q2", "e2")}
    per_query = []
    for q, part in runs["a"].groupby("query_id"):
        groups = [list(g["doc_id"]) for _, g in part.groupby("score", sort=False)]
        groups.sort(key=lambda g: -part.loc[part["doc_id"] == g[0], "score"].iloc[0])
        values = [sum((q, d) in relevant for d in [*itertools.chain(*order)][:2]) / 2
                  for order in itertools.product(*(itertools.permutations(g) for g in groups))]
        per_query.append((min(values), max(values)))
    assert got.loc["a", "low"] == pytest.approx(np.mean([v[0] for v in per_query]))
    assert got.loc["a", "high"] == pytest.approx(np.mean([v[1] for v in per_query]))
    assert got.attrs["covers"] == "ties"


def test_refusals() -> None:
    runs, qrels = campaign()
    pool = Pool.from_runs(runs)
    evaluation = ir_rarity.evaluate(pool, qrels, ["P@5", "Bpref"])
    with pytest.raises(ParameterError, match="covers"):
        evaluation.interval("P@5", "judges")
    with pytest.raises(ParameterError, match="level"):
        evaluation.interval("P@5", "topics", 1.0)
    with pytest.raises(ParameterError, match="Bpref"):
        evaluation.interval("Bpref", "unjudged", draws=2)
    newcomer = {"new": runs["r0"].assign(doc_id=lambda f: f["doc_id"] + "x")}
    apart = ir_rarity.evaluate(newcomer, qrels, ["P@5"], pool=pool)
    with pytest.raises(ParameterError, match="not one of them"):
        apart.interval("P@5", "unjudged", draws=2)


def test_runs_read_for_their_measures_are_refused_whole_runs_agree(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """From files the door reads what the measures read; the draws need whole runs, and then every path agrees."""
    runs, qrels = campaign(seed=2)
    for name, run in runs.items():
        (tmp_path / name).write_text("".join(f"{q} Q0 {d} {i + 1} {s} {name}\n" for i, (q, d, s) in
                                             enumerate(run[["query_id", "doc_id", "score"]].itertuples(index=False))))
    files = sorted(str(tmp_path / n) for n in runs)
    cut = ir_rarity.evaluate(files, qrels, ["P@5"])
    assert not cut.whole_runs
    with pytest.raises(ParameterError, match="whole runs"):
        cut.interval("P@5", "unjudged", draws=5)
    assert cut.interval("P@5", "topics").attrs["covers"] == "topics"  # the bootstrap reads the values only
    whole = ir_rarity.evaluate(files, qrels, ["P@5"], unjudged=True).interval("P@5", "unjudged", draws=30, seed=2)
    pooled = ir_rarity.evaluate(Pool.from_runs(files), qrels, ["P@5"]).interval("P@5", "unjudged", draws=30, seed=2)
    pd.testing.assert_frame_equal(whole, pooled, check_like=True)


def test_all_widened_by_ties_stays_within_a_bounded_measures_range() -> None:
    """Two queries, a run with tied scores: the drawn interval widened by its tie range (worked by hand: P@2 over
    the orders of {a, b, c} on q1 is 1/2 or 1, q2's pair is always read, so the mean moves in [1/2, 3/4]) would pass
    1; P@2 cannot, so the ends are clipped to [0, 1]. The unclipped ends are recomputed from the draws."""
    qrels = pd.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 2, "doc_id": ["a", "b", "c", "e", "a", "x"],
                          "relevance": [2, 0, 3, 2, 0, 2]})
    runs = {"A": pd.DataFrame({"query_id": ["q1"] * 5 + ["q2"] * 2, "doc_id": ["a", "b", "c", "d", "e", "x", "y"],
                               "score": [5.0, 5, 5, 4, 3, 1, 1]}),
            "B": pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "f", "y", "x"],
                               "score": [9.0, 8, 2, 1]})}
    pool = Pool.from_runs(runs)
    evaluation = ir_rarity.evaluate(pool, qrels, ["P@2"], ties=True)
    m = evaluation.measures[0]
    ties = evaluation.ties("P@2")
    assert ties.loc["A", "ties low"] == pytest.approx(0.5) and ties.loc["A", "ties high"] == pytest.approx(0.75)
    got = evaluation.interval("P@2", "all", 0.9, draws=50, seed=0)
    rng = np.random.default_rng(0)
    drawn = drawn_values(pool, evaluation.judgments.encoded_for(pool), [0, 1], [m], 50, rng)[m]
    picked = rng.integers(0, 2, size=(50, 2))
    means = np.array([[drawn[d, r, picked[d]].mean() for r in range(2)] for d in range(50)])
    value = np.array([0.5, 0.5])
    raw_low = np.percentile(means, 5, axis=0) - (value - ties["ties low"].to_numpy())
    raw_high = np.percentile(means, 95, axis=0) + (ties["ties high"].to_numpy() - value)
    assert raw_high.max() > 1.0  # the case the clip is for
    np.testing.assert_allclose(got["high"], np.minimum(raw_high, 1.0), atol=1e-12)
    np.testing.assert_allclose(got["low"], np.maximum(raw_low, 0.0), atol=1e-12)
