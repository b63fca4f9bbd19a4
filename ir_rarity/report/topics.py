r"""Per-topic best, median and worst over the runs, and each run's difference from the median (NIST's appendix pages).

For a measure with per-query values :math:`x_{r,q}` of the runs r of the campaign, the report shows per query q
the best :math:`\max_r x_{r,q}`, the median :math:`\operatorname{med}_r x_{r,q}` and the worst
:math:`\min_r x_{r,q}` (for a measure where lower is better, such as ASL, best is the minimum), as the per-topic
summaries of TREC's appendix pages (Voorhees & Harman, *TREC: Experiment and Evaluation in Information
Retrieval*, MIT Press 2005, ch. 3); and each run's difference from the median :math:`x_{r,q} - \operatorname{med}_r
x_{r,q}`, with per run its mean and the queries where it is above, at and below the median. Undefined values (NaN)
are left out of the median (:func:`numpy.nanmedian`). The values are the evaluation's (``Evaluation.matrix``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ir_rarity.compare.uncertainty import depends_on_pool
from ir_rarity.measures.parse import higher_is_better
from ir_rarity.report.markup import frame_table
from ir_rarity.stats.scores import in_natural_order

if TYPE_CHECKING:
    from ir_rarity.provenance import Provenance
    from ir_rarity.report.data import ReportData

__all__ = ["MEDIAN", "TEMPLATE", "from_median", "gather", "measures", "render", "summary"]

MEDIAN = "the query's median over the runs"
"""What the per-query differences are taken from when the report has no baseline."""


def _median(values: np.ndarray) -> np.ndarray:
    """The median over the runs (axis 0) of each query, NaN left out; NaN for a query without a value."""
    defined = ~np.isnan(values)
    out = np.full(values.shape[1], np.nan)
    has = defined.any(axis=0)
    if has.any():
        out[has] = np.nanmedian(values[:, has], axis=0)
    return out


def from_median(matrix: pd.DataFrame) -> pd.DataFrame:
    """Runs x queries: each run's value minus the query's median over the runs (queries in natural order)."""
    values = matrix.to_numpy(float)
    return in_natural_order(pd.DataFrame(values - _median(values)[None, :], index=matrix.index,
                                         columns=matrix.columns))


def summary(matrix: pd.DataFrame, higher: bool) -> pd.DataFrame:
    """Per query (natural order): best, median and worst over the runs, and the run that is best (first by name)."""
    ordered = in_natural_order(matrix.sort_index(kind="mergesort"))
    values = ordered.to_numpy(float)
    filled = np.where(np.isnan(values), -np.inf if higher else np.inf, values)
    pick = np.argmax(filled, axis=0) if higher else np.argmin(filled, axis=0)
    with np.errstate(all="ignore"):
        high, low = np.nanmax(values, axis=0), np.nanmin(values, axis=0)
    best, worst = (high, low) if higher else (low, high)
    return pd.DataFrame({"query": [str(q) for q in ordered.columns], "best": best, "median": _median(values),
                         "worst": worst, "best run": ordered.index.to_numpy()[pick]})


def measures(data: ReportData) -> list[Any]:
    """The measures summarised: the first standard and the first rarity measure, and each pair's other half."""
    ev = data.evaluation
    chosen = [m for m in ev.measures if not depends_on_pool(m)][:1] + data.pooled()[:1]
    for rare, base in data.pairs[:1]:
        chosen += [ev.measure(base), ev.measure(rare)]
    out: list[Any] = []
    for m in chosen:
        if str(m) not in {str(o) for o in out}:
            out.append(m)
    return out


def gather(data: ReportData) -> None:
    """Fill ``data.topics`` (per-query summaries) and ``data.from_median`` (runs x queries differences)."""
    ev = data.evaluation
    for m in measures(data):
        matrix = ev.matrix(m)
        data.topics[ev.label(m)] = summary(matrix, higher_is_better(m))
        data.from_median[ev.label(m)] = from_median(matrix)


def _per_run(data: ReportData, label: str, diff: pd.DataFrame) -> pd.DataFrame:
    values = diff.to_numpy(float)
    higher = higher_is_better(data.evaluation.measure(label))
    sign = 1.0 if higher else -1.0
    frame = pd.DataFrame({"run": diff.index, "team": [data.teams.get(r, r) for r in diff.index],
                          "mean difference from the median": np.nanmean(values, axis=1) if values.size
                          else np.full(len(diff), np.nan),
                          "queries better than the median": (sign * values > 0).sum(axis=1),
                          "at the median": (values == 0).sum(axis=1),
                          "worse than the median": (sign * values < 0).sum(axis=1)})
    return frame.sort_values("mean difference from the median", ascending=not higher, kind="mergesort")


def render(data: ReportData, _: Provenance) -> dict[str, Any] | None:
    """The template arguments: per measure its per-query table and its per-run table."""
    if not data.topics:
        return None
    parts = []
    for i, (label, table) in enumerate(data.topics.items()):
        higher = higher_is_better(data.evaluation.measure(label))
        parts.append({"label": label, "direction": "higher is better" if higher else "lower is better",
                      "queries": frame_table(table, f"topics-{i}"),
                      "runs": frame_table(_per_run(data, label, data.from_median[label]), f"from-median-{i}",
                                          search=["run", "team"], filter_box=True,
                                          descending=["mean difference from the median"] if higher else [])})
    return {"parts": parts, "runs": len(data.evaluation.names)}


TEMPLATE = (r"""{% for part in parts %}<h3>{{ part.label }} ({{ part.direction }}): best, median and worst of the """
            r"""{{ runs }} runs per query</h3>{{ part.queries }}<h3>{{ part.label }}: each run's difference from """
            r"""the query's median</h3>{{ part.runs }}{% endfor %}""")
