"""A disk cache of count tables: a campaign named by files is counted once, not on every call.

The stock command ``ir_measures QRELS RUN "P_rare(pool='runs/*.gz')@100"`` runs in a new process each time; without
this cache every call would read and count the whole campaign again. The first call counts S_d at the depth the
measure needs and stores the :class:`~ir_rarity.pool.counts.CountTable` (counts and the members' fingerprints,
not the runs) as parquet; later calls read that table.

* **Where.** ``$IR_RARITY_CACHE`` if set, else ``$XDG_CACHE_HOME/ir_rarity``, else ``~/.cache/ir_rarity``.
  ``IR_RARITY_CACHE=off`` (or ``0``, ``no``, ``false``, ``none``) turns the cache off.
* **Key.** A SHA-256 of every source file's :func:`~ir_rarity.pool.sources.file_signature` (path, inode, size,
  mtime, ctime: a file rewritten, touched or replaced gets a new key), what the files were read as (runs or a
  saved pool), and everything that changes the counts: depth, teams, duplicates, ``keep_depth``,
  ``split_by_tag``, the score precision, the count table format and :data:`CACHE_VERSION`. The key is also
  stored in the file's metadata and checked on load, so a file copied or renamed into place is not trusted.
* **Bound.** At most ``$IR_RARITY_CACHE_SIZE`` bytes (default 1 GiB; suffixes K, M, G accepted): after each
  write the least recently used tables (a hit refreshes a table's modification time) are removed until the
  cache fits.
* **Concurrency.** Tables are written to a temporary file in the cache folder and renamed into place
  (:func:`ir_rarity.io.files.write_with`), so a reader never sees a partial table; two processes counting the
  same campaign at once each write a whole table and the last rename wins.
* **Trust.** A table is checked on load like any count table (:meth:`CountTable.read_parquet`); one that fails
  (damaged, foreign, of another key) is removed and counted again, never scored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ir_rarity.errors import InputError
from ir_rarity.pool.counts import COUNTS_FORMAT, CountTable
from ir_rarity.pool.sources import Origin

__all__ = ["CACHE_ENV", "CACHE_VERSION", "DEFAULT_LIMIT", "LIMIT_ENV", "cache_dir", "cache_key", "cache_limit",
           "cached_counts", "evict"]

CACHE_ENV = "IR_RARITY_CACHE"
LIMIT_ENV = "IR_RARITY_CACHE_SIZE"
CACHE_VERSION = 1
"""Part of every key: bump it when a change to the counting changes what a table counted from the same files
holds, so that no table counted before is read again."""
DEFAULT_LIMIT = 1 << 30
"""Default bound of the cache folder: 1 GiB."""

_OFF = {"off", "0", "no", "false", "none"}
_PREFIX, _SUFFIX = "counts-", ".parquet"
_KEY_META = "cache_key"
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def cache_dir() -> Path | None:
    """The cache folder (see the module docstring), or None when the cache is turned off."""
    value = os.environ.get(CACHE_ENV)
    if value is not None and value.strip():
        return None if value.strip().lower() in _OFF else Path(value).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ir_rarity"


def cache_limit() -> int:
    """The bound of the cache folder in bytes: ``$IR_RARITY_CACHE_SIZE`` (e.g. ``500M``) or 1 GiB.

    Raises:
        InputError: the variable is not a size.

    """
    value = os.environ.get(LIMIT_ENV, "").strip()
    if not value:
        return DEFAULT_LIMIT
    match = re.fullmatch(r"(\d+)\s*([kmgt]?)i?b?", value.lower())
    if match is None:
        raise InputError(f"{LIMIT_ENV}={value!r} is not a size in bytes (e.g. 1073741824, 500M or 1G)")
    return int(match.group(1)) * _UNITS[match.group(2)]


def cache_key(origin: Origin, depth: int | None, **options: Any) -> str | None:
    """The key of the counts of ``origin``'s files at ``depth`` read with ``options``, or None if not cacheable.

    Args:
        origin: What the files were read as and their signatures (:class:`~ir_rarity.pool.sources.Origin`).
        depth: The depth S_d is counted at (None: whole runs).
        **options: Everything else that changes the counts (teams, duplicates, keep_depth, split_by_tag, scores).
            Values must be None, strings, numbers, booleans or mappings of strings; anything else (e.g. teams
            read from a leaderboard file, whose content the key would not see) makes the counts uncacheable.

    """
    for value in options.values():
        if not (value is None or isinstance(value, (str, int, float, bool)) or (
                isinstance(value, Mapping) and all(isinstance(k, str) and isinstance(v, str)
                                                   for k, v in value.items()))):
            return None
    if options.get("teams") is not None and not isinstance(options["teams"], Mapping):
        return None  # a leaderboard path: its content is not in the key
    described = [CACHE_VERSION, COUNTS_FORMAT, origin.kind, sorted(origin.files), depth,
                 {k: dict(sorted(v.items())) if isinstance(v, Mapping) else v for k, v in sorted(options.items())}]
    return hashlib.sha256(json.dumps(described, sort_keys=True).encode("utf-8")).hexdigest()[:40]


def cached_counts(origin: Origin, depth: int | None, count: Callable[[], CountTable], *, what: str,
                  **options: Any) -> CountTable:
    """The counts of ``origin`` at ``depth``: read from the disk cache, or ``count()``-ed and cached.

    Args:
        origin: The campaign's files (see :func:`cache_key`); the table returned carries it as its origin.
        depth: The depth S_d is counted at.
        count: Counts the campaign (reads its files); called when the cache has no valid table.
        what: How the campaign was named, for the one line saying the cache is being built.
        **options: What else changes the counts (see :func:`cache_key`).

    Returns:
        The :class:`~ir_rarity.pool.counts.CountTable` at ``depth``, with its members' fingerprints.

    """
    folder = cache_dir()
    key = None if folder is None else cache_key(origin, depth, **options)
    if folder is None or key is None:
        return _with_origin(count(), origin)
    path = folder / f"{_PREFIX}{key}{_SUFFIX}"
    table = _read(path, key, origin, depth, options.get("scores"))
    if table is not None:
        return table
    table = _with_origin(count(), origin)  # an error here stays the one line it is: nothing said before
    at = "whole runs" if depth is None else f"depth {depth}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        table.to_parquet(path, extra={_KEY_META: key})
        evict(folder, cache_limit(), keep=path)
    except (OSError, InputError) as e:  # a read-only or full disk, no pyarrow: the counts are right, not kept
        sys.stderr.write(f"ir_rarity: counted S_d of {what} ({len(origin.files)} files, {at}) but cannot cache it "
                         f"in {path} ({type(e).__name__}); the next call counts again\n")
    else:
        sys.stderr.write(f"ir_rarity: counted S_d of {what} ({len(origin.files)} files, {at}) once; cached in "
                         f"{path} for the next calls ({CACHE_ENV}=off to turn off)\n")
    return table


def _read(path: Path, key: str, origin: Origin, depth: int | None, scores: Any) -> CountTable | None:
    """The cached table at ``path`` if it is there, valid and of this key; a bad one is removed."""
    if not path.is_file():
        return None
    try:
        table = CountTable.read_parquet(path, expect={_KEY_META: key}, origin=origin)
        if table.depth != depth or (scores is not None and table.scores != scores):
            raise InputError("counted otherwise than its key says", os.fspath(path))
    except InputError:  # damaged, foreign or of another key: never trusted, counted again
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # most recently used
    return table


def _with_origin(table: CountTable, origin: Origin) -> CountTable:
    """``table``, recording the files it was counted from."""
    table.origin = origin
    return table


def evict(folder: Path, limit: int, keep: Path | None = None) -> list[Path]:
    """Remove the least recently used tables of ``folder`` until the rest take at most ``limit`` bytes.

    Args:
        folder: The cache folder.
        limit: The bound in bytes.
        keep: A table removed only if it alone exceeds the bound (the one just written).

    Returns:
        The tables removed (another process may have removed some of them first).

    """
    entries: list[tuple[float, int, Path]] = []
    for path in folder.glob(f"{_PREFIX}*{_SUFFIX}"):
        with contextlib.suppress(OSError):
            st = path.stat()
            entries.append((st.st_mtime, st.st_size, path))
    total = sum(size for _, size, _ in entries)
    removed = []
    order: Sequence[tuple[float, int, Path]] = sorted(entries, key=lambda e: (e[2] == keep, e[0]))
    for _, size, path in order:
        if total <= limit:
            break
        with contextlib.suppress(OSError):
            path.unlink()
        removed.append(path)
        total -= size
    return removed
