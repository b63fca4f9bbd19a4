"""The report's "Unjudged documents" section: the unjudged share beside every score, and the pairs it leaves open.

The leaderboard shows the same shares in a column beside each score (:func:`leaderboard_shares`).

For every run and measure: the mean, the mean share of the documents the measure reads that are unjudged, and the
bounds ``[low, high]`` (unjudged documents non-relevant, the value; relevant at the lowest relevant grade), as
:meth:`ir_rarity.Evaluation.unjudged` and :meth:`~ir_rarity.Evaluation.bounds` give them (the report's one
evaluation is made with ``unjudged=True``). A run is marked when its place against the next run of the leaderboard
(by the first measure) is not decided by judged documents alone (:func:`ir_rarity.compare.rests.undecided_pairs`).
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING, Any

import pandas as pd

from ir_rarity.compare.rests import undecided_pairs
from ir_rarity.errors import ParameterError
from ir_rarity.pool.stream import TWO_PASSES, reading_note
from ir_rarity.report.markup import frame_table

if TYPE_CHECKING:
    from ir_rarity.provenance import Provenance
    from ir_rarity.report.data import ReportData

__all__ = ["MARK", "TEMPLATE", "gather", "leaderboard_shares", "render"]

MARK = "≈"
"""The mark of a run whose order against the next run is not decided by judged documents alone."""


def gather(data: ReportData) -> None:
    """Fill ``data.unjudged``: one row per run (leaderboard order), and the neighbours judged documents leave open."""
    ev = data.evaluation
    if reading_note(ev.campaign):
        data.note("unjudged", f"not gathered ({TWO_PASSES}): the unjudged shares and bounds read every row of the "
                              "runs (drop --stream or raise --memory)")
        return
    try:
        shares = {m: ev.unjudged(m)["unjudged"] for m in ev.measures}
        bounds = {m: ev.bounds(m) for m in ev.measures}
    except ParameterError as e:  # a measure outside the engine, or an evaluation made without unjudged=True
        data.note("unjudged", str(e))
        return
    order = [r for r in (data.table.index if data.table is not None else ev.names) if r in set(ev.names)]
    first = ev.measures[0]
    open_pairs = set(undecided_pairs(ev, first))
    neighbours = list(pairwise(order))
    undecided = [(a, b) for a, b in neighbours if (a, b) in open_pairs or (b, a) in open_pairs]
    marked = {a for a, _ in undecided}
    frame = pd.DataFrame({"run": [f"{r} {MARK}" if r in marked else r for r in order],
                          "team": [data.teams.get(r, r) for r in order]})
    for m in ev.measures:
        label = ev.label(m)
        frame[label] = ev.means(m).loc[order].to_numpy()
        frame[f"{label} unjudged"] = shares[m].loc[order].to_numpy()
        frame[f"{label} high"] = bounds[m]["high"].loc[order].to_numpy()
    data.unjudged = {"frame": frame, "measure": ev.label(first), "undecided": len(undecided),
                     "pairs": len(neighbours), "descending": [ev.label(m) for m in ev.measures]}


def leaderboard_shares(data: ReportData) -> dict[str, pd.Series]:
    """Measure label -> each run's mean unjudged share (:meth:`ir_rarity.Evaluation.unjudged`), for the leaderboard.

    The leaderboard shows it beside every score (a column ``"<measure> unjudged"``, sortable, in its CSV export);
    a measure whose share was not gathered (an evaluation made without ``unjudged=True``) has none.
    """
    ev = data.evaluation
    out = {}
    for m in ev.measures:
        try:
            out[ev.label(m)] = ev.unjudged(m)["unjudged"]
        except ParameterError:  # not gathered: the section's note says why
            continue
    return out


def render(data: ReportData, _: Provenance) -> dict[str, Any] | None:
    """The template arguments: the table and the count of undecided neighbours."""
    gathered = data.unjudged
    if gathered is None:
        return None
    return {"table": frame_table(gathered["frame"], "unjudged-table", search=["run", "team"], filter_box=True,
                                 descending=gathered["descending"]),
            "measure": gathered["measure"], "undecided": gathered["undecided"], "pairs": gathered["pairs"],
            "mark": MARK}


TEMPLATE = (r"""<p>By {{ measure }}, {{ undecided }} of the {{ pairs }} neighbouring pairs of the leaderboard """
            r"""are not decided by judged documents alone (the better run's bounds overlap the next run's); the """
            r"""first run of each is marked {{ mark }}. Low is the score itself; high counts every unjudged """
            r"""document the measure reads as relevant at the lowest relevant grade.</p>{{ table }}""")
