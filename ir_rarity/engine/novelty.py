r"""The novelty-based utility of Fujii & Ishikawa (LREC 2000), vectorized over a whole campaign.

For a query, the utility of system :math:`x` sums, over the relevant documents :math:`d`,

.. math:: U_d(x) = \log \frac{P(D=d \mid S=x)}{P(D=d)}, \qquad
          P(D=d \mid S=x) = \frac{N - r_{x,d} + 1}{N}, \qquad
          P(D=d) = \frac{1}{|E|} \sum_{y \in E} P(D=d \mid S=y)

(eq. 1-4 of the paper), :math:`r_{x,d}` being the 1-based rank of d in x's ranking of N documents (0 when x does
not retrieve d) and E the other systems. Both probabilities get an additive ``epsilon`` (see
:class:`ir_rarity.measures.novelty._U_novel` for why).

The campaign keeps, per cutoff, the sum over all its runs of :math:`P(D=d \mid S=y)` for every (query, document)
pair (:func:`probability_table`). Leaving x out of it is a subtraction of x's own probability, so scoring every
run of a campaign is one pass over its rows, whatever the number of runs.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from ir_rarity.engine import kernels
from ir_rarity.engine.codes import block_starts, sorted_lookup
from ir_rarity.engine.qrels import is_relevant

if TYPE_CHECKING:
    from ir_rarity.engine.rows import Rows

__all__ = ["probability_table", "reading_probability", "utility"]


def reading_probability(rank: np.ndarray, length: np.ndarray | int) -> np.ndarray:
    r""":math:`P(D=d \mid S=x) = (N - r + 1)/N` for the 0-based ``rank`` (r = rank + 1) and N = ``length``.

    The user stops reading after one of the N positions, each chosen with probability 1/N (eq. 4): d at rank r is
    read when the stop is at r or below.
    """
    length = np.asarray(length, dtype=np.float64)
    return (length - rank) / length


def probability_table(key: np.ndarray, rank: np.ndarray, run: np.ndarray, query: np.ndarray,
                      cutoff: int | None, weights: np.ndarray | None = None, n_keys: int | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
    r"""Sum over a pool's runs of :math:`P(D=d \mid S=y)` for every (query, document) pair they retrieve.

    Args:
        key: Pair key of each pool row; rows sorted by run, then query, then rank.
        rank: 0-based rank of each row.
        run: Run of each row.
        query: Query code of each row.
        cutoff: N = ``cutoff`` and rows at ranks > cutoff are not read; None: N = the run's length for the query.
        weights: How many times each row's run counts in the sum (default once); a campaign resampled with
            replacement counts a run as often as it was drawn.
        n_keys: When ``key`` holds dense codes ``0 .. n_keys - 1`` (of sorted keys): counted by code, no sort.

    Returns:
        ``(sorted unique pair keys, sum of the probabilities of each)``.

    """
    if cutoff is None:
        cell = np.cumsum(block_starts(run, query)) - 1
        length = np.bincount(cell)[cell] if len(cell) else np.zeros(0)
        mask: np.ndarray | slice = slice(None)
        probability = reading_probability(rank, length)
    else:
        mask = rank < cutoff
        probability = reading_probability(rank[mask], cutoff)  # only the rows read
    if weights is not None:
        probability = probability * np.asarray(weights, dtype=np.float64)[mask]
    if n_keys is not None:  # each bin adds its rows in row order, as the bincount over np.unique's inverse does
        chosen = key[mask]
        held = np.bincount(chosen, minlength=n_keys) > 0
        return np.flatnonzero(held), np.bincount(chosen, weights=probability, minlength=n_keys)[held]
    keys, inverse = np.unique(key[mask], return_inverse=True)
    return keys, np.bincount(inverse.reshape(-1), weights=probability, minlength=len(keys))


def utility(rows: Rows, cutoff: int | None, rel: int, epsilon: float) -> np.ndarray:
    r"""Novelty utility :math:`U(x) = \sum_d \log\frac{P(D=d|S=x) + \epsilon}{P(D=d) + \epsilon}` per (run, query).

    The sum runs over every relevant document of the query in the qrels, retrieved by x or not. It is computed as
    a per-query base, the value every relevant document would have if x had not retrieved it,
    :math:`\log\frac{\epsilon}{P(D=d) + \epsilon}`, plus, for each relevant document x did retrieve, the
    difference to its actual value. A campaign member is left out of its own :math:`P(D=d)` (its probability is
    subtracted from the campaign's sum, and :math:`|E| = n - 1`); a newcomer is not in the campaign
    (:math:`|E| = n`). With no other system (:math:`|E| = 0`), :math:`P(D=d) = 0`.

    Args:
        rows: :class:`~ir_rarity.engine.rows.Rows` whose source gives the campaign's reading probabilities.
        cutoff: N = ``cutoff`` (and documents below it are not retrieved); None: N = each ranking's length.
        rel: Minimum relevance label of a relevant document.
        epsilon: The additive smoothing of both probabilities (> 0).

    Returns:
        The ``n_runs * n_queries`` values, run-major.

    Raises:
        ParameterError: the campaign does not keep its runs (a count table).

    """
    table_keys, table_sums, n_campaign, member = rows.source.reading_probabilities(cutoff)
    member = np.asarray(member, dtype=bool)
    n_others = np.where(member, n_campaign - 1, n_campaign).astype(np.float64)  # per evaluated run
    scale = np.where(n_others > 0, 1.0 / np.maximum(n_others, 1.0), 0.0)
    cell = rows.cell()
    if cutoff is None:
        own = reading_probability(rows.rank, rows.cell_sizes()[cell])
        relevant = rows.relevant(rel)
        chosen = np.flatnonzero(relevant)
    else:
        keep = rows.within(cutoff)
        own = reading_probability(rows.rank[keep], cutoff)  # only the rows read
        relevant = rows.relevant(rel)[keep]
        chosen = keep[relevant]
    own, key, cell, run = own[relevant], rows.keys(chosen), cell[chosen], rows.run[chosen]
    total = sorted_lookup(table_keys, table_sums, key, 0.0)
    others = np.where(member[run], np.maximum(total - own, 0.0), total)
    found = (np.log((own + epsilon) / (others * scale[run] + epsilon))
             - np.log(epsilon / (total * scale[run] + epsilon)))

    base = np.zeros((rows.n_runs, rows.n_queries))
    for s in np.unique(scale).tolist():  # one base per distinct |E| (members and newcomers): at most a few
        make = partial(_missed_base, rows, table_keys, table_sums, rel, epsilon, s)
        base[scale == s] = rows.per_campaign(("novelty base", cutoff, rel, epsilon, s), make)
    return base.reshape(-1) + kernels.cell_sum(found, cell, rows.n_cells)


def _missed_base(rows: Rows, table_keys: np.ndarray, table_sums: np.ndarray, rel: int, epsilon: float,
                 scale: float) -> np.ndarray:
    r"""Per query, the value of a run that retrieves none of its relevant documents.

    That is :math:`\sum_d \log\frac{\epsilon}{P(D=d) + \epsilon}` over them, :math:`P(D=d)` the campaign's
    summed probability times ``scale`` (:math:`1/|E|`). It depends on the campaign and the qrels only (shared by
    every block of rows).
    """
    qrels = rows.qrels
    judged_relevant = is_relevant(qrels.labels, rel)
    pair_total = sorted_lookup(table_keys, table_sums, qrels.keys[judged_relevant], 0.0)
    missed = np.log(epsilon / (pair_total * scale + epsilon))
    return kernels.ordered_sum(missed, qrels.key_query[judged_relevant], rows.n_queries)
