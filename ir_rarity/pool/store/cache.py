"""A disk cache of count tables: a campaign named by files is counted once, not on every call.

The stock command ``ir_measures QRELS RUN "P_rare(pool='runs/*.gz')@100"`` runs in a new process each time; without
this cache every call would read and count the whole campaign again. The first call counts S_d at the depth the
measure needs and stores the :class:`~ir_rarity.pool.counts.CountTable` (counts and the members' fingerprints,
not the runs) as an ``.npz`` of numeric arrays (:mod:`ir_rarity.pool.store.cachefile`, which reads it with numpy alone:
the provider's warm path, :mod:`ir_rarity.integrations.warm`); later calls read that table.

* **Where.** ``$IR_RARITY_CACHE`` if set, else ``$XDG_CACHE_HOME/ir_rarity``, else ``~/.cache/ir_rarity``.
  ``IR_RARITY_CACHE=off`` (or ``0``, ``no``, ``false``, ``none``) turns the cache off.
* **Key.** A SHA-256 of every source file's :func:`~ir_rarity.pool.build.sources.file_signature` (path, inode, size,
  mtime, ctime: a file rewritten, touched or replaced gets a new key), what the files were read as (runs or a
  saved pool), and everything that changes the counts: depth, teams, duplicates, ``keep_depth``,
  ``split_by_tag``, the score precision, the cache file format and :data:`CACHE_VERSION`. The key is also
  stored in the file's metadata and checked on load, so a file copied or renamed into place is not trusted.
* **Bound.** At most ``$IR_RARITY_CACHE_SIZE`` bytes (default 1 GiB; suffixes K, M, G accepted): after each
  write the least recently used tables (a hit refreshes a table's modification time) are removed until the
  cache fits.
* **Only its own files.** The cache lists every table it writes in an index in its folder
  (``ir_rarity-cache-index.json``); eviction and the removal of a damaged table touch only a listed table of the
  cache's own name that is a regular file right in the folder (:mod:`ir_rarity.pool.store.cachefile`). Any other file
  there (a count table the user exported as ``counts-trec-depth10.parquet``, with ``IR_RARITY_CACHE=.``) is never
  removed and does not count toward the bound.
* **Concurrency.** Tables are written to a temporary file in the cache folder and renamed into place
  (:func:`ir_rarity.io.files.write_with`), so a reader never sees a partial table; two processes counting the
  same campaign at once each write a whole table and the last rename wins.
* **Trust.** A table is checked on load like any count table (the archive's CRC-32 of each array, sorted unique keys
  within the vocabularies, S_d in [1, S], S_d summing to the members' rows:
  :func:`~ir_rarity.pool.store.cachefile.read_cached`); one that fails (damaged, foreign, of another key) is removed
  and counted again, never scored. Loading never runs code (no pickle).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from ir_rarity.engine.runs import string_hashes
from ir_rarity.errors import InputError
from ir_rarity.pool.build.sources import Origin
from ir_rarity.pool.counts import CountTable
from ir_rarity.pool.store.cachefile import (
    CACHE_ENV,
    CACHE_VERSION,
    DEFAULT_LIMIT,
    LIMIT_ENV,
    cache_dir,
    cache_key,
    cache_limit,
    cache_path,
    evict,
    forget,
    read_cached,
    touch,
    write_cached,
)

__all__ = ["CACHE_ENV", "CACHE_VERSION", "DEFAULT_LIMIT", "LIMIT_ENV", "cache_dir", "cache_key", "cache_limit",
           "cached_counts", "evict", "write_table"]


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
    path = cache_path(folder, key)
    table = _read(path, key, origin, depth, options.get("scores"))
    if table is not None:
        return table
    table = _with_origin(count(), origin)  # an error here stays the one line it is: nothing said before
    at = "whole runs" if depth is None else f"depth {depth}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_table(path, key, table)
        evict(folder, cache_limit(), keep=path)
    except (OSError, InputError) as e:  # a read-only or full disk: the counts are right, not kept
        sys.stderr.write(f"ir_rarity: counted S_d of {what} ({len(origin.files)} files, {at}) but cannot cache it "
                         f"in {path} ({type(e).__name__}); the next call counts again\n")
    else:
        sys.stderr.write(f"ir_rarity: counted S_d of {what} ({len(origin.files)} files, {at}) once; cached in "
                         f"{path} for the next calls ({CACHE_ENV}=off to turn off)\n")
    return table


def write_table(path: Path, key: str, table: CountTable) -> None:
    """Write ``table`` to the cache file ``path`` of ``key`` (:func:`~ir_rarity.pool.store.cachefile.write_cached`).

    The table's vocabularies go with the string hashes of their query ids and docnos, so that a reader can
    fingerprint an evaluated run's rows without hashing (the warm path of the provider).
    """
    queries, docs = table.vocabularies()
    write_cached(path, key, queries=[str(q) for q in queries], docs=[str(d) for d in docs],
                 query_hash=string_hashes(queries), doc_hash=string_hashes(docs), keys=table._keys,
                 counts=table._counts, members=table.members, num_systems=table.num_systems, systems=table.systems,
                 n_runs=table.n_runs if table.n_runs is not None else len(table.members), depth=table.depth,
                 scores=table.scores)


def _read(path: Path, key: str, origin: Origin, depth: int | None, scores: Any) -> CountTable | None:
    """The cached table at ``path`` if it is there, valid and of this key; a bad one is removed."""
    if not path.is_file():
        return None
    try:
        cached = read_cached(path, key, depth)
        if cached is None:
            return None
        if scores is not None and cached.scores != scores:
            raise InputError("counted otherwise than its key says", os.fspath(path))
        table = CountTable.from_codes(pd.Index(cached.strings("queries")), pd.Index(cached.strings("docs")),
                                      cached.arrays["keys"], cached.arrays["counts"], cached.num_systems, depth,
                                      cached.systems, members=cached.members(), n_runs=cached.n_runs,
                                      origin=origin, scores="float64" if cached.scores == "float64" else "float32")
    except InputError:  # damaged, foreign or of another key: never trusted, counted again
        with contextlib.suppress(OSError):
            forget(path)  # removed if the cache wrote it; else left, and replaced when the new table is written
        return None
    touch(path)  # most recently used
    return table


def _with_origin(table: CountTable, origin: Origin) -> CountTable:
    """``table``, recording the files it was counted from."""
    table.origin = origin
    return table
