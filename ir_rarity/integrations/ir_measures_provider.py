"""The ir_measures provider that computes ir_rarity's measures.

Registered in ``ir_measures.providers.registry`` and appended to ``ir_measures.DefaultPipeline``, it lets
``ir_measures.calc_aggregate``, ``iter_calc``, ``calc`` and ``evaluator`` (and so ``pt.Experiment``) compute
rarity measures next to the standard ones. The pool is the one active (``with pool:``) when the run is
evaluated.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import ir_measures
import pandas as pd
from ir_measures import Metric
from ir_measures.providers.base import Evaluator, Provider

from ir_rarity.engine.evaluate import compute, supported_names
from ir_rarity.io.frames import as_qrels_frame, as_run_frame
from ir_rarity.measures.base import RarityMeasure
from ir_rarity.pool.context import require_pool

__all__ = ["RarityEvaluator", "RarityProvider"]


class RarityEvaluator(Evaluator):
    """Evaluates one run at a time against the active pool (see :class:`RarityProvider`)."""

    def __init__(self, measures: Iterable[ir_measures.Measure], qrels: pd.DataFrame) -> None:
        measures = list(measures)
        super().__init__(measures, set(qrels["query_id"].unique()))
        self._qrels = qrels

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        names = ", ".join(sorted({str(m) for m in self.measures}))
        pool = require_pool(names)
        encoded = pool.encode_qrels(self._qrels)
        rows = pool.run_rows(as_run_frame(run), encoded)
        query_ids = list(encoded.query_ids)
        present = rows.present[0]
        for measure in self.measures:
            values = compute(measure, rows)[0]
            for q, (query_id, value) in enumerate(zip(query_ids, values, strict=False)):
                if present[q]:
                    yield Metric(query_id=query_id, measure=measure, value=float(value))


class RarityProvider(Provider):
    """ir_measures provider for ``P_rare``, ``AP_rare`` and the other ir_rarity measures."""

    NAME = "ir_rarity"

    def supports(self, measure: ir_measures.Measure) -> bool:
        """True for ir_rarity measures (after checking their parameters)."""
        if not isinstance(measure, RarityMeasure) or measure.NAME not in supported_names():
            return False
        measure.validate_params()
        return True

    def _evaluator(self, measures: Iterable[ir_measures.Measure], qrels: Any) -> RarityEvaluator:
        return RarityEvaluator(measures, as_qrels_frame(qrels))
