"""Saved pools with a valid checksum whose arrays break an invariant the engine relies on are refused on load.

Each forged file is a good saved pool's arrays with one of them altered, written by the storage module's own
writer (so its SHA-256 checksum is right): only the invariant checks can tell it from a good file. Without them,
each of these files loads and is scored silently wrong.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ir_rarity import InputError, Pool
from ir_rarity.pool.build.encoded import EncodedRuns
from ir_rarity.pool.store.storage import load_runs, save_runs


def _with(e: EncodedRuns, **changes: Any) -> EncodedRuns:
    return dataclasses.replace(e, **changes)


def _set(a: np.ndarray, i: int | slice, value: Any) -> np.ndarray:
    out = a.copy()
    out[i] = value
    return out


def _forgeries(e: EncodedRuns) -> dict[str, tuple[EncodedRuns, str]]:
    """Name -> (forged runs, the invariant the message must name). ``e`` is the hand pool (runs A, B, C)."""
    # Rows of run A, query q1: d1 3.0, d2 2.0, d3 1.0, d4 0.5 (ranks 0..3); then q2: d1.
    d1 = list(e.docs).index("d1")
    return {
        "S below the systems the runs name": (_with(e, system_names=e.system_names[:2]),
                                              r"system codes out of range \[0, S = 2\)"),
        "S above the systems the runs name": (_with(e, system_names=(*e.system_names, "ghost")),
                                              r"S = 4 systems for 3 runs"),
        "S counting an unused system": (_with(e, system=np.array([0, 0, 1], dtype=e.system.dtype)),
                                        r"S = 3 but the runs name 2 distinct systems"),
        "unsorted query vocabulary": (_with(e, queries=pd.Index(list(e.queries)[::-1])),
                                      "query ids vocabulary is not sorted and unique"),
        "unsorted docno vocabulary": (_with(e, docs=pd.Index(list(e.docs)[::-1])),
                                      "docnos vocabulary is not sorted and unique"),
        "a docno listed twice in the vocabulary": (_with(e, docs=pd.Index([e.docs[0], *e.docs[:-1]])),
                                                   "docnos vocabulary is not sorted and unique"),
        "all ranks 0": (_with(e, rank=np.zeros_like(e.rank)), r"ranks are not 0, 1, 2, \.\.\."),
        "ranks from 1": (_with(e, rank=e.rank + 1), r"ranks are not 0, 1, 2, \.\.\."),
        "ranks swapped against the scores": (_with(e, rank=_set(e.rank, slice(0, 2), [1, 0])),
                                             r"ranks are not 0, 1, 2, \.\.\."),
        "scores against the ranks": (_with(e, score=_set(e.score, 0, -1.0)), "not in trec_eval order"),
        "a document twice in a ranking": (_with(e, doc=_set(e.doc, 1, d1)), "lists the same document twice"),
        "rows not sorted by run": (_with(e, run=e.run[::-1].copy()), "not sorted by run"),
        "rows not sorted by query": (_with(e, query=_set(e.query, slice(0, 5), [1, 1, 1, 1, 0])),
                                     "not sorted by query"),
        "a doc code out of range": (_with(e, doc=_set(e.doc, 0, len(e.docs))), r"doc codes out of range"),
        "a NaN score": (_with(e, score=_set(e.score, 3, np.nan)), "a score is NaN"),
        "two runs of one name": (_with(e, names=("A", "A", "C")), "run names are not unique"),
    }


def test_the_hand_pool_is_what_the_forgeries_start_from(hand_pool: Pool) -> None:
    e = hand_pool.encoded
    assert e.names == ("A", "B", "C") and e.num_systems == 3
    assert list(e.docs[e.doc[:5]]) == ["d1", "d2", "d3", "d4", "d1"]
    assert e.rank[:5].tolist() == [0, 1, 2, 3, 0] and e.query[:5].tolist() == [0, 0, 0, 0, 1]


NAMES = ["S below the systems the runs name", "S above the systems the runs name", "S counting an unused system",
         "unsorted query vocabulary", "unsorted docno vocabulary", "a docno listed twice in the vocabulary",
         "all ranks 0", "ranks from 1", "ranks swapped against the scores", "scores against the ranks",
         "a document twice in a ranking", "rows not sorted by run", "rows not sorted by query",
         "a doc code out of range", "a NaN score", "two runs of one name"]


def test_every_forgery_is_tested(hand_pool: Pool) -> None:
    assert sorted(_forgeries(hand_pool.encoded)) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_a_forged_pool_with_a_valid_checksum_is_refused(name: str, hand_pool: Pool, tmp_path: Path) -> None:
    forged, invariant = _forgeries(hand_pool.encoded)[name]
    path = tmp_path / "forged.npz"
    save_runs(forged, path, counts_at=())  # the module's own writer: the checksum is valid (no counts: they
    # cannot be counted from broken rows, and what is tested here is that the rows are checked on load)
    with pytest.raises(InputError) as caught:
        Pool.load(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: invalid pool file: "), message
    assert re.search(invariant, message), message


def test_good_pools_load_unchanged(hand_pool: Pool, covid_pool: Pool, tmp_path: Path) -> None:
    for pool in (hand_pool, covid_pool, hand_pool.subset(["C", "A"]),
                 Pool.from_runs({n: hand_pool.run(n) for n in hand_pool.names}, teams={"A": "t", "B": "t", "C": "C"})):
        path = tmp_path / "good.npz"
        pool.save(path)
        loaded = load_runs(path)
        assert loaded.names == pool.encoded.names and loaded.system_names == pool.encoded.system_names
        for field in ("run", "query", "doc", "score", "rank", "system"):
            np.testing.assert_array_equal(getattr(loaded, field), getattr(pool.encoded, field))


def test_infinite_scores_round_trip(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 inf r\nq1 Q0 d2 2 1 r\nq1 Q0 d3 3 -inf r\n")
    pool = Pool.from_runs(run)
    pool.save(tmp_path / "inf.npz")
    assert Pool.load(tmp_path / "inf.npz").run("run")["doc_id"].tolist() == ["d1", "d2", "d3"]
