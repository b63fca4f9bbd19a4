r"""Every member of a pool scored against the pool with its systems counted any number of times.

A *weighted campaign* counts system :math:`s` (a run, or a team for a pool built with teams) :math:`w_s` times:
:math:`S = \sum_s w_s` and :math:`S_d = \sum_s w_s\,[s \text{ retrieved } d \text{ within the depth}]`, and for the
novelty utility each run's reading probabilities count :math:`w` times. Weights of 1 give the pool itself; a 0
leaves a system out (leave-one-team-out); multinomial weights are a bootstrap over systems. Every member run is
scored by the one evaluation rule (:mod:`ir_rarity.engine.rule`): a run whose system is in the campaign is a
member; a run whose system has weight 0 is scored as if it alone had joined (:math:`S + 1`, its own documents
counted in :math:`S_d`).

:class:`WeightedCampaign` encodes the pool's rows once (restricted to the qrels' queries), and the distinct
(system, document) pairs once per depth; a set of weights then costs one weighted ``bincount`` per depth and the
kernels. :meth:`WeightedCampaign.values` gives each measure's per-query values under one weighting, and
:func:`values_under` under each of a list of weightings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ir_rarity.engine.codes import sorted_lookup
from ir_rarity.engine.compute import compute
from ir_rarity.engine.novelty import probability_table
from ir_rarity.engine.rows import Rows, Selection, Subrows
from ir_rarity.errors import ParameterError

if TYPE_CHECKING:
    from ir_rarity.engine.qrels import EncodedQrels
    from ir_rarity.pool.pool import Pool

__all__ = ["WeightedCampaign", "values_under"]


class WeightedCampaign:
    """Rows of all members of ``pool`` against the pool with each system counted ``weights[s]`` times.

    Attributes:
        num_systems: Number of systems (runs, or teams).
        system_names: Name of each system.
        run_system: System of each member run.

    """

    def __init__(self, pool: Pool, qrels: EncodedQrels) -> None:
        """Encode the pool's rows within the qrels' queries once."""
        self.base = pool.member_rows(qrels)
        self.run_system = np.asarray(pool.encoded.system, dtype=np.int64)
        self.system_names = list(pool.encoded.system_names)
        self.num_systems = len(self.system_names)
        self.row_system = self.run_system[self.base.run]
        self.unique_keys, inverse = np.unique(self.base.keys(), return_inverse=True)
        self.pair = inverse.reshape(-1)
        self._distinct: dict[int | None, tuple[np.ndarray, np.ndarray]] = {}

    def _pairs_at(self, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Distinct (pair, system) within ``depth``: a team retrieving a document with two runs counts once."""
        if depth not in self._distinct:
            within = slice(None) if depth is None else self.base.rank < depth
            codes = np.unique(self.pair[within].astype(np.int64) * self.num_systems + self.row_system[within])
            self._distinct[depth] = (codes // self.num_systems, codes % self.num_systems)
        return self._distinct[depth]

    def counts(self, weights: np.ndarray, depth: int | None) -> np.ndarray:
        r""":math:`S_d = \sum_s w_s [s \text{ retrieved } d]` of every pair in :attr:`unique_keys`."""
        pair, system = self._pairs_at(depth)
        return np.bincount(pair, weights=weights[system], minlength=len(self.unique_keys))

    def rows(self, weights: np.ndarray) -> Rows:
        """Rows of every member run scored against the campaign weighted by ``weights`` (one per system).

        Raises:
            ParameterError: wrong number of weights, or a negative one.

        """
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (self.num_systems,) or (w < 0).any():
            raise ParameterError(f"need {self.num_systems} non-negative system weights, got shape {w.shape}")
        base = self.base
        return Rows(run=base.run, query=base.query, rank=base.rank, present=base.present, n_runs=base.n_runs,
                    qrels=base.qrels, source=_Weighted(self, w))

    def values(self, weights: np.ndarray, measures: Sequence[Any]) -> dict[Any, np.ndarray]:
        """Each measure's ``(runs, queries)`` matrix, every member scored against the campaign weighted by ``weights``.

        Members of a system with weight 0 are scored as newcomers (S + 1, their own documents counted in S_d).

        Raises:
            ParameterError: bad weights, or a measure the engine does not compute.

        """
        rows = self.rows(weights)
        try:
            return {m: compute(m, rows) for m in measures}
        finally:
            rows.release()


def values_under(campaign: WeightedCampaign, weightings: Iterable[np.ndarray], measures: Sequence[Any]
                 ) -> Iterator[dict[Any, np.ndarray]]:
    """For each weighting in turn, each measure's ``(runs, queries)`` matrix (:meth:`WeightedCampaign.values`).

    One weighting's matrices at a time: what a caller keeps of them (e.g. each run's mean) is up to it.
    """
    for weights in weightings:
        yield campaign.values(weights, measures)


class _Weighted(Subrows):
    """The members' rows (labels and keys read through the pool's rows) with S and S_d counted with weights."""

    def __init__(self, campaign: WeightedCampaign, weights: np.ndarray) -> None:
        super().__init__(campaign.base)
        self.campaign = campaign
        self.weights = weights
        self.run_weight = weights[campaign.run_system]
        self.newcomer = self.run_weight == 0
        total = float(weights.sum())
        self.num_systems = np.where(self.newcomer, total + 1.0, total)
        self.tables: dict[int | None, np.ndarray] = {}

    def _table(self, depth: int | None) -> np.ndarray:
        if depth not in self.tables:
            self.tables[depth] = self.campaign.counts(self.weights, depth)
        return self.tables[depth]

    def s_d(self, depth: int | None, rows: Selection) -> tuple[np.ndarray, np.ndarray]:
        """Weighted S_d, plus one for a newcomer's own rows within ``depth``; S = the weights' sum (+ 1)."""
        base, chosen = self.campaign.base, slice(None) if rows is None else rows
        run = base.run[chosen]
        own = self.newcomer[run] if depth is None else self.newcomer[run] & (base.rank[chosen] < depth)
        return self._table(depth)[self.campaign.pair[chosen]] + own, self.num_systems

    def campaign_s_d(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        """Weighted S_d of any pair keys (0 outside the pool)."""
        return sorted_lookup(self.campaign.unique_keys, self._table(depth), keys, 0.0)

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """Each run's reading probabilities counted as often as its system's weight."""
        base = self.campaign.base
        keys, sums = probability_table(base.keys(), base.rank, base.run, base.query, cutoff,
                                       weights=self.run_weight[base.run])
        return keys, sums, round(float(self.run_weight.sum())), ~self.newcomer
