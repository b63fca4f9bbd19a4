"""One way to name a campaign, accepted everywhere one is named.

``--pool`` and ``--joint`` of ``ir-rarity eval``, the ``pool=`` measure parameter, the ``IR_RARITY_POOL``
environment variable, ``ir_rarity.Experiment(pool=...)`` and ``Pool.evaluate``'s callers all go through
:func:`resolve_campaign`. A campaign may be named by:

* a :class:`~ir_rarity.Pool` or :class:`~ir_rarity.CountTable` (returned as it is);
* a dict of runs (``name -> run``);
* run files, folders, globs, multi-run files, or a list of them (read as :meth:`Pool.from_runs` reads them);
* a saved pool (the ``.npz`` of :meth:`Pool.save`), recognised by its content (a zip archive);
* a count table (the ``.parquet`` of :meth:`CountTable.to_parquet` and ``ir-rarity pool --out``), recognised by
  its content (parquet's ``PAR1`` magic bytes).

Files are resolved once per process: a second request for the same path (file unchanged) returns the same
campaign.
"""

from __future__ import annotations

import os
import stat
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ir_rarity.engine.contract import Campaign
from ir_rarity.engine.runs import Duplicates
from ir_rarity.errors import InputError
from ir_rarity.pool.sources import expand_run_paths

__all__ = ["check_measure_pools", "clear_cache", "file_kind", "measure_pool", "note_origin", "resolve_campaign"]

_CACHE: dict[tuple[Any, ...], Campaign] = {}
_ORIGIN: weakref.WeakKeyDictionary[Any, tuple[Any, ...]] = weakref.WeakKeyDictionary()
"""Campaign -> the files it was read from (their real paths, times and sizes), for :func:`check_measure_pools`."""


def file_kind(path: str | os.PathLike[str]) -> str:
    """``"pool"`` (a saved ``.npz``), ``"counts"`` (a parquet count table) or ``"runs"``, by the file's first bytes."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return "runs"  # a pipe or device: never read ahead (its bytes would be gone for the reader)
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError:
        return "runs"  # the run reader gives the error, naming the file
    if head == b"PK\x03\x04":
        return "pool"
    if head == b"PAR1":
        return "counts"
    return "runs"


def _signature(files: list[Path]) -> tuple[tuple[str, int, int], ...]:
    out = []
    for p in files:
        st = p.stat() if os.fspath(p) != "-" else os.stat(0)
        out.append((os.path.realpath(p), st.st_mtime_ns, st.st_size))
    return tuple(out)


def resolve_campaign(spec: Any, *, teams: Any = None, duplicates: Duplicates = "error", keep_depth: int | None = None,
                     progress: bool | None = None, cache: bool = True) -> Campaign:
    """The campaign ``spec`` names (see the module docstring).

    Args:
        spec: What names the campaign.
        teams: For runs read from files or a dict: S counts teams (see :meth:`Pool.from_runs`).
        duplicates: For runs: ``"error"`` or ``"first"``.
        keep_depth: For runs read from files: keep each run's top ``keep_depth`` documents only.
        progress: Progress bar while reading many run files.
        cache: Reuse a campaign already resolved from the same unchanged files in this process.

    Raises:
        InputError: nothing at the path, an unreadable file, a saved pool or count table mixed with run files,
            or teams given with a saved pool or count table (their S is fixed).

    """
    from ir_rarity.pool.counts import CountTable
    from ir_rarity.pool.pool import Pool

    if isinstance(spec, (Pool, CountTable, Campaign)):
        return spec
    if isinstance(spec, Mapping):
        return Pool.from_runs(spec, teams=teams, duplicates=duplicates, keep_depth=keep_depth)
    specs = [spec] if isinstance(spec, (str, os.PathLike)) else list(spec) if isinstance(spec, (list, tuple)) else None
    if specs is None:
        raise InputError(f"cannot name a pool with a {type(spec).__name__}: give run files, a folder, a glob, a "
                         "saved pool (.npz), a count table (.parquet), a dict of runs or a Pool")
    files = [p for s in specs for p in expand_run_paths(s)]
    kinds = {file_kind(p) for p in files}
    if kinds - {"runs"} and len(files) > 1:
        raise InputError("a saved pool (.npz) or count table (.parquet) names a whole campaign: give it alone, "
                         "not with run files", os.fspath(specs[0]))
    kind = kinds.pop()
    if kind != "runs" and teams is not None:
        raise InputError("teams apply to runs being pooled; a saved pool or count table has its S already",
                         os.fspath(files[0]))
    key = (kind, _signature(files), repr(teams), duplicates, keep_depth)
    if cache and key in _CACHE:
        return _CACHE[key]
    campaign: Campaign
    if kind == "pool":
        campaign = Pool.load(files[0])
    elif kind == "counts":
        campaign = CountTable.read_parquet(files[0])
    else:
        runs: Any = os.fspath(specs[0]) if len(specs) == 1 else [os.fspath(s) for s in specs]
        campaign = Pool.from_runs(runs, teams=teams, duplicates=duplicates, keep_depth=keep_depth,
                                  progress=progress)
    if cache:
        _CACHE[key] = campaign
    return campaign


def note_origin(campaign: Any, spec: Any, kind: str) -> None:
    """Remember which files ``campaign`` was read from (``spec`` as its reader was given it) and their ``kind``.

    ``kind`` is what the reader read them as (``"runs"``, ``"pool"``, ``"counts"``): nothing is opened again.
    """
    if isinstance(spec, (str, os.PathLike)) or (isinstance(spec, (list, tuple)) and spec
                                                and all(isinstance(s, (str, os.PathLike)) for s in spec)):
        specs = [spec] if isinstance(spec, (str, os.PathLike)) else list(spec)
        files = _files_of(*specs)
        if files is not None:
            _ORIGIN[campaign] = (kind, _signature(files))


def _files_of(*specs: Any) -> list[Path] | None:
    try:
        return [p for s in specs for p in expand_run_paths(os.fspath(s))]
    except (InputError, OSError):
        return None


def _origin_of(*specs: Any) -> tuple[Any, ...] | None:
    files = _files_of(*specs)
    if files is None:
        return None
    kinds = {file_kind(p) for p in files}
    return (kinds.pop() if len(kinds) == 1 else "runs", _signature(files))


def clear_cache() -> None:
    """Forget the campaigns resolved so far in this process."""
    _CACHE.clear()


def measure_pool(measure: Any) -> str | None:
    """The pool a measure names with its own ``pool`` parameter (``P_rare(pool='runs/')@100``), or None."""
    params = getattr(measure, "params", {})
    spec = params.get("pool") if isinstance(params, dict) else None
    return str(spec) if spec else None


def check_measure_pools(campaign: Campaign, measures: Any) -> None:
    """Refuse a measure whose own ``pool=`` names another campaign than the one it is evaluated against.

    A measure string carries its pool where ir_measures is the entry point (the stock command); where the
    campaign is given otherwise (``Pool.evaluate``, ``CountTable.evaluate``, ``ir-rarity eval``), a ``pool=`` that
    names the same campaign is fine and any other is an error, never a number computed against the wrong pool.

    Raises:
        ParameterError: a measure names another pool.

    """
    from ir_rarity.errors import ParameterError
    from ir_rarity.measures.parse import parse_measures

    base = getattr(campaign, "campaign", campaign)  # a joined campaign: the campaign it extends
    origins = {_ORIGIN.get(c) for c in (campaign, base)} - {None}
    for measure in parse_measures(measures):
        spec = measure_pool(measure)
        if spec is None or _origin_of(spec) in origins:
            continue  # no pool named, or the same files the campaign was read from
        if resolve_campaign(spec) not in (campaign, base):
            raise ParameterError(f"{measure} names its own pool ({spec!r}), but is evaluated against another "
                                 f"({campaign.info().describe()}): drop pool= from the measure, or evaluate against "
                                 "that pool (--pool, Pool.evaluate of that pool)")
