r"""Every member of a pool scored against the pool with its systems counted any number of times.

A *weighted campaign* counts system :math:`s` (a run, or a team for a pool built with teams) :math:`w_s` times:
:math:`S = \sum_s w_s` and :math:`S_d = \sum_s w_s\,[s \text{ retrieved } d \text{ within the depth}]`, and for the
novelty utility each run's reading probabilities count :math:`w` times. Weights of 1 give the pool itself; a 0
leaves a system out (leave-one-team-out); multinomial weights are a bootstrap over systems. Every member run is
scored by the one evaluation rule (:mod:`ir_rarity.engine.evaluate`): a run whose system is in the campaign is a
member; a run whose system has weight 0 is scored as if it alone had joined (:math:`S + 1`, its own documents
counted in :math:`S_d`).

:class:`WeightedCampaign` encodes the pool's rows once (restricted to the qrels' queries), and the distinct
(system, document) pairs once per depth; a set of weights then costs one weighted ``bincount`` per depth and the
kernels. It reads the pool only through its public contract (``member_rows``, ``encoded``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ir_rarity.engine.codes import sorted_lookup
from ir_rarity.engine.novelty import probability_table
from ir_rarity.engine.rows import Rows
from ir_rarity.errors import ParameterError

if TYPE_CHECKING:
    from ir_rarity.engine.qrels import EncodedQrels
    from ir_rarity.pool.pool import Pool

__all__ = ["WeightedCampaign"]


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
        self.unique_keys, inverse = np.unique(self.base.key, return_inverse=True)
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
        run_weight = w[self.run_system]
        newcomer = run_weight == 0
        total = float(w.sum())
        num_systems = np.where(newcomer, total + 1.0, total)
        tables: dict[int | None, np.ndarray] = {}

        def table(depth: int | None) -> np.ndarray:
            if depth not in tables:
                tables[depth] = self.counts(w, depth)
            return tables[depth]

        def counts_at(depth: int | None) -> tuple[np.ndarray, np.ndarray]:
            own = newcomer[base.run] if depth is None else newcomer[base.run] & (base.rank < depth)
            return table(depth)[self.pair] + own, num_systems

        def key_counts(keys: np.ndarray, depth: int | None) -> np.ndarray:
            return sorted_lookup(self.unique_keys, table(depth), keys, 0.0)

        def probabilities_at(cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
            keys, sums = probability_table(base.key, base.rank, base.run, base.query, cutoff,
                                           weights=run_weight[base.run])
            return keys, sums, round(float(run_weight.sum())), ~newcomer

        return Rows(run=base.run, query=base.query, rank=base.rank, pair_keys=base.key, labels=base.label,
                    present=base.present, n_runs=base.n_runs, qrels=base.qrels, counts_at=counts_at,
                    key_counts=key_counts, probabilities_at=probabilities_at)
