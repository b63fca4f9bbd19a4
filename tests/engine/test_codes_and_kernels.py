"""The engine's building blocks against plain reference implementations (np.lexsort, loops over groups)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_rarity.engine.codes import trec_order
from ir_rarity.engine.kernels import segmented_cumsum

# Scores that collide in float32 (1.0 and 1 + 2**-30), signed zeros and infinities: every tie-breaking path.
SCORES = [0.0, -0.0, 1.0, 1.0 + 2.0**-30, 2.5, -3.0, np.inf, -np.inf, 1e40]


def _reference_order(score: np.ndarray, doc: np.ndarray, *groups: np.ndarray) -> np.ndarray:
    """trec_eval order with np.lexsort: groups ascending, float32 score descending, docno descending."""
    with np.errstate(over="ignore"):
        single = score.astype(np.float32)
    return np.lexsort((-doc.astype(np.int64), -single, *reversed(groups)))


def _sorted_rows(order: np.ndarray, score: np.ndarray, doc: np.ndarray, *groups: np.ndarray) -> list[tuple]:
    with np.errstate(over="ignore"):
        single = score.astype(np.float32) + np.float32(0.0)
    return [(*(int(g[i]) for g in groups), float(single[i]), int(doc[i])) for i in order]


@st.composite
def rankings(draw, max_group: int = 4):
    n = draw(st.integers(0, 60))
    score = np.array(draw(st.lists(st.sampled_from(SCORES), min_size=n, max_size=n)), dtype=np.float64)
    doc = np.array(draw(st.lists(st.integers(0, 12), min_size=n, max_size=n)), dtype=np.int64)
    run = np.array(draw(st.lists(st.integers(0, max_group), min_size=n, max_size=n)), dtype=np.int64)
    query = np.array(draw(st.lists(st.integers(0, max_group), min_size=n, max_size=n)), dtype=np.int64)
    return score, doc, run, query


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(rankings())
def test_trec_order_equals_lexsort(ranking) -> None:
    score, doc, run, query = ranking
    order = trec_order(score, doc, run, query)
    assert sorted(order.tolist()) == list(range(len(score)))  # a permutation
    expected = _reference_order(score, doc, run, query)
    assert _sorted_rows(order, score, doc, run, query) == _sorted_rows(expected, score, doc, run, query)
    assert _sorted_rows(trec_order(score, doc), score, doc) == _sorted_rows(_reference_order(score, doc), score, doc)


def test_trec_order_with_group_numbers_beyond_32_bits() -> None:
    rng = np.random.default_rng(3)
    n = 500
    run = rng.choice([0, 70_000, 90_000], n)  # 90,001 x 90,001 groups: renumbered densely
    query = rng.choice([1, 5, 90_000], n)
    score = rng.choice(SCORES, n)
    doc = rng.integers(0, 40, n)
    order = trec_order(score, doc, run, query)
    assert _sorted_rows(order, score, doc, run, query) == _sorted_rows(_reference_order(score, doc, run, query),
                                                                      score, doc, run, query)


def test_trec_order_on_a_hand_example() -> None:
    # Query 0: d3 and d1 tie at 2.0 (d3 first: docno descending), then d2; query 1: d0 alone.
    score = np.array([1.0, 2.0, 5.0, 2.0, 2.0])
    doc = np.array([2, 1, 0, 3, 4])
    query = np.array([0, 0, 1, 0, 0])
    assert trec_order(score, doc, query).tolist() == [4, 3, 1, 0, 2]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(-3, 3)), max_size=50))
def test_segmented_cumsum_restarts_at_each_group(rows) -> None:
    rows = sorted(rows, key=lambda r: r[0])
    group = np.array([g for g, _ in rows], dtype=np.int64)
    values = np.array([v for _, v in rows], dtype=np.int64)
    expected, total, previous = [], 0, None
    for g, v in rows:
        total = v if g != previous else total + v
        expected.append(total)
        previous = g
    assert segmented_cumsum(values, group).tolist() == expected
    as_float = segmented_cumsum(values.astype(np.float64) / 4, group)
    assert np.array_equal(as_float, np.array(expected, dtype=np.float64) / 4)


def test_key_index_dense_grid_and_hash_paths_agree_with_np_unique() -> None:
    from ir_rarity.engine.codes import pair_keys
    from ir_rarity.pool.build.runs import key_index as _key_index

    rng = np.random.default_rng(5)
    query = rng.integers(0, 7, 2000).astype(np.int32)
    doc = rng.integers(0, 300, 2000).astype(np.int32)
    unique, inverse = np.unique(pair_keys(query, doc), return_inverse=True)
    for n_docs in (300, 1 << 22):  # a small grid is marked densely; a huge one is hash-factorized
        code, keys = _key_index(query, doc, 7, n_docs)
        assert np.array_equal(keys, unique)
        assert np.array_equal(code, inverse.reshape(-1))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "10", "2", "b", "a", "é"]), st.integers(1, 30)), max_size=12),
       st.sampled_from(["str", object]), st.lists(st.integers(0, 200), max_size=4))
def test_query_codes_equal_factorize(blocks, dtype, cuts) -> None:
    """In one array or in chunks (cut anywhere, blocks going on across chunks, empty chunks)."""
    import pandas as pd
    import pyarrow as pa

    from ir_rarity.pool.build.runs import _arrow_strings, _query_codes

    values = pd.Series([v for v, length in blocks for _ in range(length)], dtype=dtype)
    strings = _arrow_strings(values)
    bounds = [0, *sorted(min(c, len(values)) for c in cuts), len(values)]
    chunked = pa.chunked_array([strings.slice(a, b - a) for a, b in itertools.pairwise(bounds)],
                               type=strings.type)
    assert [x.tolist() if isinstance(x, np.ndarray) else x for x in _query_codes(chunked)] == \
        [x.tolist() if isinstance(x, np.ndarray) else x for x in _query_codes(strings)]
    codes, ids, heads = _query_codes(strings)
    expected_codes, expected_ids = pd.factorize(values)
    assert codes.tolist() == expected_codes.tolist()
    changes = [i for i in range(len(values)) if i == 0 or values[i] != values[i - 1]]  # blocks of equal neighbours
    assert heads.tolist() == [*changes, len(values)]
    assert ids == list(expected_ids)
    assert sorted(ids) == list(pd.Index(expected_ids, dtype=dtype).sort_values())  # code point = UTF-8 byte order


def test_query_codes_of_short_blocks_hash_every_id() -> None:
    """A run whose query ids change every row or two (more blocks than an eighth of its rows) is hashed whole."""
    import pandas as pd
    import pyarrow as pa

    from ir_rarity.pool.build.runs import _arrow_strings, _query_codes

    rng = np.random.default_rng(0)
    values = pd.Series([f"q{i}" for i in rng.integers(0, 40, 5000)], dtype="str")
    strings = _arrow_strings(values)
    for run in (strings, pa.chunked_array([strings.slice(0, 2500), strings.slice(2500)])):
        codes, ids, heads = _query_codes(run)
        expected_codes, expected_ids = pd.factorize(values)
        assert codes.tolist() == expected_codes.tolist() and ids == list(expected_ids)
        changes = np.flatnonzero(np.r_[True, values.to_numpy()[1:] != values.to_numpy()[:-1]])
        assert heads.tolist() == [*changes.tolist(), len(values)]
