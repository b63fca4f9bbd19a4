"""Opening an input for the readers: files, standard input, pipes and compressed files, within documented bounds.

Every TREC reader gets its bytes through :func:`open_input`, so these rules hold for runs and qrels alike:

* ``-`` is standard input. Pipes, process substitution (``<(cat run)``), FIFOs and character devices are read
  once, in full, and give exactly what the same bytes in a file give (nothing is lost to format sniffing).
* Compression is recognised by content (magic bytes), not by name: gzip (inflated in native code by python-isal,
  every member, as ``gzip.GzipFile`` reads them), bzip2, xz and zstd (every frame, by the ``zstandard`` package;
  a frame cut short is an error, not a shorter file) are decompressed; zip and tar archives are refused with a
  message saying so. A zip archive or a parquet file must be one by more
  than its first four bytes (a valid end-of-central-directory record; the parquet footer magic ``PAR1`` at the
  end): a run whose first query id is ``PAR1`` is a run.
* Bounds, checked while reading, in bounded memory: no line may be longer than :data:`MAX_LINE_BYTES`; a
  compressed input may not expand to more than :data:`MAX_EXPANSION` times its compressed size (plus
  :data:`EXPANSION_ALLOWANCE`); a stream may not exceed :data:`MAX_STREAM_BYTES`. Real TREC runs expand 2 to 6
  times; a decompression bomb or ``/dev/zero`` is stopped with a one-line :class:`~ir_rarity.errors.InputError`.
"""

from __future__ import annotations

import bz2
import io
import lzma
import os
import stat
import sys
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, cast

from ir_rarity.errors import InputError

__all__ = ["EXPANSION_ALLOWANCE", "MAX_EXPANSION", "MAX_LINE_BYTES", "MAX_STREAM_BYTES", "Input", "is_plain_file",
           "open_input", "short"]

MAX_LINE_BYTES = 1 << 20
"""The longest line accepted (1 MiB): far beyond any TREC line, short enough to stop a file without newlines."""
MAX_EXPANSION = 20
"""How many times its compressed size a compressed input may expand to (real runs: 2 to 6 times)."""
EXPANSION_ALLOWANCE = 32 << 20
"""Bytes a compressed input may always expand to, whatever its ratio (32 MiB), so small files are never refused."""
MAX_STREAM_BYTES = 8 << 30
"""The most a pipe or standard input may deliver (8 GiB)."""

_CHUNK = 4 << 20
_MAGIC = {b"\x1f\x8b": "gzip", b"BZh": "bzip2", b"\xfd7zXZ\x00": "xz", b"\x28\xb5\x2f\xfd": "zstd",
          b"PK\x03\x04": "zip", b"PAR1": "parquet", b"\x93NUMPY": "npy"}


def short(text: Any, limit: int = 40) -> str:
    """``repr`` of a field for an error message, cut to ``limit`` characters: errors never quote a whole line."""
    value = str(text)
    return repr(value) if len(value) <= limit else repr(value[:limit]) + f"... ({len(value)} characters)"


class Input:
    """An opened input: a regular file the parsers may read by path, or the bytes of anything else.

    Attributes:
        name: The name to show in messages (the path, or ``<stdin>``).
        path: The regular, uncompressed file to read by path, or None.
        data: The (decompressed) bytes, when not read by path.

    """

    def __init__(self, name: str, path: Path | None = None, data: bytes | bytearray | None = None) -> None:
        self.name, self.path, self.data = name, path, data

    def source(self) -> Any:
        """What a parser reads: the path, or a zero-copy reader over the bytes."""
        import pyarrow as pa

        return self.path if self.path is not None else pa.BufferReader(pa.py_buffer(self.data or b""))

    def text_lines(self) -> Iterator[str]:
        """The lines as text, split at LF only as trec_eval 10.0 splits them, a leading byte order mark dropped.

        For locating an error; the parsers do not loop over lines.
        """
        raw = self.path.read_bytes() if self.path is not None else (self.data or b"")
        yield from bytes(raw).decode("utf-8-sig").split("\n")


def _kind(head: bytes) -> str | None:
    for magic, kind in _MAGIC.items():
        if head.startswith(magic):
            return kind
    if len(head) >= 262 and head[257:262] == b"ustar":
        return "tar"
    return None


def _confirmed(kind: str | None, handle: IO[bytes]) -> bool:
    """Whether a seekable input whose first bytes say ``kind`` is one: parquet and zip are checked at their end.

    A parquet file ends with the footer magic ``PAR1`` (Apache Parquet format); a zip archive has a valid
    end-of-central-directory record (``zipfile.is_zipfile``). Other kinds are taken at their first bytes.
    """
    if kind == "parquet":
        size = handle.seek(0, os.SEEK_END)
        ok = size >= 12 and handle.seek(-4, os.SEEK_END) >= 0 and handle.read(4) == b"PAR1"
    elif kind == "zip":
        ok = zipfile.is_zipfile(handle)
    else:
        return kind is not None
    handle.seek(0)
    return ok


def _longest_line(chunk: bytes | bytearray, carried: int) -> tuple[int, int]:
    """Longest line in ``chunk`` (counting ``carried`` bytes of an unfinished line before it) and the new carry.

    The unfinished last line counts too. When every line is known to be within :data:`MAX_LINE_BYTES`, the first
    value may be a lower bound, never above the bound: single-byte searches (memchr speed) tell most chunks apart
    (:func:`_within_bound`); only a chunk they cannot clear is measured line by line, in numpy.
    """
    first = chunk.find(b"\n")
    if first < 0:
        return carried + len(chunk), carried + len(chunk)
    tail = len(chunk) - chunk.rfind(b"\n") - 1
    if _within_bound(chunk, first, len(chunk) - tail - 1):
        return max(carried + first, tail), tail
    return _longest_line_exact(chunk, carried)


def _within_bound(chunk: bytes | bytearray, first: int, last: int) -> bool:
    """Whether no line between the newlines at ``first`` and ``last`` can be longer than :data:`MAX_LINE_BYTES`.

    Such a line would hold a whole block of half the bound from ``first + 1`` on, in steps of half the bound;
    a block holding a newline (found in its first bytes on real input) rules it out.
    """
    half = MAX_LINE_BYTES // 2
    return all(chunk.find(b"\n", start, start + half) >= 0 for start in range(first + 1, last - half + 1, half))


def _longest_line_exact(chunk: bytes | bytearray, carried: int) -> tuple[int, int]:
    """:func:`_longest_line` measured line by line (numpy), the unfinished last line included."""
    import numpy as np  # here: this module's short() is used by the command line's parser, which starts without numpy

    newlines = np.flatnonzero(np.frombuffer(chunk, dtype=np.uint8) == 10)
    gaps = np.diff(newlines) - 1
    tail = len(chunk) - int(newlines[-1]) - 1
    return max(carried + int(newlines[0]), int(gaps.max()) if len(gaps) else 0, tail), tail


def _read_bounded(stream: IO[bytes], name: str, limit: int, what: str, first: bytes = b"",
                  check_lines: bool = True) -> bytearray:
    """Read ``first`` then ``stream`` to its end in chunks, refusing over-long lines and more than ``limit`` bytes."""
    data = bytearray()
    carried = 0
    chunk = first or stream.read(_CHUNK)
    while chunk:
        if len(data) + len(chunk) > limit:
            raise InputError(f"{what}: refusing to read past {limit:,} bytes (bounds: ir_rarity.io.raw)", name)
        if check_lines:
            longest, carried = _longest_line(chunk, carried)
            if longest > MAX_LINE_BYTES:
                raise InputError(f"a line longer than {MAX_LINE_BYTES:,} bytes: not a TREC file", name)
        data += chunk
        chunk = stream.read(_CHUNK)
    return data


def _decompressor(kind: str, raw: IO[bytes]) -> Any:
    if kind == "bzip2":
        return bz2.BZ2File(raw)
    if kind == "zstd":
        import zstandard  # here: the command line's parser starts without it

        return zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True, closefd=False)
    return lzma.LZMAFile(raw)


def _check_zstd_frames(source: IO[bytes]) -> None:
    """Raise :class:`_DamagedZstd` unless ``source`` (from its start) is whole zstd frames, the last one ended.

    ``zstandard``'s stream reader returns what it decoded of a frame cut short and then ends, silently; this
    second pass, run once the data is known to decode within the bounds, feeds the frames to a decompression
    object chunk by chunk (the output dropped) and checks that each frame reached its end.
    """
    import zstandard

    source.seek(0)
    pending = source.read(_CHUNK)
    while pending:
        frame = zstandard.ZstdDecompressor().decompressobj()
        while True:
            frame.decompress(pending)
            if frame.eof:
                pending = frame.unused_data or source.read(_CHUNK)
                break
            pending = source.read(_CHUNK)
            if not pending:
                raise _DamagedZstd("truncated: the data ends inside a frame")


class _DamagedZstd(Exception):
    """Zstd data that ends inside a frame."""


class _DamagedGzip(Exception):
    """Gzip data with a corrupt member, that ends inside one, or has bytes after its last that start none."""


def _inflate_module() -> Any:
    """python-isal's ``isal_zlib`` (Intel ISA-L: about twice zlib's inflate speed), or the standard ``zlib``.

    Both release the GIL while they inflate, so two files are decompressed on two cores.
    """
    try:
        from isal import isal_zlib  # here: the command line's parser starts without it
    except ImportError:  # pragma: no cover (a dependency; the standard library's zlib reads the same bytes)
        return zlib
    return isal_zlib


def _gunzip(stream: IO[bytes], name: str, limit: int, what: str) -> bytes | bytearray:
    """Inflate every gzip member of ``stream`` in native code, chunk by chunk, within ``limit`` and the line bound.

    Members follow each other as ``gzip.GzipFile`` reads them: zero bytes between or after members are padding;
    any other byte after a member must start the next one. Each member's CRC-32 and length are checked.

    Raises:
        InputError: more than ``limit`` bytes, or a line longer than :data:`MAX_LINE_BYTES`.
        _DamagedGzip: a corrupt member, the data ends inside a member, or trailing bytes start no member.

    """
    lib = _inflate_module()
    inflater, carried, pending, full = lib.decompressobj(31), 0, b"", False
    data: bytes | bytearray = b""  # the first chunk as inflated (a run file is mostly one: no copy), then grown
    while True:
        if inflater.eof:
            pending = _next_member(inflater.unused_data, stream)
            if not pending:
                return data
            inflater, full = lib.decompressobj(31), False
        if not (pending or full):
            pending = stream.read(_CHUNK)
            if not pending:
                raise _DamagedGzip("truncated: the data ends inside a member")
        try:
            chunk = inflater.decompress(pending, _CHUNK)
        except lib.error as e:  # zlib.error, or isal_zlib's IsalError
            raise _DamagedGzip(f"a corrupt member: {type(e).__name__}") from None
        pending, full = inflater.unconsumed_tail, len(chunk) == _CHUNK
        if len(data) + len(chunk) > limit:
            raise InputError(f"{what}: refusing to read past {limit:,} bytes (bounds: ir_rarity.io.raw)", name)
        longest, carried = _longest_line(chunk, carried)
        if longest > MAX_LINE_BYTES:
            raise InputError(f"a line longer than {MAX_LINE_BYTES:,} bytes: not a TREC file", name)
        data = _appended(data, chunk)


def _appended(data: bytes | bytearray, chunk: bytes) -> bytes | bytearray:
    """``data`` then ``chunk``: the chunk itself when it is the first (no copy), else grown in place."""
    if not data:
        return chunk
    grown = data if isinstance(data, bytearray) else bytearray(data)
    grown += chunk
    return grown


def _next_member(rest: bytes, stream: IO[bytes]) -> bytes:
    """The bytes from the start of the next gzip member after ``rest`` (zero padding skipped), or b"" at the end."""
    rest = rest.lstrip(b"\0")
    while len(rest) < 2:
        more = stream.read(_CHUNK)
        if not more:
            break
        rest += more.lstrip(b"\0") if not rest else more
    if rest and rest[:2] != b"\x1f\x8b":
        raise _DamagedGzip("trailing bytes after the last member")
    return rest


def open_input(path: str | os.PathLike[str], kind: str = "TREC") -> Input:
    """Open ``path`` (or ``-`` for standard input) for a reader, within the bounds of this module.

    Raises:
        InputError: missing, a folder, unreadable, an unsupported compression or archive, damaged compressed data,
            an over-long line, or more data than the bounds allow; the message names the input.

    """
    name = os.fspath(path)
    if name == "-":
        return _from_stream(sys.stdin.buffer, "<stdin>", None, kind)
    p = Path(name)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise InputError(f"no such {kind} file", name) from None
    except OSError as e:
        raise InputError(f"cannot be read ({e.strerror or type(e).__name__})", name) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"is a directory, expected a {kind} file", name)
    try:
        handle = open(p, "rb")  # noqa: SIM115 (closed below)
    except OSError as e:
        raise InputError(f"cannot be read ({e.strerror or type(e).__name__})", name) from None
    with handle:
        if not stat.S_ISREG(st.st_mode):  # a pipe, FIFO or device: read once, in full
            return _from_stream(handle, name, None, kind)
        head = handle.read(_CHUNK)
        compressed = _kind(head)
        if not _confirmed(compressed, handle):  # text (a run whose first query id is PAR1 included)
            longest, carried = _longest_line(head, 0)
            if max(longest, carried) > MAX_LINE_BYTES:
                raise InputError(f"a line longer than {MAX_LINE_BYTES:,} bytes: not a TREC file", name)
            return Input(name, path=p)
        handle.seek(0)
        return _from_stream(handle, name, st.st_size, kind)


def is_plain_file(path: str | os.PathLike[str]) -> bool:
    """Whether :func:`open_input` reads ``path`` by path: a regular file that is not compressed nor an archive.

    Such a file's bytes are its text, so byte ranges of it can be read apart (a block of a large run file); any
    other input (missing, a pipe, compressed) is read whole, where its errors are raised.
    """
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # before opening it: opening a FIFO waits for a writer
            return False
        with open(path, "rb") as handle:
            return not _confirmed(_kind(handle.read(262)), handle)
    except OSError:
        return False


def _from_stream(stream: IO[bytes], name: str, size: int | None, kind: str) -> Input:
    """Bytes of a stream (from its start), decompressed when its first bytes say it is compressed.

    ``size`` is the size of a regular (seekable) compressed file, None for a pipe or standard input.
    """
    first = stream.read(_CHUNK)
    compressed = _kind(first[:262])
    if size is None and compressed in ("parquet", "zip"):  # a pipe: its whole bytes say whether it is one
        data = _read_bounded(stream, name, MAX_STREAM_BYTES, "a stream this long", first, check_lines=False)
        if not _confirmed(compressed, io.BytesIO(bytes(data))):
            if max(_longest_line(bytes(data), 0)) > MAX_LINE_BYTES:
                raise InputError(f"a line longer than {MAX_LINE_BYTES:,} bytes: not a TREC file", name)
            return Input(name, data=data)
    if compressed in _REFUSED:
        raise InputError(f"cannot be read as a {kind} file: {_REFUSED[compressed]}", name)
    if compressed is None:
        return Input(name, data=_read_bounded(stream, name, MAX_STREAM_BYTES, "a stream this long", first))
    if size is None:  # a compressed pipe: take its compressed bytes whole (bounded), then decompress
        packed = _read_bounded(stream, name, MAX_STREAM_BYTES, "a stream this long", first, check_lines=False)
        size, source = len(packed), cast(IO[bytes], io.BytesIO(bytes(packed)))
    else:
        stream.seek(0)
        source = stream
    return Input(name, data=_decompress(compressed, source, name, MAX_EXPANSION * size + EXPANSION_ALLOWANCE))


def _decompress(compressed: str, source: IO[bytes], name: str, limit: int) -> bytes | bytearray:
    """The decompressed bytes of ``source``, at most ``limit``; damaged data is a one-line :class:`InputError`."""
    what = f"{compressed} data expanding more than {MAX_EXPANSION} times its size"
    try:
        if compressed == "gzip":
            return _gunzip(source, name, limit, what)
        data = _read_bounded(_decompressor(compressed, source), name, limit, what)
        if compressed == "zstd":
            _check_zstd_frames(source)
        return data
    except InputError:
        raise
    except (_DamagedGzip, _DamagedZstd) as e:
        raise InputError(f"cannot be decoded: damaged {compressed} data ({e})", name) from None
    except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError, _zstd_error()) as e:
        raise InputError(f"cannot be decoded: damaged {compressed} data ({type(e).__name__})", name) from None


def _zstd_error() -> type[Exception]:
    """``zstandard.ZstdError`` (what it raises on data it cannot decode), or ValueError if it is not installed."""
    try:
        import zstandard  # here: the command line's parser starts without it
    except ImportError:  # pragma: no cover (a dependency)
        return ValueError
    return cast(type[Exception], zstandard.ZstdError)


_REFUSED = {
    "zip": "a zip archive (a saved pool .npz is read where a pool is named, not as a TREC file)",
    "tar": "a tar archive: extract it first",
    "parquet": "a parquet file (a count table is read where a pool is named, not as a TREC file)",
    "npy": "a numpy array file, not a TREC file",
}
