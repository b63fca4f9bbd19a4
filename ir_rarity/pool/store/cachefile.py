"""Where the disk cache of count tables lives, how its files are keyed and bounded, and their format: numpy alone.

:mod:`ir_rarity.pool.store.cache` counts a campaign and keeps its count table here; the ir_measures provider's quick way
(:mod:`ir_rarity.integrations.tuples`) reads a kept table with this module only, so that a repeated call
of the stock command imports neither pandas nor pyarrow. See :mod:`ir_rarity.pool.store.cache` for the rules (where,
key, bound, concurrency, trust).

A cache file is an ``.npz`` archive of numeric arrays (``numpy.savez``, read with ``allow_pickle=False``, so
loading one never runs code), written atomically:

=====================  =========  ==========================================================================
array                  dtype      holds
=====================  =========  ==========================================================================
``header``             uint8      JSON: format, key, S, what S counts, runs, depth, scores
``queries``            <U         the sorted query-id vocabulary, as a numpy unicode array (or, when that would
                                  take far more room than its text, or a string ends with NUL: ``queries_utf8``
                                  and ``queries_ends``, its UTF-8 bytes and end offsets)
``docs``               <U         the sorted docno vocabulary (likewise, or ``docs_utf8`` and ``docs_ends``)
``query_hash``         uint64     :func:`~ir_rarity.engine.runs.string_hashes` of each query id
``doc_hash``           uint64     the same of each docno (with ``query_hash``: what fingerprints a run's rows)
``keys``               int64      sorted pair keys (``query code << 32 | doc code``) retrieved within the depth
``counts``             int64      S_d of each key
``names_utf8/ends``    uint8/i8   the members' names
``sizes``, ``sums``    i8/u8      the members' fingerprints at the depth (rows within it, sum of row hashes)
=====================  =========  ==========================================================================

The cache touches only files it wrote. It keeps an index of them, ``ir_rarity-cache-index.json`` in the cache
folder (name, key, size of each table; rewritten atomically under the lock file ``.ir_rarity-cache-index.lock``,
so that processes writing at once lose no entry; a damaged or foreign index counts as empty). Eviction
(:func:`evict`) and the removal of a damaged table (:func:`forget`) consider only a file that the index lists, that
has the cache's own name (``counts-`` and 40 hexadecimal digits) and that is a regular file right in the cache
folder (a symlink is never followed): a user's ``counts-trec-depth10.parquet`` in a folder the cache was pointed at
(``IR_RARITY_CACHE=.``) is never removed. Tables written before the index existed are not listed and so are left
in place (remove them by hand).

Damage is caught by the archive's own CRC-32 of each member (``zipfile`` checks it as numpy reads the member),
and every invariant a count table has is checked on load (:func:`read_cached`); a file that fails is never
scored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO, cast

import numpy as np

from ir_rarity.engine.codes import KEY_SHIFT
from ir_rarity.errors import InputError
from ir_rarity.io.files import write_text, write_with
from ir_rarity.pool.build.paths import Origin
from ir_rarity.pool.store.npz import check_members, json_header, pack_strings, string_array, unpack_strings

__all__ = ["CACHE_ENV", "CACHE_VERSION", "DEFAULT_LIMIT", "FORMAT", "INDEX_NAME", "LIMIT_ENV", "CachedCounts",
           "cache_dir", "cache_key", "cache_limit", "cache_path", "evict", "forget", "listed", "read_cached", "touch",
           "write_cached"]

CACHE_ENV = "IR_RARITY_CACHE"
LIMIT_ENV = "IR_RARITY_CACHE_SIZE"
CACHE_VERSION = 2
"""Part of every key: bump it when a change to the counting changes what a table counted from the same files
holds, so that no table counted before is read again. 2: tables kept as ``.npz`` (1: parquet)."""
DEFAULT_LIMIT = 1 << 30
"""Default bound of the cache folder: 1 GiB."""
FORMAT = "ir_rarity.counts-cache/1"
INDEX_NAME = "ir_rarity-cache-index.json"
"""The cache's index of the tables it wrote, in the cache folder (see the module docstring)."""
_INDEX_FORMAT = "ir_rarity.cache-index/1"
_LOCK_NAME = ".ir_rarity-cache-index.lock"

_OFF = {"off", "0", "no", "false", "none"}
_PREFIX = "counts-"
_SUFFIXES = (".npz", ".parquet")  # .parquet: tables of version 1, still bounded (and so removed in time)
_NAME = re.compile(r"counts-[0-9a-f]{40}\.(?:npz|parquet)")  # the names cache_path gives: nothing else is removed
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_STRINGS = ("queries", "docs", "names")
_AS_ARRAY = ("queries", "docs")  # stored as numpy unicode arrays where that is compact: read without decoding
_NUMBERS = {"query_hash": "u8", "doc_hash": "u8", "keys": "i8", "counts": "i8", "sizes": "i8", "sums": "u8"}


def cache_dir() -> Path | None:
    """The cache folder (see :mod:`ir_rarity.pool.store.cache`), or None when the cache is turned off."""
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
        origin: What the files were read as and their signatures (:class:`~ir_rarity.pool.build.paths.Origin`).
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
    described = [CACHE_VERSION, FORMAT, origin.kind, sorted(origin.files), depth,
                 {k: dict(sorted(v.items())) if isinstance(v, Mapping) else v for k, v in sorted(options.items())}]
    return hashlib.sha256(json.dumps(described, sort_keys=True).encode("utf-8")).hexdigest()[:40]


def cache_path(folder: Path, key: str) -> Path:
    """The file of ``key`` in the cache ``folder``."""
    return folder / f"{_PREFIX}{key}{_SUFFIXES[0]}"


class CachedCounts:
    """A count table as the cache keeps it (:func:`read_cached`), checked; strings decoded when asked for.

    Attributes:
        arrays: The file's arrays (see the module docstring), the header left out.
        num_systems: S.
        systems: ``"runs"`` or ``"teams"``.
        n_runs: The runs counted.
        depth: The depth S_d was counted at (None: whole runs).
        scores: How the members' rankings were ordered (``"float32"`` or ``"float64"``).

    """

    def __init__(self, arrays: dict[str, np.ndarray], *, num_systems: int, systems: str, n_runs: int,
                 depth: int | None, scores: str) -> None:
        self.arrays, self.num_systems, self.systems, self.n_runs = arrays, num_systems, systems, n_runs
        self.depth, self.scores = depth, scores
        self._decoded: dict[str, np.ndarray | None] = {}

    def strings(self, name: str) -> list[str]:
        """The strings ``name`` (``"queries"``, ``"docs"`` or ``"names"``) as a list."""
        if name in self.arrays:
            return cast("list[str]", self.arrays[name].tolist())
        return unpack_strings(self.arrays[f"{name}_utf8"], self.arrays[f"{name}_ends"])

    def vocabulary(self, name: str) -> np.ndarray | None:
        """The vocabulary ``name`` (``"queries"``, ``"docs"``) as a sorted numpy unicode array, checked sorted.

        Returns:
            The array, or None when numpy strings cannot hold it (a string ending with a NUL character).

        Raises:
            InputError: the vocabulary is not sorted and unique.

        """
        if name not in self._decoded:
            values = self.arrays.get(name)
            if values is None:
                values = string_array(self.arrays[f"{name}_utf8"], self.arrays[f"{name}_ends"])
            if values is not None and len(values) > 1 and not (values[1:] > values[:-1]).all():
                raise InputError(f"the cached {name} vocabulary is not sorted and unique")
            self._decoded[name] = values
        return self._decoded[name]

    def members(self) -> dict[str, tuple[int, int]]:
        """Member name -> its fingerprint ``(rows within the depth, sum of their hashes)``."""
        return {name: (int(n), int(h)) for name, n, h in zip(self.strings("names"), self.arrays["sizes"].tolist(),
                                                              self.arrays["sums"].tolist(), strict=True)}


def write_cached(path: Path, key: str, *, queries: Sequence[str], docs: Sequence[str], query_hash: np.ndarray,
                 doc_hash: np.ndarray, keys: np.ndarray, counts: np.ndarray, members: Mapping[str, tuple[int, int]],
                 num_systems: int, systems: str, n_runs: int, depth: int | None, scores: str) -> None:
    """Write a count table to ``path`` (atomically: a temporary file renamed into place).

    Args:
        path: The cache file (:func:`cache_path`).
        key: Its key, stored and checked on load.
        queries: The sorted query-id vocabulary.
        docs: The sorted docno vocabulary.
        query_hash: String hash of each query id.
        doc_hash: String hash of each docno.
        keys: Sorted pair keys in these vocabularies.
        counts: S_d of each key.
        members: Member name -> fingerprint at ``depth``.
        num_systems: S.
        systems: ``"runs"`` or ``"teams"``.
        n_runs: The runs counted.
        depth: The depth S_d was counted at.
        scores: How the members' rankings were ordered.

    """
    arrays: dict[str, np.ndarray] = {}
    for name, strings in (("queries", list(queries)), ("docs", list(docs)), ("names", list(members))):
        packed = pack_strings([str(s) for s in strings])
        as_array = _as_array(strings, len(packed[0])) if name in _AS_ARRAY else None
        if as_array is not None:
            arrays[name] = as_array
        else:
            arrays[f"{name}_utf8"], arrays[f"{name}_ends"] = packed
    numbers = {"query_hash": query_hash, "doc_hash": doc_hash, "keys": keys, "counts": counts,
               "sizes": np.array([s for s, _ in members.values()], dtype=np.int64),
               "sums": np.array([h for _, h in members.values()], dtype=np.uint64)}
    arrays.update({name: np.ascontiguousarray(values, dtype=_NUMBERS[name]) for name, values in numbers.items()})
    header = {"format": FORMAT, "key": key, "num_systems": int(num_systems), "systems": systems, "runs": int(n_runs),
              "depth": depth, "scores": scores}
    arrays["header"] = np.frombuffer(json.dumps(header, sort_keys=True).encode("utf-8"), dtype=np.uint8).copy()

    def write(tmp: os.PathLike[str]) -> None:
        with open(tmp, "wb") as f:  # a file object: np.savez would append ".npz" to a path
            np.savez(f, **cast("dict[str, Any]", arrays))

    write_with(path, write)
    _record(path, key)


def _as_array(strings: list[str], utf8_bytes: int) -> np.ndarray | None:
    """``strings`` as a numpy unicode array, or None if one would take far more room or cannot hold them exactly."""
    width = max(map(len, strings), default=0)
    if 4 * width * len(strings) > 8 * utf8_bytes + (1 << 20) or any(s.endswith("\x00") for s in strings):
        return None  # a few long strings would pad every other; a trailing NUL would be dropped
    return np.array(strings, dtype=f"U{max(width, 1)}")


def read_cached(path: Path, key: str, depth: int | None) -> CachedCounts | None:
    """The table cached at ``path`` for ``key`` at ``depth``, checked; None if there is none.

    Raises:
        InputError: the file is damaged, foreign, of another key or depth, or breaks an invariant of a count table
            (the caller removes it and counts again).

    """
    source = os.fspath(path)
    try:
        with open(source, "rb") as file:  # one open file, checked and read, whatever is renamed over it meanwhile
            arrays = _arrays(file, source)
    except (FileNotFoundError, IsADirectoryError):
        return None
    except OSError as e:
        raise InputError(f"cannot read cache file ({type(e).__name__})", source) from None
    header = _header(arrays.pop("header", None), source)
    expected = set(_NUMBERS) | {name if name in arrays else f"{name}_{part}" for name in _STRINGS
                                for part in ("utf8", "ends")}
    if set(arrays) != expected:
        raise InputError("damaged cache file (unexpected arrays)", source)
    if header.get("key") != key or header.get("depth") != depth:
        raise InputError("a cache file of another key or depth", source)
    table = CachedCounts(arrays, num_systems=header["num_systems"], systems=header["systems"],
                         n_runs=header["runs"], depth=depth, scores=header["scores"])
    _check(table, source)
    return table


def _arrays(file: BinaryIO, source: str) -> dict[str, np.ndarray]:
    """Every array of the open archive, its members checked first (:func:`~ir_rarity.pool.store.npz.check_members`)."""
    try:
        if not zipfile.is_zipfile(file):
            raise InputError("not an ir_rarity cache file", source)
        check_members(source, "cache file", file)
        file.seek(0)
        with np.load(file, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except InputError:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, KeyError, RuntimeError) as e:
        raise InputError(f"damaged cache file ({type(e).__name__})", source) from None


def _header(raw: np.ndarray | None, source: str) -> dict[str, Any]:
    header = json_header(raw, source, "cache file", FORMAT)
    s, runs = header.get("num_systems"), header.get("runs")
    if not (isinstance(s, int) and isinstance(runs, int) and s >= 1 and header.get("systems") in ("runs", "teams")
            and header.get("scores") in ("float32", "float64")):
        raise InputError("damaged cache file (header)", source)
    return header


def _string_counts(a: dict[str, np.ndarray], source: str) -> dict[str, int]:
    """How many strings each list holds, its arrays checked well formed."""
    n = {}
    for name in _STRINGS:
        if name in a:
            if name not in _AS_ARRAY or a[name].dtype.kind != "U" or a[name].ndim != 1:
                raise InputError(f"damaged cache file (strings {name!r})", source)
            n[name] = len(a[name])
            continue
        data, ends = a[f"{name}_utf8"], a[f"{name}_ends"]
        if data.dtype != np.uint8 or data.ndim != 1 or ends.dtype != np.int64 or ends.ndim != 1 or (len(ends) and (
                ends[-1] != len(data) or ends[0] < 0 or (np.diff(ends) < 0).any())) or (not len(ends) and len(data)):
            raise InputError(f"damaged cache file (strings {name!r})", source)
        n[name] = len(ends)
    return n


def _check(table: CachedCounts, source: str) -> None:
    """Every invariant of a count table, in vectorized passes (as ``CountTable.from_codes`` checks its input)."""
    a = table.arrays
    n = _string_counts(a, source)
    for name, kind in _NUMBERS.items():
        if a[name].dtype != np.dtype(kind) or a[name].ndim != 1:
            raise InputError(f"damaged cache file (array {name!r})", source)
    keys, counts, sizes = a["keys"], a["counts"], a["sizes"]
    s, runs = table.num_systems, table.n_runs
    if len(a["query_hash"]) != n["queries"] or len(a["doc_hash"]) != n["docs"] or len(counts) != len(keys) \
            or len(sizes) != n["names"] or len(a["sums"]) != n["names"] or n["names"] != runs:
        raise InputError("damaged cache file (arrays of different lengths)", source)
    if len(keys) and ((np.diff(keys) <= 0).any() or keys[0] < 0 or (keys[-1] >> KEY_SHIFT) >= n["queries"]
                      or ((keys & ((1 << KEY_SHIFT) - 1)) >= n["docs"]).any()):
        raise InputError("invalid cache file: count keys are not sorted, unique pairs of the vocabularies", source)
    if len(counts) and (counts.min() < 1 or counts.max() > s):
        raise InputError(f"invalid cache file: S_d must be whole numbers in [1, S = {s}]", source)
    total, rows = int(counts.sum()), int(sizes.sum())
    if runs < s or (table.systems == "runs" and runs != s) or total > rows or (table.systems == "runs"
                                                                                and total != rows):
        raise InputError(f"invalid cache file: S = {s} {table.systems} for {runs} runs, S_d summing to {total} "
                         f"over {rows} member rows", source)


def touch(path: Path) -> None:
    """Mark a cache file most recently used (its modification time), if it is still there."""
    with contextlib.suppress(OSError):
        os.utime(path)


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold the cache folder's index lock (``flock`` of its lock file; no lock where ``fcntl`` is missing)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: entries written at the same moment may be lost (the files are kept then)
        yield
        return
    fd = os.open(folder / _LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _read_index(folder: Path) -> dict[str, dict[str, Any]]:
    """The index's entries (name -> key, size) of the cache's own names; a missing or damaged index is empty."""
    try:
        data = json.loads((folder / INDEX_NAME).read_bytes())
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) and data.get("format") == _INDEX_FORMAT else None
    if not isinstance(files, dict):
        return {}
    return {name: entry for name, entry in files.items()
            if isinstance(name, str) and _NAME.fullmatch(name) and isinstance(entry, dict)}


def _write_index(folder: Path, files: Mapping[str, Any]) -> None:
    write_text(folder / INDEX_NAME, json.dumps({"format": _INDEX_FORMAT, "files": dict(sorted(files.items()))},
                                               indent=1) + "\n")


def _record(path: Path, key: str) -> None:
    """List the table just written at ``path`` in its folder's index (a name not the cache's own is not listed)."""
    if not _NAME.fullmatch(path.name):
        return
    folder = path.parent
    with _locked(folder):
        files = _read_index(folder)
        files[path.name] = {"key": key, "size": os.lstat(path).st_size}
        _write_index(folder, files)


def _own(folder: Path, name: str) -> os.stat_result | None:
    """The status of the cache's table ``name`` if it is a regular file right in ``folder`` (not through a link)."""
    try:
        st = os.lstat(folder / name)
    except OSError:
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def listed(folder: Path) -> list[Path]:
    """The tables of ``folder`` that the cache wrote: listed in its index, of its own names, regular files there."""
    return [folder / name for name in sorted(_read_index(folder)) if _own(folder, name) is not None]


def forget(path: Path) -> bool:
    """Remove the damaged or foreign table at ``path`` if the cache wrote it (its index lists it); else leave it.

    Returns:
        Whether it was removed.

    """
    folder = path.parent
    with _locked(folder):
        files = _read_index(folder)
        if path.name not in files:
            return False
        del files[path.name]
        removed = _own(folder, path.name) is not None
        if removed:
            with contextlib.suppress(OSError):
                path.unlink()
        _write_index(folder, files)
    return removed


def evict(folder: Path, limit: int, keep: Path | None = None) -> list[Path]:
    """Remove the least recently used tables of ``folder`` until the rest take at most ``limit`` bytes.

    Only tables the cache wrote are considered (:func:`listed`): any other file, whatever its name, is never
    removed and does not count toward the bound.

    Args:
        folder: The cache folder.
        limit: The bound in bytes.
        keep: A table removed only if it alone exceeds the bound (the one just written).

    Returns:
        The tables removed (another process may have removed some of them first).

    """
    removed: list[Path] = []
    with _locked(folder):
        files = _read_index(folder)
        entries: list[tuple[float, int, Path]] = []
        changed = False
        for name in list(files):
            st = _own(folder, name)
            if st is None:  # gone (another process removed it) or no longer a file of ours: not listed any more
                del files[name]
                changed = True
            else:
                entries.append((st.st_mtime, st.st_size, folder / name))
        total = sum(size for _, size, _ in entries)
        order: Sequence[tuple[float, int, Path]] = sorted(entries, key=lambda e: (e[2] == keep, e[0]))
        for _, size, path in order:
            if total <= limit:
                break
            with contextlib.suppress(OSError):
                path.unlink()
            del files[path.name]
            removed.append(path)
            total -= size
        if changed or removed:
            _write_index(folder, files)
    return removed
