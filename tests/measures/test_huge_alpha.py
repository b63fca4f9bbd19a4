r"""Huge alphas: R_rare stays finite and tends to its limit; the measures that grow with alpha refuse beyond a bound.

As :math:`\alpha \to \infty`, R_rare's weight :math:`(1 + \alpha R(d))` over the common factor :math:`1 + \alpha`
tends to :math:`R(d)`, so R_rare tends to the sum of :math:`R(d)` over the retrieved relevant documents over
the sum of :math:`R(d)` over all relevant ones (Türkmen, Lease & Kutlu, ECIR 2023, section 5.1). The limit is
computed here from the run texts by hand, independently of the engine.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import HAND_QRELS, HAND_RUNS

from ir_rarity import ParameterError, Pool
from ir_rarity.measures.parse import parse_measure

NEWCOMER = "q1 Q0 d5 1 2.0 N\nq1 Q0 d1 2 1.0 N\n"


def _top(text: str, k: int) -> dict[str, list[str]]:
    """Each query's top k docnos in trec_eval order (score descending, docno descending)."""
    by_query: dict[str, list[tuple[float, str]]] = {}
    for line in text.splitlines():
        q, _, d, _, score, _ = line.split()
        by_query.setdefault(q, []).append((float(score), d))
    return {q: [d for _, d in sorted(rows, reverse=True)[:k]] for q, rows in by_query.items()}


def _limit(run: str, others: list[str], k: int) -> float:
    """The alpha -> inf limit of R_rare@k of ``run`` against the pool ``others`` (+ run if it is new)."""
    systems = others if run in others else [*others, run]
    counts = Counter((q, d) for text in systems for q, docs in _top(text, k).items() for d in docs)
    relevant = [tuple(line.split()[::2]) for line in HAND_QRELS.splitlines() if int(line.split()[3]) >= 1]
    qrels = {(q, d) for q, d in relevant}
    queries = sorted({q for q, _ in qrels})
    top = _top(run, k)
    values = []
    for q in queries:
        rarity = {d: 1 - counts[(q, d)] / len(systems) for qq, d in qrels if qq == q}
        total = sum(rarity.values())
        got = sum(rarity[d] for d in top.get(q, []) if d in rarity)
        values.append(got / total if total > 0 else 0.0)
    return float(np.mean(values))


def test_the_limit_by_hand() -> None:
    # q1 relevant: d1 (S_d@2 = 1 of 3: R = 2/3), d2 (3 of 3: 0), d5 (none: 1); q2: d1 (1 of 3: 2/3).
    assert _limit(HAND_RUNS["A"], list(HAND_RUNS.values()), 2) == pytest.approx(((2 / 3) / (5 / 3) + 1) / 2)
    # Newcomer N (S = 4): d5 R = 3/4, d1 (A and N) 1/2, d2 (A, B, C) 1/4: q1 = 1.25 / 1.5, q2 not retrieved.
    assert _limit(NEWCOMER, list(HAND_RUNS.values()), 2) == pytest.approx((1.25 / 1.5) / 2)


@pytest.mark.parametrize("alpha", [1e308, sys.float_info.max])
def test_r_rare_at_a_huge_alpha_is_finite_and_its_limit(alpha: float, hand_pool: Pool, hand_qrels: pd.DataFrame,
                                                        tmp_path: Path) -> None:
    measure = f"R_rare(alpha={alpha!r})@2"
    members = hand_pool.evaluate(hand_qrels, [measure])[measure]
    assert np.isfinite(members).all()
    for name in "ABC":
        assert members[name] == pytest.approx(_limit(HAND_RUNS[name], list(HAND_RUNS.values()), 2), abs=1e-12)
    new = tmp_path / "N"
    new.write_text(NEWCOMER)
    newcomer = float(hand_pool.evaluate(hand_qrels, [measure], runs={"N": new}).loc["N", measure])
    assert np.isfinite(newcomer)
    assert newcomer == pytest.approx(_limit(NEWCOMER, list(HAND_RUNS.values()), 2), abs=1e-12)


def test_r_rare_moderate_alpha_unchanged_by_the_scaling(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    """At alpha = 2, R_rare of run A by hand: q1 weights 1 + 2R: d1 7/3, d2 1, d5 3 -> (7/3 + 1)/(19/3); q2 1."""
    value = hand_pool.evaluate(hand_qrels, ["R_rare(alpha=2.0)@2"]).loc["A", "R_rare(alpha=2.0)@2"]
    assert value == pytest.approx(((10 / 3) / (19 / 3) + 1) / 2, abs=1e-15)


@pytest.mark.parametrize("family", ["P_rare", "AP_rare", "nDCG_rare"])
def test_measures_growing_with_alpha_refuse_beyond_the_bound(family: str, hand_pool: Pool,
                                                             hand_qrels: pd.DataFrame) -> None:
    with pytest.raises(ParameterError, match=rf"{family}: alpha must be <= 1e15 .*got 1e\+308"):
        hand_pool.evaluate(hand_qrels, [f"{family}(alpha=1e308)@2"])
    with pytest.raises(ParameterError, match=r"alpha must be <= 1e15"):
        parse_measure(f"{family}(alpha=1e16)@2")
    at_bound = hand_pool.evaluate(hand_qrels, [f"{family}(alpha=1e15)@2"]).to_numpy()
    assert np.isfinite(at_bound).all() and at_bound.max() > 1e14
