"""One MemberNotice per evaluation, naming every run and depth, at the user's line (not ir_measures' ``base.py``).

The ir_measures provider scores a run against one count table per S_d depth its measures need, and each used to
issue its own notice, attributed to ir_measures' ``providers/base.py``: a PyTerrier Experiment of two member
systems and three depths said six raw notices. Now each evaluation says one line naming every depth, at the line
of the test (the user's code) that asked for it.
"""

from __future__ import annotations

import contextlib
import warnings
from pathlib import Path
from typing import Any

import ir_measures
import pandas as pd
import pyterrier as pt
import pytest

import ir_rarity
from ir_rarity import MemberNotice, Pool
from ir_rarity.pool.resolve import clear_cache
from ir_rarity.pool.store import cache

QRELS = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2", "q2"], "doc_id": ["d1", "d2", "d3", "d1", "d4", "d5"],
                      "relevance": [1, 0, 1, 1, 1, 2]})
RUNS = {"a": [("q1", "d1", 3.0), ("q1", "d2", 2.0), ("q1", "d5", 1.0), ("q2", "d4", 3.0), ("q2", "d5", 2.0)],
        "b": [("q1", "d3", 3.0), ("q1", "d1", 2.0), ("q1", "d6", 1.0), ("q2", "d1", 3.0), ("q2", "d5", 1.0)],
        "c": [("q1", "d1", 9.0), ("q1", "d3", 8.0), ("q1", "d2", 7.0), ("q2", "d5", 3.0), ("q2", "d6", 2.0)]}
MEASURES = ["P_rare@1", "P_rare@2", "AP_rare"]
DEPTHS = "to depth 1, 2, whole runs"


@pytest.fixture
def pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Pool:
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "cache"))
    clear_cache()
    yield Pool.from_runs({n: pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]) for n, rows in RUNS.items()})
    clear_cache()


def _notices(caught: list[warnings.WarningMessage]) -> list[warnings.WarningMessage]:
    return [w for w in caught if issubclass(w.category, MemberNotice)]


def _system(pool: Pool, name: str) -> pd.DataFrame:
    return pool.run(name).rename(columns={"query_id": "qid", "doc_id": "docno"})


def _topics() -> pd.DataFrame:
    return pd.DataFrame({"qid": ["q1", "q2"], "query": ""})


def test_an_experiment_says_one_notice_naming_both_members(pool: Pool) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = ir_rarity.Experiment({"a": _system(pool, "a"), "b": _system(pool, "b")}, _topics(), QRELS, MEASURES,
                                     pool=pool)
    notices = _notices(caught)
    assert len(notices) == 1
    assert str(notices[0].message) == (f"2 evaluated runs are scored as the campaign members they equal: 'a' has the "
                                       f"ranked lists of campaign run 'a' {DEPTHS}; 'b' has the ranked lists of "
                                       f"campaign run 'b' {DEPTHS}")
    assert notices[0].filename == __file__
    assert list(table["name"]) == ["a", "b"]


@pytest.mark.parametrize("named", [False, True])  # the active pool; a folder named by pool= (a table per depth)
def test_the_provider_says_one_notice_for_every_depth_at_the_users_line(pool: Pool, tmp_path: Path,
                                                                        named: bool) -> None:
    (tmp_path / "runs").mkdir()
    for name, rows in RUNS.items():
        (tmp_path / "runs" / name).write_text("".join(f"{q} Q0 {d} {i} {s} {name}\n" for i, (q, d, s) in
                                                      enumerate(rows)))
    qrels = [ir_measures.Qrel(q, d, r) for q, d, r in QRELS.itertuples(index=False)]
    run = [ir_measures.ScoredDoc(q, d, s) for q, d, s in RUNS["b"]]
    own = f"(pool='{tmp_path / 'runs'}')" if named else ""
    measures = [ir_measures.parse_measure(m.replace("@", f"{own}@") if "@" in m else m + own) for m in MEASURES]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.nullcontext() if named else pool:
            values = ir_measures.calc_aggregate(measures, qrels, run)
    notices = _notices(caught)
    assert [str(w.message) for w in notices] == [  # was one notice per depth for a named folder, at base.py
        f"1 evaluated run is scored as the campaign members they equal: 'the evaluated run' has the ranked lists of "
        f"campaign run 'b' {DEPTHS}"]
    assert notices[0].filename == __file__
    expected = pool.evaluate(QRELS, MEASURES)
    assert [values[m] for m in measures] == [pytest.approx(expected.loc["b", m]) for m in MEASURES]


def test_a_pt_experiment_says_one_notice_per_system_at_the_users_line(pool: Pool) -> None:
    measures: list[Any] = [ir_measures.parse_measure(m) for m in MEASURES]
    qrels = QRELS.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pool:
            pt.Experiment([_system(pool, "a"), _system(pool, "c")], _topics(), qrels, measures, names=["a", "c"])
    notices = _notices(caught)
    # pt.Experiment evaluates each system on its own: one notice each (was one per system and depth, six)
    assert [str(w.message).rsplit(": ", 1)[1] for w in notices] == [
        f"'the evaluated run' has the ranked lists of campaign run '{name}' {DEPTHS}" for name in ("a", "c")]
    assert {w.filename for w in notices} == {__file__}
