"""Discriminative power: how many run pairs a measure tells apart (Türkmen, Lease & Kutlu, ECIR 2023, Section 4.3).

Discriminative power (Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006) counts the system
pairs a significance test finds different; the paper follows Zhou, Lalmas, Sakai, Cummins & Jose ("On the
reliability and intuitiveness of aggregated search metrics", CIKM 2013). The tests of :mod:`ir_rarity.stats` are
run on every pair of runs at once.

Methods (they differ in pairing and in error control):

* ``"paper"``: the authors' procedure, a two-group Tukey HSD per pair (statsmodels). Unpaired, and *no*
  family-wise control: with only two groups Tukey's HSD is exactly the pooled-variance two-sample t-test
  (``q = sqrt(2) |t|`` on ``n_i + n_j - 2`` degrees of freedom), so p-values equal those of
  ``"ttest_ind"``. Computed for all pairs at once (:func:`ir_rarity.stats.hsd.paper_hsd`): statsmodels'
  decision ``q > q_crit`` with one critical value per degrees of freedom, so the same pairs are rejected.
* ``"ttest_ind"``: the same test, vectorised over all pairs (:func:`ir_rarity.stats.paired.two_sample_t_pvalues`,
  scipy's ``ttest_ind`` with ``equal_var=True``). Use this instead of ``"paper"`` for speed.
* ``"ttest_rel"``: paired t-test per pair on the per-query differences ``d_q = s_iq - s_jq``,
  ``t = mean(d) / (sd(d) / sqrt(m))`` on ``m - 1`` degrees of freedom (Student, Biometrika 1908). Paired
  (queries matched), no family-wise control.
* ``"tukey_hsd"``: one proper Tukey HSD over all ``n`` runs at once (Tukey, Princeton 1953; the statistic of
  :func:`scipy.stats.tukey_hsd`, one studentized-range distribution interpolated for all pairs,
  :func:`ir_rarity.stats.hsd.studentized_range_sf`, p-values within 1e-6 of scipy's).
  Unpaired, but controls the family-wise error rate over all pairs, so it is the most conservative.
* ``"randomization"``: paired two-sided sign-flip randomization test per pair (Fisher; Smucker, Allan &
  Carterette, CIKM 2007). Each of ``trials`` random sign vectors ``e`` (shared by all pairs) flips the
  per-query differences; ``p = (#{e : |sum_q e_q d_q| >= |sum_q d_q|} + 1) / (trials + 1)``. Paired, no
  family-wise control.

Missing scores: the paired tests (``"ttest_rel"``, ``"randomization"``) drop, per pair, the queries with
NaN in either run. The unpaired tests drop each run's NaN scores independently. With NaN present the two
t-tests are computed from masked moments (same statistic as scipy's ``nan_policy="omit"``, but
vectorised). A test that is undefined (e.g. two runs with identical scores, zero variance) gives p = NaN
and counts as not significant.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias

import numpy as np
import pandas as pd

from ir_rarity.errors import InputError, ParameterError
from ir_rarity.stats import (
    check_scores,
    in_natural_order,
    paired_differences,
    paired_t_pvalues,
    paper_hsd,
    randomization_pvalues,
    tukey_hsd_pvalues,
    two_sample_t_pvalues,
)

__all__ = ["DiscriminativePowerMethod", "DiscriminativePowerResult", "discriminative_power"]

DiscriminativePowerMethod = Literal["paper", "ttest_ind", "ttest_rel", "tukey_hsd", "randomization"]
"""The significance tests of :func:`discriminative_power`."""

Seed: TypeAlias = int | np.random.Generator | None
_Test: TypeAlias = Callable[[np.ndarray, float, int, Seed], tuple[np.ndarray, np.ndarray | None]]


@dataclass(frozen=True, eq=False)
class DiscriminativePowerResult:
    """Outcome of :func:`discriminative_power`.

    Attributes:
        significant_pairs: Number of unordered run pairs whose difference is significant at ``alpha``.
        total_pairs: Number of unordered run pairs, ``n (n - 1) / 2``.
        method: The significance test used.
        alpha: The significance level.
        pvalues: Square runs x runs table of two-sided p-values (symmetric, NaN on the diagonal and where a
            test is undefined, e.g. two identical runs).
        significant: Square runs x runs boolean table, True where the pair is significant (``p < alpha``;
            for ``"paper"`` the ``reject`` flag of statsmodels, which is the same decision).

    """

    significant_pairs: int
    total_pairs: int
    method: str
    alpha: float
    pvalues: pd.DataFrame
    significant: pd.DataFrame

    @property
    def ratio(self) -> float:
        """Fraction of run pairs found significantly different (``significant_pairs / total_pairs``)."""
        return self.significant_pairs / self.total_pairs if self.total_pairs else math.nan

    def pairs(self) -> pd.DataFrame:
        """Long table with one row per unordered pair: ``run_a``, ``run_b``, ``pvalue``, ``significant``."""
        runs = self.pvalues.index
        i, j = np.triu_indices(len(runs), k=1)
        return pd.DataFrame(
            {
                "run_a": runs[i],
                "run_b": runs[j],
                "pvalue": self.pvalues.to_numpy()[i, j],
                "significant": self.significant.to_numpy()[i, j],
            }
        )


def _paper(values: np.ndarray, alpha: float, trials: int, seed: Seed) -> tuple[np.ndarray, np.ndarray | None]:
    """The authors' per-pair two-group Tukey HSD, statsmodels' decisions computed for all pairs at once."""
    return paper_hsd(values, alpha)


def _ttest_ind(values: np.ndarray, alpha: float, trials: int, seed: Seed) -> tuple[np.ndarray, np.ndarray | None]:
    """Pooled-variance two-sample t-test for all pairs at once (each run's NaN scores dropped)."""
    return two_sample_t_pvalues(values), None


def _ttest_rel(values: np.ndarray, alpha: float, trials: int, seed: Seed) -> tuple[np.ndarray, np.ndarray | None]:
    """Paired t-test for all pairs at once; queries with NaN in either run of a pair are dropped."""
    return paired_t_pvalues(paired_differences(values)[2]), None


def _tukey_hsd(values: np.ndarray, alpha: float, trials: int, seed: Seed) -> tuple[np.ndarray, np.ndarray | None]:
    """One all-pairs Tukey HSD over every run (scipy's statistic), returned for the pairs i < j."""
    if (~np.isnan(values)).sum(axis=1).min() < 1:
        raise InputError("tukey_hsd needs at least one non-missing score per run")
    return tukey_hsd_pvalues(values), None


def _randomization(values: np.ndarray, alpha: float, trials: int, seed: Seed
                   ) -> tuple[np.ndarray, np.ndarray | None]:
    """Paired sign-flip randomization test for all pairs, sharing one random sign matrix across pairs."""
    return randomization_pvalues(paired_differences(values)[2], trials, seed), None


_TESTS: dict[str, _Test] = {"paper": _paper, "ttest_ind": _ttest_ind, "ttest_rel": _ttest_rel,
                            "tukey_hsd": _tukey_hsd, "randomization": _randomization}
_METHODS: tuple[str, ...] = tuple(_TESTS)


def _square(pairwise: np.ndarray, n_runs: int, fill: float | bool) -> np.ndarray:
    """The runs x runs symmetric matrix of values given for the pairs ``i < j``, ``fill`` on the diagonal."""
    i, j = np.triu_indices(n_runs, k=1)
    square = np.full((n_runs, n_runs), fill, dtype=np.asarray(pairwise).dtype)
    square[i, j] = pairwise
    square[j, i] = pairwise
    return square


def discriminative_power(
    scores: pd.DataFrame,
    method: DiscriminativePowerMethod = "paper",
    alpha: float = 0.05,
    higher_is_better: bool = True,
    trials: int = 10_000,
    seed: Seed = None,
) -> DiscriminativePowerResult:
    """Discriminative power: the number of run pairs a significance test tells apart (Zhou et al., CIKM 2013).

    For the ``n`` runs, every unordered pair ``(r_i, r_j)``, ``i < j``, is tested for a difference in mean
    score at level ``alpha``, and ``significant_pairs = #{(i, j) : p_ij < alpha}`` is reported out of
    ``n (n - 1) / 2`` pairs. Section 4.3 of Türkmen, Lease & Kutlu (ECIR 2023) uses Tukey's HSD; their code
    runs statsmodels' ``pairwise_tukeyhsd`` separately on each pair, treating the two runs' per-query scores
    as two independent groups, and counts ``reject``.

    The methods differ in pairing, in error control and in how they treat missing scores; see the module. Queries
    are put in natural order of their ids (:func:`ir_rarity.stats.scores.natural_order`) before any seeded draw
    (the randomization test's signs), so the result does not depend on the order the data came in.

    Args:
        scores: Runs x queries per-query scores (index = run names, columns = query ids), e.g.
            :meth:`ir_rarity.Evaluation.matrix`.
        method: The significance test (see the module).
        alpha: Significance level, e.g. 0.05 or 0.01 (the paper reports both).
        higher_is_better: Direction of the measure. All tests are two-sided, so the counts do not depend on
            it; it is accepted for a uniform interface.
        trials: Number of random sign vectors for ``"randomization"``.
        seed: Seed or :class:`numpy.random.Generator` for ``"randomization"``.

    Returns:
        A :class:`DiscriminativePowerResult` with the count, the number of pairs and the p-value table.

    Raises:
        ParameterError: On an unknown method, ``alpha`` outside (0, 1) or ``trials < 1``.
        InputError: If ``scores`` is not a numeric runs x queries table with at least 2 runs.

    """
    del higher_is_better  # two-sided tests: the direction does not change which pairs differ
    if method not in _METHODS:
        raise ParameterError(f"method must be one of {_METHODS}, got {method!r}")
    if not 0.0 < alpha < 1.0:
        raise ParameterError(f"alpha must be in (0, 1), got {alpha}")
    if method == "randomization" and trials < 1:
        raise ParameterError(f"trials must be >= 1, got {trials}")
    frame = check_scores(scores)
    values = in_natural_order(frame).to_numpy(dtype=float)
    pvals, reject = _TESTS[method](values, alpha, trials, seed)
    if reject is None:
        with np.errstate(invalid="ignore"):
            reject = np.nan_to_num(pvals, nan=1.0) < alpha
    n_runs = values.shape[0]
    return DiscriminativePowerResult(
        significant_pairs=int(reject.sum()),
        total_pairs=len(pvals),
        method=method,
        alpha=alpha,
        pvalues=pd.DataFrame(_square(pvals, n_runs, np.nan), index=frame.index, columns=frame.index),
        significant=pd.DataFrame(_square(reject, n_runs, False), index=frame.index, columns=frame.index),
    )
