r"""The novelty-based utility of Fujii & Ishikawa (LREC 2000), vectorized over a whole campaign.

For a query, the utility of system :math:`x` sums, over the relevant documents :math:`d`,

.. math:: U_d(x) = \log \frac{P(D=d \mid S=x)}{P(D=d)}, \qquad
          P(D=d \mid S=x) = \frac{N - r_{x,d} + 1}{N}, \qquad
          P(D=d) = \frac{1}{|E|} \sum_{y \in E} P(D=d \mid S=y)

(eq. 1-4 of the paper), :math:`r_{x,d}` being the 1-based rank of d in x's ranking of N documents (0 when x does
not retrieve d) and E the other systems. Both probabilities get an additive ``epsilon`` (see
:class:`ir_rarity.measures.novelty._U_novel` for why).

The pool keeps, per cutoff, the sum over all its runs of :math:`P(D=d \mid S=y)` for every (query, document)
pair (:func:`probability_table`). Leaving x out of it is a subtraction of x's own probability, so scoring every
run of a campaign is one pass over its rows, whatever the number of runs.
"""

from __future__ import annotations

import numpy as np

from ir_rarity.engine import kernels
from ir_rarity.engine.ranking import group_starts, sorted_lookup

__all__ = ["probability_table", "reading_probability", "utility"]


def reading_probability(rank: np.ndarray, length: np.ndarray | int) -> np.ndarray:
    r""":math:`P(D=d \mid S=x) = (N - r + 1)/N` for the 0-based ``rank`` (r = rank + 1) and N = ``length``.

    The user stops reading after one of the N positions, each chosen with probability 1/N (eq. 4): d at rank r is
    read when the stop is at r or below.
    """
    length = np.asarray(length, dtype=np.float64)
    return (length - rank) / length


def probability_table(key: np.ndarray, rank: np.ndarray, run: np.ndarray, query: np.ndarray,
                      cutoff: int | None) -> tuple[np.ndarray, np.ndarray]:
    r"""Sum over a pool's runs of :math:`P(D=d \mid S=y)` for every (query, document) pair they retrieve.

    Args:
        key: Pair key of each pool row; rows sorted by run, then query, then rank.
        rank: 0-based rank of each row.
        run: Run of each row.
        query: Query code of each row.
        cutoff: N = ``cutoff`` and rows at ranks > cutoff are not read; None: N = the run's length for the query.

    Returns:
        ``(sorted unique pair keys, sum of the probabilities of each)``.

    """
    if cutoff is None:
        group = np.cumsum(group_starts(run, query)) - 1
        length = np.bincount(group)[group] if len(group) else np.zeros(0)
        mask = np.ones(len(rank), dtype=bool)
    else:
        length, mask = cutoff, rank < cutoff
    probability = reading_probability(rank, length)[mask]
    keys, inverse = np.unique(key[mask], return_inverse=True)
    return keys, np.bincount(inverse.reshape(-1), weights=probability, minlength=len(keys))


def utility(rows, cutoff: int | None, rel: int, epsilon: float) -> np.ndarray:
    r"""Novelty utility :math:`U(x) = \sum_d \log\frac{P(D=d|S=x) + \epsilon}{P(D=d) + \epsilon}` per (run, query).

    The sum runs over every relevant document of the query in the qrels, retrieved by x or not. It is computed as
    a per-query base, the value every relevant document would have if x had not retrieved it,
    :math:`\log\frac{\epsilon}{P(D=d) + \epsilon}`, plus, for each relevant document x did retrieve, the
    difference to its actual value. A pool member is left out of its own :math:`P(D=d)` (its probability is
    subtracted from the pool's sum, and :math:`|E| = n - 1`); a newcomer is not in the pool (:math:`|E| = n`).
    With no other system (:math:`|E| = 0`), :math:`P(D=d) = 0`.

    Args:
        rows: :class:`ir_rarity.engine.evaluate.Rows` with ``probabilities_at``.
        cutoff: N = ``cutoff`` (and documents below it are not retrieved); None: N = each ranking's length.
        rel: Minimum relevance label of a relevant document.
        epsilon: The additive smoothing of both probabilities (> 0).

    Returns:
        The ``n_runs * n_queries`` values, run-major.

    """
    table_keys, table_sums, n_pool, members = rows.probabilities_at(cutoff)
    n_others = float(n_pool - 1 if members else n_pool)
    scale = 1.0 / n_others if n_others > 0 else 0.0
    n_groups = rows.n_runs * rows.n_queries
    group = rows.group()
    if cutoff is None:
        length, keep = np.bincount(group, minlength=n_groups)[group], np.ones(len(rows.rank), dtype=bool)
    else:
        length, keep = cutoff, rows.rank < cutoff
    own = reading_probability(rows.rank, length)[keep]
    relevant = (rows.label[keep] >= rel) & (rows.label[keep] >= 0)
    own, key, group = own[relevant], rows.key[keep][relevant], group[keep][relevant]
    total = sorted_lookup(table_keys, table_sums, key, 0.0)
    others = np.maximum(total - own, 0.0) if members else total
    found = np.log((own + epsilon) / (others * scale + epsilon)) - np.log(epsilon / (total * scale + epsilon))

    qrels = rows.qrels
    judged_relevant = (qrels.labels >= rel) & (qrels.labels >= 0)
    pair_total = sorted_lookup(table_keys, table_sums, qrels.keys[judged_relevant], 0.0)
    missed = np.log(epsilon / (pair_total * scale + epsilon))
    base = np.bincount(qrels.key_query[judged_relevant], weights=missed, minlength=rows.n_queries)
    return np.tile(base, rows.n_runs) + kernels.group_sum(found, group, n_groups)
