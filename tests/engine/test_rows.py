"""Rows: plain arrays and one source; S_d, labels and keys read for the rows asked, or once for all."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from ir_rarity.engine.qrels import UNJUDGED, encode_qrels
from ir_rarity.engine.rows import Rows, Selection


class _Recording:
    """A RowSource over arrays that records what it is asked for (mypy checks the engine's own sources)."""

    def __init__(self, s_d: np.ndarray, label: np.ndarray, key: np.ndarray) -> None:
        self.s_d_of, self.label, self.key = s_d, label, key
        self.asked: list[tuple[str, object, int | None]] = []

    def _note(self, what: str, arg: object, rows: Selection) -> None:
        self.asked.append((what, arg, None if rows is None else len(np.arange(len(self.label))[rows])))

    def s_d(self, depth: int | None, rows: Selection) -> tuple[np.ndarray, np.ndarray]:
        self._note("s_d", depth, rows)
        return (self.s_d_of if rows is None else self.s_d_of[rows]), np.array([3.0, 3.0])

    def labels(self, rows: Selection) -> np.ndarray:
        self._note("labels", None, rows)
        return self.label if rows is None else self.label[rows]

    def keys(self, rows: Selection) -> np.ndarray:
        self._note("keys", None, rows)
        return self.key if rows is None else self.key[rows]

    def relevant(self, rel: int) -> np.ndarray:
        self._note("relevant", rel, None)
        return (self.label >= rel) & (self.label >= 0)

    def campaign_s_d(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        return np.zeros(len(keys))

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        return np.zeros(0, dtype=np.int64), np.zeros(0), 2, np.ones(2, dtype=bool)


def _rows() -> tuple[Rows, _Recording]:
    # run 0: query 0 ranks 0-2, query 1 rank 0; run 1: query 0 ranks 0-1
    run = np.array([0, 0, 0, 0, 1, 1])
    query = np.array([0, 0, 0, 1, 0, 0])
    rank = np.array([0, 1, 2, 0, 0, 1])
    label = np.array([1, UNJUDGED, 0, -1, UNJUDGED, 2])
    source = _Recording(np.array([1.0, 2.0, 3.0, 1.0, 2.0, 3.0]), label, np.arange(6) * 10)
    qrels = encode_qrels(pd.DataFrame({"query_id": ["a", "b"], "doc_id": ["x", "y"], "relevance": [1, 1]}),
                         pd.Index(["a", "b"]), pd.Index(["x", "y"]))
    present = np.array([[True, True], [True, False]])
    return Rows(run=run, query=query, rank=rank, present=present, n_runs=2, qrels=qrels, source=source), source


def test_rows_are_a_value_no_field_is_overwritten() -> None:
    rows, _ = _rows()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rows.run = np.zeros(6)  # type: ignore[misc]
    assert {f.name for f in dataclasses.fields(rows) if f.init} == {"run", "query", "rank", "present", "n_runs",
                                                                     "qrels", "source", "returned",
                                                                     "campaign_values"}


def test_some_rows_are_read_from_the_source_and_all_rows_once() -> None:
    rows, source = _rows()
    some = np.array([1, 4])
    assert rows.s_d(10, some)[0].tolist() == [2.0, 2.0]
    assert rows.labels(some).tolist() == [UNJUDGED, UNJUDGED]
    assert source.asked == [("s_d", 10, 2), ("labels", None, 2)]  # only the rows asked for
    source.asked.clear()
    assert rows.s_d(10)[0].tolist() == [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]
    assert rows.s_d(10, some)[0].tolist() == [2.0, 2.0]  # from the rows read for all
    assert rows.s_d(10)[1].tolist() == [3.0, 3.0]
    assert rows.keys(some).tolist() == [10, 40]
    assert rows.keys().tolist() == [0, 10, 20, 30, 40, 50]
    assert rows.keys(some).tolist() == [10, 40]
    assert source.asked == [("s_d", 10, None), ("keys", None, 2), ("keys", None, None)]
    rows.relevant(1)
    rows.relevant(1)
    assert source.asked[-1] == ("relevant", 1, None) and source.asked.count(("relevant", 1, None)) == 1
    rows.release()
    rows.s_d(10, some)
    assert source.asked[-1] == ("s_d", 10, 2)


def test_judged_only_drops_unjudged_rows_and_negative_labels_reranks_and_reads_through_the_parent() -> None:
    rows, source = _rows()
    judged = rows.judged_only()
    assert judged is rows.judged_only()
    assert judged.run.tolist() == [0, 0, 1]
    assert judged.query.tolist() == [0, 0, 0]
    assert judged.rank.tolist() == [0, 1, 0]  # re-ranked within each cell
    assert judged.present.tolist() == rows.present.tolist()
    source.asked.clear()
    assert judged.s_d(5, np.array([1, 2]))[0].tolist() == [3.0, 3.0]  # rows 2 and 5 of the parent
    assert source.asked == [("s_d", 5, 2)]
    assert judged.labels().tolist() == [1, 0, 2]
    assert judged.keys().tolist() == [0, 20, 50]
    assert judged.relevant(1).tolist() == [True, False, True]
    assert judged.cell().tolist() == [0, 0, 2]


def test_rows_within_a_cutoff_are_each_cells_first_ranks() -> None:
    rows, _ = _rows()
    for cutoff in (1, 2, 3, 50):
        assert rows.within(cutoff).tolist() == np.flatnonzero(rows.rank < cutoff).tolist()
    assert rows.within(2).tolist() == [0, 1, 3, 4, 5]  # by hand: run 0 query 0 ranks 0-1, query 1, run 1 both
    assert rows.within(2) is rows.within(2)  # found once


def test_rows_within_a_cutoff_where_ranks_have_gaps() -> None:
    """Rows left out (the relevant rows of a sample, a campaign read keeping judged rows): ranks are read."""
    rows, _ = _rows()
    gappy = dataclasses.replace(rows, rank=np.array([0, 2, 5, 1, 3, 4]))  # each cell's ranks increase, with gaps
    for cutoff in (1, 2, 3, 4, 5, 6):
        assert gappy.within(cutoff).tolist() == np.flatnonzero(gappy.rank < cutoff).tolist()
    rng = np.random.default_rng(0)
    for _ in range(20):  # random cells, some with ranks 0, 1, 2, ... and some with gaps
        sizes = rng.integers(0, 6, size=12)
        ranks = [np.sort(rng.choice(9, size=k, replace=False)) if rng.random() < 0.3 else np.arange(k) for k in sizes]
        cell = np.repeat(np.arange(12), sizes)
        r = dataclasses.replace(rows, run=cell // 2, query=cell % 2, rank=np.concatenate(ranks).astype(np.int64),
                                present=np.ones((6, 2), dtype=bool), n_runs=6)
        for cutoff in (1, 3, 10):
            assert r.within(cutoff).tolist() == np.flatnonzero(r.rank < cutoff).tolist()
