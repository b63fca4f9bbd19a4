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
from typing import Any

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


def _is_not_nan(token: str) -> bool:
    """Not NaN, which has no trec_eval order (``inf`` and ``-inf`` order as they do in C)."""
    return float(token) == float(token)


def _is_label(token: str) -> bool:
    """An integer that fits the int64 label column."""
    try:
        value = int(token)
    except ValueError:
        return False
    return -(2**63) <= value < 2**63


def _open_text(path: Path):
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def _first_bad_line(path: Path, n_fields: int, checks: list[tuple[int, Callable[[str], bool], str]]) -> InputError:
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
                for column, check, what in checks:
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
    checks: list[tuple[int, Callable[[str], bool], str]],
    kind: str,
) -> pd.DataFrame:
    if not path.exists():
        raise InputError(f"no such {kind} file", str(path))
    if path.is_dir():
        raise InputError(f"is a directory, expected a {kind} file", str(path))
    fast = _read_with_pyarrow(path, n_fields, usecols, names, dtypes)
    if fast is not None:
        return _checked(fast, path, n_fields, names, checks, kind)
    try:
        frame = pd.read_csv(  # type: ignore[call-overload]  # the stubs reject a column-number -> dtype mapping
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
    except (ValueError, OverflowError, pd.errors.ParserError) as e:
        raise _first_bad_line(path, n_fields, checks) from e
    except _DECODE_ERRORS as e:
        raise InputError(f"cannot be decoded ({type(e).__name__}: {e})", str(path)) from e
    frame = frame[usecols]
    frame.columns = names
    return _checked(frame, path, n_fields, names, checks, kind)


def _checked(frame: pd.DataFrame, path: Path, n_fields: int, names: list[str],
             checks: list[tuple[int, Callable[[str], bool], str]], kind: str) -> pd.DataFrame:
    """Checks common to both readers: not empty, no short line, no NaN score."""
    if len(frame) == 0:
        raise InputError(f"empty {kind} file", str(path))
    # Short lines are padded by the tokenizer; the last column is then empty.
    if (frame[names[-1]].astype(str) == "").any():
        raise _first_bad_line(path, n_fields, checks)
    if "score" in frame and np.isnan(frame["score"].to_numpy()).any():
        raise _first_bad_line(path, n_fields, checks)
    return frame


def _sniff_delimiter(path: Path, n_fields: int) -> str | None:
    """The one-character delimiter of the first line if it splits it into exactly ``n_fields`` fields."""
    try:
        with _open_text(path) as f:
            first = next((line for line in f if line.strip()), "")
    except (*_DECODE_ERRORS, StopIteration):
        return None
    line = first.rstrip("\r\n")
    for delimiter in ("\t", " "):
        fields = line.split(delimiter)
        if len(fields) == n_fields and all(fields) and not any(c.isspace() for c in "".join(fields)):
            return delimiter
    return None


def _read_with_pyarrow(path: Path, n_fields: int, usecols: list[int], names: list[str],
                       dtypes: dict[str, object]) -> pd.DataFrame | None:
    """Fast path: pyarrow's multithreaded CSV reader, for files delimited by one tab or one space throughout.

    Returns None (and the caller falls back to pandas' tokenizer, which also locates bad lines) when pyarrow is
    not installed, the delimiter is not uniform, or anything at all fails to parse.
    """
    try:
        import pyarrow as pa
        import pyarrow.csv as pc
    except ImportError:
        return None
    delimiter = _sniff_delimiter(path, n_fields)
    if delimiter is None:
        return None
    arrow_type: dict[Any, Any] = {np.float64: pa.float64(), np.int64: pa.int64()}
    types = {f"f{i}": arrow_type.get(dtypes.get(names[usecols.index(i)]) if i in usecols else None, pa.string())
             for i in range(n_fields)}
    try:
        table = pc.read_csv(
            path,
            read_options=pc.ReadOptions(autogenerate_column_names=True),
            parse_options=pc.ParseOptions(delimiter=delimiter, quote_char=False, double_quote=False,
                                          escape_char=False, ignore_empty_lines=True),
            convert_options=pc.ConvertOptions(column_types=types, include_columns=[f"f{i}" for i in usecols],
                                              strings_can_be_null=False, null_values=[]),
        )
    except (pa.ArrowException, OSError, ValueError):
        return None
    frame = table.to_pandas()
    frame.columns = names
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
            score that is not a number or is NaN; the message names the file and the line. ``inf`` and ``-inf``
            are accepted: trec_eval reads scores with ``atof`` and orders them first and last.

    """
    p = Path(path)
    checks: list[tuple[int, Callable[[str], bool], str]] = [
        (4, _is_float, "a number (the score)"), (4, _is_not_nan, "a number, not NaN (it has no trec_eval order)")]
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
    checks: list[tuple[int, Callable[[str], bool], str]] = [(3, _is_label, "an integer (the relevance label, 64-bit)")]
    return _read_table(
        p, _QRELS_FIELDS, [0, 2, 3], ["query_id", "doc_id", "relevance"],
        {"query_id": str, "doc_id": str, "relevance": np.int64}, checks, "qrels",
    )
