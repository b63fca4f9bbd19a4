r"""Each run's rarity gain: its rarity mean over its standard mean at the same cutoff, with a bootstrap interval.

A rarity measure weighs each relevant document d by :math:`w(d) = 1 + \alpha\,(1 - S_d/S)` (Türkmen, Lease &
Kutlu, ECIR 2023, eqs. 2-3), so the ratio :math:`g_r = \overline{\mathrm{P\_rare}}_r / \overline{\mathrm{P}}_r`
(for ``P_rare@k`` over ``P@k``, both at the cutoff k) is the mean weight of the relevant documents run r finds,
between 1 (only documents every system retrieved) and :math:`1 + \alpha` (only documents no other system
retrieved). Scores nearly on a line in the scatter differ in this ratio; its interval is a paired percentile
bootstrap over the queries (:func:`ir_rarity.stats.intervals.bootstrap_ratio_interval`: the same draws for both
measures and every run; Efron & Tibshirani, Chapman & Hall 1993, ch. 13).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from ir_rarity.report import charts
from ir_rarity.report.markup import frame_table
from ir_rarity.report.pairs import pair_title
from ir_rarity.stats.intervals import bootstrap_ratio_interval
from ir_rarity.stats.scores import in_natural_order

if TYPE_CHECKING:
    from ir_rarity.provenance import Provenance
    from ir_rarity.report.data import ReportData

__all__ = ["GAIN", "TEMPLATE", "gain_table", "gather", "render"]

GAIN = "rarity gain"
"""The column of the ratio."""


def gain_table(data: ReportData, pair: tuple[str, str]) -> pd.DataFrame:
    """Per run (best gain first): both means, the gain and its interval (``data.settings``' level, resamples, seed)."""
    ev, s = data.evaluation, data.settings
    rare, base = pair
    top = in_natural_order(ev.matrix(rare).sort_index(kind="mergesort"))
    bottom = in_natural_order(ev.matrix(base)).loc[top.index, top.columns]
    ratio, low, high = bootstrap_ratio_interval(top.to_numpy(float), bottom.to_numpy(float), level=s.ci,
                                                resamples=s.resamples, seed=s.seed)
    frame = pd.DataFrame({"run": top.index, "team": [data.teams.get(r, r) for r in top.index],
                          rare: top.mean(axis=1).to_numpy(), base: bottom.mean(axis=1).to_numpy(),
                          GAIN: ratio, "low": low, "high": high})
    return frame.sort_values(GAIN, ascending=False, kind="mergesort", na_position="last").reset_index(drop=True)


def gather(data: ReportData) -> None:
    """Fill ``data.gain``: one table per (rarity, standard) pair at the same cutoff (``data.pairs``)."""
    for pair in data.pairs:
        data.gain[pair] = gain_table(data, pair)


def render(data: ReportData, _: Provenance) -> dict[str, Any] | None:
    """The template arguments: per pair its chart and its table."""
    if not data.gain:
        return None
    parts = []
    for i, (pair, table) in enumerate(data.gain.items()):
        title = pair_title(data, pair)
        parts.append({"title": title, "chart": charts.rarity_gain(table, title, data.settings.ci, f"gain-{i}"),
                      "table": frame_table(table, f"gain-table-{i}", search=["run", "team"], filter_box=True,
                                           descending=[GAIN, title["rare"], title["base"]])})
    return {"parts": parts, "level": f"{data.settings.ci:g}", "resamples": data.settings.resamples,
            "seed": data.settings.seed}


TEMPLATE = (r"""<p>Rarity gain = mean of the rarity measure / mean of its standard measure at the same cutoff; """
            r"""low and high: the {{ level }} paired bootstrap interval over queries ({{ resamples }} resamples, """
            r"""seed {{ seed }}).</p>{% for part in parts %}{{ part.chart }}"""
            r"""<h3>Rarity gain: {{ part.title.label }}</h3>{{ part.table }}{% endfor %}""")
