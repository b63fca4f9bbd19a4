"""The ir_measures provider that computes ir_rarity's measures.

Registered in ``ir_measures.providers.registry`` and appended to ``ir_measures.DefaultPipeline``, it lets
``ir_measures.calc_aggregate``, ``iter_calc``, ``calc`` and ``evaluator`` (and so ``pt.Experiment``) compute
rarity measures next to the standard ones. The pool is the one active (``with pool:``) when the run is
evaluated; with none active (e.g. the stock ``ir_measures`` command), the measure's ``pool`` parameter
(``P_rare(pool='runs/*.gz')@100``) or else the ``IR_RARITY_POOL`` environment variable names the runs to build
it from, once per process and path.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import ir_measures
from ir_measures import Metric
from ir_measures.providers.base import Evaluator, Provider

from ir_rarity.measures.base import RarityMeasure
from ir_rarity.pool.context import active_pool, require_pool

if TYPE_CHECKING:
    import pandas as pd

    from ir_rarity.pool.pool import Pool

# numpy, pandas and the engine are imported when a run is evaluated, not when the provider is registered: the
# start-up hook registers ir_rarity on every `import ir_measures`, which must stay as light as it was.

__all__ = ["POOL_ENV", "RarityEvaluator", "RarityProvider", "pool_for"]

POOL_ENV = "IR_RARITY_POOL"
_POOLS: dict[str, Pool] = {}


def pool_for(measure: ir_measures.Measure) -> Pool:
    """The pool to evaluate ``measure`` against.

    The active pool (``with pool:``) if any; else one built from the measure's ``pool`` parameter or, failing
    that, the ``IR_RARITY_POOL`` environment variable (a run file split by tag, a directory or a glob), built
    once per process and path.

    Raises:
        NoActivePoolError: no active pool, no ``pool`` parameter and no ``IR_RARITY_POOL``.

    """
    pool = active_pool()
    if pool is not None:
        return pool
    spec = measure["pool"] if isinstance(measure, RarityMeasure) and "pool" in measure.SUPPORTED_PARAMS else None
    spec = spec or os.environ.get(POOL_ENV) or None
    if spec is None:
        return require_pool(str(measure))
    if spec not in _POOLS:
        from ir_rarity.pool.pool import Pool

        _POOLS[spec] = Pool.from_runs(spec)
    return _POOLS[spec]


def _single_run_pool(frame: pd.DataFrame) -> Pool:
    """A pool of the evaluated run alone, for measures that do not count S_d (``NEEDS_POOL = False``)."""
    from ir_rarity.pool.pool import Pool

    return Pool.from_runs({"run": frame})


class RarityEvaluator(Evaluator):
    """Evaluates one run at a time against the active pool (see :class:`RarityProvider`)."""

    def __init__(self, measures: Iterable[ir_measures.Measure], qrels: pd.DataFrame) -> None:
        measures = list(measures)
        super().__init__(measures, set(qrels["query_id"].unique()))
        self._qrels = qrels

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        from ir_rarity.engine.evaluate import compute
        from ir_rarity.io.frames import as_run_frame

        frame = as_run_frame(run)
        by_pool: dict[int, tuple[Pool, list[ir_measures.Measure]]] = {}
        own: list[Pool] = []
        for measure in self.measures:
            if getattr(measure, "NEEDS_POOL", True):
                pool = pool_for(measure)
            else:  # e.g. ASL: no S_d needed, so without an active pool a throwaway pool of this run alone
                if not own:
                    own.append(active_pool() or _single_run_pool(frame))
                pool = own[0]
            by_pool.setdefault(id(pool), (pool, []))[1].append(measure)
        for pool, measures in by_pool.values():
            encoded = pool.encode_qrels(self._qrels)
            rows = pool.run_rows(frame, encoded)
            query_ids = list(encoded.query_ids)
            present = rows.present[0]
            for measure in measures:
                values = compute(measure, rows)[0]
                scores_empty = getattr(measure, "SCORES_EMPTY_RANKINGS", False)
                for q, (query_id, value) in enumerate(zip(query_ids, values, strict=False)):
                    if present[q] or scores_empty:
                        yield Metric(query_id=query_id, measure=measure, value=float(value))


class RarityProvider(Provider):
    """ir_measures provider for ``P_rare``, ``AP_rare`` and the other ir_rarity measures."""

    NAME = "ir_rarity"

    def supports(self, measure: ir_measures.Measure) -> bool:
        """True for ir_rarity measures (after checking their parameters)."""
        if not isinstance(measure, RarityMeasure):  # every ir_rarity measure has an engine kernel
            return False
        measure.validate_params()
        return True

    def _evaluator(self, measures: Iterable[ir_measures.Measure], qrels: Any) -> RarityEvaluator:
        from ir_rarity.io.frames import as_qrels_frame

        return RarityEvaluator(measures, as_qrels_frame(qrels))
