"""The report's judges section: the report's qrels against other judges' qrels of the same runs.

Computed only when other judges are given (``report(..., judges=[...])``, ``ir-rarity report ... --judges
QRELS_B``), by :func:`ir_rarity.analysis.judges.compare_judges` on the report's campaign, with the report's qrels as
the reference judge and the report's measures (ASL left out: its search lengths are not what a judge changes).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ir_rarity.analysis.judges.compare import ALL_JUDGES, compare_judges
from ir_rarity.report.markup import frame_table

if TYPE_CHECKING:
    from ir_rarity.provenance import Provenance
    from ir_rarity.report.data import ReportData

__all__ = ["TEMPLATE", "gather", "render"]

_AGREEMENT = ["judge_a", "judge_b", "n_both", "agreement", "relevant_a", "relevant_b", "kappa", "kappa_linear",
              "kappa_quadratic", "alpha_ordinal"]


def _name(qrels: Any, i: int) -> str:
    return os.path.basename(os.fspath(qrels)) if isinstance(qrels, (str, os.PathLike)) else f"judge{i + 2}"


def gather(data: ReportData) -> None:
    """Fill ``data.judges`` (a :class:`~ir_rarity.analysis.judges.JudgeComparison`) when other judges are given."""
    others = list(data.settings.judges)
    if not others:
        return
    ev, pool = data.evaluation, data.pool
    if pool is None or ev.qrels is None:
        data.note("judges", "needs the campaign's runs (a pool built from run files) and its qrels")
        return
    measures = [ev.label(m) for m in ev.measures if getattr(m, "NAME", "") != "ASL"]
    names = ["qrels", *(_name(q, i) for i, q in enumerate(others))]
    names = [n if names.count(n) == 1 else f"{n}#{i + 1}" for i, n in enumerate(names)]
    data.judges = compare_judges([ev.qrels, *others], pool, measures, names=names, resamples=data.settings.resamples,
                                 level=data.settings.ci, seed=data.settings.seed)


def render(data: ReportData, _: Provenance) -> dict[str, Any] | None:
    """The template arguments: what it was computed against, agreement overall and by rarity, rankings, movers."""
    result = data.judges
    if result is None:
        if data.settings.judges:
            return None  # asked for, not computable: the section's note says why
        return {"describe": "Not computed: give other judges' qrels of the same runs with ir_rarity.report(..., "
                            "judges=[...]) or ir-rarity report --judges QRELS_B (see ir-rarity judges)."}
    pairs = result.agreement[result.agreement["judge_a"] != ALL_JUDGES][_AGREEMENT]
    by = result.by_rarity[result.by_rarity["judge_a"] != ALL_JUDGES][["s_d", *_AGREEMENT]]
    runs = result.runs.assign(size=result.runs["diff"].abs())
    moved = runs.sort_values(["size", "run"], ascending=[False, True]).drop(columns=["size"]).head(20)
    return {"describe": result.describe() + ".",
            "agreement": frame_table(pairs, "judges-agreement"),
            "by_rarity": frame_table(by, "judges-by-rarity"),
            "rankings": frame_table(result.rankings, "judges-rankings"),
            "runs": frame_table(moved, "judges-runs", search=["run"], filter_box=True)}


TEMPLATE = (r"""<p>{{ describe }}</p>{% if agreement is defined %}"""
            r"""<h3>Agreement on the documents both judged</h3>{{ agreement }}"""
            r"""<h3>Agreement by rarity (S_d bucket)</h3>{{ by_rarity }}"""
            r"""<h3>Leaderboards: Kendall's tau-b, tau_AP, top-10 overlap</h3>{{ rankings }}"""
            r"""<h3>Runs whose scores move most (difference with its bootstrap interval)</h3>{{ runs }}{% endif %}""")
