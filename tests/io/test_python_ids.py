"""Ids given as Python, numpy or pandas scalars of any type name the same queries and documents as their text.

trec_eval 10.0 reads query ids and docnos as text; the reference here is the same frames with plain ``str`` ids,
scored by pytrec_eval through ir_measures. Before, ``bytes`` docnos scored 0.0 silently (``b'd1'`` never met
``'d1'``) and ``numpy.float32(1.0)`` became ``'1.0'`` where ``1.0`` became ``'1'``.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Callable
from typing import Any

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import InputError

MEASURES = ["P@2", "AP", "nDCG@10"]
RARE = "P_rare(alpha=0.5)@2"
QIDS = [1, 1, 1, 2, 2]
RUN_A = (["d1", "d2", "d3", "d1", "d4"], [3.0, 2.0, 1.0, 2.0, 1.0])
RUN_B = (["d2", "d5", "d1", "d4", "d9"], [3.0, 2.0, 1.0, 2.0, 1.0])
QRELS = ([1, 1, 1, 2, 2], ["d1", "d2", "d5", "d4", "d9"], [2, 1, 1, 1, 0])


def _run(qid: Callable[[int], Any], doc: Callable[[str], Any], which: tuple[list[str], list[float]]) -> pd.DataFrame:
    return pd.DataFrame({"query_id": pd.Series([qid(q) for q in QIDS], dtype=object),
                         "doc_id": pd.Series([doc(d) for d in which[0]], dtype=object), "score": which[1]})


def _qrels(qid: Callable[[int], Any], doc: Callable[[str], Any]) -> pd.DataFrame:
    return pd.DataFrame({"query_id": pd.Series([qid(q) for q in QRELS[0]], dtype=object),
                         "doc_id": pd.Series([doc(d) for d in QRELS[1]], dtype=object), "relevance": QRELS[2]})


VARIANTS: dict[str, tuple[Callable[[int], Any], Callable[[str], Any]]] = {
    "bytes docnos": (int, str.encode),
    "numpy bytes docnos": (str, lambda d: np.bytes_(d.encode())),
    "bytearray docnos": (str, lambda d: bytearray(d.encode())),
    "numpy str docnos": (np.str_, np.str_),
    "float32 query ids": (np.float32, str),
    "float16 query ids": (np.float16, str),
    "float query ids": (float, str),
    "numpy int query ids": (np.int64, str),
    "uint8 query ids": (np.uint8, str),
}


def _table(runs: dict[str, pd.DataFrame], qrels: pd.DataFrame) -> pd.DataFrame:
    return ir_rarity.evaluate(runs, qrels, [*MEASURES, RARE]).table().sort_index()


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_ids_of_every_scalar_type_score_as_their_text(variant: str) -> None:
    qid, doc = VARIANTS[variant]
    plain = _table({"A": _run(str, str, RUN_A), "B": _run(str, str, RUN_B)}, _qrels(str, str))
    typed = _table({"A": _run(qid, doc, RUN_A), "B": _run(qid, doc, RUN_B)}, _qrels(str, str))
    pd.testing.assert_frame_equal(typed, plain, rtol=0, atol=0)
    for qrels in (_qrels(qid, doc), _qrels(int, str)):  # typed qrels; ids of another type on each side
        pd.testing.assert_frame_equal(_table({"A": _run(qid, doc, RUN_A), "B": _run(qid, doc, RUN_B)}, qrels),
                                      plain, rtol=0, atol=0)
    # the reference: pytrec_eval on the str frames
    for name, which in (("A", RUN_A), ("B", RUN_B)):
        run = [ir_measures.ScoredDoc(str(q), d, s) for q, d, s in zip(QIDS, *which, strict=True)]
        qrels = [ir_measures.Qrel(str(q), d, r) for q, d, r in zip(*QRELS, strict=True)]
        expected = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in MEASURES], qrels, run)
        for m in MEASURES:
            assert typed.loc[name, m] == pytest.approx(expected[ir_measures.parse_measure(m)], abs=1e-12)
    assert typed["P@2"].max() > 0  # not the silent zero of ids that never meet


@pytest.mark.parametrize("dtype", ["float32", "float64", "Float32", "Int64", "int16", "uint64"])
def test_typed_id_columns_follow_the_same_rule(dtype: str) -> None:
    run = _run(str, str, RUN_A).assign(query_id=pd.Series(QIDS, dtype=dtype))
    qrels = _qrels(str, str).assign(query_id=pd.Series(QRELS[0], dtype="int64"))
    plain = _table({"A": _run(str, str, RUN_A)}, _qrels(str, str))
    pd.testing.assert_frame_equal(_table({"A": run}, qrels), plain, rtol=0, atol=0)


def test_non_whole_floats_keep_their_own_text() -> None:
    from ir_rarity.io.frames import as_id_strings

    column = pd.Series([np.float32(0.1), 1.5, np.float64(2.0), np.float32(3.0)], dtype=object)
    assert as_id_strings(column, "run", "query_id").tolist() == ["0.1", "1.5", "2", "3"]
    assert as_id_strings(pd.Series([0.1, 4.0], dtype="float32"), "run", "query_id").tolist() == ["0.1", "4"]
    assert as_id_strings(pd.Series([True, np.bool_(False)], dtype=object), "run", "q").tolist() == ["True", "False"]


@pytest.mark.parametrize(("value", "message"), [
    (b"\xffd1", r"column 'doc_id' holds bytes that are not UTF-8 text"),
    (object(), r"column 'doc_id' holds an id of type object"),
    (decimal.Decimal("1"), r"column 'doc_id' holds an id of type Decimal"),
    (datetime.date(2020, 1, 1), r"column 'doc_id' holds an id of type date"),
    (("d", 1), r"column 'doc_id' holds an id of type tuple"),
])
def test_other_id_types_are_refused_in_one_line(value: object, message: str) -> None:
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": pd.Series(["d1", value], dtype=object),
                        "score": [1.0, 0.5]})
    with pytest.raises(InputError, match=message) as e:
        ir_rarity.evaluate({"A": run}, _qrels(str, str), ["P@2"])
    assert "\n" not in str(e.value) and len(str(e.value)) < 200
    qrels = _qrels(str, str).astype({"doc_id": object})
    qrels.loc[0, "doc_id"] = value
    with pytest.raises(InputError, match=message):
        ir_rarity.evaluate({"A": _run(str, str, RUN_A)}, qrels, ["P@2"])


def test_a_datetime_column_is_refused() -> None:
    run = _run(str, str, RUN_A).assign(query_id=pd.to_datetime(["2020-01-01"] * 5))
    with pytest.raises(InputError, match=r"column 'query_id' holds an id of type Timestamp"):
        ir_rarity.evaluate({"A": run}, _qrels(str, str), ["P@2"])
