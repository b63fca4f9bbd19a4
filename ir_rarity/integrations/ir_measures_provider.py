"""The ir_measures provider that computes ir_rarity's measures.

Registered in ``ir_measures.providers.registry`` and appended to ``ir_measures.DefaultPipeline``, it lets
``ir_measures.calc_aggregate``, ``iter_calc``, ``calc`` and ``evaluator`` (and so ``pt.Experiment``) compute
rarity measures next to the standard ones. The campaign is the one active (``with pool:``) when the run is
evaluated; with none active (e.g. the stock ``ir_measures`` command), the measure's ``pool`` parameter
(``P_rare(pool='runs/*.gz')@100``) or else the ``IR_RARITY_POOL`` environment variable names it (run files, a
folder, a glob, a saved ``.npz`` pool or a ``.parquet`` count table: :func:`ir_rarity.pool.resolve.resolve_campaign`),
resolved once per process and path; the S_d the rarity-weighted measures need is counted once per machine and kept
in a disk cache (:mod:`ir_rarity.pool.store.cache`). Each run is scored through the one door
(:func:`ir_rarity.evaluation.evaluate_campaign`): as the member it equals, or as if it alone had joined. The qrels are
read once per evaluator and encoded once per campaign.

Once the counts are cached, qrels and runs as ir_measures reads them from files (the stock command) are scored by
:mod:`ir_rarity.integrations.tuples`: the engine's one-run path (:mod:`ir_rarity.engine.one_run`), the same rule and
kernels on the cached counts with numpy alone, so a repeated call imports neither pandas nor pyarrow. Whatever it
does not handle takes the door above.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import ir_measures
from ir_measures import Metric
from ir_measures.providers.base import Evaluator, Provider

from ir_rarity.measures.base import RarityMeasure
from ir_rarity.measures.parse import check_params
from ir_rarity.pool.context import POOL_ENV, active_pool, require_pool

if TYPE_CHECKING:
    from ir_rarity.engine.contract import Campaign
    from ir_rarity.engine.judgments import Judgments

# numpy, pandas and the engine are imported when a run is evaluated, not when the provider is registered: the
# start-up hook registers ir_rarity on every `import ir_measures`, which must stay as light as it was.

__all__ = ["POOL_ENV", "RarityEvaluator", "RarityProvider", "pool_for"]


def pool_for(measure: ir_measures.Measure) -> Campaign:
    """The campaign to evaluate ``measure`` against.

    In this order: the one named by the measure's own ``pool`` parameter; else the active one (``with pool:``);
    else the ``IR_RARITY_POOL`` environment variable (named pools are resolved by
    :func:`~ir_rarity.pool.resolve.resolve_campaign`, once per process and path). For a measure that needs S_d
    alone (:func:`~ir_rarity.pool.resolve.counts_depth`), a named campaign is its count table at the measure's
    depth, counted once and then read from the disk cache (:mod:`ir_rarity.pool.store.cache`): the same values,
    without reading the campaign's runs on every call.

    Raises:
        NoActivePoolError: no active pool, no ``pool`` parameter and no ``IR_RARITY_POOL``.

    """
    from ir_rarity.pool.resolve import counts_depth, resolve_campaign

    spec = _spec_of(measure)
    if spec is None:
        return require_pool(str(measure))
    if not isinstance(spec, str):  # the active campaign
        return resolve_campaign(spec)
    counts, depth = counts_depth(measure)
    return resolve_campaign(spec, counts=counts, depth=depth)


def _spec_of(measure: ir_measures.Measure) -> Any:
    """What names the campaign of ``measure`` (:func:`pool_for`'s order), or None if nothing does."""
    from ir_rarity.evaluation import measure_pool

    return measure_pool(measure) or active_pool() or os.environ.get(POOL_ENV) or None


def _count_together(measures: Iterable[ir_measures.Measure]) -> None:
    """Count S_d at every depth the measures need of one named campaign from one reading of its runs.

    Measures that need S_d alone (:func:`~ir_rarity.pool.resolve.counts_depth`) of a campaign named by files get
    its count table at their depth; asked one measure at a time, each depth not cached yet would read the runs
    again. :func:`~ir_rarity.pool.resolve.resolve_counts` reads them once for all the depths and keeps each table
    (in this process and the disk cache), where :func:`pool_for` then finds it.
    """
    from ir_rarity.pool.resolve import counts_depth, resolve_counts

    depths: dict[str, list[int | None]] = {}
    for measure in measures:
        counts, depth = counts_depth(measure)
        spec = _spec_of(measure) if counts and getattr(measure, "NEEDS_POOL", True) else None
        if isinstance(spec, str):
            depths.setdefault(spec, [])
            if depth not in depths[spec]:
                depths[spec].append(depth)
    for spec, wanted in depths.items():
        if len(wanted) > 1:
            resolve_counts(spec, wanted)


class RarityEvaluator(Evaluator):
    """Evaluates one run at a time against the active pool (see :class:`RarityProvider`)."""

    def __init__(self, measures: Iterable[ir_measures.Measure], qrels: Any) -> None:
        from ir_rarity.integrations.tuples import qrels_columns

        measures = list(measures)
        self._columns = None
        self._judgments: Judgments | None = None
        self._counted = False  # every depth of a named campaign counted together: once per evaluator
        if isinstance(qrels, Iterator):  # as ir_measures reads a qrels file: read once, here
            qrels = list(qrels)
        if isinstance(qrels, list):
            self._columns = qrels_columns(qrels)
        if self._columns is None:
            self._judgments = self._read(qrels)
            query_ids = set(self._judgments.frame["query_id"].unique())
        else:
            query_ids = set(self._columns.query.tolist())
        self._qrels = qrels
        super().__init__(measures, query_ids)

    @staticmethod
    def _read(qrels: Any) -> Judgments:
        from ir_rarity.engine.judgments import Judgments

        return Judgments(qrels)

    @property
    def judgments(self) -> Judgments:
        """The qrels, read (as :class:`~ir_rarity.engine.judgments.Judgments`) when the ordinary path needs them."""
        if self._judgments is None:
            self._judgments = self._read(self._qrels)
        return self._judgments

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        from ir_rarity.engine import one_member_notice

        with one_member_notice():  # one notice for the run, however many count tables (depths) score it
            metrics = list(self._values(run))
        yield from metrics

    def _values(self, run: Any) -> Iterator[Metric]:
        """The run's values, the quick way (:mod:`ir_rarity.integrations.tuples`) or else the ordinary path."""
        from ir_rarity.integrations.tuples import cached_values, run_columns

        if self._columns is not None and not isinstance(run, list | dict) and not hasattr(run, "columns"):
            run = list(run)  # an iterator of ScoredDoc, as ir_measures reads a run file: read once, here
        columns = run_columns(run) if self._columns is not None and isinstance(run, list) else None
        cached = None if columns is None or self._columns is None else cached_values(list(self.measures),
                                                                                     self._columns, columns)
        if cached is not None:
            query_ids, values = cached
            for measure in self.measures:
                for query_id, value in zip(query_ids.tolist(), values[measure].tolist(), strict=True):
                    yield Metric(query_id=query_id, measure=measure, value=float(value))
            return
        yield from self._ordinary(run)

    def _ordinary(self, run: Any) -> Iterator[Metric]:
        """The values of the run through :func:`~ir_rarity.evaluation.evaluate_campaign`."""
        from ir_rarity.evaluation import evaluate_campaign
        from ir_rarity.integrations.tuples import RUN_NAME
        from ir_rarity.io.frames import as_run_frame
        from ir_rarity.pool.pool import Pool

        frame = as_run_frame(run)
        if not self._counted:
            _count_together(self.measures)
            self._counted = True
        by_campaign: dict[int, tuple[Any, list[ir_measures.Measure]]] = {}
        for measure in self.measures:
            if getattr(measure, "NEEDS_POOL", True):
                campaign: Any = pool_for(measure)
            else:  # e.g. ASL: no S_d needed, so without an active pool the run alone is the campaign
                campaign = active_pool() or "own"
            by_campaign.setdefault(id(campaign), (campaign, []))[1].append(measure)
        for campaign, measures in by_campaign.values():
            if campaign == "own":
                result = evaluate_campaign(Pool.from_runs({"run": frame}), self.judgments, measures)
            else:
                result = evaluate_campaign(campaign, self.judgments, measures, {RUN_NAME: frame})
            # Every qrels query, in the table's (sorted) order, so that ir_measures' aggregators add them up as
            # ir_rarity's tables do; a query the run lacks holds the measure's default, as back-filling would give.
            for measure in measures:
                for query_id, value in zip(result.query_ids, result.values[measure][0], strict=True):
                    yield Metric(query_id=query_id, measure=measure, value=float(value))


class RarityProvider(Provider):
    """ir_measures provider for ``P_rare``, ``AP_rare`` and the other ir_rarity measures."""

    NAME = "ir_rarity"

    def supports(self, measure: ir_measures.Measure) -> bool:
        """True for ir_rarity measures (after checking their parameters)."""
        if not isinstance(measure, RarityMeasure):  # every ir_rarity measure has an engine kernel
            return False
        check_params(measure)  # strictly: depth=True is not an integer
        return True

    def _evaluator(self, measures: Iterable[ir_measures.Measure], qrels: Any) -> RarityEvaluator:
        return RarityEvaluator(measures, qrels)
