"""The pool of runs that S_d is counted from, and the active-pool context."""

from ir_rarity.pool.context import active_pool
from ir_rarity.pool.counts import CountTable, duckdb_counts_sql
from ir_rarity.pool.pool import Pool

__all__ = ["CountTable", "Pool", "active_pool", "duckdb_counts_sql"]
