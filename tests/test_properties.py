"""Property tests on random campaigns (hypothesis): the rarity measures' invariants hold everywhere."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ir_rarity import Pool

DOCS = [f"d{i}" for i in range(12)]
QUERIES = ["q1", "q2", "q3"]

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def campaigns(draw: st.DrawFn) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    n_runs = draw(st.integers(1, 4))
    runs = {}
    for r in range(n_runs):
        rows = []
        for q in draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=3, unique=True)):
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=8, unique=True))
            # Few distinct scores, so ties (broken by docno) are frequent.
            scores = draw(st.lists(st.integers(0, 4), min_size=len(docs), max_size=len(docs)))
            rows += [(q, d, float(s)) for d, s in zip(docs, scores, strict=False)]
        runs[f"r{r}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    judged = draw(st.lists(st.tuples(st.sampled_from(QUERIES), st.sampled_from(DOCS), st.integers(-1, 2)),
                           min_size=1, max_size=20, unique_by=lambda t: (t[0], t[1])))
    qrels = pd.DataFrame(judged, columns=["query_id", "doc_id", "relevance"])
    return runs, qrels


@SETTINGS
@given(campaigns(), st.integers(1, 6), st.integers(1, 2))
def test_alpha_zero_is_pytrec_eval(campaign, k: int, rel: int) -> None:
    runs, qrels = campaign
    pool = Pool.from_runs(runs)
    pairs = [(f"P_rare(alpha=0,rel={rel})@{k}", f"P(rel={rel})@{k}"), (f"AP_rare(alpha=0,rel={rel})", f"AP(rel={rel})")]
    names = [str(ir_measures.parse_measure(m)) for pair in pairs for m in pair]
    wide = pool.evaluate(qrels, names, by_query=True).pivot_table(
        index=["run", "query_id"], columns="measure", values="value")
    for ours, theirs in zip(names[::2], names[1::2], strict=False):
        np.testing.assert_array_equal(wide[ours].to_numpy(), wide[theirs].to_numpy())


@SETTINGS
@given(campaigns(), st.integers(1, 6), st.floats(0, 3), st.floats(0, 3))
def test_bounds_and_monotone_in_alpha(campaign, k: int, a1: float, a2: float) -> None:
    runs, qrels = campaign
    pool = Pool.from_runs(runs)
    lo, hi = sorted((a1, a2))
    texts = (f"P@{k}", f"P_rare(alpha={lo})@{k}", f"P_rare(alpha={hi})@{k}")
    names = [str(ir_measures.parse_measure(m)) for m in texts]
    wide = pool.evaluate(qrels, list(dict.fromkeys(names)), by_query=True).pivot_table(
        index=["run", "query_id"], columns="measure", values="value")
    p, p_lo, p_hi = (wide[c].to_numpy() for c in names)
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
    measures = [f"P_rare@{k}", "AP_rare", f"AP_rare(bounded=True,alpha=0.5)@{k}"] if len(runs) > 1 else ["AP_rare"]
    a = Pool.from_runs(runs).evaluate(qrels, measures)
    b = Pool.from_runs({n: runs[n] for n in shuffled}).evaluate(qrels, measures).loc[names]
    pd.testing.assert_frame_equal(a, b, check_exact=True)


@SETTINGS
@given(campaigns(), st.integers(1, 6))
def test_empty_run_only_changes_s(campaign, k: int) -> None:
    runs, qrels = campaign
    pool = Pool.from_runs(runs)
    bigger = Pool.from_runs({**runs, "empty": pd.DataFrame({"query_id": [], "doc_id": [], "score": []})})
    assert bigger.num_systems == pool.num_systems + 1
    pd.testing.assert_frame_equal(pool.counts(k), bigger.counts(k))
    # R = 1 - S_d/S with S one larger: P_rare@k = P@k + alpha * sum(rel * (1 - S_d/(S+1)))/k
    a = pool.evaluate(qrels, [f"P_rare(alpha=1)@{k}", f"P@{k}"])
    b = bigger.evaluate(qrels, [f"P_rare(alpha=1)@{k}"]).loc[list(runs)]
    assert (b.iloc[:, 0] >= a.iloc[:, 0] - 1e-12).all()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaigns(), st.integers(1, 6))
def test_newcomer_via_ir_measures_equals_joining_the_pool(campaign, k: int) -> None:
    runs, qrels = campaign
    names = list(runs)
    if len(names) < 2:
        return
    newcomer, members = names[-1], {n: runs[n] for n in names[:-1]}
    pool = Pool.from_runs(members)
    if pool.member_of(runs[newcomer], depth=k) is not None:
        return  # same ranked lists as a member: it is scored as that member
    joined = Pool.from_runs(runs).evaluate(qrels, [f"P_rare@{k}"]).loc[newcomer].iloc[0]
    measure = ir_measures.parse_measure(f"P_rare@{k}")
    with pool:
        alone = ir_measures.calc_aggregate([measure], qrels, runs[newcomer])[measure]
    assert abs(alone - joined) <= 1e-12
