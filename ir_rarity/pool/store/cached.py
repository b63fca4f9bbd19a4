"""A campaign named by its run files, from the disk cache alone: the counts as the engine's one-run campaign.

The stock ``ir_measures`` command starts a process per call; once the campaign's count table is in the disk cache
(:mod:`ir_rarity.pool.store.cache`), :func:`cached_campaign` gives it to the engine
(:class:`~ir_rarity.engine.one_run.CountsCampaign`) from the files' listing and signatures and the cache file, with
numpy alone (no pandas, pyarrow or scipy), so scoring one more run costs about what a standard measure costs.
"""

from __future__ import annotations

from typing import Any

from ir_rarity.engine.one_run import CountsCampaign
from ir_rarity.errors import InputError
from ir_rarity.pool.build.paths import origin_of, run_files
from ir_rarity.pool.store.cachefile import cache_dir, cache_key, cache_path, read_cached, touch

__all__ = ["cached_campaign", "clear_cached_campaigns"]

_RUN_OPTIONS: dict[str, Any] = {"scores": "float32", "teams": None, "duplicates": "error", "keep_depth": None,
                                "split_by_tag": None}
"""What the provider resolves a named campaign with (``resolve_campaign(spec, counts=True, depth=...)``): the
options of the cache key it counts under."""
_CAMPAIGNS: dict[str, CountsCampaign] = {}
"""Cached tables read in this process, by key (a key names the files' signatures: a changed file, a new key)."""


def clear_cached_campaigns() -> None:
    """Forget the campaigns this process has read from the cache (another process may have changed it)."""
    _CAMPAIGNS.clear()


def cached_campaign(spec: str, depth: int | None) -> CountsCampaign | None:
    """The cached counts of the run files ``spec`` names, at ``depth``, or None (not cached, not run files)."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        files = run_files(spec)
    except (InputError, OSError):
        return None
    # The key holds the files' signatures and their kind: a table under it was counted from these very files,
    # unchanged, read as run files (the ordinary path tells a saved pool or count table by its bytes, and keys
    # its counts as such), so their bytes need not be looked at again here.
    key = cache_key(origin_of(files, "runs"), depth, **_RUN_OPTIONS)
    if key is None:
        return None
    if key in _CAMPAIGNS:
        return _CAMPAIGNS[key]
    path = cache_path(folder, key)
    try:
        table = read_cached(path, key, depth)
        if table is None or table.scores != "float32" or table.num_systems < 2:
            return None
        queries, docs = table.vocabulary("queries"), table.vocabulary("docs")
    except InputError:  # the ordinary path removes it and counts again
        return None
    if queries is None or docs is None:
        return None
    a = table.arrays
    campaign = CountsCampaign(queries=queries, docs=docs, query_hash=a["query_hash"], doc_hash=a["doc_hash"],
                              keys=a["keys"], counts=a["counts"], members=table.members(),
                              num_systems=table.num_systems, systems=table.systems, n_runs=table.n_runs,
                              depth=depth, scores=table.scores)
    touch(path)  # most recently used
    _CAMPAIGNS[key] = campaign
    return campaign
