"""The pool of runs that S_d is counted from, count tables, and the active-pool context.

Submodules load on first use (PEP 562), so that ``ir_rarity.pool.context`` stays free of numpy and pandas.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ir_rarity.pool.context import active_pool
    from ir_rarity.pool.counts import CountTable, duckdb_counts_sql
    from ir_rarity.pool.pool import Pool
    from ir_rarity.pool.resolve import resolve_campaign

__all__ = ["CountTable", "Pool", "active_pool", "duckdb_counts_sql", "resolve_campaign"]

_LAZY = {
    "CountTable": "ir_rarity.pool.counts",
    "duckdb_counts_sql": "ir_rarity.pool.counts",
    "Pool": "ir_rarity.pool.pool",
    "active_pool": "ir_rarity.pool.context",
    "resolve_campaign": "ir_rarity.pool.resolve",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'ir_rarity.pool' has no attribute {name!r}")
    value = getattr(import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
