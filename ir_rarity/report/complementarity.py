"""The report's complementarity section: what each team adds to the campaign's fusion, against its rarity.

Computed only when asked (``report(..., complementarity=True)``, ``ir-rarity report ... --complementarity``), by
:func:`ir_rarity.complementarity.complementarity` on the report's campaign and qrels: the first standard measure
of the report is the Shapley game's (RRF fusion of the teams), its rarity measures give the teams' rarity scores.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ir_rarity.complementarity.names import DEFAULT_RARITY
from ir_rarity.complementarity.study import complementarity
from ir_rarity.measures.parse import higher_is_better
from ir_rarity.report.markup import frame_table

if TYPE_CHECKING:
    from ir_rarity.provenance import Provenance
    from ir_rarity.report.data import ReportData

__all__ = ["TEMPLATE", "gather", "render"]


def gather(data: ReportData) -> None:
    """Fill ``data.complementarity`` (a :class:`~ir_rarity.complementarity.Complementarity`) when asked."""
    ev, pool = data.evaluation, data.pool
    if not data.settings.complementarity:  # said in the section itself (not asked for is not a lack of data)
        return
    if pool is None or ev.qrels is None or len(set(pool.teams.values())) < 2:
        data.note("complementarity", "needs the campaign's runs (a pool built from run files), its qrels and two "
                                     "teams or more")
        return
    pooled = {str(m) for m in data.pooled()}
    standard = [ev.label(m) for m in ev.measures if str(m) not in pooled and getattr(m, "NAME", "") != "ASL"]
    rarity = [ev.label(m) for m in data.pooled() if getattr(m, "NAME", "") != "ASL" and higher_is_better(m)]
    measures = list(dict.fromkeys(standard[:1] + rarity)) or ["nDCG@10"]
    data.complementarity = complementarity(ev.qrels, pool, measures, rarity=rarity or list(DEFAULT_RARITY),
                                           samples=data.settings.complementarity_samples, seed=data.settings.seed)


def render(data: ReportData, _: Provenance) -> dict[str, Any] | None:
    """The template arguments: what it rests on, the fusion, the teams and the correlations."""
    result = data.complementarity
    if result is None:
        if data.settings.complementarity:
            return None  # asked for, not computable: the section's note says why
        return {"describe": "Not computed: ask for it with ir_rarity.report(..., complementarity=True) or "
                            "ir-rarity report --complementarity (it evaluates a fused run per coalition of teams)."}
    rarity = result.settings["rarity"]
    return {"describe": result.describe(),
            "fusion": frame_table(result.fusion, "complementarity-fusion"),
            "teams": frame_table(result.teams, "complementarity-teams", search=["team"], filter_box=True,
                                 descending=[*rarity, "contribution", "shapley", "unique_relevant"]),
            "correlations": frame_table(result.correlations, "complementarity-correlations")}


TEMPLATE = (r"""<p>{{ describe }}</p>{% if fusion is defined %}<h3>The campaign fused</h3>{{ fusion }}"""
            r"""<h3>Teams: rarity, contribution, Shapley value, unique relevant documents</h3>{{ teams }}"""
            r"""<h3>Is rarity correlated with what a team adds?</h3>{{ correlations }}{% endif %}""")
