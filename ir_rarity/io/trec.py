"""Readers for TREC run and qrels files.

Input comes through :func:`ir_rarity.io.raw.open_input` (files, ``-`` for standard input, pipes, gzip/bzip2/xz;
bounded line length and expansion). The tokenizing rules, the same on every path (plain or compressed, runs and
qrels), are trec_eval 10.0's (``get_trec_results.c``, ``get_qrels.c``): a line ends at a line feed (LF); its fields are
separated by any run of ASCII whitespace (space, tab, CR, vertical tab, form feed), so leading and trailing
whitespace make no field and a CRLF line end is a plain line end. A line of a run has exactly 6 fields and a line
of qrels exactly 4. Blank lines are skipped, as trec_eval skips them; so are comment lines, whose first
non-blank character is ``#``; a UTF-8 byte order mark at the start of the (decompressed) input is dropped.

Two parsers, neither looping over rows in Python, giving the same frame for the same bytes:

* pyarrow's multithreaded CSV reader, when the first line shows one tab or one space between fields and the
  whole input is uniformly so delimited: no other whitespace byte and no lone CR (byte searches), no empty
  field (a doubled, leading or trailing delimiter) and no comment line (checked on its columns: every field is
  read). It refuses any line with another number of fields; in each of these cases the input goes to the second
  parser;
* otherwise every line is split on ASCII whitespace with pyarrow's string kernels, the fields of every line
  counted, and the columns taken from the flattened fields.

An error names the input, the line and what is wrong, quoting at most the offending field, cut short.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from ir_rarity.errors import InputError
from ir_rarity.io.raw import MAX_LINE_BYTES, Input, open_input, short

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["THREADED_BYTES", "read_trec_qrels", "read_trec_run", "read_trec_run_block", "read_trec_run_ranks",
           "read_trec_run_table"]

THREADED_BYTES = 32 << 20
"""Text from which pyarrow parses one file on its own threads too. A campaign's files (a few MB each) are read
two at a time (:mod:`ir_rarity.pool.build.sources`): parsing each on pyarrow's threads as well oversubscribed the
cores, and its threads' memory pools held tens of MB more (round 1's eval 1.6 -> 1.5 s, a 6 M-row campaign's
peak 300 -> 268 MB)."""

PathLike = str | os.PathLike[str]

_RUN_FIELDS = 6  # qid Q0 docno rank score tag
_QRELS_FIELDS = 4  # qid iteration docno relevance
_BOM = b"\xef\xbb\xbf"
_RUN_COLUMNS = {0: ("query_id", pa.string(), "a query id"), 2: ("doc_id", pa.string(), "a docno"),
                4: ("score", pa.float64(), "a number (the score)"), 5: ("tag", pa.string(), "a tag")}
_FLOAT = r"^[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|inf|infinity|nan)$"
_INTEGER = r"^[+-]?\d+$"


def _sniff_delimiter(first: bytes, n_fields: int) -> str | None:
    """The one-character delimiter of the first non-blank line if it splits it into exactly ``n_fields`` fields."""
    start = 0
    while start < len(first):  # line by line up to the first non-blank one (not a split of all 64 KiB)
        end = first.find(b"\n", start)
        end = len(first) if end < 0 else end
        line = first[start:end].rstrip(b"\r").decode("utf-8", "replace")
        start = end + 1
        if not line.strip():
            continue
        for delimiter in ("\t", " "):
            fields = line.split(delimiter)
            if len(fields) == n_fields and all(fields) and not any(c.isspace() for c in "".join(fields)):
                return delimiter
        return None
    return None


def _bytes(source: Input) -> bytes | bytearray:
    """The (decompressed) bytes of ``source``, read once for both parsers."""
    return source.path.read_bytes() if source.path is not None else (source.data or b"")


def _no_other_whitespace(raw: bytes | bytearray, delimiter: bytes) -> bool:
    """Whether ``raw`` holds no whitespace byte but ``delimiter``, LF and the CR of CRLF line ends.

    trec_eval splits fields on any whitespace, the CSV reader on its delimiter only; and a lone CR ends a line
    for the CSV reader but is whitespace inside a line for trec_eval. Single-byte searches (memchr speed).
    """
    if any(raw.find(other) >= 0 for other in (b" ", b"\t", b"\x0b", b"\x0c") if other != delimiter):
        return False
    return raw.find(b"\r") < 0 or raw.count(b"\r") == raw.count(b"\r\n")


_HEX_LABEL = re.compile(rb"[ \t][+-]?0[xX][0-9A-Fa-f]*[ \t]*\r?$", re.MULTILINE)
"""A qrels line whose last field (the label) is written in hexadecimal, which pyarrow's integer parser accepts."""


def _with_csv_reader(raw: bytes | bytearray, n_fields: int, columns: dict[int, tuple[str, pa.DataType]],
                     at_start: bool = True) -> pa.Table | None:
    """Fast path: pyarrow's CSV reader with a uniform one-character delimiter; None when it does not apply.

    Every field is read (text as ``large_string``, the type pandas keeps text in), and the table checked for what
    trec_eval would read otherwise (:func:`_as_trec_eval_reads_it`); the columns of ``columns`` are returned.
    Text of :data:`THREADED_BYTES` or more is parsed on pyarrow's threads, less on the calling thread.
    pyarrow drops a leading UTF-8 byte order mark itself; a block of a file that is not its start (``at_start``
    False) keeping one at its start is left to the second parser, which keeps it as trec_eval does.
    """
    head = bytes(raw[: 1 << 16])
    if not at_start and head.startswith(_BOM):
        return None
    delimiter = _sniff_delimiter(head[len(_BOM):] if head.startswith(_BOM) else head, n_fields)
    if delimiter is None or not _no_other_whitespace(raw, delimiter.encode()):
        return None
    if n_fields == 4 and _HEX_LABEL.search(raw):  # pyarrow reads "0x10" as 16; the fallback refuses it, as a label
        return None
    types = {f"f{i}": columns[i][1] if i in columns else pa.string() for i in range(n_fields)}
    types = {name: pa.large_string() if kind == pa.string() else kind for name, kind in types.items()}
    try:
        table = pcsv.read_csv(
            pa.BufferReader(pa.py_buffer(raw)),
            read_options=pcsv.ReadOptions(autogenerate_column_names=True, block_size=max(1 << 20, MAX_LINE_BYTES),
                                          use_threads=len(raw) >= THREADED_BYTES),
            parse_options=pcsv.ParseOptions(delimiter=delimiter, quote_char=False, double_quote=False,
                                            escape_char=False, ignore_empty_lines=True),
            convert_options=pcsv.ConvertOptions(column_types=types, strings_can_be_null=False, null_values=[]),
        )
    except (pa.ArrowException, OSError, ValueError):
        return None
    if not _as_trec_eval_reads_it(table):
        return None
    return table.select([f"f{i}" for i in columns])


def _as_trec_eval_reads_it(table: pa.Table) -> bool:
    """Whether the CSV reader's rows are trec_eval's: no empty field and no comment line.

    With one delimiter and no other whitespace (:func:`_no_other_whitespace`), an empty field comes from a
    doubled, leading or trailing delimiter, which trec_eval's whitespace splitting skips (so its line has another
    number of fields); a comment line is one whose first field starts with ``#``. Column kernels, no row loop.
    """
    for name in table.column_names:
        column = table.column(name)
        if pa.types.is_large_string(column.type) and any(_has_empty(chunk) for chunk in column.chunks):
            return False
    return not (table.num_rows and pc.any(pc.starts_with(table.column("f0"), "#")).as_py())


def _has_empty(strings: pa.Array) -> bool:
    """Whether a ``large_string`` Array holds an empty string: two equal offsets in a row (no lengths computed)."""
    n = len(strings)
    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int64)[strings.offset:strings.offset + n + 1]
    return bool(n) and bool((offsets[1:] == offsets[:-1]).any())


def _split_lines(raw: bytes | bytearray, source: Input, n_fields: int, kind: str, first_byte: int = 0
                 ) -> tuple[list[pa.Array], np.ndarray]:
    """Every field of every line that is neither blank nor a comment; the columns and each row's 1-based line.

    ``first_byte``: where ``raw`` starts in its input (a block of a file): a byte an error names is counted from
    the input's start, and a byte order mark is dropped only at the input's start.

    Raises:
        InputError: not UTF-8, an over-long line, or a line with another number of fields.

    """
    try:
        text = bytes(raw).decode("utf-8") if isinstance(raw, bytearray) else raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise InputError(f"cannot be decoded: not UTF-8 text (byte {first_byte + e.start})", source.name,
                         line) from None
    if first_byte == 0 and text.startswith("\ufeff"):  # a byte order mark: not part of the first query id
        text = text[1:]
    lines = pc.list_flatten(pc.split_pattern(pa.array([text], pa.large_string()), "\n"))
    del text
    if len(lines) and int(pc.max(pc.binary_length(lines)).as_py() or 0) > MAX_LINE_BYTES:  # a file read by path
        raise InputError(f"a line longer than {MAX_LINE_BYTES:,} bytes: not a TREC {kind} file", source.name)
    trimmed = pc.ascii_trim_whitespace(lines)
    del lines
    comment = pc.starts_with(trimmed, "#").to_numpy(zero_copy_only=False)
    nonblank = (pc.binary_length(trimmed).to_numpy(zero_copy_only=False) > 0) & ~comment
    fields = pc.ascii_split_whitespace(trimmed)
    counts = np.where(nonblank, pc.list_value_length(fields).to_numpy(zero_copy_only=False), 0)
    wrong = np.flatnonzero(nonblank & (counts != n_fields))
    if len(wrong):
        line = int(wrong[0])
        raise InputError(f"expected {n_fields} whitespace-separated fields, found {int(counts[line])}"
                         f"{_swapped_hint(kind, int(counts[line]))}", source.name, line + 1)
    flat = pc.list_flatten(fields.filter(pa.array(nonblank)))
    n_rows = len(flat) // n_fields
    columns = [flat.take(pa.array(np.arange(i, n_rows * n_fields, n_fields))) for i in range(n_fields)]
    return columns, np.flatnonzero(nonblank) + 1


def _swapped_hint(kind: str, found: int) -> str:
    """A hint when a qrels line has a run's field count or a run line a qrels' (QRELS and RUNS given swapped)."""
    if kind == "qrels" and found == _RUN_FIELDS:
        return " (a run's 6 fields: is this a run? QRELS comes first, then RUNS)"
    if kind == "run" and found == _QRELS_FIELDS:
        return " (qrels' 4 fields: is this qrels? QRELS comes first, then RUNS)"
    return ""


def _convert(values: pa.Array, target: pa.DataType, line_of: np.ndarray, column: int, what: str, name: str
             ) -> pa.Array:
    """``values`` (strings) as ``target``, or an error naming the line and the offending field."""
    if pa.types.is_string(target) or pa.types.is_large_string(target):
        return values.cast(pa.string())
    pattern = _FLOAT if pa.types.is_floating(target) else _INTEGER
    valid = pc.match_substring_regex(values, pattern, ignore_case=True).to_numpy(zero_copy_only=False)
    bad = np.flatnonzero(~valid)
    if len(bad) == 0:
        if not pa.types.is_floating(target):  # trec_eval reads integers with atol: "+1" is 1 (pyarrow refuses "+")
            values = pc.replace_substring_regex(values, pattern=r"^\+", replacement="")
        try:
            return values.cast(target)
        except (pa.ArrowInvalid, OverflowError):  # integers beyond 64 bits
            lengths = pc.utf8_length(values).to_numpy(zero_copy_only=False)
            long = np.flatnonzero(lengths >= 19)
            bad = np.array([i for i in long if not -(2**63) <= int(str(values[int(i)])) < 2**63][:1], dtype=np.int64)
            if len(bad) == 0:  # any other value the cast refuses: found one by one (an error path only)
                bad = np.array([i for i in range(len(values)) if not _casts(values[i:i + 1], target)][:1],
                               dtype=np.int64)
            if len(bad) == 0:
                raise InputError(f"field {column + 1} must be {what}", name) from None
    first = int(bad[0])
    raise InputError(f"field {column + 1} must be {what}, found {short(values[first].as_py())}", name,
                     int(line_of[first]))


def _casts(values: pa.Array, target: pa.DataType) -> bool:
    """Whether ``values`` cast to ``target`` (to find the field a column's cast refused)."""
    try:
        values.cast(target)
    except (pa.ArrowInvalid, OverflowError):
        return False
    return True


def _read_arrow(path: PathLike, n_fields: int, columns: dict[int, tuple[str, pa.DataType, str]], kind: str
                ) -> tuple[pa.Table, Input, np.ndarray | None]:
    """The file's columns ``columns`` as a pyarrow Table, its input, and each row's line when the fallback read it."""
    source = open_input(path, kind)
    table, line_of = _parse(_bytes(source), source, n_fields, columns, kind)
    if table.num_rows == 0:
        raise InputError(f"empty {kind} file", source.name)
    return table, source, line_of


def _parse(raw: bytes | bytearray, source: Input, n_fields: int, columns: dict[int, tuple[str, pa.DataType, str]],
           kind: str, first_byte: int = 0) -> tuple[pa.Table, np.ndarray | None]:
    """The columns ``columns`` of the lines in ``raw``, and each row's line in ``raw`` when the fallback read them.

    ``raw`` is a whole input, or a block of a file starting at its byte ``first_byte``; no rows is not an error here.

    Raises:
        InputError: as the readers; a line named is counted from the start of ``raw``.

    """
    table = _with_csv_reader(raw, n_fields, {i: (c[0], c[1]) for i, c in columns.items()}, first_byte == 0)
    line_of: np.ndarray | None = None
    if table is not None:
        table = table.rename_columns([columns[int(c[1:])][0] for c in table.column_names])
    else:
        fields, line_of = _split_lines(raw, source, n_fields, kind, first_byte)
        table = pa.table({name: _convert(fields[i], target, line_of, i, what, source.name)
                          for i, (name, target, what) in columns.items()})
    del raw
    if "score" in table.column_names:
        nan = np.flatnonzero(pc.is_nan(table.column("score")).to_numpy(zero_copy_only=False))
        if len(nan):
            line = int(line_of[nan[0]]) if line_of is not None else _line_of_row(source, int(nan[0]))
            raise InputError("field 5 must be a number, not NaN (it has no trec_eval order), found 'nan'", source.name,
                             line)
    return table, line_of


def _read_table(path: PathLike, n_fields: int, columns: dict[int, tuple[str, pa.DataType, str]], kind: str
                ) -> pd.DataFrame:
    table, source, line_of = _read_arrow(path, n_fields, columns, kind)
    frame = table.to_pandas()
    if kind == "qrels":
        _refuse_duplicate_judgments(frame, source, line_of)
    wanted = [c[0] for c in columns.values()]
    return frame if list(frame.columns) == wanted else frame[wanted]  # (a selection by name costs 0.2 ms a file)


def _refuse_duplicate_judgments(frame: pd.DataFrame, source: Input, line_of: np.ndarray | None) -> None:
    """Refuse qrels judging a document twice for a query (as trec_eval does), naming the file and the line."""
    again = np.flatnonzero(frame.duplicated(["query_id", "doc_id"]).to_numpy())
    if len(again):
        row = int(again[0])
        line = int(line_of[row]) if line_of is not None else _line_of_row(source, row)
        raise InputError(f"query {short(frame['query_id'].iat[row])} judges document {short(frame['doc_id'].iat[row])} "
                         "twice (trec_eval rejects duplicate qrels too)", source.name, line)


def _line_of_row(source: Input, row: int) -> int:
    """1-based line number of the ``row``-th line that is neither blank nor a comment (only for an error message)."""
    seen = -1
    for number, line in enumerate(source.text_lines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            seen += 1
            if seen == row:
                return number
    return row + 1


def read_trec_run(path: PathLike) -> pd.DataFrame:
    """Read a TREC run file (``qid Q0 docno rank score tag``): plain, compressed, a pipe, or ``-`` for stdin.

    The rank column is read past and ignored: as in trec_eval, documents are ordered by score (descending), ties
    broken by docno (descending). See :mod:`ir_rarity.io.raw` for what may be read and its bounds.

    Args:
        path: The run file.

    Returns:
        A DataFrame with columns ``query_id``, ``doc_id`` (str), ``score`` (float64) and ``tag`` (str), in file
        order.

    Raises:
        InputError: the file is missing, empty, not decodable, or a line has another number of fields than 6 or a
            score that is not a number or is NaN; the message names the file and the line. ``inf`` and ``-inf``
            are accepted: trec_eval reads scores with ``atof`` and orders them first and last.

    """
    return _read_table(path, _RUN_FIELDS, _RUN_COLUMNS, "run")


def read_trec_run_ranks(path: PathLike) -> pd.DataFrame:
    """The rank column of a TREC run file beside what orders it: ``query_id``, ``doc_id``, ``rank``, ``score``, ``tag``.

    trec_eval reads past the rank column (:func:`read_trec_run`); this reads it, for the check that a run's rank
    column agrees with its score order. ``rank`` is the column as a number (NaN where it is not one).

    Raises:
        InputError: as :func:`read_trec_run`.

    """
    columns = {**_RUN_COLUMNS, 3: ("rank", pa.string(), "a rank")}
    table = _read_arrow(path, _RUN_FIELDS, dict(sorted(columns.items())), "run")[0]
    rank = table.column("rank")
    numeric = pc.if_else(pc.match_substring_regex(rank, _FLOAT), rank, pa.scalar(None, pa.string()))
    table = table.set_column(table.column_names.index("rank"), "rank", pc.cast(numeric, pa.float64()))
    return table.select(["query_id", "doc_id", "rank", "score", "tag"]).to_pandas()


def read_trec_run_table(path: PathLike) -> pa.Table:
    """:func:`read_trec_run` as a pyarrow Table (columns ``query_id``, ``doc_id``, ``score``, ``tag``), no pandas.

    The same rules, checks and errors; what a campaign read from files takes its runs from (a run is reduced to
    what its measures read straight from the Table, with no DataFrame in between).
    """
    return _read_arrow(path, _RUN_FIELDS, _RUN_COLUMNS, "run")[0]


def read_trec_run_block(path: PathLike, start: int, end: int) -> pa.Table:
    """The rows of the lines of a plain run file whose first byte lies in ``[start, end)``: a block of a large file.

    A line belongs to the block its first byte lies in, so blocks ``[0, b), [b, 2b), ...`` covering the file read
    every line once, and their rows in order are :func:`read_trec_run_table`'s. The bytes are parsed by the same
    tokenizer with the same checks and messages; a line (or byte) an error names is counted from the start of the
    file (the lines before the block are counted only then). A block without rows is an empty Table, unless the
    file has none: then, as when it is read whole, "empty run file".

    Args:
        path: A plain run file (regular, not compressed: :func:`~ir_rarity.io.raw.is_plain_file`).
        start: The block's first byte.
        end: The byte after the block's last.

    Returns:
        A Table with columns ``query_id``, ``doc_id``, ``score`` and ``tag``, in file order.

    Raises:
        InputError: as :func:`read_trec_run`; a file that is not plain cannot be read in blocks.

    """
    name = os.fspath(path)
    if start <= 0:  # what reading the file whole checks first: missing, compressed, an over-long line at its start
        source = open_input(path, "run")
        if source.path is None:
            raise InputError("cannot be read in blocks: not a plain (regular, uncompressed) file", name)
    try:
        with open(name, "rb") as handle:
            first, after = _line_start(handle, start, name), _line_start(handle, end, name)
            handle.seek(first)
            raw = handle.read(max(after - first, 0))
    except OSError as e:
        raise InputError(f"cannot be read ({e.strerror or type(e).__name__})", name) from None
    try:
        table, _ = _parse(raw, Input(name, data=raw), _RUN_FIELDS, _RUN_COLUMNS, "run", first)
    except InputError as e:
        if e.line is None:
            raise
        raise InputError(e.message, name, e.line + _lines_before(name, first)) from None
    if table.num_rows == 0 and not _has_rows(name):
        raise InputError("empty run file", name)
    return table


def _line_start(handle: BinaryIO, at: int, name: str) -> int:
    """The first byte of the first line starting at or after byte ``at`` (the file's size past its last line)."""
    if at <= 0:
        return 0
    handle.seek(at - 1)
    scanned = 0
    while chunk := handle.read(1 << 16):
        found = chunk.find(b"\n")
        if found >= 0:
            return at + scanned + found
        scanned += len(chunk)
        if scanned > MAX_LINE_BYTES:
            raise InputError(f"a line longer than {MAX_LINE_BYTES:,} bytes: not a TREC run file", name)
    return at - 1 + scanned


def _lines_before(name: str, end: int) -> int:
    """The number of line feeds in the first ``end`` bytes of a file (to name a line of a block in its file)."""
    count = 0
    with open(name, "rb") as handle:
        while end > 0 and (chunk := handle.read(min(end, 1 << 22))):
            count += chunk.count(b"\n")
            end -= len(chunk)
    return count


_ROW_LINE = re.compile(rb"^[ \t\r\x0b\x0c]*[^ \t\r\n\x0b\x0c#]", re.MULTILINE)
"""A line that is neither blank nor a comment: one the readers read a row from (or refuse)."""


def _has_rows(name: str) -> bool:
    """Whether a plain file has a line that is neither blank nor a comment (a leading byte order mark dropped)."""
    with open(name, "rb") as handle:
        data = handle.read(1 << 22)
        data = data[len(_BOM):] if data.startswith(_BOM) else data
        while True:
            more = handle.read(1 << 22)
            whole = len(data) if not more else data.rfind(b"\n") + 1  # complete lines only, but at the end
            if _ROW_LINE.search(data, 0, whole):
                return True
            if not more:
                return False
            data = data[whole:] + more
            if len(data) > MAX_LINE_BYTES + (1 << 22):  # a line too long for any reader: refused where it lies
                return True


def read_trec_qrels(path: PathLike) -> pd.DataFrame:
    """Read a TREC qrels file (``qid iteration docno relevance``): plain, compressed, a pipe, or ``-`` for stdin.

    Args:
        path: The qrels file.

    Returns:
        A DataFrame with columns ``query_id``, ``doc_id`` (str) and ``relevance`` (int64), in file order.

    Raises:
        InputError: the file is missing, empty, not decodable, or a line has another number of fields than 4 or a
            label that is not a 64-bit integer; the message names the file and the line.

    """
    return _read_table(path, _QRELS_FIELDS, {0: ("query_id", pa.string(), "a query id"),
                                             2: ("doc_id", pa.string(), "a docno"),
                                             3: ("relevance", pa.int64(), "an integer (the relevance label, 64-bit)")},
                       "qrels")

