"""TREC readers: fast on good files, and errors that name the file and line on bad ones."""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import pytest

from ir_rarity import InputError, read_trec_qrels, read_trec_run
from ir_rarity.io import as_qrels_frame, as_run_frame


def test_read_run(tmp_path: Path) -> None:
    p = tmp_path / "r.gz"
    with gzip.open(p, "wt") as f:
        f.write("1 Q0 d\"x 1 1.5 tag\n\n1\tQ0\td2\t2\t-3e2\ttag\n")
    frame = read_trec_run(p)
    assert list(frame.columns) == ["query_id", "doc_id", "score", "tag"]
    assert frame["doc_id"].tolist() == ['d"x', "d2"]
    assert frame["score"].tolist() == [1.5, -300.0]


@pytest.mark.parametrize(("text", "message"), [
    ("1 Q0 d1 1 1.0 t\n1 Q0 d2 2 1.0\n", r"r.txt:2: expected 6 whitespace-separated fields, found 5"),
    ("1 Q0 d1 1 1.0 t\n1 Q0 d2 2 1.0 t extra\n", r"r.txt:2: expected 6 .* found 7"),
    ("1 Q0 d1 1 1.0 t\n\n1 Q0 d2 2 high t\n", r"r.txt:3: field 5 must be a number \(the score\), found 'high'"),
    ("", r"r.txt: empty run file"),
])
def test_bad_run_files(tmp_path: Path, text: str, message: str) -> None:
    p = tmp_path / "r.txt"
    p.write_text(text)
    with pytest.raises(InputError, match=message):
        read_trec_run(p)


def test_corrupt_gzip(tmp_path: Path) -> None:
    p = tmp_path / "r.gz"
    p.write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(InputError, match=r"r\.gz"):
        read_trec_run(p)


def test_bad_qrels(tmp_path: Path) -> None:
    p = tmp_path / "q.txt"
    p.write_text("1 0 d1 1\n1 0 d2 yes\n")
    with pytest.raises(InputError, match=r"q.txt:2: field 4 must be an integer"):
        read_trec_qrels(p)
    assert read_trec_qrels(_write(tmp_path, "1 0 d1 -1\n1 0.5 d2 2\n"))["relevance"].tolist() == [-1, 2]


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "ok.txt"
    p.write_text(text)
    return p


def test_frames_from_pyterrier_columns() -> None:
    qrels = as_qrels_frame(pd.DataFrame({"qid": [1], "docno": ["a"], "label": [2]}))
    assert qrels.to_dict("records") == [{"query_id": "1", "doc_id": "a", "relevance": 2}]
    run = as_run_frame(pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [1], "rank": [0]}))
    assert list(run.columns) == ["query_id", "doc_id", "score"]
    with pytest.raises(InputError, match="no column 'score'"):
        as_run_frame(pd.DataFrame({"qid": ["1"], "docno": ["a"]}))
    with pytest.raises(InputError, match="labels must be 64-bit integers"):
        as_qrels_frame(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [0.5]}))


def test_run_frame_and_the_callers_frame_stay_independent() -> None:
    # Strings share Arrow buffers and the index is dropped (even a repeated one); edits on either side stay there.
    user = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "score": [1.5, 2.0], "extra": [0, 1]},
                        index=[7, 7])
    keep = user.copy(deep=True)
    frame = as_run_frame(user)
    assert list(frame.columns) == ["query_id", "doc_id", "score"] and list(frame.index) == [0, 1]
    frame.loc[0, "doc_id"] = "changed"
    frame.loc[0, "score"] = 9.0
    pd.testing.assert_frame_equal(user, keep)
    user.iloc[1, 1] = "also changed"
    user.iloc[1, 2] = -1.0
    assert frame["doc_id"].tolist() == ["changed", "b"] and frame["score"].tolist() == [9.0, 2.0]
