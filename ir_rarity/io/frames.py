"""Turn the run and qrels shapes users hand us into one canonical DataFrame.

Accepted runs: a DataFrame with ir_measures columns (``query_id, doc_id, score``) or PyTerrier columns
(``qid, docno, score``), a dict of dicts ``{query_id: {doc_id: score}}``, an iterable of
``ir_measures.ScoredDoc`` (or any ``(query_id, doc_id, score)`` tuples), or a TREC run file path.

Accepted qrels: the same with ``relevance`` (PyTerrier: ``label``), an iterable of ``ir_measures.Qrel``, a
TREC qrels file path, or an ir_datasets dataset / dataset id.

The user's objects are never modified: every function returns a new frame.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.errors import InputError
from ir_rarity.io.raw import short
from ir_rarity.io.trec import read_trec_qrels, read_trec_run

__all__ = ["as_id_strings", "as_qrels_frame", "as_run_frame"]

_RUN_ALIASES = {"query_id": ("query_id", "qid"), "doc_id": ("doc_id", "docno"), "score": ("score",)}
_QRELS_ALIASES = {
    "query_id": ("query_id", "qid"),
    "doc_id": ("doc_id", "docno"),
    "relevance": ("relevance", "label"),
}


def _pick_columns(frame: pd.DataFrame, aliases: Mapping[str, tuple[str, ...]], what: str) -> dict[str, pd.Series]:
    """The column of each target name, by its first alias the frame has.

    Raises:
        InputError: no alias of a target is a column, or the one picked is a column twice (``frame[name]`` would
            be a frame, not a column), naming the frame (``what``) and the column.

    """
    picked: dict[str, pd.Series] = {}
    for target, names in aliases.items():
        name = next((n for n in names if n in frame.columns), None)
        if name is None:
            wanted = " or ".join(repr(n) for n in names)
            raise InputError(f"{what} DataFrame has no column {wanted} (found {list(frame.columns)})")
        count = int((frame.columns == name).sum())
        if count > 1:
            raise InputError(f"{what} DataFrame has {count} columns named {short(name, 20)}: keep one (e.g. "
                             "frame.loc[:, ~frame.columns.duplicated()])")
        picked[target] = frame[name]
    return picked


def as_id_strings(column: pd.Series, source: str, name: str) -> pd.Series:
    """An id column as strings, by the one rule for ids given in frames, whatever scalar type holds them.

    trec_eval 10.0 reads query ids and docnos as text, so every id here becomes the text that names it:

    * strings (``str``, ``numpy.str_``, pandas and Arrow string columns) are kept as they are;
    * ``bytes`` (``numpy.bytes_``, ``bytearray``, Arrow binary) are decoded as UTF-8;
    * integers (Python, numpy, pandas nullable) are written in decimal, booleans as ``True`` / ``False``;
    * floats of every width that hold whole numbers are written as those integers (``1.0`` and
      ``numpy.float32(1.0)`` -> ``'1'``, as pandas makes of an integer column with a missing value), so that a
      float, an integer and a string column name the same query or document; other floats as Python writes
      them (``'1.5'``, ``numpy.float32(0.1)`` -> ``'0.1'``).

    Raises:
        InputError: a missing id (None, NaN, pd.NA, NaT), naming the frame, the column and the row; bytes that
            are not UTF-8; or a value of any other type (an object, a date, a Decimal), naming the column and
            the value's type.

    """
    if _may_miss(column) and len(missing := np.flatnonzero(column.isna().to_numpy())):
        row = int(missing[0])
        raise InputError(f"column {name!r} has a missing id at row {row} (index {short(column.index[row])})", source)
    if isinstance(column.dtype, pd.CategoricalDtype):
        column = column.astype(column.cat.categories.dtype)
    dtype = column.dtype
    if pd.api.types.is_float_dtype(dtype):
        return _float_ids(column)
    if pd.api.types.is_object_dtype(dtype):
        if pd.api.types.infer_dtype(column, skipna=False) == "string":
            return column
        return column.map(lambda value: _id_text(value, source, name))  # Python objects: each by the same rule
    if pd.api.types.is_string_dtype(dtype) and not _is_binary(dtype):
        return column  # already a string dtype: no copy needed (pandas copies on write)
    if pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
        return column.astype(str)
    return column.astype(object).map(lambda value: _id_text(value, source, name))  # bytes, dates, ...: by value


def _is_binary(dtype: object) -> bool:
    """Whether ``dtype`` holds bytes (numpy ``S``, Arrow binary): pandas counts these as string dtypes."""
    if getattr(dtype, "kind", None) == "S":
        return True
    arrow = getattr(dtype, "pyarrow_dtype", None)
    if arrow is None:
        return False
    import pyarrow as pa

    return bool(pa.types.is_binary(arrow) or pa.types.is_large_binary(arrow) or pa.types.is_fixed_size_binary(arrow))


def _float_ids(column: pd.Series) -> pd.Series:
    """A float column's ids: whole numbers as integers, the others as the column's own type writes them."""
    values = column.to_numpy(np.float64)
    whole = np.isfinite(values) & (values == np.floor(values)) & (np.abs(values) < 2.0**63)
    text = np.empty(len(values), dtype=object)
    text[whole] = values[whole].astype(np.int64).astype(str)
    text[~whole] = [str(v) for v in column.to_numpy()[~whole]]
    return pd.Series(text, index=column.index, dtype=object)


def _may_miss(column: pd.Series) -> bool:
    """False when an Arrow string column counts no nulls (known without a scan); else True (scan it)."""
    to_arrow = getattr(column.array, "__arrow_array__", None)
    if to_arrow is None or column.dtype == object or not pd.api.types.is_string_dtype(column.dtype):
        return True
    return bool(to_arrow().null_count)


def _id_text(value: object, source: str, name: str) -> str:
    """One id value as text by the rule of :func:`as_id_strings` (every scalar type of Python, numpy, pandas)."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"column {name!r} holds bytes that are not UTF-8 text ({short(bytes(value))})",
                             source) from None
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        number = float(value)
        if np.isfinite(number) and number.is_integer() and abs(number) < 2.0**63:
            return str(int(number))
        return str(value)
    raise InputError(f"column {name!r} holds an id of type {type(value).__name__} ({short(value)}): ids are "
                     "strings, bytes (UTF-8), integers or floats", source)


def _finish_run(columns: Mapping[str, pd.Series], source: str) -> pd.DataFrame:
    """The canonical run frame from its three columns, positionally (the caller's index is dropped).

    Arrow-backed string columns share the caller's immutable Arrow buffers (no copy); the scores are copied.
    """
    score = columns["score"]
    if score.dtype != np.float64:
        numbers = pd.to_numeric(score, errors="coerce")
        bad = np.flatnonzero(numbers.isna().to_numpy() & score.notna().to_numpy())
        if len(bad):
            row = int(bad[0])
            raise InputError(f"scores must be numbers, found {short(score.iloc[row])} at row {row}", source)
        score = numbers.astype(np.float64)
    return pd.DataFrame({
        "query_id": as_id_strings(columns["query_id"], source, "query_id").array.copy(),
        "doc_id": as_id_strings(columns["doc_id"], source, "doc_id").array.copy(),
        "score": score.to_numpy(dtype=np.float64, copy=True),
    }, copy=False)


def _is_canonical_run(frame: pd.DataFrame) -> bool:
    """Whether ``frame`` already is a canonical run frame (checked without a pass over its rows)."""
    if list(frame.columns) != ["query_id", "doc_id", "score"] or frame["score"].dtype != np.float64:
        return False
    if not isinstance(frame.index, pd.RangeIndex) or frame.index.start != 0 or frame.index.step != 1:
        return False
    return all(column.dtype != object and pd.api.types.is_string_dtype(column.dtype) and not _may_miss(column)
               for column in (frame["query_id"], frame["doc_id"]))


def as_run_frame(run: Any, source: str = "run") -> pd.DataFrame:
    """Return ``run`` as a DataFrame with columns ``query_id`` (str), ``doc_id`` (str), ``score`` (float64).

    A frame that already is exactly that (those three columns, Arrow string ids without nulls, float64 scores,
    a default index), as the readers return, is returned itself: nothing ever changes it in place. Any other
    shape gives a new frame.

    Args:
        run: Any of the run shapes in the module docstring.
        source: A name for the run, used in error messages.

    Raises:
        InputError: the shape is not recognised, a column is missing, or a score is not a number.

    """
    if isinstance(run, (str, os.PathLike)):
        frame = read_trec_run(run)
        return frame[["query_id", "doc_id", "score"]]
    if isinstance(run, pd.DataFrame):
        if _is_canonical_run(run):
            return run
        return _finish_run(_pick_columns(run, _RUN_ALIASES, f"{source}:"), source)
    if isinstance(run, Mapping):
        rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
        frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
        return _finish_run({c: frame[c] for c in frame.columns}, source)
    if isinstance(run, Iterable):
        frame = pd.DataFrame(_tuples(run, ("query_id", "doc_id", "score"), source),
                             columns=["query_id", "doc_id", "score"])
        return _finish_run({c: frame[c] for c in frame.columns}, source)
    raise InputError(f"unsupported run type {type(run).__name__}: give a DataFrame, a dict of dicts, an iterable "
                     "of ir_measures.ScoredDoc or a TREC run file path", source)


def _tuples(items: Iterable[Any], fields: tuple[str, ...], source: str) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for item in items:
        if hasattr(item, "_fields"):
            try:
                out.append(tuple(getattr(item, f) for f in fields))
            except AttributeError:
                raise InputError(f"record {item!r} lacks one of the fields {fields}", source) from None
        elif isinstance(item, tuple) and len(item) >= len(fields):
            out.append(item[: len(fields)])
        else:
            raise InputError(f"record {item!r} is not a named tuple with fields {fields}", source)
    return out


def _finish_qrels(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    frame["query_id"] = as_id_strings(frame["query_id"], source, "query_id")
    frame["doc_id"] = as_id_strings(frame["doc_id"], source, "doc_id")
    raw = frame["relevance"]
    labels = pd.to_numeric(raw, errors="coerce")
    as_float = labels.to_numpy(np.float64)
    bad = np.flatnonzero(np.isnan(as_float) | (as_float != np.floor(as_float)) | (np.abs(as_float) >= 2.0**63))
    if len(bad):
        row = int(bad[0])
        raise InputError(f"relevance labels must be 64-bit integers, found {short(raw.iloc[row])} at row {row}",
                         source)
    frame["relevance"] = labels.astype(np.int64)
    return frame


def as_qrels_frame(qrels: Any, source: str = "qrels") -> pd.DataFrame:
    """Return ``qrels`` as a new DataFrame with columns ``query_id``, ``doc_id`` (str), ``relevance`` (int64).

    Args:
        qrels: Any of the qrels shapes in the module docstring.
        source: A name for the qrels, used in error messages.

    Raises:
        InputError: the shape is not recognised, a column is missing, or a label is not an integer.

    """
    if isinstance(qrels, (str, os.PathLike)):
        if qrels == "-" or Path(qrels).exists() or not isinstance(qrels, str):
            return read_trec_qrels(qrels)
        return _ir_datasets_qrels(qrels)
    if hasattr(qrels, "qrels_iter"):
        return _finish_qrels(
            pd.DataFrame(_tuples(qrels.qrels_iter(), ("query_id", "doc_id", "relevance"), source),
                         columns=["query_id", "doc_id", "relevance"]), source)
    if isinstance(qrels, pd.DataFrame):
        return _finish_qrels(pd.DataFrame(_pick_columns(qrels, _QRELS_ALIASES, f"{source}:")).reset_index(drop=True),
                             source)
    if isinstance(qrels, Mapping):
        rows = [(q, d, r) for q, docs in qrels.items() for d, r in docs.items()]
        return _finish_qrels(pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"]), source)
    if isinstance(qrels, Iterable):
        frame = pd.DataFrame(_tuples(qrels, ("query_id", "doc_id", "relevance"), source),
                             columns=["query_id", "doc_id", "relevance"])
        return _finish_qrels(frame, source)
    raise InputError(f"unsupported qrels type {type(qrels).__name__}: give a DataFrame, a dict of dicts, an "
                     "iterable of ir_measures.Qrel, a TREC qrels file path or an ir_datasets id", source)


def _ir_datasets_qrels(dataset_id: str) -> pd.DataFrame:
    from ir_rarity.io.datasets import fetch

    return fetch(dataset_id, "qrels", lambda dataset: as_qrels_frame(dataset, dataset_id))
