"""RRF, CombSUM and CombMNZ against a few plain lines of dict loops on a hand case."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ir_rarity import Pool
from ir_rarity.complementarity import fuse, fusion_parts, ranked_campaign

# one query each; team A has two runs, team B one (a1's scores tie at d4/d6: trec_eval puts the larger docno first)
RUNS = {
    "a1": [("q1", "d1", 3.0), ("q1", "d2", 2.0), ("q1", "d3", 1.0), ("q1", "d4", 0.5), ("q1", "d6", 0.5),
           ("q2", "d1", 4.0), ("q2", "d9", 1.0)],
    "a2": [("q1", "d2", 10.0), ("q1", "d4", 5.0), ("q2", "d9", 7.0)],
    "b1": [("q1", "d3", 0.9), ("q1", "d1", 0.5), ("q1", "d5", 0.1), ("q2", "d8", 2.0), ("q2", "d7", 2.0)],
}
TEAMS = {"a1": "A", "a2": "A", "b1": "B"}


def frames() -> dict[str, pd.DataFrame]:
    return {name: pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]) for name, rows in RUNS.items()}


def plain_fusion(runs: list[str], method: str, k: int = 60) -> dict[tuple[str, str], float]:
    """The textbook definitions, one document at a time."""
    fused: dict[tuple[str, str], float] = {}
    hits: dict[tuple[str, str], int] = {}
    for name in runs:
        for q in sorted({row[0] for row in RUNS[name]}):
            rows = [r for r in RUNS[name] if r[0] == q]
            rows.sort(key=lambda r: r[1], reverse=True)  # trec_eval: score descending, ties by docno descending
            rows.sort(key=lambda r: r[2], reverse=True)
            low, high = min(r[2] for r in rows), max(r[2] for r in rows)
            for rank, (_, doc, score) in enumerate(rows, start=1):
                normalised = (score - low) / (high - low) if high > low else 1.0
                add = 1.0 / (k + rank) if method == "rrf" else normalised
                fused[(q, doc)] = fused.get((q, doc), 0.0) + add
                hits[(q, doc)] = hits.get((q, doc), 0) + 1
    if method == "combmnz":
        fused = {key: value * hits[key] for key, value in fused.items()}
    return fused


def plain_ranking(fused: dict[tuple[str, str], float], depth: int) -> list[tuple[str, str, float]]:
    out = []
    for q in sorted({key[0] for key in fused}):
        docs = [(doc, np.float32(v)) for (qq, doc), v in fused.items() if qq == q]
        docs.sort(key=lambda d: d[0], reverse=True)
        docs.sort(key=lambda d: d[1], reverse=True)
        out += [(q, doc, float(v)) for doc, v in docs[:depth]]
    return out


@pytest.mark.parametrize("method", ["rrf", "combsum", "combmnz"])
@pytest.mark.parametrize(("coalition", "runs"), [((True, True), ["a1", "a2", "b1"]), ((True, False), ["a1", "a2"]),
                                                 ((False, True), ["b1"])])
@pytest.mark.parametrize("depth", [100, 3])
def test_fusion_equals_plain_loops(method: str, coalition: tuple[bool, bool], runs: list[str], depth: int) -> None:
    pool = Pool.from_runs(frames(), teams=TEAMS)
    ranked = ranked_campaign(pool)
    assert ranked.team_names == ("A", "B")
    out = fuse(fusion_parts(ranked), np.array([coalition]), method, depth)  # type: ignore[arg-type]
    got = list(zip(out["query_id"], out["doc_id"], out["score"], strict=True))
    expected = plain_ranking(plain_fusion(runs, method), depth)
    assert [(q, d) for q, d, _ in got] == [(q, d) for q, d, _ in expected]
    np.testing.assert_allclose([s for *_, s in got], [s for *_, s in expected], rtol=1e-6)
    assert list(out.groupby("query_id")["rank"].apply(list).apply(lambda r: r == list(range(1, len(r) + 1))))


def test_hand_values() -> None:
    """A few numbers worked by hand: RRF of d2 in q1 is 1/62 (a1) + 1/61 (a2); CombSUM of d1 in q1 is 1 + 0.5."""
    pool = Pool.from_runs(frames(), teams=TEAMS)
    ranked = ranked_campaign(pool)
    both = np.array([[True, True]])
    rrf = fuse(fusion_parts(ranked), both, "rrf").set_index(["query_id", "doc_id"])["score"]
    assert rrf[("q1", "d2")] == pytest.approx(1 / 62 + 1 / 61, rel=1e-6)
    combsum = fuse(fusion_parts(ranked), both, "combsum").set_index(["query_id", "doc_id"])["score"]
    # d1: a1 (3 - 0.5) / 2.5 = 1; b1 (0.5 - 0.1) / 0.8 = 0.5
    assert combsum[("q1", "d1")] == pytest.approx(1.5, rel=1e-6)
    combmnz = fuse(fusion_parts(ranked), both, "combmnz").set_index(["query_id", "doc_id"])["score"]
    assert combmnz[("q1", "d1")] == pytest.approx(3.0, rel=1e-6)
    # q2 of b1: both scores equal (a constant run normalises to 1)
    assert combsum[("q2", "d8")] == pytest.approx(1.0)


def test_unknown_method_is_refused() -> None:
    from ir_rarity.errors import ParameterError

    ranked = ranked_campaign(Pool.from_runs(frames(), teams=TEAMS))
    with pytest.raises(ParameterError, match="fusion method"):
        fuse(fusion_parts(ranked), np.array([[True, True]]), "borda")  # type: ignore[arg-type]
