r"""Judged@k per run: the share of each run's top k documents that the qrels judge, ir_measures' ``Judged@k``.

:math:`\mathrm{Judged@}k = |\{d \in \text{top } k : d \text{ judged}\}| / k` per query, averaged over the queries
(ir_measures' ``Judged``, as in Sakai & Kando, "On information retrieval metrics designed for evaluation with
incomplete relevance assessments", Information Retrieval 2008). A run with a low share is scored mostly on
documents nobody judged, so its standard and rarity scores are lower bounds. It is scored through the package's
one evaluation (:func:`ir_rarity.evaluation.evaluate_campaign`) at every cutoff the report's measures use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.measures.parse import parse_measure
from ir_rarity.pool.pool import Pool
from ir_rarity.pool.stream import StreamedCampaign
from ir_rarity.report.markup import frame_table

if TYPE_CHECKING:
    from ir_rarity.provenance import Provenance
    from ir_rarity.report.data import ReportData

__all__ = ["TEMPLATE", "cutoffs", "gather", "render"]


def cutoffs(data: ReportData) -> list[int]:
    """The cutoffs of the evaluated measures, ascending (10 and 100 when none names one)."""
    found = {int(c) for m in data.evaluation.measures
             if (c := getattr(m, "params", {}).get("cutoff")) is not None}
    return sorted(found) or [10, 100]


def gather(data: ReportData) -> None:
    """Fill ``data.judged``: Judged@k of every run (rows in leaderboard order) at every :func:`cutoffs` k."""
    campaign, judgments = data.evaluation.campaign, data.judgments
    names = [f"Judged@{k}" for k in cutoffs(data)]
    if isinstance(campaign, StreamedCampaign) and judgments is not None:  # every row of the top k, a block at a time
        campaign = campaign.for_measures([parse_measure(n) for n in names], judgments)
    elif not isinstance(campaign, Pool) or judgments is None:
        data.note("judged", "Judged@k needs the campaign's runs (a pool built from run files) and its qrels")
        return
    scored = evaluate_campaign(campaign, judgments, names, progress=False).table()
    order = list(data.table.index) if data.table is not None else list(scored.index)
    frame = scored.loc[[r for r in order if r in scored.index], names].reset_index()
    frame.insert(1, "team", [data.teams.get(r, r) for r in frame["run"]])
    data.judged = frame


def render(data: ReportData, _: Provenance) -> dict[str, Any] | None:
    """The template arguments: the table (leaderboard order) and the campaign's lowest share."""
    if data.judged is None:
        return None
    columns = [c for c in data.judged.columns if c not in ("run", "team")]
    lowest = {c: (str(data.judged["run"].iloc[int(np.nanargmin(values))]), float(np.nanmin(values)))
              for c in columns if np.isfinite(values := data.judged[c].to_numpy(float)).any()}
    return {"table": frame_table(data.judged, "judged-table", search=["run", "team"], filter_box=True,
                                 descending=columns),
            "lowest": [(c, run, f"{value:.4f}") for c, (run, value) in lowest.items()]}


TEMPLATE = (r"""<p>{% for column, run, value in lowest %}Lowest {{ column }}: {{ run }} ({{ value }})"""
            r"""{{ "; " if not loop.last else "." }}{% endfor %}</p>{{ table }}""")
