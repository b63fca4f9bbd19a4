"""Campaigns: the pool of runs that S_d is counted from, count tables, teams and the active-pool context.

This module is the public face of ``ir_rarity.pool`` for the layers above it: they import what they use from here
(or from the campaign objects' own modules, :mod:`~ir_rarity.pool.pool`, :mod:`~ir_rarity.pool.counts`,
:mod:`~ir_rarity.pool.teams`, :mod:`~ir_rarity.pool.context`, :mod:`~ir_rarity.pool.resolve`), never from the
reading and encoding modules (:mod:`ir_rarity.pool.build`) or storage and caches (:mod:`ir_rarity.pool.store`);
``lint-imports`` holds them to it. Names load on first use (PEP 562), so that ``ir_rarity.pool.context`` stays free
of numpy and pandas.
"""

from typing import TYPE_CHECKING

from ir_rarity.lazy import lazy_exports

if TYPE_CHECKING:
    from ir_rarity.pool.build.paths import Origin, expand_run_paths, path_specs, spec_origin
    from ir_rarity.pool.build.retention import Retention, required_depth, required_rows
    from ir_rarity.pool.build.runs import top_k
    from ir_rarity.pool.build.sources import read_runs, run_name_from_path
    from ir_rarity.pool.context import POOL_ENV, active_pool, require_pool
    from ir_rarity.pool.counts import CountTable, duckdb_counts_sql
    from ir_rarity.pool.judged import judged_pool, judged_reach, pool_for_rows
    from ir_rarity.pool.pool import Pool
    from ir_rarity.pool.resolve import counts_depth, resolve_campaign
    from ir_rarity.pool.spill import Spill
    from ir_rarity.pool.store.cached import cached_campaign, clear_cached_campaigns
    from ir_rarity.pool.stream import (
        Counts,
        StreamedCampaign,
        block_rows,
        count_depths,
        count_files,
        file_blocks,
        pass_two_rows,
        should_stream,
        stream_campaign,
        streamable,
    )
    from ir_rarity.pool.teams import read_teams, teams_file

_LAZY = {
    "CountTable": "ir_rarity.pool.counts",
    "duckdb_counts_sql": "ir_rarity.pool.counts",
    "Pool": "ir_rarity.pool.pool",
    "judged_pool": "ir_rarity.pool.judged",
    "judged_reach": "ir_rarity.pool.judged",
    "pool_for_rows": "ir_rarity.pool.judged",
    "POOL_ENV": "ir_rarity.pool.context",
    "active_pool": "ir_rarity.pool.context",
    "require_pool": "ir_rarity.pool.context",
    "counts_depth": "ir_rarity.pool.resolve",
    "resolve_campaign": "ir_rarity.pool.resolve",
    "read_teams": "ir_rarity.pool.teams",
    "teams_file": "ir_rarity.pool.teams",
    "expand_run_paths": "ir_rarity.pool.build.paths",
    "Origin": "ir_rarity.pool.build.paths",
    "path_specs": "ir_rarity.pool.build.paths",
    "spec_origin": "ir_rarity.pool.build.paths",
    "read_runs": "ir_rarity.pool.build.sources",
    "required_rows": "ir_rarity.pool.build.retention",
    "run_name_from_path": "ir_rarity.pool.build.sources",
    "top_k": "ir_rarity.pool.build.runs",
    "StreamedCampaign": "ir_rarity.pool.stream",
    "Spill": "ir_rarity.pool.spill",
    "Retention": "ir_rarity.pool.build.retention",
    "Counts": "ir_rarity.pool.stream",
    "block_rows": "ir_rarity.pool.stream",
    "count_depths": "ir_rarity.pool.stream",
    "count_files": "ir_rarity.pool.stream",
    "file_blocks": "ir_rarity.pool.stream",
    "pass_two_rows": "ir_rarity.pool.stream",
    "should_stream": "ir_rarity.pool.stream",
    "stream_campaign": "ir_rarity.pool.stream",
    "streamable": "ir_rarity.pool.stream",
    "required_depth": "ir_rarity.pool.build.retention",
    "cached_campaign": "ir_rarity.pool.store.cached",
    "clear_cached_campaigns": "ir_rarity.pool.store.cached",
}
"""Public name -> the module that defines it."""

__all__ = [
    "POOL_ENV",
    "CountTable",
    "Counts",
    "Origin",
    "Pool",
    "Retention",
    "Spill",
    "StreamedCampaign",
    "active_pool",
    "block_rows",
    "cached_campaign",
    "clear_cached_campaigns",
    "count_depths",
    "count_files",
    "counts_depth",
    "duckdb_counts_sql",
    "expand_run_paths",
    "file_blocks",
    "judged_pool",
    "judged_reach",
    "pass_two_rows",
    "path_specs",
    "pool_for_rows",
    "read_runs",
    "read_teams",
    "require_pool",
    "required_depth",
    "required_rows",
    "resolve_campaign",
    "run_name_from_path",
    "should_stream",
    "spec_origin",
    "stream_campaign",
    "streamable",
    "teams_file",
    "top_k",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
