"""Save a campaign's :class:`~ir_rarity.pool.build.encoded.EncodedRuns` to one file and load them back, safely.

The file is an ``.npz`` archive (``numpy.savez``, uncompressed) of numeric arrays only: the encoded arrays,
their strings (run, team, query and document names) as UTF-8 bytes plus offsets, and a JSON header (also
stored as bytes) with the format name, its version and a SHA-256 checksum of everything else. Nothing is
pickled, and the file is read with ``allow_pickle=False``, so loading a file cannot run code. A file that was
changed or cut short, or is not a pool file at all, is refused with an :class:`~ir_rarity.errors.InputError`
naming it, and no array is allocated before its declared size is checked against what the file holds. The
checksum guards against damage (a truncated copy, flipped bits), not against tampering: whoever can write the
file can write a matching checksum. So every invariant the engine relies on is checked on load as well, in
vectorized O(rows) passes (:func:`check_invariants`): a file with a valid checksum whose arrays break one (S
below the systems its runs name, unsorted vocabularies, ranks that do not count 0, 1, 2, ..., a document twice
in a ranking) is refused with one line naming the file and the invariant, never scored. Loading never executes
code either way. Files are written atomically (:mod:`ir_rarity.io.files`).

Format version 2 also stores the campaign's S_d and its members' fingerprints at a few depths
(:data:`COUNT_DEPTHS`, and whole runs), so that a measure needing S_d alone reads only those
(:func:`load_counts`: the header, the names, the vocabularies and the counts at one depth) instead of loading
every row and counting again. The header then lists, per depth, which arrays hold its counts, and a SHA-256 of
each array, so that what is read alone is checked alone; the counts read are checked as any count table's are
(sorted, unique keys in the vocabularies, S_d in [1, S], their sum against the members' rows). Version 1 files
(no counts) load as before; :func:`load_counts` then returns None and the counts are counted from the rows.
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from ir_rarity.engine.codes import SCORE_PRECISIONS, ScorePrecision
from ir_rarity.engine.runs import content_hashes, run_fingerprints, string_hashes
from ir_rarity.errors import InputError
from ir_rarity.io.files import write_with
from ir_rarity.io.raw import short
from ir_rarity.pool.build.encoded import EncodedRuns
from ir_rarity.pool.build.runs import key_index
from ir_rarity.pool.store.npz import check_members as _check_members
from ir_rarity.pool.store.npz import digest as _digest
from ir_rarity.pool.store.npz import json_header
from ir_rarity.pool.store.npz import pack_strings as _pack
from ir_rarity.pool.store.npz import unpack_strings as _unpack

__all__ = ["COUNT_DEPTHS", "FORMAT", "VERSION", "StoredCounts", "check_invariants", "load_counts", "load_runs",
           "save_runs"]

FORMAT = "ir_rarity.pool"
VERSION = 2
READABLE = (1, 2)
"""Format versions this ir_rarity reads: 1 (runs only) and 2 (runs, and counts at :data:`COUNT_DEPTHS`)."""

COUNT_DEPTHS: tuple[int | None, ...] = (5, 10, 20, 100, 1000, None)
"""Depths a saved pool stores S_d and fingerprints at (None: whole runs), the usual cutoffs of TREC measures."""

_COUNT_PARTS = ("keys", "sd", "sizes", "sums")

# Array names in the file (format version 1) -> fields of EncodedRuns. "groups" holds the system code of each run.
_NUMERIC = {"run": "run", "query": "query", "doc": "doc", "score": "score", "rank": "rank", "groups": "system"}
_STRINGS = {"names": "names", "group_names": "system_names", "queries": "queries", "docs": "docs"}
_HEADER = "header"


def _arrays_of(encoded: EncodedRuns) -> dict[str, np.ndarray]:
    arrays = {name: np.ascontiguousarray(getattr(encoded, field)) for name, field in _NUMERIC.items()}
    for name, field in _STRINGS.items():
        arrays[f"{name}_utf8"], arrays[f"{name}_ends"] = _pack([str(v) for v in getattr(encoded, field)])
    return arrays


def save_runs(encoded: EncodedRuns, path: str | os.PathLike[str],
              counts_at: Sequence[int | None] = COUNT_DEPTHS) -> None:
    """Write ``encoded`` to ``path`` (an ``.npz`` archive without pickles), atomically.

    Args:
        encoded: The campaign's encoded runs (``Pool.encoded``).
        path: The file to write; its folder is created if needed. An existing file is replaced only once the new
            one is complete.
        counts_at: Depths to store S_d and the members' fingerprints at (None: whole runs), read by
            :func:`load_counts`. A depth at or past the longest ranking shares the whole runs' arrays.

    """
    arrays = _arrays_of(encoded)
    counts = _count_arrays(encoded, counts_at)
    arrays.update(counts[1])
    header = {"format": FORMAT, "version": VERSION, "sha256": _digest(arrays), "scores": encoded.scores,
              "arrays": {k: [v.dtype.str, list(v.shape)] for k, v in sorted(arrays.items())},
              "counts": counts[0], "digests": {k: _digest({k: v}) for k, v in sorted(arrays.items())}}
    arrays[_HEADER] = np.frombuffer(json.dumps(header, sort_keys=True).encode("utf-8"), dtype=np.uint8).copy()

    def write(tmp: os.PathLike[str]) -> None:
        with open(tmp, "wb") as f:  # a file object: np.savez would append ".npz" to a path
            np.savez(f, **cast("dict[str, Any]", arrays))

    write_with(path, write)


def _count_arrays(e: EncodedRuns, depths: Sequence[int | None]
                  ) -> tuple[list[list[Any]], dict[str, np.ndarray]]:
    """The counts at ``depths`` as arrays, and the header's list of ``[depth, prefix of its arrays]``.

    S_d of a pair is the number of distinct systems with a row of it within the depth (rows, when S counts runs:
    a run lists a document once per query), as :meth:`Pool.counts <ir_rarity.Pool.counts>` counts it.
    """
    longest = int(e.rank.max()) + 1 if e.n_rows else 0
    wanted = sorted({None if d is None or d >= longest else int(d) for d in depths}, key=lambda d: (d is None, d))
    if not wanted:
        return [], {}
    key_code, unique_keys = key_index(e.query, e.doc, len(e.queries), len(e.docs))
    row_hash = content_hashes(string_hashes(e.queries)[e.query], string_hashes(e.docs)[e.doc], e.rank)
    listed: list[list[Any]] = []
    arrays: dict[str, np.ndarray] = {}
    for i, depth in enumerate(wanted):
        within = slice(None) if depth is None else e.rank < depth
        codes = key_code[within]
        if e.by_team:
            systems = e.system[e.run[within]].astype(np.int64)
            codes = pd.unique(codes.astype(np.int64) * e.num_systems + systems) // e.num_systems
        counts = np.bincount(codes, minlength=len(unique_keys))
        present = counts > 0
        sizes, sums = run_fingerprints(e.run, e.rank, row_hash, len(e.names), depth)
        prefix = f"counts{i}"
        arrays.update({f"{prefix}_keys": unique_keys[present].astype(np.int64),
                       f"{prefix}_sd": counts[present].astype(np.int32),
                       f"{prefix}_sizes": sizes.astype(np.int64), f"{prefix}_sums": sums.astype(np.uint64)})
        listed.append([depth, prefix])
    listed += [[d, dict((k, p) for k, p in listed)[None if d is None or d >= longest else int(d)]]
               for d in depths if d is not None and d >= longest]
    return listed, arrays


def _read_arrays(path: str) -> dict[str, np.ndarray]:
    if not os.path.exists(path):
        raise InputError("no such pool file", path)
    if os.path.isdir(path):
        raise InputError("is a directory, expected a pool file", path)
    try:
        if not zipfile.is_zipfile(path):
            raise InputError("not an ir_rarity pool file (not a .npz archive: a pool file is written by "
                             "Pool.save)", path)
        _check_members(path)
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except InputError:
        raise
    except ValueError as e:  # includes "Object arrays cannot be loaded when allow_pickle=False"
        raise InputError(f"not a valid ir_rarity pool file ({type(e).__name__})", path) from None
    except (OSError, EOFError, zipfile.BadZipFile, KeyError, UnicodeDecodeError, RuntimeError) as e:
        raise InputError(f"damaged or not an ir_rarity pool file ({type(e).__name__})", path) from None


def load_runs(path: str | os.PathLike[str]) -> EncodedRuns:
    """Read encoded runs written by :func:`save_runs`.

    Args:
        path: The pool file.

    Raises:
        InputError: the file is missing, not a pool file, of another format version, changed (checksum
            mismatch), truncated, or holds pickled objects; the message names the file.

    """
    source = os.fspath(path)
    arrays = _read_arrays(source)
    header = _parse_header(arrays.pop(_HEADER, None), source)
    expected = set(_NUMERIC) | {f"{n}_{part}" for n in _STRINGS for part in ("utf8", "ends")}
    counted = set(arrays) - expected
    if not expected <= set(arrays) or counted != {f"{p}_{part}" for p in _count_prefixes(header, source)
                                                  for part in _COUNT_PARTS}:
        raise InputError("damaged pool file (unexpected arrays)", source)
    if _digest(arrays) != header.get("sha256"):
        raise InputError("damaged pool file: its SHA-256 checksum does not match (changed or corrupted)", source)
    scores = header.get("scores", "float32")  # files written before the option: ordered as pytrec_eval
    if scores not in SCORE_PRECISIONS:
        raise InputError(f"damaged pool file (scores {short(str(scores))!r})", source)
    for name in counted:  # stored counts: read by load_counts, not needed here (the rows are counted again)
        del arrays[name]
    try:
        return _build(arrays, scores)
    except _Invalid as e:
        raise InputError(f"invalid pool file: {e}", source) from None
    except (ValueError, IndexError, UnicodeDecodeError) as e:
        raise InputError(f"damaged pool file ({type(e).__name__})", source) from None


def _check_version(header: dict[str, Any], source: str) -> None:
    if header.get("version") not in READABLE:
        raise InputError(f"pool file format version {header.get('version')!r}; this ir_rarity reads versions "
                         f"{', '.join(map(str, READABLE))}", source)


def _count_prefixes(header: dict[str, Any], source: str) -> set[str]:
    """The prefixes of the count arrays the header lists (none in version 1)."""
    listed = header.get("counts", []) if header.get("version", 1) >= 2 else []
    if not isinstance(listed, list) or not all(
            isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], str)
            and re.fullmatch(r"counts\d{1,3}", entry[1])
            and (entry[0] is None or (isinstance(entry[0], int) and not isinstance(entry[0], bool) and entry[0] > 0))
            for entry in listed):
        raise InputError("damaged pool file (bad list of stored counts)", source)
    return {entry[1] for entry in listed}


def _parse_header(raw_header: np.ndarray | None, source: str) -> dict[str, Any]:
    """The JSON header of a pool file, checked to be one of this format and of a version read here."""
    header = json_header(raw_header, source, "pool file", FORMAT)
    _check_version(header, source)
    return header


@dataclass(frozen=True, eq=False)
class StoredCounts:
    """The counts a saved pool stores at one depth (:func:`load_counts`), checked against the file's digests.

    Attributes:
        queries: Sorted query-id vocabulary of the pool.
        docs: Sorted docno vocabulary of the pool.
        keys: Sorted pair keys (:func:`~ir_rarity.engine.codes.pair_keys`) retrieved within the depth.
        counts: S_d of each key.
        names: The runs' names.
        sizes: Per run, its rows within the depth.
        sums: Per run, the wrapping sum of its rows' content hashes (with ``sizes``: its fingerprint).
        num_systems: S.
        systems: ``"runs"`` or ``"teams"``: what S counts.
        depth: The depth counted at (None: whole runs).
        scores: How the runs' rankings were ordered.

    """

    queries: pd.Index
    docs: pd.Index
    keys: np.ndarray
    counts: np.ndarray
    names: tuple[str, ...]
    sizes: np.ndarray
    sums: np.ndarray
    num_systems: int
    systems: str
    depth: int | None
    scores: ScorePrecision


def load_counts(path: str | os.PathLike[str], depth: int | None) -> StoredCounts | None:
    """The S_d and members' fingerprints a saved pool stores at ``depth``, reading nothing else but names.

    Args:
        path: The pool file.
        depth: The depth S_d is counted at (None: whole runs).

    Returns:
        The counts, or None when the file stores none at ``depth`` (a version 1 file, or another depth): then
        load the pool (:func:`load_runs`) and count.

    Raises:
        InputError: the file is missing, not a pool file, damaged (an array read does not match its SHA-256) or
            its counts break an invariant; the message names the file.

    """
    source = os.fspath(path)
    if not os.path.isfile(source) or not zipfile.is_zipfile(source):
        raise InputError("not an ir_rarity pool file (not a .npz archive: a pool file is written by Pool.save)",
                         source)
    read = _read_counts(source, depth)
    if read is None:
        return None
    header, prefix, arrays = read
    digests = header.get("digests")
    if not isinstance(digests, dict):
        raise InputError("damaged pool file (stored counts without digests)", source)
    for name, array in arrays.items():
        if _digest({name: array}) != digests.get(name):
            raise InputError(f"damaged pool file: the SHA-256 of {name!r} does not match (changed or corrupted)",
                             source)
    scores = header.get("scores", "float32")
    if scores not in SCORE_PRECISIONS:
        raise InputError(f"damaged pool file (scores {short(str(scores))!r})", source)
    try:
        return _stored_counts(arrays, prefix, depth, scores)
    except _Invalid as e:
        raise InputError(f"invalid pool file: {e}", source) from None
    except (ValueError, IndexError, UnicodeDecodeError) as e:
        raise InputError(f"damaged pool file ({type(e).__name__})", source) from None


def _read_counts(source: str, depth: int | None) -> tuple[dict[str, Any], str, dict[str, np.ndarray]] | None:
    """The header, the prefix of the counts at ``depth`` and the arrays to read with them, or None if not stored."""
    try:
        _check_members(source)
        with np.load(source, allow_pickle=False) as archive:
            header = _parse_header(archive[_HEADER] if _HEADER in archive.files else None, source)
            _count_prefixes(header, source)  # the list is well formed
            prefix = next((p for d, p in header.get("counts", []) if d == depth), None)
            if prefix is None:
                return None
            names = [f"{n}_{part}" for n in _STRINGS for part in ("utf8", "ends")]
            names += [f"{prefix}_{part}" for part in _COUNT_PARTS]
            if not set(names) <= set(archive.files):
                raise InputError("damaged pool file (stored counts without their arrays)", source)
            return header, prefix, {name: archive[name] for name in names}
    except InputError:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, KeyError, UnicodeDecodeError, RuntimeError,
            TypeError) as e:
        raise InputError(f"damaged or not an ir_rarity pool file ({type(e).__name__})", source) from None


def _stored_counts(arrays: dict[str, np.ndarray], prefix: str, depth: int | None, scores: ScorePrecision
                   ) -> StoredCounts:
    """The :class:`StoredCounts` of checked arrays (the counts' own invariants are the count table's to check)."""
    strings = _strings(arrays)
    names, systems = strings["names"], strings["group_names"]
    if not names or len(set(names)) != len(names) or len(set(systems)) != len(systems) or not (
            1 <= len(systems) <= len(names)):
        raise _Invalid(f"{len(systems)} systems for {len(names)} runs, or names not unique")
    keys, counts, sizes, sums = (arrays[f"{prefix}_{part}"] for part in _COUNT_PARTS)
    if keys.dtype != np.int64 or counts.dtype.kind not in "iu" or sizes.dtype != np.int64 \
            or sums.dtype != np.uint64 or len(sizes) != len(names) or len(sums) != len(names):
        raise _Invalid(f"stored counts {prefix!r} are malformed")
    return StoredCounts(queries=pd.Index(strings["queries"]), docs=pd.Index(strings["docs"]), keys=keys,
                        counts=counts, names=tuple(names), sizes=sizes, sums=sums, num_systems=len(systems),
                        systems="teams" if len(systems) != len(names) else "runs", depth=depth, scores=scores)


class _Invalid(ValueError):
    """A broken invariant of a pool file: its message names the invariant."""


def _strings(arrays: dict[str, np.ndarray]) -> dict[str, list[str]]:
    """Every string list of a pool file (:data:`_STRINGS`), its UTF-8 bytes and end offsets checked first."""
    strings = {}
    for name in _STRINGS:
        data, ends = arrays[f"{name}_utf8"], arrays[f"{name}_ends"]
        if data.dtype != np.uint8 or ends.dtype != np.int64 or ends.ndim != 1 or (len(ends) and (
                ends[-1] != len(data) or (np.diff(ends) < 0).any() or ends[0] < 0)):
            raise _Invalid(f"strings {name!r} are malformed")
        strings[name] = _unpack(data, ends)
    return strings


def _build(arrays: dict[str, np.ndarray], scores: ScorePrecision) -> EncodedRuns:
    """The :class:`EncodedRuns` of checked arrays (see :func:`check_invariants`)."""
    for name in _NUMERIC:
        if arrays[name].dtype.kind not in ("f" if name == "score" else "iu") or arrays[name].ndim != 1:
            raise _Invalid(f"array {name!r} has dtype {arrays[name].dtype} and {arrays[name].ndim} dimensions")
    strings = _strings(arrays)
    n = len(arrays["run"])
    if any(len(arrays[k]) != n for k in ("query", "doc", "score", "rank")):
        raise _Invalid("row arrays differ in length")
    encoded = EncodedRuns(names=tuple(strings["names"]), queries=pd.Index(strings["queries"]),
                          docs=pd.Index(strings["docs"]), run=arrays["run"], query=arrays["query"],
                          doc=arrays["doc"], score=arrays["score"], rank=arrays["rank"], system=arrays["groups"],
                          system_names=tuple(strings["group_names"]), scores=scores)
    check_invariants(encoded)
    return encoded


def check_invariants(e: EncodedRuns) -> None:
    """Check, in O(rows) vectorized passes, every invariant of :class:`EncodedRuns` the engine relies on.

    Vocabularies: run names and system names unique; query ids and docnos sorted and unique (codes order like
    the strings). Systems: S >= 1 and every system code in ``[0, S)`` used by some run (S is the number of
    distinct systems). Rows: codes in range; no NaN score (a run may hold +-inf, which trec_eval orders); rows
    sorted by (run, query, rank), each (run, query) holding ranks 0, 1, 2, ... in trec_eval order
    (single-precision score descending, ties by docno descending) and no document twice.

    Raises:
        ValueError: the first invariant broken, named in the message.

    """
    _check_vocabularies(e)
    _check_systems(e)
    if e.n_rows:
        _check_codes(e)
        _check_rankings(e)


def _check_vocabularies(e: EncodedRuns) -> None:
    if not e.names:
        raise _Invalid("it holds no runs")
    for what, names in (("run names", e.names), ("system names", e.system_names)):
        if len(set(names)) != len(names):
            raise _Invalid(f"{what} are not unique")
    for what, index in (("query ids", e.queries), ("docnos", e.docs)):
        if not (index.is_monotonic_increasing and index.is_unique):
            raise _Invalid(f"the {what} vocabulary is not sorted and unique")


def _check_systems(e: EncodedRuns) -> None:
    s = e.num_systems
    if s < 1 or s > len(e.names):
        raise _Invalid(f"S = {s} systems for {len(e.names)} runs (S must be in [1, runs])")
    system = e.system
    if system.dtype.kind not in "iu" or system.min() < 0 or system.max() >= s:
        raise _Invalid(f"system codes out of range [0, S = {s})")
    used = int(np.count_nonzero(np.bincount(system.astype(np.int64), minlength=s)))
    if used != s:
        raise _Invalid(f"S = {s} but the runs name {used} distinct systems")


def _check_codes(e: EncodedRuns) -> None:
    for name, codes, bound in (("run", e.run, len(e.names)), ("query", e.query, len(e.queries)),
                               ("doc", e.doc, len(e.docs))):
        if codes.min() < 0 or codes.max() >= bound:
            raise _Invalid(f"{name} codes out of range [0, {bound})")
    if np.isnan(e.score).any():  # +-inf are scores a run file may hold (and trec_eval orders); NaN is not
        raise _Invalid("a score is NaN")


def _check_rankings(e: EncodedRuns) -> None:
    """Rows sorted by (run, query, rank) with ranks 0, 1, 2, ... per ranking, in trec_eval order."""
    run, query, rank = e.run, e.query, e.rank
    run_step, query_step = np.diff(run.astype(np.int64)), np.diff(query.astype(np.int64))
    if (run_step < 0).any():
        raise _Invalid("rows are not sorted by run")
    same_run = run_step == 0
    if (same_run & (query_step < 0)).any():
        raise _Invalid("rows are not sorted by query within a run")
    same = same_run & (query_step == 0)  # row i + 1 continues the ranking of row i
    expected = np.zeros(len(rank), dtype=np.int64)  # 0 where a ranking starts, else the previous rank + 1
    expected[1:] = np.where(same, rank[:-1].astype(np.int64) + 1, 0)
    if rank[0] != 0 or not np.array_equal(rank, expected):
        raise _Invalid("ranks are not 0, 1, 2, ... within each (run, query)")
    with np.errstate(over="ignore"):  # scores beyond float32's range become +-inf, as trec_eval 9's C floats
        score = e.score.astype(np.dtype(e.scores))  # compared as the pool's rankings were ordered
    higher = score[1:] > score[:-1]
    tie = score[1:] == score[:-1]
    doc = e.doc.astype(np.int64)
    if (same & (higher | (tie & (doc[1:] >= doc[:-1])))).any():
        raise _Invalid("a ranking is not in trec_eval order (score descending, docno descending)")
    _check_no_repeats(same, doc, len(e.docs))


def _check_no_repeats(same: np.ndarray, doc: np.ndarray, n_docs: int) -> None:
    """No ranking lists a document twice: (ranking, doc) pairs are unique (one hash pass, no sort)."""
    ranking = np.zeros(len(doc), dtype=np.int64)
    np.cumsum(~same, out=ranking[1:])
    if int(ranking[-1]) + 1 < (1 << 62) // max(n_docs, 1):
        repeated = pd.Series(ranking * n_docs + doc).duplicated().any()
    else:  # pragma: no cover - more rankings times docnos than 2**62
        repeated = pd.DataFrame({"ranking": ranking, "doc": doc}).duplicated().any()
    if repeated:
        raise _Invalid("a ranking lists the same document twice")
