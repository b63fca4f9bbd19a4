r"""``U_novel``: the novelty-based utility of Fujii & Ishikawa (LREC 2000)."""

from __future__ import annotations

import math
from typing import ClassVar

from ir_measures.measures.base import ParamInfo

from ir_rarity.errors import ParameterError
from ir_rarity.measures.base import RarityMeasure, pool_param, rel_param

__all__ = ["U_novel"]


class _U_novel(RarityMeasure):
    r"""Novelty-based utility of a system (Fujii & Ishikawa, LREC 2000, eq. 1-4), per query, then averaged.

    .. math:: U(x) = \sum_{d \text{ relevant}} \log \frac{P(D=d \mid S=x) + \epsilon}{P(D=d) + \epsilon},
              \quad P(D=d \mid S=x) = \frac{N - r + 1}{N}, \quad
              P(D=d) = \frac{1}{|E|} \sum_{y \in E} P(D=d \mid S=y)

    The sum runs over every relevant document of the query in the qrels (label >= ``rel``), retrieved or not.
    ``r`` is d's 1-based rank in x's ranking, :math:`P(D=d \mid S=x) = 0` when x does not retrieve d (within
    the cutoff). ``N`` is the cutoff k when given (``U_novel@k``: every system offers k reading positions), else
    the length of the system's ranking for the query. ``E`` is every *other* system of the pool: a pool member is
    left out of its own :math:`P(D=d)`, a new system is not in the pool anyway (leave-one-out, as in the
    paper). Systems are runs, also in a pool built with teams. Higher is better; a document every system ranks
    alike adds 0.

    **log(0).** The paper leaves :math:`\log 0` undefined: it occurs when x misses a relevant document
    (:math:`-\infty`) or when no other system retrieves it (:math:`+\infty`, or 0/0 if x misses it too). Both
    probabilities get the same additive ``epsilon`` (default 0.001), additive (Lidstone) smoothing as for
    language models: with probability of order epsilon the user reaches d by some means outside the systems.
    Adding it to *both* sides keeps what the measure means: a document x and the others deliver alike still
    adds 0 -- in particular a relevant document no system retrieves adds :math:`\log(\epsilon/\epsilon) = 0`
    instead of NaN; the sign is kept (positive exactly when x is likelier than the others to deliver d); each
    term is bounded by :math:`\pm\log((1 + \epsilon)/\epsilon)`, so one document cannot dominate the sum with
    an infinite value; and where the paper's value is finite, it is the limit as epsilon goes to 0. epsilon
    should stay well below the smallest probability a ranking can give, 1/N (0.01 at N = 100): then it only
    matters for the undefined cases. Values are always finite.
    """

    __name__ = "U_novel"
    NAME = __name__
    PRETTY_NAME = "Novelty-based utility"
    SHORT_DESC = "Sum over relevant documents of log(P(read d | this system) / P(read d | the other systems))."
    SUPPORTED_PARAMS = {  # noqa: RUF012 (an instance attribute of ir_measures.Measure)
        "cutoff": ParamInfo(dtype=int, required=False,
                            desc="read only the top k, with N = k (default: the whole ranking, N = its length)"),
        "rel": rel_param(),
        "epsilon": ParamInfo(dtype=float, default=0.001,
                             desc="additive smoothing of both probabilities, > 0: keeps log(0) out"),
        "pool": pool_param(),
    }
    BASE_MEASURE = "P"
    SCORES_EMPTY_RANKINGS: ClassVar[bool] = True
    """A query the system retrieved nothing for still has a value: it misses every relevant document."""

    def check_ranges(self) -> None:
        """Check epsilon > 0 and finite, and the cutoff."""
        super().check_ranges()
        epsilon = self["epsilon"]
        if not (epsilon > 0 and math.isfinite(epsilon)):
            raise ParameterError(f"{self.NAME}: epsilon must be > 0 and finite (it keeps log(0) out), got {epsilon}")


U_novel = _U_novel()
