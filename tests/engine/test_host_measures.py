"""The host's measures, the host's numbers: every standard measure equals ``ir_measures.iter_calc``'s value.

For each measure the engine's kernel table (:data:`~ir_rarity.engine.standard.STANDARD_KERNELS`) names, with
representative parameters, the per-query values of :func:`ir_rarity.evaluate` are compared with what ir_measures'
default pipeline gives (pytrec_eval for trec_eval's measures, its ``judged`` provider for ``Judged``), exactly or
within 1e-12: on every TREC-COVID round 1 run and query, and on synthetic runs whose scores all tie or tie across
rank k (also scores that differ in float64 only, a tie in trec_eval's float32).
"""

from __future__ import annotations

import itertools
from typing import Any

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import Pool
from ir_rarity.engine.standard import STANDARD_KERNELS, covers

CUTOFFS = [1, 5, 10, 100, 1000]
GAINS = {0: 0, 1: 1, 2: 4}
EVERY_RUN = ["P@10", "R@1000", "AP", "nDCG@10", "RR", "Rprec", "Bpref", "NumRelRet", "Judged@5", "Judged@10",
             "Judged@100", "Judged"]
"""Measures checked on all 143 round 1 runs; the whole grid is checked on a sample of 20."""


NO_HOST = frozenset({"RBP"})
"""Kernels without a host provider installed here (ir_measures computes RBP through cwl_eval or trectools):
tests/engine/test_rbp.py checks RBP against its definition instead."""


def _grid() -> list[Any]:
    """Every kernel's measure with cutoffs, rel 1 and 2, judged_only both ways and nDCG gains, where supported."""
    out = []
    for name in STANDARD_KERNELS:
        if name in NO_HOST:
            continue
        base = getattr(ir_measures, name)
        params = base.SUPPORTED_PARAMS
        cutoffs: list[int | None] = [None, *CUTOFFS] if "cutoff" in params else [None]
        rels: list[int | None] = [None, 1, 2] if "rel" in params else [None]
        judged_only: list[bool | None] = [None, True] if "judged_only" in params else [None]
        gains: list[dict[int, int] | None] = [None, GAINS] if "gains" in params else [None]
        for cutoff, rel, only, gain in itertools.product(cutoffs, rels, judged_only, gains):
            given = {k: v for k, v in [("rel", rel), ("judged_only", only), ("gains", gain)] if v is not None}
            measure = base(**given) if given else base
            if cutoff is not None:
                measure = measure @ cutoff
            if covers(measure):
                out.append(measure)
    return out


def test_the_grid_holds_every_kernel() -> None:
    grid = _grid()
    assert {m.NAME for m in grid} == set(STANDARD_KERNELS) - NO_HOST
    assert len(grid) > 80
    assert all(covers(ir_measures.Judged @ k) for k in CUTOFFS)  # in ir_measures' judged order
    assert covers(ir_measures.Judged)


def _host(measures: list[Any], qrels: pd.DataFrame, runs: dict[str, pd.DataFrame], query_ids: pd.Index
          ) -> dict[Any, np.ndarray]:
    """Per-query values from ``ir_measures.iter_calc``, run by run; a query a run lacks scores 0.

    One call per pytrec_eval invocation: ir_measures' pytrec_eval provider puts ``NumRet`` (no ``rel``) and
    ``nDCG`` (no ``gains``) into whichever invocation it made first (in the order of a set of measures), so
    beside a ``judged_only=True`` measure NumRet may count judged rows only, and nDCG beside an
    ``nDCG(gains=...)`` may take those gains; each measure's own value is what it gives alone.
    """
    column = {q: j for j, q in enumerate(query_ids)}
    out = {m: np.zeros((len(runs), len(query_ids))) for m in measures}
    families: dict[tuple[Any, ...], list[Any]] = {}
    for m in measures:  # one pytrec_eval invocation each: (rel, judged_only, gains)
        params = m.params
        gains = params.get("gains")
        key = (params.get("rel", 1), bool(params.get("judged_only", False)),
               None if gains is None else tuple(sorted(gains.items())))
        families.setdefault(key, []).append(m)
    for i, frame in enumerate(runs.values()):
        for family in families.values():
            for metric in ir_measures.iter_calc(family, qrels, frame):
                if metric.query_id in column:
                    out[metric.measure][i, column[metric.query_id]] = metric.value
    return out


def _compare(runs: dict[str, pd.DataFrame], qrels: pd.DataFrame, measures: list[Any],
             rows: list[int] | None = None) -> dict[Any, np.ndarray]:
    ours = ir_rarity.evaluate(runs, qrels, measures, progress=False)
    assert ours.names == list(runs)
    chosen = list(range(len(runs))) if rows is None else rows
    names = list(runs)
    theirs = _host(measures, qrels, {names[i]: runs[names[i]] for i in chosen}, ours.query_ids)
    for m in measures:
        np.testing.assert_allclose(ours.values[m][chosen], theirs[m], rtol=0, atol=1e-12, err_msg=str(m))
    return theirs


@pytest.fixture(scope="module")
def round1(covid_pool: Pool, covid_qrels: pd.DataFrame) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    return {n: covid_pool.run(n) for n in covid_pool.names}, covid_qrels


@pytest.mark.slow
def test_round1_every_run_and_query(round1: Any) -> None:
    runs, qrels = round1
    assert len(runs) == 143
    measures = [ir_measures.parse_measure(m) for m in EVERY_RUN]
    theirs = _compare(runs, qrels, measures)
    assert all(theirs[m].sum() > 0 for m in measures)  # real values, not zeros against zeros


@pytest.mark.slow
def test_round1_whole_grid_on_a_sample_of_runs(round1: Any) -> None:
    runs, qrels = round1
    sample = sorted(np.random.default_rng(2020).choice(len(runs), size=20, replace=False).tolist())
    _compare(runs, qrels, _grid(), sample)


def _tied_runs() -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """Runs whose scores all tie, tie across ranks 1, 5, 10 and 100, or tie only in float32; mixed-case docnos."""
    rng = np.random.default_rng(11)
    docs = np.array([f"d{i:03d}" for i in range(150)] + ["A", "a", "B", "b-1", "Zz", "zz"])
    runs: dict[str, list[pd.DataFrame]] = {}

    def add(run: str, qid: str, picked: np.ndarray, score: np.ndarray) -> None:
        runs.setdefault(run, []).append(pd.DataFrame({"query_id": qid, "doc_id": picked, "score": score}))

    for q in range(6):
        qid = f"q{q}"
        for n in (3, 12, 120):  # all scores tie: shorter than, across and beyond the cutoffs
            add(f"all_tied_{n}", qid, rng.choice(docs, size=n, replace=False), np.full(n, 2.5))
        for k in (1, 5, 10, 100):  # a tie group of 5 from rank k - 2 (clipped) to rank k + 2
            n = k + 20
            score = np.arange(n, 0, -1, dtype=np.float64)
            score[max(k - 3, 0):k + 2] = score[max(k - 3, 0)]
            add(f"straddle_{k}", qid, rng.choice(docs, size=n, replace=False), score)
        n = 30  # float64-distinct scores that tie in float32, across every cutoff
        score = 7.0 + rng.integers(0, 3, size=n) * 1e-9
        add("float32_ties", qid, rng.choice(docs, size=n, replace=False), score)
        score = rng.integers(0, 4, size=n).astype(np.float64)  # integers: many exact ties
        add("integer_ties", qid, rng.choice(docs, size=n, replace=False), score)
    judged = []
    for q in range(7):  # q6: judged, retrieved by no run
        picked = rng.choice(docs, size=70, replace=False)
        labels = rng.choice([-1, 0, 0, 1, 2], size=70) if q != 3 else np.zeros(70, dtype=int)  # q3: none relevant
        judged.append(pd.DataFrame({"query_id": f"q{q}", "doc_id": picked, "relevance": labels}))
    return {r: pd.concat(p, ignore_index=True) for r, p in runs.items()}, pd.concat(judged, ignore_index=True)


def test_ties_give_the_hosts_values() -> None:
    runs, qrels = _tied_runs()
    theirs = _compare(runs, qrels, _grid())
    judged_at_5 = theirs[ir_measures.Judged @ 5]
    assert 0 < judged_at_5.mean() < 1  # the tie cases are real: judged and unjudged rows in the tie groups


def test_num_ret_is_its_own_value_whatever_company_it_keeps() -> None:
    """Beside a judged_only measure, ir_measures may count NumRet over the judged rows only (which invocation
    it joins follows the order of a set of measures); the engine's NumRet is NumRet's value alone."""
    run = {"r": pd.DataFrame({"query_id": "1", "doc_id": ["a", "b", "c", "d"], "score": [4.0, 3, 2, 1]})}
    qrels = pd.DataFrame({"query_id": "1", "doc_id": ["a", "b", "c"], "relevance": [1, 2, 0]})
    alone = next(iter(ir_measures.iter_calc([ir_measures.NumRet], qrels, run["r"]))).value
    beside = [ir_measures.P(judged_only=True) @ 10, ir_measures.NumRet]
    assert alone == 4.0
    assert ir_rarity.evaluate(run, qrels, beside, progress=False).values[ir_measures.NumRet][0, 0] == alone


def test_all_tied_judged_at_k_is_the_providers() -> None:
    """The known gap: with every score tied, the judged provider reads docnos ascending, trec_eval descending."""
    docs = ["a1", "a2", "z1", "z2"]
    run = {"r": pd.DataFrame({"query_id": "1", "doc_id": docs, "score": 1.0})}
    qrels = pd.DataFrame({"query_id": "1", "doc_id": ["a1", "a2"], "relevance": [0, 1]})
    measures = [ir_measures.Judged @ 2, ir_measures.Judged, ir_measures.P @ 2]
    result = ir_rarity.evaluate(run, qrels, measures, progress=False)
    assert result.values[measures[0]][0, 0] == 1.0  # a1, a2 first (ir_measures' judged provider)
    assert result.values[measures[1]][0, 0] == 0.5
    assert result.values[measures[2]][0, 0] == 0.0  # z2, z1 first (trec_eval, through pytrec_eval)


def test_judged_at_k_alone_reads_whole_runs(tmp_path: Any) -> None:
    """Without a measure that needs whole runs beside it, a campaign is read to the deepest cutoff only; Judged@k's
    own order is not trec_eval's, so its top k are not the top k kept: it must read whole runs."""
    run = pd.DataFrame({"query_id": "1", "doc_id": ["a1", "a2", "z1", "z2"], "score": 1.0})
    qrels = pd.DataFrame({"query_id": "1", "doc_id": ["a1", "a2"], "relevance": [0, 1]})
    path = tmp_path / "r"
    path.write_text("".join(f"1 Q0 {d} {i} 1.0 r\n" for i, d in enumerate(run["doc_id"])))
    measure = ir_measures.Judged @ 2
    expected = next(iter(ir_measures.iter_calc([measure], qrels, run))).value
    assert expected == 1.0
    for runs in ({"r": run}, path, str(path)):
        assert ir_rarity.evaluate(runs, qrels, [measure, "P@2"]).values[measure][0, 0] == expected
    assert ir_rarity.evaluate({"new": run}, qrels, [measure], pool=path).values[measure][0, 0] == expected


def test_judged_at_k_of_runs_scored_against_a_pool_is_the_providers() -> None:
    """Runs given apart from the campaign (their docnos partly outside its vocabulary), scores tied in double and in
    float only, every ranking compared with ir_measures' judged provider."""
    runs, qrels = _tied_runs()
    names = list(runs)
    campaign = Pool.from_runs({n: runs[n] for n in names[: len(names) // 2]})
    given = {n: runs[n] for n in names[len(names) // 2:]}
    given["float_ties"] = pd.DataFrame({"query_id": "q0", "doc_id": ["zz-new", "a-new", *qrels["doc_id"][:3]],
                                        "score": [1.0 + 1e-9, 1.0, 1.0 + 2e-9, 1.0, 0.5]})
    measures = [ir_measures.Judged @ k for k in (1, 2, 3, 5, 10)]
    ours = ir_rarity.evaluate(given, qrels, measures, pool=campaign, progress=False)
    theirs = _host(measures, qrels, given, ours.query_ids)
    for m in measures:
        np.testing.assert_allclose(ours.values[m], theirs[m], rtol=0, atol=1e-12, err_msg=str(m))
