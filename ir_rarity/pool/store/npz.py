"""Numeric ``.npz`` archives without pickles, numpy alone: strings as bytes, SHA-256 digests, bounded members.

What a saved pool (:mod:`ir_rarity.pool.store.storage`) and a file of the disk cache
(:mod:`ir_rarity.pool.store.cachefile`)
share: strings stored as their UTF-8 bytes and end offsets (:func:`pack_strings`), read back as a list
(:func:`unpack_strings`) or as one numpy unicode array (:func:`string_array`, without a Python step per string for
ASCII text); a digest of arrays (:func:`digest`); and the check, before anything is allocated, that no member
declares more than it holds (:func:`check_members`).
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from typing import Any, BinaryIO

import numpy as np

from ir_rarity.errors import InputError
from ir_rarity.io.raw import EXPANSION_ALLOWANCE, MAX_EXPANSION, short

__all__ = ["check_members", "digest", "json_header", "pack_strings", "string_array", "unpack_strings"]


def pack_strings(strings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Strings as one uint8 array of their UTF-8 bytes and int64 end offsets (exact, any length or character)."""
    encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
    ends = np.cumsum([len(b) for b in encoded], dtype=np.int64) if encoded else np.zeros(0, dtype=np.int64)
    return np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), ends


def unpack_strings(data: np.ndarray, ends: np.ndarray) -> list[str]:
    """The strings :func:`pack_strings` packed."""
    raw = data.tobytes()
    starts = np.concatenate([[0], ends[:-1]]) if len(ends) else ends
    return [raw[a:b].decode("utf-8", "surrogatepass") for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]


def string_array(data: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The strings :func:`pack_strings` packed, as a numpy unicode array, or None where one cannot hold them.

    ASCII text is laid out in a fixed-width byte matrix by one scatter and cast (no Python step per string); other
    text is decoded string by string. A numpy string drops trailing NUL characters, so strings ending with one
    (which would compare equal to others) give None. ``ends`` must be checked already (non-decreasing, ending at
    ``len(data)``).
    """
    n = len(ends)
    starts = np.zeros(n, dtype=np.int64)
    starts[1:] = ends[:-1]
    lengths = ends - starts
    if (data[ends[lengths > 0] - 1] == 0).any():  # a trailing NUL: numpy would drop it
        return None
    width = max(int(lengths.max()) if n else 0, 1)
    if len(data) and int(data.max()) >= 128:
        return np.array(unpack_strings(data, ends), dtype=f"U{width}")
    matrix = np.zeros((n, width), dtype=np.uint8)
    row = np.repeat(np.arange(n), lengths)
    matrix[row, np.arange(len(data)) - starts[row]] = data
    return matrix.view(f"S{width}").reshape(n).astype(f"U{width}")


def json_header(raw: np.ndarray | None, source: str, what: str, form: str) -> dict[str, Any]:
    """The JSON header of an ir_rarity ``.npz`` file (its bytes as a uint8 array), checked to be of format ``form``.

    Raises:
        InputError: no header, an unreadable one, or another format; the message names ``what`` the file should be.

    """
    if raw is None or raw.dtype != np.uint8 or raw.ndim != 1:
        raise InputError(f"not an ir_rarity {what} (no header)", source)
    try:
        header = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise InputError(f"damaged {what} (unreadable header)", source) from None
    if not isinstance(header, dict) or header.get("format") != form:
        raise InputError(f"not an ir_rarity {what}", source)
    return header


def digest(arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 over every array's name, dtype, shape and bytes, in name order."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(json.dumps([name, a.dtype.str, list(a.shape)]).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def check_members(path: str, what: str = "pool file", file: BinaryIO | None = None) -> None:
    """Refuse, before anything is allocated, a zip whose members declare more than they hold.

    Every member must be a ``.npy`` array whose header's shape and dtype fit the member's stored size, and no
    member may expand more than :data:`ir_rarity.io.raw.MAX_EXPANSION` times (``numpy.savez`` stores them
    uncompressed), so a hostile file cannot make the reader allocate more memory than its own size.

    Args:
        path: The archive (named in the messages).
        what: What the file should be, for the messages (``"pool file"``).
        file: The archive already open (so that what is checked is what is then read), else None: open ``path``.

    """
    size = os.fstat(file.fileno()).st_size if file is not None else os.path.getsize(path)
    with zipfile.ZipFile(file if file is not None else path) as archive:
        members = archive.infolist()
        if len(members) > 64:
            raise InputError(f"not an ir_rarity {what} ({len(members)} members)", path)
        if sum(m.file_size for m in members) > MAX_EXPANSION * size + EXPANSION_ALLOWANCE:
            raise InputError(f"not an ir_rarity {what} (members expand beyond the file's size)", path)
        for member in members:
            with archive.open(member) as f:
                try:
                    version = np.lib.format.read_magic(f)
                    if version == (1, 0):
                        shape, _, dtype = np.lib.format.read_array_header_1_0(f)
                    else:
                        shape, _, dtype = np.lib.format.read_array_header_2_0(f)
                except ValueError:
                    raise InputError(f"damaged {what} (member {short(member.filename)} is not an array)",
                                     path) from None
                if dtype.hasobject:
                    raise InputError(f"not a valid ir_rarity {what} (it holds Python objects)", path)
                declared = int(np.prod(shape, dtype=np.float64)) * dtype.itemsize
                if declared > member.file_size:
                    raise InputError(f"damaged {what} (member {short(member.filename)} declares {declared:,} "
                                     f"bytes but holds {member.file_size:,})", path)
