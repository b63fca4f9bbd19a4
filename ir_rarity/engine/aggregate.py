"""From a runs x queries matrix to one value per run, as each measure's own aggregator would give it."""

from __future__ import annotations

import ir_measures
import numpy as np
from ir_measures import Measure

__all__ = ["aggregate", "skips_undefined"]


def skips_undefined(measure: Measure) -> bool:
    """Whether the measure's mean leaves out queries without a value (NaN), e.g. ASL without relevant documents.

    ir_rarity measures declare it with ``SKIPS_UNDEFINED``; ir_measures' own measures never skip.
    """
    return bool(getattr(measure, "SKIPS_UNDEFINED", False))


def aggregate(measure: Measure, values: np.ndarray) -> np.ndarray:
    """Per-run aggregate of an ``(n_runs, n_queries)`` matrix, with the measure's aggregator semantics.

    A mean over all queries (ir_measures' ``MeanAgg``); the mean over the queries that have a value for measures
    that :func:`skip undefined queries <skips_undefined>` (NaN for a run with none); a sum for ir_measures'
    ``SumAgg`` (``NumRet``...). Any other aggregator is applied value by value.

    Sums are added up one query after another in column order (``np.add.accumulate``), as ir_measures'
    aggregators add the values its evaluators yield, and ir_rarity's provider yields every query in the same
    (sorted) order: so a table, ``calc_aggregate``, the ``ir_measures`` command and ``pt.Experiment`` give the
    same mean to the last digit, which a pairwise sum (``ndarray.mean``) would not.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.shape[1] == 0:
        return np.full(values.shape[0], np.nan)
    if skips_undefined(measure):
        defined = ~np.isnan(values)
        counts = defined.sum(axis=1)
        total = np.add.accumulate(np.where(defined, values, 0.0), axis=1)[:, -1]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, total / np.maximum(counts, 1), np.nan)
    aggregator = measure.aggregator()
    if type(aggregator) is ir_measures.measures.base.MeanAgg:
        return np.add.accumulate(values, axis=1)[:, -1] / values.shape[1]
    if type(aggregator) is ir_measures.measures.base.SumAgg:
        return np.add.accumulate(values, axis=1)[:, -1]
    out = np.empty(values.shape[0])
    for r in range(values.shape[0]):  # an aggregator we do not know: its own add/result, per run
        agg = measure.aggregator()
        for v in values[r]:
            agg.add(float(v))
        out[r] = agg.result()
    return out
