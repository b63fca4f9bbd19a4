"""The one notice naming the evaluated runs scored as the campaign members they equal (numpy free).

Shared by the evaluation rule (:mod:`ir_rarity.engine.rule`) and the provider's warm path
(:mod:`ir_rarity.integrations.warm`), so the notice reads the same whichever path scored the run. An evaluation
that scores its runs in several steps (the ir_measures provider scores a run against one count table per S_d
depth) gathers them in :func:`one_member_notice`: one notice for the whole evaluation, naming every depth.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar, Token
from types import TracebackType

from ir_rarity.engine.contract import ASSUMED_MEMBER
from ir_rarity.errors import MemberNotice, warn

__all__ = ["NOTICE_RUNS", "members_caption", "one_member_notice", "report_members"]

_GATHERED: ContextVar[dict[str, dict[int | None, str | None]] | None] = ContextVar("ir_rarity_members", default=None)
"""Within :func:`one_member_notice`: each evaluated run -> depth -> the member it equals there (None: none)."""


def report_members(names: list[str], membership: Mapping[int | None, list[str | None]]) -> dict[str, str]:
    """Evaluated run -> the member it equals (at one depth or more); one notice for the evaluation naming them.

    Membership is decided per depth: a run may equal a member to depth 10 but not to depth 100, and is then
    scored as that member by measures counting S_d at 10 and as a newcomer by those counting at 100. The notice
    says both, for every such run, in one line (the first :data:`NOTICE_RUNS` runs named, then a count). Within
    :func:`one_member_notice`, the notice waits for the end of the evaluation.
    """
    found_by_name = {name: {depth: found[i] for depth, found in membership.items()} for i, name in enumerate(names)}
    gathered = _GATHERED.get()
    if gathered is not None:
        for name, found in found_by_name.items():
            gathered.setdefault(name, {}).update(found)
    else:
        _notice(found_by_name)
    members: dict[str, str] = {}
    for name, found in found_by_name.items():
        matched = [m for m in found.values() if m is not None]
        if matched:
            members[name] = matched[0]
    return members


def one_member_notice() -> _OneNotice:
    """One :class:`~ir_rarity.errors.MemberNotice` for everything :func:`report_members` reports within.

    Used as ``with one_member_notice():``. The notice (if any run equals a member) is issued when the block ends
    without an error, naming each run once with every depth it was scored at. Nested blocks join the outermost.
    """
    return _OneNotice()


class _OneNotice:
    """The block of :func:`one_member_notice`.

    A class, not a generator: the notice is issued from this package's frame, and so attributed past it to the
    caller's line.
    """

    def __init__(self) -> None:
        self._gathered: dict[str, dict[int | None, str | None]] = {}
        self._token: Token[dict[str, dict[int | None, str | None]] | None] | None = None

    def __enter__(self) -> None:
        if _GATHERED.get() is None:
            self._token = _GATHERED.set(self._gathered)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
                 ) -> None:
        if self._token is None:  # nested: the outermost block issues the notice
            return
        _GATHERED.reset(self._token)
        self._token = None
        if kind is None:
            _notice(self._gathered)


def _notice(found_by_name: Mapping[str, Mapping[int | None, str | None]]) -> None:
    """Issue the one notice naming the runs found equal to members (run -> depth -> member or None)."""
    def at(depths: list[int | None]) -> str:
        return ", ".join("whole runs" if d is None else str(d) for d in depths)

    parts: list[str] = []
    for name, found in found_by_name.items():
        found = {d: found[d] for d in sorted(found, key=lambda d: (d is None, d or 0))}  # 10, 100, whole runs
        matched = [d for d, m in found.items() if m is not None]
        if not matched:
            continue
        member = found[matched[0]]
        if member == ASSUMED_MEMBER:
            continue
        alone = [d for d, m in found.items() if m is None]
        also = f"; at depth {at(alone)} it differs and is scored as a newcomer" if alone else ""
        parts.append(f"{name!r} has the ranked lists of campaign run {member!r} to depth {at(matched)}{also}")
    if parts:
        shown = "; ".join(parts[:NOTICE_RUNS]) + (f"; and {len(parts) - NOTICE_RUNS} more" if len(parts) >
                                                   NOTICE_RUNS else "")
        runs = "1 evaluated run is" if len(parts) == 1 else f"{len(parts)} evaluated runs are"
        warn(f"{runs} scored as the campaign members they equal: {shown}", MemberNotice)


NOTICE_RUNS = 10
"""Runs named in the one member notice of an evaluation; the rest are counted."""


def members_caption(members: Mapping[str, str]) -> str:
    """The member notice as part of a table's caption: ``""`` when no evaluated run equals a member.

    ``members``: evaluated run -> the campaign member it was scored as (:attr:`Evaluation.members`). The caption
    says it where the values are shown (a notebook's table), so it needs no warning of its own there.
    """
    found = [(name, member) for name, member in members.items() if member != ASSUMED_MEMBER]
    if not found:
        return ""
    named = ", ".join(f"{name!r}" if name == member else f"{name!r} as {member!r}" for name, member in
                      found[:NOTICE_RUNS]) + (f" and {len(found) - NOTICE_RUNS} more" if len(found) > NOTICE_RUNS
                                              else "")
    runs = "1 evaluated run" if len(found) == 1 else f"{len(found)} evaluated runs"
    return f"{runs} scored as the campaign members they equal ({named})"
