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
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ir_rarity.engine.contract import Campaign
from ir_rarity.engine.ranked import Duplicates
from ir_rarity.errors import InputError
from ir_rarity.pool.sources import expand_run_paths

__all__ = ["clear_cache", "file_kind", "resolve_campaign"]

_CACHE: dict[tuple[Any, ...], Campaign] = {}


def file_kind(path: str | os.PathLike[str]) -> str:
    """``"pool"`` (a saved ``.npz``), ``"counts"`` (a parquet count table) or ``"runs"``, by the file's first bytes."""
    try:
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
        st = p.stat()
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


def clear_cache() -> None:
    """Forget the campaigns resolved so far in this process."""
    _CACHE.clear()
