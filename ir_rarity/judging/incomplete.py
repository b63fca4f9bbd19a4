r"""Rarity under incomplete judgments: Judged@k beside the values, judged-only values and per-run bounds.

A run's value depends on documents the pool never judged. Three views, per run:

* the value as usual, unjudged documents non-relevant (trec_eval's and ir_measures' default);
* the value with ``judged_only=True``: unjudged documents removed from the ranking before scoring (the
  condensed list of Sakai, SIGIR 2007; ir_measures' ``judged_only``), S_d as counted in the pool;
* the value with the run's own unjudged documents counted relevant (label ``max(rel, 1)`` of the measure,
  added to the qrels for that run alone, so N_R grows by them): the optimistic reading.

For precision-like measures at a cutoff (P, P_rare) the first and last bound the value any judgment of the
missing documents could give. For measures normalised by N_R (AP, AP_rare, R_rare, nDCG) the optimistic value
can be lower than the usual one (a relevant document found deep adds less than it adds to N_R), so the two
are a range of readings, not strict bounds. ``Judged@k`` (ir_measures) says how much of the top k was judged.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from ir_measures import Measure

from ir_rarity.errors import MemberNotice
from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.io.frames import as_qrels_frame
from ir_rarity.measures.base import RarityMeasure
from ir_rarity.measures.parse import parse_measure, parse_measures
from ir_rarity.pool.pool import Pool

__all__ = ["incomplete_judgments", "judged_only"]


def judged_only(measure: Measure) -> Any | None:
    """The ``judged_only=True`` version of ``measure``, or None when it has no such parameter."""
    measure = parse_measure(measure)
    if "judged_only" not in getattr(measure, "SUPPORTED_PARAMS", {}):
        return None
    return parse_measure(measure(judged_only=True))


def incomplete_judgments(pool: Pool, qrels: Any, measures: Any, judged_at: int = 10,
                         runs: list[str] | None = None) -> pd.DataFrame:
    """Per run and measure: the value, its judged-only value, its value with unjudged counted relevant, Judged@k.

    Args:
        pool: The campaign (its runs are scored as members).
        qrels: The judgments, possibly incomplete (e.g. restricted to a simulated pool).
        measures: Measures (objects or ir_measures strings).
        judged_at: k of the ``Judged@k`` column.
        runs: Runs to report (default all; the optimistic reading costs one evaluation per run).

    Returns:
        One row per (run, measure): ``run, measure, value, judged_only`` (NaN for a measure without the
        parameter), ``unjudged_relevant`` and ``Judged@k``. ``attrs["pool"]`` says what it was computed against.

    """
    measure_list = parse_measures(measures)
    frame = as_qrels_frame(qrels)
    names = list(pool.names) if runs is None else list(runs)
    condensed = {str(m): judged_only(m) for m in measure_list}
    judged_measure = parse_measure(f"Judged@{int(judged_at)}")
    asked = [*measure_list, *(m for m in condensed.values() if m is not None), judged_measure]
    base = evaluate_campaign(pool, frame, list(dict.fromkeys(asked))).table().loc[names]
    label = max([int(m["rel"]) if isinstance(m, RarityMeasure) else int(m.params.get("rel", 1) or 1)
                 for m in measure_list] + [1])
    judged_pairs = pd.MultiIndex.from_frame(frame[["query_id", "doc_id"]].astype(str))
    judged_queries = set(frame["query_id"].astype(str))
    optimistic = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemberNotice)
        for name in names:
            run = pool.run(name)
            outside = ~pd.MultiIndex.from_frame(run[["query_id", "doc_id"]]).isin(judged_pairs)
            judged_query = run["query_id"].isin(judged_queries).to_numpy()  # other queries are not evaluated
            unjudged = run.loc[outside & judged_query, ["query_id", "doc_id"]]
            extra = unjudged.assign(relevance=label)
            augmented = pd.concat([frame, extra[frame.columns]], ignore_index=True) if len(extra) else frame
            optimistic[name] = evaluate_campaign(pool, augmented, measure_list, {name: run}).table().iloc[0]
    rows = []
    for m in measure_list:
        key, cm = str(m), condensed[str(m)]
        rows.append(pd.DataFrame({
            "run": names, "measure": key, "value": base[key].to_numpy(np.float64),
            "judged_only": base[str(cm)].to_numpy(np.float64) if cm is not None else np.nan,
            "unjudged_relevant": [float(optimistic[n][key]) for n in names],
            f"Judged@{int(judged_at)}": base[str(judged_measure)].to_numpy(np.float64)}))
    table = pd.concat(rows, ignore_index=True)
    table.attrs["pool"] = base.attrs.get("pool", {})
    return table
