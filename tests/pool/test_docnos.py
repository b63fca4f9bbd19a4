"""Ordering, encoding and finding docnos: equal to Python's sort and lookup of the UTF-8 bytes, on every path."""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_rarity.engine.strings import positions_in_sorted, string_order
from ir_rarity.pool.build import docnos

# Pieces that make docnos of one width or many, sharing a prefix or not, differing within or past 8 bytes
# after it, with non-ASCII letters and NUL bytes (which the zero padding of short strings must not confuse).
_PIECES = ["", "a", "b", "\x00", "é", "z", "ab", "aaaaaaaaa", "0000-00-", "x\x00y", "𝔸"]
_PREFIXES = ["", "clueweb09-en00", "d", "FBIS3-"]


@st.composite
def _arrays(draw: st.DrawFn) -> tuple[list[str], pa.Array]:
    """Strings, and a pyarrow array of them (32- or 64-bit offsets, maybe a slice of a longer array)."""
    prefix = draw(st.sampled_from(_PREFIXES))
    if draw(st.booleans()):  # one width in bytes; two letters, so that many agree on their first 8 bytes
        width = draw(st.integers(0, 12))
        letters = st.text(alphabet=draw(st.sampled_from(["ab", "a\x00"])), min_size=width, max_size=width)
        values = [prefix + v for v in draw(st.lists(letters, max_size=40))]
    else:
        piece = st.lists(st.sampled_from(_PIECES), max_size=4).map("".join)
        values = [prefix + v for v in draw(st.lists(piece, max_size=40))]
    kind = draw(st.sampled_from([pa.string(), pa.large_string()]))
    before, after = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    padded = ["pad"] * before + values + ["~pad"] * after
    return values, pa.array(padded, type=kind).slice(before, len(values))


def _by_bytes(values: list[str]) -> list[int]:
    return sorted(range(len(values)), key=lambda i: (values[i].encode(), i))


@settings(max_examples=300, deadline=None)
@given(_arrays())
def test_string_order_is_a_stable_sort_of_the_utf8_bytes(case: tuple[list[str], pa.Array]) -> None:
    values, array = case
    assert string_order(array).tolist() == _by_bytes(values)
    assert string_order(pa.chunked_array([array.slice(0, len(values) // 2),
                                                 array.slice(len(values) // 2)])).tolist() == _by_bytes(values)


@pytest.mark.parametrize("mostly_distinct", [False, True])
@settings(max_examples=150, deadline=None)
@given(case=_arrays())
def test_distinct_sorted_gives_the_sorted_set_and_each_value_s_code(mostly_distinct: bool,
                                                                   case: tuple[list[str], pa.Array]) -> None:
    values, array = case
    with pytest.MonkeyPatch.context() as patch:  # the hash path and the sort path
        patch.setattr(docnos, "_mostly_distinct", lambda strings: mostly_distinct)
        vocabulary, code = docnos.distinct_sorted(array)
    expected = sorted(set(values), key=str.encode)
    assert vocabulary.to_pylist() == expected
    assert [expected[c] for c in code.tolist()] == values
    # In chunks, as a campaign's queries hand them over: chunks of one width each may differ in width.
    half = len(values) // 2
    chunked = pa.chunked_array([array.slice(0, half), pa.array(values[half:], type=array.type)])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(docnos, "_mostly_distinct", lambda strings: mostly_distinct)
        vocabulary, code = docnos.distinct_sorted(chunked)
    assert vocabulary.to_pylist() == expected
    assert [expected[c] for c in code.tolist()] == values


def test_strings_of_keys_of_several_widths_keep_a_zero_byte_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(docnos, "_mostly_distinct", lambda strings: True)  # the path that sorts by keys
    values = ["ab\x00", "ab", "ab\x00\x00", "a", "ab"]  # one width per chunk: their keys alone would collide
    chunked = pa.chunked_array([pa.array([v]) for v in values])
    vocabulary, code = docnos.distinct_sorted(chunked)
    assert vocabulary.to_pylist() == sorted(set(values), key=str.encode)
    assert [vocabulary.to_pylist()[c] for c in code.tolist()] == values


def test_mostly_distinct_tells_repeated_docnos_from_distinct_ones() -> None:
    n = 8 * docnos._SAMPLE + 1
    distinct = pa.array([f"doc{i:07d}" for i in range(n)])
    repeated = pa.array([f"doc{i % 1000:07d}" for i in range(n)])
    assert docnos._mostly_distinct(distinct)
    assert not docnos._mostly_distinct(repeated)
    assert not docnos._mostly_distinct(distinct.slice(0, 1000))  # few strings: always hashed


@settings(max_examples=300, deadline=None)
@given(_arrays(), _arrays())
def test_positions_in_sorted_equal_a_dictionary_lookup(vocab_case: tuple[list[str], pa.Array],
                                                       values_case: tuple[list[str], pa.Array]) -> None:
    members, _ = vocab_case
    others, _ = values_case
    vocabulary = sorted(set(members), key=str.encode)
    sought = others + members[:5]  # some found, most (of another shape) not
    found = positions_in_sorted(pa.array(vocabulary, type=pa.large_string()), pa.array(sought))
    if found is None:  # keys that do not tell these docnos apart: the caller hashes them instead
        return
    where = {v: i for i, v in enumerate(vocabulary)}
    assert found.tolist() == [where.get(v, -1) for v in sought]


def test_positions_in_sorted_refuses_an_unsorted_vocabulary() -> None:
    assert positions_in_sorted(pa.array(["b", "a"]), pa.array(["a"])) is None
    assert positions_in_sorted(pa.array(["a", "a"]), pa.array(["a"])) is None
    assert positions_in_sorted(pa.array(["a", "b"]), pa.array(["b", "c"])).tolist() == [1, -1]
    # First and last share "x000000000", the middle does not: the keys (each docno's last 8 bytes) still increase,
    # one per string, so every value is found where it is.
    unsorted = pa.array(["x0000000001", "y0000000002", "x0000000003"])
    found = positions_in_sorted(unsorted, pa.array(["y0000000002", "x0000000002", "x0000000003", "y0000000003"]))
    assert found is not None and found.tolist() == [1, -1, 2, -1]
    # Shorter docnos: the last 8 bytes hold the first, which does not increase: refused (the caller hashes them)
    assert positions_in_sorted(pa.array(["x0001", "y0002", "x0003"]), pa.array(["y0002"])) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "ab", "ba", "é", "\x00", "zz", "a\x00"]), max_size=12),
       st.lists(st.sampled_from(["a", "b", "ab", "ba", "é", "\x00", "zz", "a\x00", "q"]), max_size=6))
def test_positions_in_any_distinct_vocabulary_are_right_or_refused(vocabulary: list[str], values: list[str]) -> None:
    distinct = list(dict.fromkeys(vocabulary))  # in the order drawn: often not sorted
    found = positions_in_sorted(pa.array(distinct, type=pa.large_string()), pa.array(values, type=pa.string()))
    if found is not None:
        assert found.tolist() == [distinct.index(v) if v in distinct else -1 for v in values]


@pytest.mark.parametrize("digits", [5, 6, 7])  # 8 bytes past the prefix "doc", fewer, more
def test_campaign_shaped_docnos_order_and_encode_like_python(digits: int) -> None:
    values = [f"doc{(i * 7919) % 10**digits:0{digits}d}" for i in range(3000)]
    array = pa.array(values, type=pa.large_string()).slice(1)
    assert string_order(array).tolist() == _by_bytes(values[1:])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(docnos, "_mostly_distinct", lambda strings: True)
        vocabulary, code = docnos.distinct_sorted(array)
    expected = sorted(set(values[1:]))
    assert vocabulary.to_pylist() == expected
    assert [expected[c] for c in code.tolist()] == values[1:]
