"""The active pool, held in a context variable.

``with pool:`` pushes a pool for the current thread or asyncio task only (``contextvars``), so concurrent
evaluations with different pools do not see each other's pool. Pools nest: leaving the inner block restores
the outer one.
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING

from ir_rarity.errors import NoActivePoolError

if TYPE_CHECKING:
    from ir_rarity.pool.pool import Pool

__all__ = ["active_pool", "pop_pool", "push_pool", "require_pool"]

_STACK: contextvars.ContextVar[tuple[Pool, ...]] = contextvars.ContextVar("ir_rarity_pool_stack", default=())

NO_POOL_MESSAGE = (
    "{what} needs a pool of runs to count S_d (how many systems retrieved each document), and none is active. "
    "Build one with ir_rarity.Pool.from_runs(...) (a dict of runs, TREC run files, a directory or a glob) and "
    "evaluate inside `with pool:`, or call pool.evaluate(qrels, measures). Outside Python (e.g. the ir_measures "
    "command), give the measure a pool parameter naming the runs, as in P_rare(pool='runs/*.gz')@100, or set "
    "the IR_RARITY_POOL environment variable to a run file, directory or glob."
)


def active_pool() -> Pool | None:
    """The innermost pool entered with ``with pool:`` in this context, or None."""
    stack = _STACK.get()
    return stack[-1] if stack else None


def require_pool(what: str) -> Pool:
    """The active pool; raises :class:`NoActivePoolError` saying how to supply one when there is none."""
    pool = active_pool()
    if pool is None:
        raise NoActivePoolError(NO_POOL_MESSAGE.format(what=what))
    return pool


def push_pool(pool: Pool) -> None:
    """Make ``pool`` the active pool of this context (used by ``Pool.__enter__``)."""
    _STACK.set((*_STACK.get(), pool))


def pop_pool(pool: Pool) -> None:
    """Undo :func:`push_pool` for ``pool`` (used by ``Pool.__exit__``)."""
    stack = _STACK.get()
    if not stack or stack[-1] is not pool:
        raise RuntimeError("pools must be exited in the reverse order they were entered")
    _STACK.set(stack[:-1])
