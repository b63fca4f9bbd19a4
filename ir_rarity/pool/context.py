"""The active campaign, held in a context variable.

``with pool:`` (or ``with table:`` for a count table) pushes a campaign for the current thread or asyncio task
only (``contextvars``), so concurrent evaluations with different pools do not see each other's. Campaigns nest:
leaving the inner block restores the outer one.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ir_rarity.errors import NoActivePoolError

if TYPE_CHECKING:
    from ir_rarity.engine.contract import Campaign

__all__ = ["POOL_ENV", "activated", "active_pool", "pop_pool", "push_pool", "require_pool"]

POOL_ENV = "IR_RARITY_POOL"
"""The environment variable naming the campaign where no pool is active and the measure names none (the stock
``ir_measures`` command, ``ir-rarity eval``)."""

_STACK: contextvars.ContextVar[tuple[Campaign, ...]] = contextvars.ContextVar("ir_rarity_pool_stack", default=())

NO_POOL_MESSAGE = (
    "{what} needs a pool of runs to count S_d (how many systems retrieved each document), and none is active. "
    "Build one with ir_rarity.Pool.from_runs(...) (a dict of runs, TREC run files, a directory or a glob) and "
    "evaluate inside `with pool:`, or call pool.evaluate(qrels, measures). Outside Python (e.g. the ir_measures "
    "command), give the measure a pool parameter, as in P_rare(pool='runs/*.gz')@100, or set the IR_RARITY_POOL "
    "environment variable: run files, a directory, a glob, a saved pool (.npz) or a count table (.parquet)."
)


def active_pool() -> Campaign | None:
    """The innermost campaign entered with ``with pool:`` in this context, or None."""
    stack = _STACK.get()
    return stack[-1] if stack else None


def require_pool(what: str) -> Campaign:
    """The active campaign; raises :class:`NoActivePoolError` saying how to supply one when there is none."""
    pool = active_pool()
    if pool is None:
        raise NoActivePoolError(NO_POOL_MESSAGE.format(what=what))
    return pool


def push_pool(pool: Campaign) -> None:
    """Make ``pool`` the active campaign of this context (used by ``__enter__``)."""
    _STACK.set((*_STACK.get(), pool))


def pop_pool(pool: Campaign) -> None:
    """Undo :func:`push_pool` for ``pool`` (used by ``__exit__``)."""
    stack = _STACK.get()
    if not stack or stack[-1] is not pool:
        raise RuntimeError("pools must be exited in the reverse order they were entered")
    _STACK.set(stack[:-1])


@contextmanager
def activated(pool: Campaign) -> Iterator[Campaign]:
    """Make any campaign the active one for a ``with`` block, as ``with pool:`` does for a pool."""
    push_pool(pool)
    try:
        yield pool
    finally:
        pop_pool(pool)
