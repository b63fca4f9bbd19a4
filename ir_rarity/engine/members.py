"""The one notice naming the evaluated runs scored as the campaign members they equal (numpy free).

Shared by the evaluation rule (:mod:`ir_rarity.engine.rule`) and the provider's warm path
(:mod:`ir_rarity.integrations.warm`), so the notice reads the same whichever path scored the run.
"""

from __future__ import annotations

from collections.abc import Mapping

from ir_rarity.engine.contract import ASSUMED_MEMBER
from ir_rarity.errors import MemberNotice, warn

__all__ = ["NOTICE_RUNS", "report_members"]


def report_members(names: list[str], membership: Mapping[int | None, list[str | None]]) -> dict[str, str]:
    """Evaluated run -> the member it equals (at one depth or more); one notice for the evaluation naming them.

    Membership is decided per depth: a run may equal a member to depth 10 but not to depth 100, and is then
    scored as that member by measures counting S_d at 10 and as a newcomer by those counting at 100. The notice
    says both, for every such run, in one line (the first :data:`NOTICE_RUNS` runs named, then a count).
    """
    def at(depths: list[int | None]) -> str:
        return ", ".join("whole runs" if d is None else str(d) for d in depths)

    members: dict[str, str] = {}
    parts: list[str] = []
    for i, name in enumerate(names):
        found = {depth: found[i] for depth, found in membership.items()}
        matched = [d for d, m in found.items() if m is not None]
        if not matched:
            continue
        member = found[matched[0]]
        assert member is not None
        members[name] = member
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
    return members


NOTICE_RUNS = 10
"""Runs named in the one member notice of an evaluation; the rest are counted."""
