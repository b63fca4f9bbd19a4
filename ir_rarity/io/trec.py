"""Readers for TREC run and qrels files.

Both readers parse with pandas' C tokenizer (whitespace separated, plain or compressed by file extension).
When the fast path fails, the file is scanned once more line by line, only to name the first offending line
in the error; the fast path never loops over rows in Python.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from ir_rarity.errors import InputError

__all__ = ["read_trec_qrels", "read_trec_run"]

PathLike = str | os.PathLike[str]

_RUN_FIELDS = 6  # qid Q0 docno rank score tag
_QRELS_FIELDS = 4  # qid iteration docno relevance
_DECODE_ERRORS = (OSError, EOFError, zlib.error, UnicodeDecodeError, gzip.BadGzipFile)


def _is_float(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _is_int(token: str) -> bool:
    try:
        int(token)
    except ValueError:
        return False
    return True


def _open_text(path: Path):
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def _first_bad_line(path: Path, n_fields: int, checks: dict[int, tuple[Callable[[str], bool], str]]) -> InputError:
    """Scan ``path`` to find the first line that the fast reader rejected and describe it."""
    try:
        with _open_text(path) as f:
            for number, line in enumerate(f, start=1):
                fields = line.split()
                if not fields:
                    continue
                if len(fields) != n_fields:
                    return InputError(
                        f"expected {n_fields} whitespace-separated fields, found {len(fields)}: {line.strip()!r}",
                        str(path),
                        number,
                    )
                for column, (check, what) in checks.items():
                    if not check(fields[column]):
                        return InputError(f"field {column + 1} must be {what}, found {fields[column]!r}", str(path),
                                          number)
    except _DECODE_ERRORS as e:
        return InputError(f"cannot be decoded ({type(e).__name__}: {e})", str(path))
    return InputError("cannot be parsed as a TREC file", str(path))


def _read_table(
    path: Path,
    n_fields: int,
    usecols: list[int],
    names: list[str],
    dtypes: dict[str, object],
    checks: dict[int, tuple[Callable[[str], bool], str]],
    kind: str,
) -> pd.DataFrame:
    if not path.exists():
        raise InputError(f"no such {kind} file", str(path))
    if path.is_dir():
        raise InputError(f"is a directory, expected a {kind} file", str(path))
    try:
        frame = pd.read_csv(
            path,
            sep=r"\s+",
            header=None,
            names=list(range(n_fields)),  # all fields: pandas drops extra fields silently with usecols
            dtype={i: dtypes.get(names[usecols.index(i)], str) if i in usecols else str for i in range(n_fields)},
            engine="c",
            quoting=3,  # csv.QUOTE_NONE: quotes are part of the docno
            na_filter=False,
            encoding="utf-8",
        )
    except pd.errors.EmptyDataError:
        raise InputError(f"empty {kind} file", str(path)) from None
    except (ValueError, pd.errors.ParserError) as e:
        raise _first_bad_line(path, n_fields, checks) from e
    except _DECODE_ERRORS as e:
        raise InputError(f"cannot be decoded ({type(e).__name__}: {e})", str(path)) from e
    frame = frame[usecols]
    frame.columns = names
    if len(frame) == 0:
        raise InputError(f"empty {kind} file", str(path))
    # Short lines are padded by the tokenizer; the last column is then empty.
    if (frame[names[-1]].astype(str) == "").any():
        raise _first_bad_line(path, n_fields, checks)
    return frame


def read_trec_run(path: PathLike) -> pd.DataFrame:
    """Read a TREC run file (``qid Q0 docno rank score tag``), plain or gzip-compressed.

    The rank column is read past and ignored: as in trec_eval, documents are ordered by score (descending), ties
    broken by docno (descending).

    Args:
        path: The run file.

    Returns:
        A DataFrame with columns ``query_id``, ``doc_id`` (str), ``score`` (float64) and ``tag`` (str), in file
        order.

    Raises:
        InputError: the file is missing, empty, not decodable, or a line has the wrong number of fields or a
            score that is not a number; the message names the file and the line.

    """
    p = Path(path)
    checks = {4: (_is_float, "a number (the score)")}
    frame = _read_table(
        p, _RUN_FIELDS, [0, 2, 4, 5], ["query_id", "doc_id", "score", "tag"],
        {"query_id": str, "doc_id": str, "score": np.float64, "tag": str}, checks, "run",
    )
    return frame


def read_trec_qrels(path: PathLike) -> pd.DataFrame:
    """Read a TREC qrels file (``qid iteration docno relevance``), plain or gzip-compressed.

    Args:
        path: The qrels file.

    Returns:
        A DataFrame with columns ``query_id``, ``doc_id`` (str) and ``relevance`` (int64), in file order.

    Raises:
        InputError: the file is missing, empty, not decodable, or a line has the wrong number of fields or a
            label that is not an integer; the message names the file and the line.

    """
    p = Path(path)
    checks = {3: (_is_int, "an integer (the relevance label)")}
    return _read_table(
        p, _QRELS_FIELDS, [0, 2, 3], ["query_id", "doc_id", "relevance"],
        {"query_id": str, "doc_id": str, "relevance": np.int64}, checks, "qrels",
    )
