"""System rankings by mean score, the rankings compared in Section 4.2 of Türkmen, Lease & Kutlu (ECIR 2023)."""

from __future__ import annotations

import pandas as pd

from ir_rarity.stats import direction_of, run_means
from ir_rarity.stats.ties import rank

__all__ = ["system_ranking"]


def system_ranking(scores_or_means: pd.DataFrame | pd.Series, higher_is_better: bool | None = None) -> pd.Series:
    """Rank systems by their mean score over queries (rank 1 = best).

    The mean of run r is ``m_r = (1 / |Q_r|) * sum_{q in Q_r} s_{r,q}`` where ``Q_r`` are the queries with a
    non-missing score for r (:func:`ir_rarity.stats.run_means`, an exactly rounded sum). Systems are ranked by
    ``m_r``, descending when ``higher_is_better`` and ascending otherwise; tied systems (equal under
    :mod:`ir_rarity.stats.ties`' tolerance) get the average of the ranks they span (e.g. two systems tied for
    first both get 1.5). This is the system ranking compared in Section 4.2 of
    Türkmen, Lease & Kutlu (ECIR 2023).

    Args:
        scores_or_means: Runs x queries per-query scores, or a Series of run means indexed by run name.
        higher_is_better: Whether larger scores are better (False for e.g. search-length measures); None reads
            ``attrs["higher_is_better"]`` (as :meth:`ir_rarity.Evaluation.matrix` records it), else True.

    Returns:
        Float ranks indexed by run name, in the input's run order, named ``"rank"``. A run whose mean is NaN
        (no scored query) gets a NaN rank.

    """
    means = run_means(scores_or_means)
    ascending = not direction_of(scores_or_means, higher_is_better)
    return pd.Series(rank(means.to_numpy(), higher_is_better=not ascending, method="average"), index=means.index,
                     name="rank")
