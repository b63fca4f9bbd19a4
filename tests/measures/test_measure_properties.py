"""Property tests on random campaigns (hypothesis): the rarity measures' invariants hold everywhere.

Each property runs 1,000 examples. To keep that fast, campaigns are small dicts of dicts (no DataFrames are
built by the tests), each example builds as few pools as the property needs and evaluates all its measures in
one call, and trec_eval values come from ``pytrec_eval.RelevanceEvaluator`` directly.
"""

from __future__ import annotations

import math

import ir_measures
import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ir_rarity import ASL, AP_rare, P_rare, Pool

DOCS = [f"d{i}" for i in range(10)]
QUERIES = ["q1", "q2", "q3"]
EXAMPLES = 1000

SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

Run = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]


pytestmark = pytest.mark.slow  # hypothesis properties over many generated campaigns


def _rows(data: bytes) -> dict[tuple[str, str], int]:
    """Each byte is one (query, document, value) row: 2 bits of query, 4 of document, 2 of value; first wins.

    Strategies draw a few bytes and decode them: far cheaper per example than nested hypothesis draws, and
    bytes still shrink towards small campaigns.
    """
    rows: dict[tuple[str, str], int] = {}
    for b in data:
        rows.setdefault((QUERIES[(b >> 6) % len(QUERIES)], DOCS[((b >> 2) & 15) % len(DOCS)]), b & 3)
    return rows


def _as_run(data: bytes) -> Run:
    run: Run = {}
    for (q, d), score in _rows(data).items():  # few distinct scores (0-3), so ties (broken by docno) are frequent
        run.setdefault(q, {})[d] = float(score)
    return run


def _as_qrels(data: bytes) -> Qrels:
    qrels: Qrels = {}
    for (q, d), value in _rows(data).items():
        qrels.setdefault(q, {})[d] = value - 1  # labels -1 to 2
    return qrels


def campaigns(min_runs: int = 1, max_runs: int = 3) -> st.SearchStrategy[tuple[dict[str, Run], Qrels]]:
    """``({run name: {query: {doc: score}}}, {query: {doc: label}})``: up to 3 runs of up to 16 rows."""
    runs = st.lists(st.binary(min_size=1, max_size=16).map(_as_run), min_size=min_runs, max_size=max_runs)
    return st.tuples(runs.map(lambda rs: {f"r{i}": r for i, r in enumerate(rs)}),
                     st.binary(min_size=1, max_size=16).map(_as_qrels))


def per_query(pool: Pool, qrels: Qrels, measures: list) -> tuple[dict[str, np.ndarray], list[str]]:
    """``{str(measure): runs x queries values}`` (runs in pool order) and the query ids, from one evaluate call."""
    measures = list({str(m): m for m in measures}.values())
    long = pool.evaluate(qrels, measures, by_query=True)
    n_runs = len(pool)
    values = long["value"].to_numpy().reshape(len(measures), n_runs, -1)
    queries = long["query_id"].to_numpy()[: values.shape[2]].tolist()
    return {str(m): values[i] for i, m in enumerate(measures)}, queries


@SETTINGS
@given(campaigns(), st.integers(1, 6), st.integers(1, 2))
def test_alpha_zero_is_pytrec_eval(campaign, k: int, rel: int) -> None:
    runs, qrels = campaign
    pool = Pool.from_runs(runs)
    p, ap = P_rare(alpha=0, rel=rel) @ k, AP_rare(alpha=0, rel=rel)
    values, queries = per_query(pool, qrels, [p, ap])
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {f"P.{k}", "map"}, relevance_level=rel)
    for r, name in enumerate(pool.names):
        theirs = evaluator.evaluate(runs[name])
        for j, q in enumerate(queries):  # a judged query the run lacks scores 0, as in trec_eval -c
            assert values[str(p)][r, j] == theirs.get(q, {}).get(f"P_{k}", 0.0)
            assert values[str(ap)][r, j] == theirs.get(q, {}).get("map", 0.0)


@SETTINGS
@given(campaigns(), st.integers(1, 6), st.floats(0, 3), st.floats(0, 3))
def test_bounds_and_monotone_in_alpha(campaign, k: int, a1: float, a2: float) -> None:
    runs, qrels = campaign
    pool = Pool.from_runs(runs)
    lo, hi = sorted((a1, a2))
    measures = [P_rare(alpha=0) @ k, P_rare(alpha=lo) @ k, P_rare(alpha=hi) @ k]
    values, _ = per_query(pool, qrels, measures)
    p, p_lo, p_hi = (values[str(m)] for m in measures)
    s = pool.num_systems
    assert (p_lo >= p - 1e-12).all() and (p_hi >= p_lo - 1e-12).all()
    assert (p_hi <= p * (1 + hi * (s - 1) / s) + 1e-12).all()
    assert (p_hi >= 0).all()


@SETTINGS
@given(campaigns(), st.integers(1, 6), st.randoms(use_true_random=False))
def test_run_order_changes_nothing(campaign, k: int, rnd) -> None:
    runs, qrels = campaign
    names = list(runs)
    shuffled = names[:]
    rnd.shuffle(shuffled)
    measures = [P_rare @ k, AP_rare] + ([AP_rare(bounded=True, alpha=0.5) @ k] if len(runs) > 1 else [])
    a = Pool.from_runs(runs).evaluate(qrels, measures)
    b = Pool.from_runs({n: runs[n] for n in shuffled}).evaluate(qrels, measures).loc[names]
    pd.testing.assert_frame_equal(a, b, check_exact=True)


@SETTINGS
@given(campaigns(), st.integers(1, 6))
def test_empty_run_only_changes_s(campaign, k: int) -> None:
    runs, qrels = campaign
    pool = Pool.from_runs(runs)
    bigger = Pool.from_runs({**runs, "empty": {}})
    assert bigger.num_systems == pool.num_systems + 1
    pd.testing.assert_frame_equal(pool.counts(k), bigger.counts(k))
    # R = 1 - S_d/S with S one larger: every document looks rarer, so P_rare can only grow.
    a = pool.evaluate(qrels, [P_rare(alpha=1) @ k])
    b = bigger.evaluate(qrels, [P_rare(alpha=1) @ k]).loc[list(runs)]
    assert (b.iloc[:, 0] >= a.iloc[:, 0] - 1e-12).all()


@SETTINGS
@given(campaigns(min_runs=2), st.integers(1, 6))
def test_newcomer_via_ir_measures_equals_joining_the_pool(campaign, k: int) -> None:
    runs, qrels = campaign
    names = list(runs)
    newcomer, members = names[-1], {n: runs[n] for n in names[:-1]}
    pool = Pool.from_runs(members)
    if pool.member_of(runs[newcomer], depth=k) is not None:
        return  # same ranked lists as a member: it is scored as that member
    measure = P_rare @ k
    joined = Pool.from_runs(runs).evaluate(qrels, [measure]).loc[newcomer].iloc[0]
    with pool:
        alone = ir_measures.calc_aggregate([measure], qrels, runs[newcomer])[measure]
    assert abs(alone - joined) <= 1e-12


def _move(args: tuple[bytes, bytes, int, int, int, int]) -> tuple[dict[str, Run], Qrels, str]:
    order, judged, rel, where, first, width = args
    docs = list(dict.fromkeys(DOCS[b % len(DOCS)] for b in order))
    docs += [d for d in DOCS if d not in docs][: max(0, 2 - len(docs))]
    qrels = {"q1": {d: label for (_, d), label in _rows(judged).items()}}
    qrels["q1"] = {d: label - 1 for d, label in qrels["q1"].items()}
    i = 1 + where % (len(docs) - 1)
    moved = docs[:]
    moved[i - 1], moved[i] = moved[i], moved[i - 1]
    qrels["q1"][docs[i]] = max(qrels["q1"].get(docs[i], 0), rel)  # the moved document is relevant

    def as_run(ranking: list[str]) -> Run:
        return {"q1": {d: float(len(ranking) - j) for j, d in enumerate(ranking)}}  # distinct scores

    return {"before": as_run(docs), "after": as_run(moved)}, qrels, f"(rel={rel})@g{first}-{first + width}|(rel={rel})"


def moves() -> st.SearchStrategy[tuple[dict[str, Run], Qrels, str]]:
    """One run with distinct scores, and the same run with one relevant document moved up by one place."""
    return st.tuples(st.binary(min_size=2, max_size=8), st.binary(max_size=8), st.integers(1, 2),
                     st.integers(0, 7), st.integers(1, 4), st.integers(0, 4)).map(_move)


@SETTINGS
@given(moves())
def test_asl_at_least_one_and_moving_a_relevant_document_up_never_raises_it(move) -> None:
    runs, qrels, spec = move
    grouped, whole = spec.split("|")
    measures = [ir_measures.parse_measure(f"ASL{grouped}"), ir_measures.parse_measure(f"ASL{whole}"), ASL]
    values, _ = per_query(Pool.from_runs(runs), qrels, measures)
    for m in measures:
        before, after = values[str(m)][:, 0]
        if m is not measures[0]:
            assert not math.isnan(before) and before >= 1  # the query has a relevant document
        assert math.isnan(before) == math.isnan(after)
        if not math.isnan(before):
            assert after >= 1 and after <= before + 1e-12


@pytest.mark.skipif("U_novel" not in ir_measures.measures.registry, reason="U_novel is not registered")
@SETTINGS
@given(campaigns(), st.integers(1, 6), st.floats(1e-9, 1.0))
def test_novelty_utility_is_finite(campaign, k: int, epsilon: float) -> None:
    runs, qrels = campaign
    measures = [ir_measures.parse_measure(m) for m in ("U_novel", f"U_novel@{k}", f"U_novel(epsilon={epsilon!r})")]
    values, _ = per_query(Pool.from_runs(runs), qrels, measures)
    for v in values.values():
        assert np.isfinite(v).all()
