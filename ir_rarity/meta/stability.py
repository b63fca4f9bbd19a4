"""Stability of a measure under topic subsampling (Türkmen, Lease & Kutlu, ECIR 2023, Section 4.4).

The analysis of Buckley & Voorhees ("Evaluating evaluation measure stability", SIGIR 2000; reprinted in SIGIR Forum
2017): how often the comparison of two systems on a random half of the topics agrees with its majority outcome.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, overload

import numpy as np
import pandas as pd

from ir_rarity.checks import check_draws
from ir_rarity.errors import ParameterError
from ir_rarity.stats import BLOCK_ELEMENTS, check_scores, direction_of, in_natural_order

__all__ = ["StabilityResult", "stability"]


@dataclass(frozen=True, eq=False)
class StabilityResult:
    """Outcome of :func:`stability` with ``return_details=True``.

    Attributes:
        score: The stability score, ``sum_pairs max(wins_a, wins_b) / (n_pairs * trials)``.
        minority_rate: ``sum_pairs min(wins_a, wins_b) / (n_pairs * trials)``, the fraction of comparisons
            that went against the majority (Buckley & Voorhees' swap / error rate numerator).
        tie_rate: Fraction of comparisons within the fuzziness margin; ``score + minority_rate + tie_rate
            == 1``.
        pairs: One row per unordered pair (``run_a`` before ``run_b`` in input order) with ``wins_a``,
            ``wins_b``, ``ties`` and ``stability = max(wins_a, wins_b) / trials``.
        trials: Number of topic subsets drawn.
        topics: Topics per subset.
        fuzziness: The fuzziness value.
        relative: Whether the fuzziness is relative.

    """

    score: float
    minority_rate: float
    tie_rate: float
    pairs: pd.DataFrame
    trials: int
    topics: int
    fuzziness: float
    relative: bool


def _checked_topics(n_queries: int, topics: int | None, trials: int, fuzziness: float) -> int:
    """The topics per subset (default half the queries), after checking the parameters."""
    if topics is None:
        topics = n_queries // 2
    if not 1 <= topics <= n_queries:
        raise ParameterError(f"topics must be in [1, {n_queries}], got {topics}")
    check_draws(trials, "trials", n_queries, each="queries")  # the trials x queries subsets
    if fuzziness < 0:
        raise ParameterError(f"fuzziness must be >= 0, got {fuzziness}")
    return topics


def _subset_means(values: np.ndarray, topics: int, trials: int, rng: np.random.Generator) -> np.ndarray:
    """Trials x runs means over ``topics`` queries drawn without replacement per trial (NaN-aware).

    A trials x queries 0/1 selection matrix times the queries x runs score matrix gives all subset sums at once;
    a run without a scored query in a subset has a NaN mean there.
    """
    n_queries = values.shape[1]
    drawn = np.argsort(rng.random((trials, n_queries)), axis=1)[:, :topics]
    selection = np.zeros((trials, n_queries))
    selection[np.arange(trials)[:, None], drawn] = 1.0
    valid = ~np.isnan(values)
    sums = selection @ np.where(valid, values, 0.0).T
    counts = selection @ valid.T.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts


def _pair_wins(means: np.ndarray, fuzziness: float, relative: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per pair ``i < j`` (``np.triu_indices`` order), the trials run i wins and those run j wins beyond the margin.

    Run by run: the means of every later run j minus those of run i, one contiguous block of ``(runs - i - 1)
    x trials`` (no gathered copies of the means per pair; trials in blocks of at most :data:`BLOCK_ELEMENTS`
    differences). ``m_j - m_i`` is exactly ``-(m_i - m_j)``, so i wins where it is below ``-margin`` and j where
    it is above ``margin``; a NaN compares False both ways (a tie).
    """
    runs, trials = means.shape[1], means.shape[0]
    by_run = np.ascontiguousarray(means.T)  # runs x trials
    wins_a = np.zeros(runs * (runs - 1) // 2, dtype=np.int64)
    wins_b = np.zeros_like(wins_a)
    step = max(1, BLOCK_ELEMENTS // max(runs, 1))
    for start in range(0, trials, step):
        block, first = by_run[:, start : start + step], 0
        for i in range(runs - 1):  # one block per run, not per pair or trial
            own, later = block[i], block[i + 1 :]
            diff = later - own
            margin = fuzziness * np.maximum(np.abs(own), np.abs(later)) if relative else fuzziness
            last = first + len(later)
            wins_a[first:last] += np.count_nonzero(diff < -margin, axis=1)
            wins_b[first:last] += np.count_nonzero(diff > margin, axis=1)
            first = last
    return wins_a, wins_b


def _details(runs: pd.Index, wins_a: np.ndarray, wins_b: np.ndarray, trials: int, topics: int,
             fuzziness: float, relative: bool) -> StabilityResult:
    """The :class:`StabilityResult` of the per-pair win counts."""
    i, j = np.triu_indices(len(runs), k=1)
    ties = trials - wins_a - wins_b
    majority = np.maximum(wins_a, wins_b)
    total = len(i) * trials
    pairs = pd.DataFrame({"run_a": runs[i], "run_b": runs[j], "wins_a": wins_a, "wins_b": wins_b, "ties": ties,
                          "stability": majority / trials})
    return StabilityResult(score=float(majority.sum() / total),
                           minority_rate=float(np.minimum(wins_a, wins_b).sum() / total),
                           tie_rate=float(ties.sum() / total), pairs=pairs, trials=trials, topics=topics,
                           fuzziness=fuzziness, relative=relative)


@overload
def stability(
    scores: pd.DataFrame,
    topics: int | None = ...,
    trials: int = ...,
    fuzziness: float = ...,
    relative: bool = ...,
    seed: int | np.random.Generator | None = ...,
    higher_is_better: bool | None = ...,
    return_details: Literal[False] = ...,
) -> float: ...


@overload
def stability(
    scores: pd.DataFrame,
    topics: int | None = ...,
    trials: int = ...,
    fuzziness: float = ...,
    relative: bool = ...,
    seed: int | np.random.Generator | None = ...,
    higher_is_better: bool | None = ...,
    *,
    return_details: Literal[True],
) -> StabilityResult: ...


def stability(
    scores: pd.DataFrame,
    topics: int | None = None,
    trials: int = 1000,
    fuzziness: float = 0.05,
    relative: bool = False,
    seed: int | np.random.Generator | None = None,
    higher_is_better: bool | None = None,
    return_details: bool = False,
) -> float | StabilityResult:
    """Stability of a measure under topic subsampling (Buckley & Voorhees; Türkmen et al., ECIR 2023, §4.4).

    Each of ``R = trials`` trials draws ``T = topics`` queries uniformly without replacement and computes
    every run's mean over the drawn queries (NaN-aware: a run's mean is over its drawn queries with a
    score). For each unordered pair (A, B) with subset means ``m_A``, ``m_B`` the trial is a win for A if
    ``m_A - m_B > f`` (a win for B if ``m_B - m_A > f``) and a tie otherwise, where ``f = fuzziness``
    (absolute, as in the authors' code) or, with ``relative=True``, ``f = fuzziness * max(|m_A|, |m_B|)``. For
    lower-is-better measures (``higher_is_better=False``) the smaller mean wins. The score is

        ``stability = sum_{pairs} max(wins_A, wins_B) / (n_pairs * R)``,

    i.e. the average over pairs of the fraction of trials in which the pair's majority outcome occurred
    ("one system outperforms another in 700/1000 trials, yielding a stability score of 0.7"). The score is in
    [0, 1]; it is at least 0.5 when no comparison is a tie (e.g. ``fuzziness=0`` with distinct means), and
    ties lower it. Implementation: a trials x queries 0/1 selection matrix times the queries x runs score
    matrix gives all subset means at once; pairs are compared by broadcasting, in blocks of trials. Queries are put
    in natural order of their ids (:func:`ir_rarity.stats.scores.natural_order`) before any seeded draw, so the
    result does not depend on the order the data came in.

    Args:
        scores: Runs x queries per-query scores (index = run names, columns = query ids), e.g.
            :meth:`ir_rarity.Evaluation.matrix`.
        topics: Queries per subset; defaults to ``floor(n_queries / 2)`` as in the paper.
        trials: Number of subsets ``R`` (the paper uses 1000).
        fuzziness: Margin below which a difference counts as a tie (the paper's code uses 0.05).
        relative: Interpret ``fuzziness`` as a fraction of the larger absolute mean of the pair.
        seed: Seed or :class:`numpy.random.Generator`; the same seed gives the same result.
        higher_is_better: Direction of the measure (None: ``scores.attrs``, else True); only the per-pair
            ``wins_a``/``wins_b`` of the details depend on it, the score does not.
        return_details: Return a :class:`StabilityResult` instead of the bare score.

    Returns:
        The stability score, or a :class:`StabilityResult` if ``return_details``.

    Raises:
        ParameterError: If ``topics`` is not in [1, n_queries], ``trials < 1`` or ``fuzziness < 0``.
        InputError: If ``scores`` is not a numeric runs x queries table with at least 2 runs.

    """
    frame = check_scores(scores)
    values = in_natural_order(frame).to_numpy(dtype=float)
    topics = _checked_topics(values.shape[1], topics, trials, fuzziness)
    means = _subset_means(values, topics, trials, np.random.default_rng(seed))
    if not direction_of(scores, higher_is_better):
        means = -means
    wins_a, wins_b = _pair_wins(means, fuzziness, relative)
    details = _details(frame.index, wins_a, wins_b, trials, topics, fuzziness, relative)
    return details if return_details else details.score
