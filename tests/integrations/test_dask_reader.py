"""One reader for every path: the Dask path reads run files exactly as :func:`ir_rarity.evaluate` reads them.

A differential test over the reliability cases of a TREC run file (trec_eval 10.0's tokenizing: whitespace runs,
``#`` lines, no quoting, ``NA`` an ordinary docno, exactly 6 fields, empty and damaged files refused naming the file
and line): :func:`evaluate_with_dask`, with files read whole and with files split into blocks of a few lines, gives
the same table (compared exactly, column labels included) or the same error (class and text) as the front door;
:func:`read_runs_dask` gives the rows or the error of :func:`~ir_rarity.io.trec.read_trec_run`.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import HAND_QRELS, HAND_RUNS

import ir_rarity
from ir_rarity.io.trec import read_trec_run

dask = pytest.importorskip("dask")
from ir_rarity.integrations.dask import evaluate_with_dask, read_runs_dask  # noqa: E402

MEASURES = ["P_rare(alpha=0)@10", "P_rare(alpha=0.5)@5", "AP", "AP_rare", "nDCG_rare@10", "P@2", "NumRet"]
QRELS = HAND_QRELS + 'q1 0 "x 1\nq1 0 y" 1\nq1 0 NA 1\nq2 0 null 1\n'
SPLIT = 64  # bytes: every case file of more than one line is read in several blocks


def _big(lines: int = 120, *, at: dict[int, str] | None = None, eol: str = "\n", sep: str = " ") -> bytes:
    """A run of ``lines`` lines over q1 and q2 (several blocks of :data:`SPLIT` bytes), line n replaced by ``at[n]``."""
    rows = []
    for n in range(1, lines + 1):
        query, doc = ("q1", f"d{n}") if n % 2 else ("q2", f"d{n // 2}")
        rows.append((at or {}).get(n, sep.join([query, "Q0", doc, str(n), f"{1000 - n}.5", "Q"])))
    return eol.join(rows).encode() + eol.encode()


CASES: dict[str, bytes] = {
    "quoted docnos": b'q1 Q0 "x 1 3.0 Q\nq1 Q0 d9 2 2.0 Q\nq1 Q0 y" 3 1.0 Q\nq2 Q0 d1 1 1.0 Q\n',
    "NA nan null docnos": b"q1 Q0 NA 1 3.0 Q\nq1 Q0 nan 2 2.0 Q\nq2 Q0 null 1 1.0 Q\nq2 Q0 NULL 2 0.5 Q\n",
    "comment lines": b"# a run\nq1 Q0 d1 1 2.0 Q\n   # indented comment\n#q1 Q0 d2 2 1.0 Q\nq1 Q0 d5 2 1.5 Q\n",
    "tabs and spaces": b"q1\tQ0\td1 1   2.0\tQ\n  q1 Q0 d2\t\t2 1.0 Q  \n\tq2 \t Q0 d1 1 0.5 Q\n",
    "CRLF": b"q1 Q0 d1 1 2.0 Q\r\nq1 Q0 d2 2 1.0 Q\r\nq2 Q0 d1 1 0.5 Q\r\n",
    "BOM": b"\xef\xbb\xbfq1 Q0 d1 1 2.0 Q\nq1 Q0 d2 2 1.0 Q\nq2 Q0 d1 1 0.5 Q\n",
    "empty file": b"",
    "blank lines only": b"\n   \n\t\n\r\n" * 30,
    "comments only": b"# nothing here\n" * 10,
    "7 fields": b"q1 Q0 d1 1 2.0 Q\nq1 Q0 d2 2 1.0 Q extra\n",
    "5 fields": b"q1 Q0 d1 1 2.0 Q\nq1 Q0 d2 2 1.0\n",
    "non-numeric score": b"q1 Q0 d1 1 2.0 Q\nq1 Q0 d2 2 high Q\n",
    "NaN score": b"q1 Q0 d1 1 2.0 Q\nq1 Q0 d2 2 nan Q\n",
    "damaged gzip": gzip.compress(b"q1 Q0 d1 1 2.0 Q\nq1 Q0 d2 2 1.0 Q\n" * 20)[:-12],
    "gzip": gzip.compress(b"q1 Q0 d1 1 2.0 Q\nq1 Q0 d2 2 1.0 Q\n" * 1 + b"q2 Q0 d1 1 1.0 Q\n" * 1),
    "duplicate doc": b"q1 Q0 d1 1 2.0 Q\nq1 Q0 d2 2 1.0 Q\nq1 Q0 d1 3 0.5 Q\n",
    "large": _big(),
    "large CRLF tabs": _big(eol="\r\n", sep="\t"),
    "large with comments and a BOM": b"\xef\xbb\xbf# head\n" + _big(at={40: "# middle", 41: "   ", 90: "#"}),
    "large, a BOM starting a later line": _big(at={70: "\ufeffq1 Q0 dx 70 1.0 Q"}),
    "large, 7 fields deep in": _big(at={97: "q1 Q0 d97 97 1.0 Q 7"}),
    "large, a bad score deep in": _big(at={88: "q2 Q0 d44 88 1,5 Q"}),
    "large, NaN score deep in": _big(at={77: "q1 Q0 d77 77 NaN Q"}),
    "large, a duplicate across blocks": _big(at={115: "q1 Q0 d1 115 0.25 Q"}),
    "large, not UTF-8 deep in": _big(at={66: "q2 Q0 d33 66 1.0 Q"}).replace(b"d33 66", b"d\xff3 66"),
    "large, blank lines only": b" \n" * 1000,
}


@pytest.fixture
def campaign(tmp_path: Path) -> tuple[list[Path], pd.DataFrame]:
    """The hand runs A, B and C as files (the case file joins them as run Q) and the qrels."""
    files = []
    for name, text in HAND_RUNS.items():
        (tmp_path / name).write_text(text)
        files.append(tmp_path / name)
    (tmp_path / "qrels").write_text(QRELS)
    return files, ir_rarity.read_trec_qrels(tmp_path / "qrels")


def _outcome(compute: Callable[[], Any]) -> tuple[str, Any]:
    """``("value", what compute gave)`` or ``("error", (exception class, message))``."""
    try:
        return "value", compute()
    except Exception as e:  # any error: its class and text are compared
        return "error", (type(e), str(e))


def _assert_same(got: tuple[str, Any], expected: tuple[str, Any]) -> None:
    assert got[0] == expected[0], (got, expected)
    if got[0] == "error":
        assert got[1] == expected[1]
    else:
        pd.testing.assert_frame_equal(got[1], expected[1], check_exact=True)


@pytest.mark.parametrize("case", list(CASES))
def test_the_dask_path_gives_the_front_doors_table_or_error(case: str, campaign: tuple[list[Path], pd.DataFrame],
                                                            tmp_path: Path) -> None:
    files, qrels = campaign
    run = tmp_path / "Q"
    run.write_bytes(CASES[case])
    expected = _outcome(lambda: ir_rarity.evaluate([*files, run], qrels, MEASURES).table())
    if case.startswith("large"):
        assert run.stat().st_size > 20 * SPLIT  # read in many blocks
    with dask.config.set(scheduler="synchronous"):
        for blocksize in ("64MB", SPLIT):  # files read whole; in blocks of a few lines
            got = _outcome(lambda b=blocksize: evaluate_with_dask([*files, run], qrels, MEASURES, blocksize=b,
                                                                  npartitions=2).table())
            _assert_same(got, expected)
            if got[0] == "value":  # the table as the front door gives it, but for its attrs
                assert list(got[1].columns) == MEASURES


@pytest.mark.parametrize("case", list(CASES))
def test_read_runs_dask_gives_the_readers_rows_or_error(case: str, tmp_path: Path) -> None:
    run = tmp_path / "Q"
    run.write_bytes(CASES[case])

    def rows() -> pd.DataFrame:
        frame = read_trec_run(run)
        return pd.DataFrame({"run": pd.array(["Q"] * len(frame), dtype="str"), "query_id": frame["query_id"],
                             "doc_id": frame["doc_id"], "score": frame["score"]})

    expected = _outcome(rows)
    with dask.config.set(scheduler="synchronous"):
        for blocksize in (None, SPLIT) if case.startswith("large") else (None, SPLIT, 7):  # 7: blocks inside lines
            got = _outcome(lambda b=blocksize: read_runs_dask(run, blocksize=b).compute().reset_index(drop=True)
                           .astype({"run": "str", "query_id": "str", "doc_id": "str"}))  # Dask's own NA flavour
            _assert_same(got, expected)
    if case.startswith("large") and expected[0] == "value":
        assert read_runs_dask(run, blocksize=SPLIT).npartitions > 20


def test_quoted_docnos_are_two_docnos_ap_by_hand(campaign: tuple[list[Path], pd.DataFrame], tmp_path: Path) -> None:
    """``"x`` and ``y"`` are two documents, both relevant, retrieved at ranks 1 and 3. q1 has 6 relevant documents
    (d1, d2, d5, ``"x``, ``y"``, ``NA``): AP = (1/1 + 2/3) / 6 = 5/18; q2 has 2 (d1, ``null``), d1 retrieved first:
    AP = 1/2; the mean 7/18. A quoting reader joined the lines between the quotes into one field."""
    files, qrels = campaign
    run = tmp_path / "Q"
    run.write_bytes(CASES["quoted docnos"])
    with dask.config.set(scheduler="synchronous"):
        table = evaluate_with_dask([*files, run], qrels, ["AP"], blocksize=SPLIT).table()
        long = evaluate_with_dask([*files, run], qrels, ["AP"], blocksize=SPLIT).long()
    assert table.loc["Q", "AP"] == pytest.approx(7 / 18, abs=1e-12)
    per_query = long[long["run"] == "Q"].set_index("query_id")["value"]
    assert per_query["q1"] == pytest.approx(5 / 18, abs=1e-12)
    assert per_query["q2"] == 0.5


def test_errors_name_the_file_and_the_line_in_the_file(tmp_path: Path) -> None:
    """A line deep in a file split into blocks is named by its line in the file, a byte by its offset in it."""
    run = tmp_path / "Q"
    run.write_bytes(CASES["large, 7 fields deep in"])
    wrong = rf"^{re.escape(str(run))}:97: expected 6 whitespace-separated fields, found 7"
    with dask.config.set(scheduler="synchronous"), pytest.raises(ir_rarity.errors.InputError, match=wrong):
        read_runs_dask(run, blocksize=SPLIT).compute()
    run.write_bytes(CASES["large, not UTF-8 deep in"])
    offset = CASES["large, not UTF-8 deep in"].index(b"\xff")
    with dask.config.set(scheduler="synchronous"), pytest.raises(
            ir_rarity.errors.InputError, match=rf":66: cannot be decoded: not UTF-8 text \(byte {offset}\)$"):
        read_runs_dask(run, blocksize=SPLIT).compute()
    run.write_bytes(b"\n" * 100)
    with dask.config.set(scheduler="synchronous"), pytest.raises(ir_rarity.errors.InputError,
                                                                 match=rf"^{re.escape(str(run))}: empty run file$"):
        read_runs_dask(run, blocksize=SPLIT).compute()


def test_a_gzip_file_without_a_gz_suffix_is_read_whole_not_in_blocks(campaign: tuple[list[Path], pd.DataFrame],
                                                                     tmp_path: Path) -> None:
    """Compression is recognised by content, as the reader recognises it: such a file is never cut into ranges."""
    files, qrels = campaign
    run = tmp_path / "Q"
    run.write_bytes(gzip.compress(_big(), compresslevel=0))  # stored: larger than a block
    assert run.stat().st_size > 20 * SPLIT
    expected = ir_rarity.evaluate([*files, run], qrels, MEASURES).table()
    with dask.config.set(scheduler="synchronous"):
        assert read_runs_dask(run, blocksize=SPLIT).npartitions == 1
        table = evaluate_with_dask([*files, run], qrels, MEASURES, blocksize=SPLIT).table()
    pd.testing.assert_frame_equal(table, expected, check_exact=True)


def test_columns_are_named_as_the_measures_were_given(hand_files: dict[str, Path], hand_qrels: pd.DataFrame) -> None:
    """``P_rare(alpha=0)@10`` stays ``P_rare(alpha=0)@10`` (not ``P_rare(alpha=0.0)@10``), as every other door
    names it (:func:`~ir_rarity.measures.parse.measure_labels`); a measure object is named ``str(measure)``."""
    files = [str(hand_files[n]) for n in "ABC"]
    measures = ["P_rare(alpha=0)@10", "AP_rare(alpha=0.5)", ir_rarity.P_rare(alpha=1) @ 2]
    expected = ir_rarity.evaluate(files, hand_qrels, measures).table()
    with dask.config.set(scheduler="synchronous"):
        table = evaluate_with_dask(files, hand_qrels, measures).table()
        long = evaluate_with_dask(files, hand_qrels, measures).long()
    assert list(table.columns) == list(expected.columns) == ["P_rare(alpha=0)@10", "AP_rare(alpha=0.5)",
                                                             str(ir_rarity.P_rare(alpha=1) @ 2)]
    pd.testing.assert_frame_equal(table, expected, check_exact=True)
    assert list(pd.unique(long["measure"])) == list(expected.columns)
