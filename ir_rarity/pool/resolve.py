"""One way to name a campaign, accepted everywhere one is named.

``ir_rarity.evaluate(pool=...)``, ``--pool`` and ``--joint`` of ``ir-rarity eval``, the ``pool=`` measure parameter,
the ``IR_RARITY_POOL`` environment variable and ``ir_rarity.Experiment(pool=...)`` all go through
:func:`resolve_campaign`. A campaign may be named by:

* a :class:`~ir_rarity.Pool` or :class:`~ir_rarity.CountTable` (returned as it is);
* a dict of runs (``name -> run``);
* run files, folders, globs, multi-run files, or a list of them (read as :meth:`Pool.from_runs` reads them);
* a saved pool (the ``.npz`` of :meth:`Pool.save`), recognised by its content (a zip archive); asked for counts
  only, the counts it stores (:func:`~ir_rarity.pool.store.storage.load_counts`) are read without its rows;
* a count table (the ``.parquet`` of :meth:`CountTable.to_parquet` and ``ir-rarity pool --out``), recognised by
  its content (parquet's ``PAR1`` magic bytes).

Files are listed once, here, and the list is handed to the reader. They are resolved once per process: a second
request for the same files, unchanged (:func:`~ir_rarity.pool.build.sources.file_signature`), returns the same
campaign. Asked for counts only (``counts=True``, as the ir_measures provider asks for measures that need S_d
alone), run files and saved pools are counted once per machine: the :class:`CountTable` at the depth asked is
kept in the disk cache of :mod:`ir_rarity.pool.store.cache` and read from there by later processes;
:func:`resolve_counts` gives the tables at several depths, those not cached counted from one reading of the runs.
Each campaign read from files records where it came from (its ``origin``), which is how a measure's
own ``pool=`` is checked against the campaign it is evaluated against.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from ir_rarity.engine.codes import ScorePrecision, check_precision
from ir_rarity.engine.compute import s_d_depth
from ir_rarity.engine.contract import Campaign
from ir_rarity.engine.runs import Duplicates
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.measures.base import RarityWeightedMeasure
from ir_rarity.pool.build.retention import Retention
from ir_rarity.pool.build.sources import file_kind, file_signature, origin_of, path_specs, run_files
from ir_rarity.pool.counts import CountTable
from ir_rarity.pool.pool import Pool
from ir_rarity.pool.store.cache import cached_counts
from ir_rarity.pool.store.storage import load_counts

__all__ = ["clear_cache", "counts_depth", "resolve_campaign", "resolve_counts"]

_CACHE: dict[tuple[Any, ...], Campaign] = {}


def resolve_campaign(spec: Any, *, teams: Any = None, duplicates: Duplicates = "error", keep_depth: int | None = None,
                     split_by_tag: bool | None = None, progress: bool | None = None, cache: bool = True,
                     scores: ScorePrecision | None = None, counts: bool = False, depth: int | None = None,
                     retention: Retention | None = None) -> Campaign:
    """The campaign ``spec`` names (see the module docstring).

    Args:
        spec: What names the campaign.
        teams: For runs read from files or a dict: S counts teams (see :meth:`Pool.from_runs`).
        duplicates: For runs: ``"error"`` or ``"first"``.
        keep_depth: For runs read from files: keep each run's top ``keep_depth`` documents only.
        split_by_tag: For run files: True splits each file into one run per tag; by default a file is one run.
        progress: Progress bar while reading many run files.
        cache: Reuse a campaign already resolved from the same unchanged files in this process.
        scores: How scores are compared in trec_eval order (:data:`~ir_rarity.engine.codes.ScorePrecision`): runs
            are pooled so (None: ``"float32"``); a built, saved or counted campaign must have been ordered so
            (None: as it was).
        counts: For run files and a saved pool: the campaign's :class:`CountTable` at ``depth`` (S_d and the
            members' fingerprints, enough for measures that need S_d alone: :func:`counts_depth`), read from the
            disk cache (:mod:`ir_rarity.pool.store.cache`) or counted once and cached there. Equal values, much faster.
        depth: With ``counts``: the depth S_d is counted at (None: whole runs).
        retention: For runs (files or a dict), instead of ``keep_depth``: keep only the rows some measures read
            (:class:`~ir_rarity.pool.build.retention.Retention`); the campaign is not kept for reuse.

    Raises:
        InputError: nothing at the path, an unreadable file, a saved pool or count table mixed with run files,
            or teams given with a saved pool or count table (their S is fixed).
        ParameterError: ``scores`` names another precision than a built or saved campaign was ordered with.

    """
    precision = None if scores is None else check_precision(scores)
    if isinstance(spec, (Pool, CountTable, Campaign)):
        if teams is not None:
            raise InputError(f"teams apply to runs being pooled; {spec!r} has its S already: build the pool with "
                             "teams (Pool.from_runs(runs, teams=...)) or give the runs")
        return _same_precision(spec, precision)
    if isinstance(spec, Mapping):
        return Pool.from_runs(spec, teams=teams, duplicates=duplicates, keep_depth=keep_depth, progress=progress,
                              scores=precision or "float32", retention=retention)
    specs = path_specs(spec)
    if specs is None:
        raise InputError(f"cannot name a pool with a {type(spec).__name__}: give run files, a folder, a glob, a "
                         "saved pool (.npz), a count table (.parquet), a dict of runs or a Pool")
    files = run_files(specs)
    kind = _kind_of(files, teams)
    counted = counts and kind != "counts"
    key = _key(kind, files, teams, duplicates, keep_depth, split_by_tag, precision, depth, counted)
    cache = cache and retention is None
    if cache and key in _CACHE:
        return _same_precision(_CACHE[key], precision)
    campaign: Campaign
    if counted:
        campaign = _counted(spec, files, kind, depth, _reader(files, kind, [depth], teams=teams,
                                                              duplicates=duplicates, keep_depth=keep_depth,
                                                              split_by_tag=split_by_tag, progress=progress,
                                                              precision=precision),
                            teams=teams, duplicates=duplicates, keep_depth=keep_depth, split_by_tag=split_by_tag,
                            precision=precision)
    elif kind == "pool":
        campaign = Pool.load(files[0])
    elif kind == "counts":
        campaign = CountTable.read_parquet(files[0])
    else:
        campaign = Pool.from_runs(files, teams=teams, duplicates=duplicates, keep_depth=keep_depth,
                                  split_by_tag=split_by_tag, progress=progress, scores=precision or "float32",
                                  retention=retention)
    if cache:
        _CACHE[key] = campaign
    return _same_precision(campaign, precision)


def resolve_counts(spec: Any, depths: Iterable[int | None], *, teams: Any = None, duplicates: Duplicates = "error",
                   keep_depth: int | None = None, split_by_tag: bool | None = None, progress: bool | None = None,
                   scores: ScorePrecision | None = None) -> dict[int | None, Campaign]:
    """The campaign ``spec`` names, as its count table at each of ``depths``, its runs read at most once.

    What ``resolve_campaign(spec, counts=True, depth=d)`` gives for each depth ``d`` (the same tables, kept for
    reuse in this process and in the disk cache alike), but the tables not cached yet are all counted from one
    reading of the run files (or the saved pool): a pool cut at the deepest depth asked (whole runs if any depth
    is None), since S_d at a shallower depth counts the documents above it in the same rankings.

    Args:
        spec: What names the campaign (see :func:`resolve_campaign`).
        depths: The depths S_d is counted at (None: whole runs).
        teams: As :func:`resolve_campaign`.
        duplicates: As :func:`resolve_campaign`.
        keep_depth: As :func:`resolve_campaign`.
        split_by_tag: As :func:`resolve_campaign`.
        progress: As :func:`resolve_campaign`.
        scores: As :func:`resolve_campaign`.

    Returns:
        Each depth asked -> the campaign at that depth.

    Raises:
        InputError: as :func:`resolve_campaign`.
        ParameterError: as :func:`resolve_campaign`.

    """
    wanted = list(dict.fromkeys(depths))
    options: dict[str, Any] = {"teams": teams, "duplicates": duplicates, "keep_depth": keep_depth,
                               "split_by_tag": split_by_tag, "progress": progress, "scores": scores}
    specs = None if isinstance(spec, (Pool, CountTable, Campaign, Mapping)) else path_specs(spec)
    if len(wanted) < 2 or specs is None:
        return {depth: resolve_campaign(spec, counts=True, depth=depth, **options) for depth in wanted}
    precision = None if scores is None else check_precision(scores)
    files = run_files(specs)
    kind = _kind_of(files, teams)
    if kind == "counts":
        return {depth: resolve_campaign(spec, counts=True, depth=depth, **options) for depth in wanted}
    read = _reader(files, kind, wanted, teams=teams, duplicates=duplicates, keep_depth=keep_depth,
                   split_by_tag=split_by_tag, progress=progress, precision=precision)
    found: dict[int | None, Campaign] = {}
    for depth in wanted:
        key = _key(kind, files, teams, duplicates, keep_depth, split_by_tag, precision, depth, True)
        if key not in _CACHE:
            _CACHE[key] = _counted(spec, files, kind, depth, read, teams=teams, duplicates=duplicates,
                                   keep_depth=keep_depth, split_by_tag=split_by_tag, precision=precision)
        found[depth] = _same_precision(_CACHE[key], precision)
    return found


def counts_depth(measure: Any) -> tuple[bool, int | None]:
    """Whether ``measure`` needs S_d alone (a count table will do), and the depth it counts S_d at.

    The rarity-weighted measures (``P_rare``, ``AP_rare``, ``nDCG_rare``, ``R_rare``) read S_d and S only; others
    (``U_novel``) need the campaign's runs.
    """
    if isinstance(measure, RarityWeightedMeasure):
        return True, s_d_depth(measure)
    return False, None


def _key(kind: str, files: list[Path], teams: Any, duplicates: Duplicates, keep_depth: int | None,
         split_by_tag: bool | None, precision: ScorePrecision | None, depth: int | None,
         counted: bool) -> tuple[Any, ...]:
    """The key of a campaign read from ``files`` in this process's cache (:data:`_CACHE`)."""
    return (kind, file_signature(files), repr(teams), duplicates, keep_depth, split_by_tag,
            precision if kind == "runs" else None, ("counts", depth) if counted else None)


def _reader(files: list[Path], kind: str, depths: list[int | None], *, teams: Any, duplicates: Duplicates,
            keep_depth: int | None, split_by_tag: bool | None, progress: bool | None,
            precision: ScorePrecision | None) -> Callable[[], Pool]:
    """Reads the pool of run files or a saved pool once, on the first call, for counting S_d at ``depths``.

    Run files are cut at the deepest of ``depths`` (and ``keep_depth``), or kept whole if any depth is None:
    S_d at a depth within the cut counts the same documents as on the whole runs.
    """
    read: list[Pool] = []
    cut = keep_depth
    if None not in depths:
        deepest = max(d for d in depths if d is not None)
        cut = deepest if keep_depth is None else min(keep_depth, deepest)

    def read_once() -> Pool:
        if not read:
            pool: Pool = (Pool.load(files[0]) if kind == "pool" else
                    Pool.from_runs(files, teams=teams, duplicates=duplicates, keep_depth=cut,
                                   split_by_tag=split_by_tag, progress=progress, scores=precision or "float32"))
            _same_precision(pool, precision)
            read.append(pool)
        return read[0]

    return read_once


def _counted(spec: Any, files: list[Path], kind: str, depth: int | None, read: Callable[[], Pool], *, teams: Any,
             duplicates: Duplicates, keep_depth: int | None, split_by_tag: bool | None,
             precision: ScorePrecision | None) -> CountTable:
    """The count table of run files or a saved pool at ``depth``, through the disk cache (``read`` reads them)."""
    def count() -> CountTable:
        return CountTable.from_pool(read(), depth)

    if kind == "pool":
        stored = _stored_table(files, depth, precision)
        if stored is not None:
            return stored
    options: dict[str, Any] = {"scores": precision if kind == "pool" else precision or "float32"}
    if kind == "runs":
        options.update(teams=teams, duplicates=duplicates, keep_depth=keep_depth, split_by_tag=split_by_tag)
    what = spec if isinstance(spec, (str, os.PathLike)) else f"{files[0]} and {len(files) - 1} more"
    return cached_counts(origin_of(files, kind), depth, count, what=os.fspath(what), **options)


def _stored_table(files: list[Path], depth: int | None, precision: ScorePrecision | None) -> CountTable | None:
    """The count table a saved pool stores at ``depth`` (format version 2), or None if it stores none there."""
    source = os.fspath(files[0])
    stored = load_counts(source, depth)
    if stored is None:
        return None
    members = {name: (int(n), int(h)) for name, n, h in zip(stored.names, stored.sizes, stored.sums, strict=True)}
    try:
        table = CountTable.from_codes(stored.queries, stored.docs, stored.keys, stored.counts, stored.num_systems,
                                      depth, stored.systems, members=members, n_runs=len(stored.names),
                                      origin=origin_of(files, "pool"), scores=stored.scores)
    except InputError as e:
        raise InputError(f"invalid pool file: {e}", source) from None
    _same_precision(table, precision)
    return table


def _same_precision(campaign: Campaign, scores: ScorePrecision | None) -> Campaign:
    """``campaign``, if its rankings were ordered with ``scores`` (or ``scores`` is None).

    Raises:
        ParameterError: the campaign was ordered comparing scores otherwise.

    """
    if scores is not None and campaign.scores != scores:
        raise ParameterError(f"{campaign.info().describe()} ordered its rankings comparing scores as "
                             f"{campaign.scores}, not {scores}: build it again from the runs with scores={scores!r}")
    return campaign


def _kind_of(files: list[Path], teams: Any) -> str:
    """What ``files`` hold together: ``"runs"``, or one saved ``"pool"`` or ``"counts"`` table given alone.

    Raises:
        InputError: a saved pool or count table given with other files, or with teams (their S is fixed).

    """
    kinds = {file_kind(p) for p in files}
    if kinds - {"runs"} and len(files) > 1:
        raise InputError("a saved pool (.npz) or count table (.parquet) names a whole campaign: give it alone, "
                         "not with run files", os.fspath(files[0]))
    kind = kinds.pop()
    if kind != "runs" and teams is not None:
        raise InputError("teams apply to runs being pooled; a saved pool or count table has its S already",
                         os.fspath(files[0]))
    return kind


def clear_cache() -> None:
    """Forget the campaigns resolved so far in this process."""
    _CACHE.clear()
