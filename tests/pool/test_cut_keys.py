"""Runs cut while read: docnos of one width told apart by integer keys give the dictionary-encoded way's runs."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from ir_rarity.errors import DuplicateDocumentError
from ir_rarity.pool.build import runs as build
from ir_rarity.pool.build.retention import Retention


def _table(rng: np.random.Generator, n_queries: int, n_rows: int, width: int, prefix: str = "doc",
           repeats: int = 0, interleave: bool = False) -> pa.Table:
    """A run: ``n_rows`` rows a query, scores from a few values (many ties), docnos of one width past ``prefix``."""
    query, doc, score = [], [], []
    for q in range(n_queries):
        numbers = rng.choice(10 ** width, size=n_rows, replace=False)
        docs = [f"{prefix}{n:0{width}d}" for n in numbers]
        docs += [docs[int(i)] for i in rng.integers(0, n_rows, size=repeats)]  # listed again
        query += [f"q{q:02d}"] * len(docs)
        doc += docs
        score += rng.choice([0.5, 1.0, 1.25, 2.0, float(np.float32(1.0) + np.float32(1e-7))], size=len(docs)).tolist()
    order = rng.permutation(len(query)) if interleave else np.arange(len(query))
    return pa.table({"query_id": pa.array(np.array(query)[order].tolist(), pa.large_string()),
                     "doc_id": pa.array(np.array(doc)[order].tolist(), pa.large_string()),
                     "score": np.array(score)[order]})


def _taken(table: pa.Table, duplicates: str, depth: int, keyed: bool, monkeypatch: pytest.MonkeyPatch
           ) -> build._TakenRun:
    with monkeypatch.context() as patch:
        if not keyed:
            patch.setattr(build, "_docno_keys", lambda docs: None)
        return build._take_run("r", table, duplicates, Retention(depth=depth), "float32")


def _same(a: build._TakenRun, b: build._TakenRun) -> None:
    assert a.query_ids == b.query_ids and a.ordered and b.ordered and a.read == b.read
    for field in ("query", "heads", "score"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert a.docs.to_pylist() == b.docs.to_pylist()


@pytest.mark.parametrize("seed", range(6))
def test_keys_cut_runs_as_the_dictionary_does(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    table = _table(rng, n_queries=5, n_rows=300, width=5 + seed % 4, interleave=seed % 2 == 1)
    assert build._docno_keys(table.column("doc_id")) is not None  # the keyed way is taken
    for depth in (1, 10, 100, 1000):
        _same(_taken(table, "error", depth, True, monkeypatch), _taken(table, "error", depth, False, monkeypatch))


def test_repeated_documents_go_the_exact_way(monkeypatch: pytest.MonkeyPatch) -> None:
    table = _table(np.random.default_rng(7), n_queries=3, n_rows=200, width=6, repeats=3)
    with pytest.raises(DuplicateDocumentError) as keyed:
        _taken(table, "error", 10, True, monkeypatch)
    with pytest.raises(DuplicateDocumentError) as exact:
        _taken(table, "error", 10, False, monkeypatch)
    assert str(keyed.value) == str(exact.value) and "more than once" in str(keyed.value)
    _same(_taken(table, "first", 50, True, monkeypatch), _taken(table, "first", 50, False, monkeypatch))


def test_keys_order_and_tell_apart_docnos() -> None:
    rng = np.random.default_rng(3)
    for prefix, width in (("clueweb09-en0000-", 7), ("", 8), ("x", 3)):
        docnos = sorted({f"{prefix}{n:0{width}d}" for n in rng.integers(0, 10 ** min(width, 9), 2000)})
        shuffled = [docnos[i] for i in rng.permutation(len(docnos))]
        keys = build._docno_keys(pa.array(shuffled, pa.large_string()))
        assert keys is not None and len(np.unique(keys)) == len(docnos)
        assert [shuffled[i] for i in np.argsort(keys)] == docnos
    cord = pa.array(["ug7v899j", "02tnwd4m", "zz9aa00b", "02tnwd4l"])  # CORD uids: 8 bytes, no shared prefix
    keys = build._docno_keys(cord)
    assert keys is not None and [cord[int(i)].as_py() for i in np.argsort(keys)] == sorted(cord.to_pylist())
    assert build._docno_keys(pa.array(["d1", "d10", "d2"])) is None  # widths differ: dictionary-encoded
    assert build._docno_keys(pa.array(["p" * 20 + "a" * 9, "p" * 20 + "b" * 9])) is None  # 9 bytes differ


def test_a_mixed_pair_collision_only_costs_the_exact_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """Equal mixed integers of unequal pairs send the run the exact way: the same run, no error."""
    table = _table(np.random.default_rng(11), n_queries=4, n_rows=150, width=6)
    monkeypatch.setattr(build, "_pairs_may_repeat", lambda query, keys: True)
    collided = build._take_run("r", table, "error", Retention(depth=20), "float32")
    monkeypatch.undo()
    _same(collided, _taken(table, "error", 20, True, monkeypatch))
    assert not build._pairs_may_repeat(np.zeros(3, np.int32), np.array([1, 2, 3], np.uint64))
    assert build._pairs_may_repeat(np.array([0, 1, 1], np.int32), np.array([5, 5, 5], np.uint64))
