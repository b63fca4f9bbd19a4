"""Meta-evaluation statistics: system rankings, rank correlation, discriminative power and stability.

These are the three meta-evaluation analyses of Türkmen, Lease & Kutlu, "New Metrics to Encourage Innovation
and Diversity in Information Retrieval Approaches", ECIR 2023, Sections 4.2-4.4:

* Section 4.2 compares the system rankings two measures produce with Kendall's tau (and reports that
  tau_AP, Yilmaz, Aslam & Robertson, SIGIR 2008, gives similar results): :func:`system_ranking`,
  :func:`kendall_tau`, :func:`tau_ap`.
* Section 4.3 counts significantly different system pairs (Zhou et al., CIKM 2013) with Tukey's HSD:
  :func:`discriminative_power`.
* Section 4.4 measures stability under topic subsampling (Buckley & Voorhees, SIGIR Forum 2017 / SIGIR
  2000): :func:`stability`.

Every function takes per-query scores as a :class:`pandas.DataFrame` with one row per run (index = run
names) and one column per query (columns = query ids). Missing values (NaN) are allowed; each function
documents how it treats them. Functions that order systems take ``higher_is_better`` so that lower-is-better
measures (e.g. Atomized Search Length) are ranked the right way round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, overload

import numpy as np
import pandas as pd
from scipy import stats as sps

from ir_rarity.errors import InputError, ParameterError

__all__ = [
    "DiscriminativePowerResult",
    "StabilityResult",
    "discriminative_power",
    "kendall_tau",
    "paired_t_pvalues",
    "randomization_pvalues",
    "stability",
    "system_ranking",
    "tau_ap",
]

DiscriminativePowerMethod = Literal["paper", "ttest_ind", "ttest_rel", "tukey_hsd", "randomization"]
_METHODS: tuple[str, ...] = ("paper", "ttest_ind", "ttest_rel", "tukey_hsd", "randomization")

# Upper bound on the number of float64 elements of one intermediate block (about 32 MB).
_BLOCK_ELEMENTS = 4_000_000


# ----------------------------------------------------------------------------------------------------------
# Input helpers
# ----------------------------------------------------------------------------------------------------------


def _check_scores(scores: pd.DataFrame, min_runs: int = 2) -> pd.DataFrame:
    """Validate a runs x queries score table and return it with float values."""
    if not isinstance(scores, pd.DataFrame):
        raise InputError(f"scores must be a pandas DataFrame (runs x queries), got {type(scores).__name__}")
    if scores.index.has_duplicates:
        dup = scores.index[scores.index.duplicated()].unique().tolist()
        raise InputError(f"scores has duplicate run names: {dup[:5]}")
    if scores.columns.has_duplicates:
        dup = scores.columns[scores.columns.duplicated()].unique().tolist()
        raise InputError(f"scores has duplicate query ids: {dup[:5]}")
    if scores.shape[0] < min_runs:
        raise InputError(f"scores needs at least {min_runs} runs (rows), got {scores.shape[0]}")
    if scores.shape[1] < 1:
        raise InputError("scores has no queries (columns)")
    try:
        return scores.astype(float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"scores must be numeric: {exc}") from exc


def _run_means(scores_or_means: pd.DataFrame | pd.Series) -> pd.Series:
    """Return per-run means (NaN-aware) of a runs x queries table, or the given Series of means."""
    if isinstance(scores_or_means, pd.DataFrame):
        frame = _check_scores(scores_or_means, min_runs=1)
        return frame.mean(axis=1, skipna=True)
    if isinstance(scores_or_means, pd.Series):
        if scores_or_means.index.has_duplicates:
            raise InputError("run means have duplicate run names")
        try:
            return scores_or_means.astype(float)
        except (TypeError, ValueError) as exc:
            raise InputError(f"run means must be numeric: {exc}") from exc
    raise InputError(
        f"expected a runs x queries DataFrame or a Series of run means, got {type(scores_or_means).__name__}"
    )


def _direction_of(scores: Any, higher_is_better: bool | None) -> bool:
    """The given direction, else the one recorded by :func:`~ir_rarity.meta.per_query_matrix`, else True."""
    if higher_is_better is not None:
        return bool(higher_is_better)
    return bool(getattr(scores, "attrs", {}).get("higher_is_better", True))


def _directions(higher_is_better: bool | tuple[bool, bool] | None, a: Any = None, b: Any = None
                ) -> tuple[bool, bool]:
    """Expand ``higher_is_better`` into one flag per compared measure (None: read each input's ``attrs``)."""
    if higher_is_better is None:
        return _direction_of(a, None), _direction_of(b, None)
    if isinstance(higher_is_better, tuple):
        if len(higher_is_better) != 2:
            raise ParameterError("higher_is_better must be a bool or a pair of bools")
        return bool(higher_is_better[0]), bool(higher_is_better[1])
    return bool(higher_is_better), bool(higher_is_better)


def _aligned_oriented_means(
    a: pd.DataFrame | pd.Series,
    b: pd.DataFrame | pd.Series,
    higher_is_better: bool | tuple[bool, bool] | None,
) -> tuple[pd.Series, pd.Series]:
    """Run means of two measures on their common runs, sign-flipped so that larger is always better.

    Runs missing from either input, or whose mean is NaN in either, are dropped.
    """
    hib_a, hib_b = _directions(higher_is_better, a, b)
    mean_a = _run_means(a)
    mean_b = _run_means(b)
    common = mean_a.index.intersection(mean_b.index, sort=False)
    mean_a = mean_a.loc[common]
    mean_b = mean_b.loc[common]
    keep = mean_a.notna().to_numpy() & mean_b.notna().to_numpy()
    mean_a = mean_a[keep]
    mean_b = mean_b[keep]
    if len(mean_a) < 2:
        raise InputError(f"need at least 2 common runs with a defined mean, got {len(mean_a)}")
    return (mean_a if hib_a else -mean_a), (mean_b if hib_b else -mean_b)


# ----------------------------------------------------------------------------------------------------------
# Section 4.2: system rankings and rank correlation
# ----------------------------------------------------------------------------------------------------------


def system_ranking(scores_or_means: pd.DataFrame | pd.Series, higher_is_better: bool | None = None) -> pd.Series:
    """Rank systems by their mean score over queries (rank 1 = best).

    The mean of run r is ``m_r = (1 / |Q_r|) * sum_{q in Q_r} s_{r,q}`` where ``Q_r`` are the queries with a
    non-missing score for r (``scores.mean(axis=1, skipna=True)``). Systems are ranked by ``m_r``, descending
    when ``higher_is_better`` and ascending otherwise; tied systems get the average of the ranks they span
    (e.g. two systems tied for first both get 1.5). This is the system ranking compared in Section 4.2 of
    Türkmen, Lease & Kutlu (ECIR 2023).

    Args:
        scores_or_means: Runs x queries per-query scores, or a Series of run means indexed by run name.
        higher_is_better: Whether larger scores are better (False for e.g. search-length measures).

    Returns:
        Float ranks indexed by run name, in the input's run order, named ``"rank"``. A run whose mean is NaN
        (no scored query) gets a NaN rank.

    """
    means = _run_means(scores_or_means)
    higher_is_better = _direction_of(scores_or_means, higher_is_better)
    ranks = means.rank(method="average", ascending=not higher_is_better, na_option="keep")
    ranks.name = "rank"
    return ranks


def kendall_tau(
    a: pd.DataFrame | pd.Series,
    b: pd.DataFrame | pd.Series,
    variant: Literal["b", "c"] = "b",
    higher_is_better: bool | tuple[bool, bool] | None = None,
) -> float:
    """Kendall's tau between the system rankings induced by two measures.

    With ``P`` concordant pairs, ``Q`` discordant pairs, ``T`` pairs tied only in ``a`` and ``U`` pairs tied
    only in ``b``, tau-b is ``(P - Q) / sqrt((P + Q + T) * (P + Q + U))``; with no ties it equals Kendall's
    tau-a ``(P - Q) / (n (n - 1) / 2)``. Section 4.2 of Türkmen, Lease & Kutlu (ECIR 2023) reports this
    coefficient between the rankings of a rarity measure and its base measure. Computed with
    :func:`scipy.stats.kendalltau`; ``variant="c"`` gives Stuart's tau-c.

    Args:
        a: Runs x queries scores of the first measure (the NaN-aware mean over queries is taken), or a Series
            of run means.
        b: Same for the second measure. Both are aligned on their common runs; runs missing from either, or
            with a NaN mean in either, are left out.
        variant: ``"b"`` (default, handles ties) or ``"c"``.
        higher_is_better: Direction of both measures, or a pair ``(a_direction, b_direction)`` when the two
            measures point in opposite directions (e.g. AP vs. a search length).

    Returns:
        The coefficient in [-1, 1]; NaN if either ranking is constant.

    Raises:
        InputError: If fewer than 2 runs are common to both inputs.
        ParameterError: On an unknown ``variant``.

    """
    if variant not in ("b", "c"):
        raise ParameterError(f"variant must be 'b' or 'c', got {variant!r}")
    mean_a, mean_b = _aligned_oriented_means(a, b, higher_is_better)
    result = sps.kendalltau(mean_a.to_numpy(), mean_b.to_numpy(), variant=variant)
    return float(result.statistic)


def _strict_positions(means: pd.Series) -> np.ndarray:
    """0-based positions (0 = best) under a strict order: larger mean first, ties by run name ascending."""
    names = np.array([str(name) for name in means.index], dtype=object)
    by_name = np.argsort(names, kind="stable")
    # Stable sort on descending mean, applied to the name-sorted order, breaks ties by name.
    order = by_name[np.argsort(-means.to_numpy()[by_name], kind="stable")]
    positions = np.empty(len(means), dtype=np.int64)
    positions[order] = np.arange(len(means))
    return positions


def _tau_ap_directed(pos_list: np.ndarray, pos_truth: np.ndarray) -> float:
    """tau_AP of the ranking given by ``pos_list`` against the reference ranking ``pos_truth``."""
    n = len(pos_list)
    order = np.argsort(pos_list)  # items from the top of the evaluated list down
    truth_rank = pos_truth[order]  # reference position of the item at each list position
    # above[i, j]: item at list position j (< i) is also above item i in the reference ranking.
    above = truth_rank[None, :] < truth_rank[:, None]
    correct = np.tril(above, k=-1).sum(axis=1)[1:]  # C(i) for list positions i = 2..N (1-based)
    return float(2.0 / (n - 1) * np.sum(correct / np.arange(1, n)) - 1.0)


def tau_ap(
    a: pd.DataFrame | pd.Series,
    b: pd.DataFrame | pd.Series,
    symmetric: bool = False,
    higher_is_better: bool | tuple[bool, bool] | None = None,
) -> float:
    """AP rank correlation tau_AP (Yilmaz, Aslam & Robertson, SIGIR 2008) of ranking ``a`` against ``b``.

    ``tau_AP(a, b) = 2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1) - 1``, where the N systems are visited in the
    order of ``a`` (best first), and ``C(i)`` is the number of systems ranked above position i in ``a`` that
    are also ranked above the system at position i in the reference ranking ``b``. Unlike Kendall's tau it
    penalises swaps near the top more than swaps near the bottom, and it is asymmetric: ``b`` is the
    reference ("true") ranking, e.g. the official measure, and ``a`` the ranking being assessed (e.g. the
    rarity measure), as in Section 4.2 of Türkmen, Lease & Kutlu (ECIR 2023). ``symmetric=True`` returns
    ``(tau_AP(a, b) + tau_AP(b, a)) / 2``. Identical rankings give 1, reversed rankings give -1.

    Ties: tau_AP is defined for strict rankings. Ties in either ranking are broken deterministically by run
    name (ascending ``str(run)``), in both rankings alike, so ``tau_ap(x, x) == 1`` even with ties. With many
    ties, prefer :func:`kendall_tau` (tau-b), which accounts for them.

    Args:
        a: Runs x queries scores (the NaN-aware mean is taken) or run means of the ranking assessed.
        b: Same for the reference ranking. Both are aligned on their common runs (runs missing from either, or
            with a NaN mean in either, are left out).
        symmetric: Average both directions instead of treating ``b`` as the reference.
        higher_is_better: Direction of both measures, or a pair ``(a_direction, b_direction)``.

    Returns:
        The coefficient in [-1, 1].

    Raises:
        InputError: If fewer than 2 runs are common to both inputs.

    """
    mean_a, mean_b = _aligned_oriented_means(a, b, higher_is_better)
    pos_a = _strict_positions(mean_a)
    pos_b = _strict_positions(mean_b)
    forward = _tau_ap_directed(pos_a, pos_b)
    if not symmetric:
        return forward
    return (forward + _tau_ap_directed(pos_b, pos_a)) / 2.0


# ----------------------------------------------------------------------------------------------------------
# Section 4.3: discriminative power
# ----------------------------------------------------------------------------------------------------------


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


def _paired_differences(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pair indices (i < j) and the per-query differences ``values[i] - values[j]`` (pairs x queries)."""
    i, j = np.triu_indices(values.shape[0], k=1)
    return i, j, values[i] - values[j]


def _pvalues_paper(values: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The authors' per-pair two-group Tukey HSD, statsmodels' decisions computed for all pairs at once."""
    from ir_rarity.meta.hsd import paper_hsd

    return paper_hsd(values, alpha)


def _pvalues_ttest_ind(values: np.ndarray) -> np.ndarray:
    """Pooled-variance two-sample t-test for all pairs at once (each run's NaN scores dropped)."""
    i, j = np.triu_indices(values.shape[0], k=1)
    if not np.isnan(values).any():
        with np.errstate(divide="ignore", invalid="ignore"):
            res = sps.ttest_ind(values[i], values[j], axis=1, equal_var=True)
        return np.asarray(res.pvalue, dtype=float)
    # With NaN, scipy's nan_policy="omit" tests slice by slice; the same statistic from per-run moments:
    # t = (mean_i - mean_j) / sqrt(s_p^2 (1/n_i + 1/n_j)), s_p^2 = (SS_i + SS_j) / (n_i + n_j - 2).
    valid = ~np.isnan(values)
    n = valid.sum(axis=1).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(valid, values, 0.0).sum(axis=1) / n
        ss = np.where(valid, (values - mean[:, None]) ** 2, 0.0).sum(axis=1)
        df = n[i] + n[j] - 2.0
        pooled = (ss[i] + ss[j]) / df
        t = (mean[i] - mean[j]) / np.sqrt(pooled * (1.0 / n[i] + 1.0 / n[j]))
    return _two_sided_t_pvalue(t, df)


def _pvalues_ttest_rel(values: np.ndarray) -> np.ndarray:
    """Paired t-test for all pairs at once; queries with NaN in either run of a pair are dropped."""
    _, _, diffs = _paired_differences(values)
    return paired_t_pvalues(diffs)


def paired_t_pvalues(diffs: np.ndarray) -> np.ndarray:
    r"""Two-sided paired t-test of every row of a pairs x queries matrix of per-query differences.

    For a pair with differences :math:`d_q = s_{a,q} - s_{b,q}` on its :math:`m` queries without NaN,
    :math:`t = \bar d / \sqrt{s_d^2 / m}` on :math:`m - 1` degrees of freedom (Student's paired t-test, as
    :func:`scipy.stats.ttest_rel`, which it calls when no value is missing). A query with NaN is left out of its
    pair only. Undefined (zero variance, fewer than two queries): NaN.

    Args:
        diffs: Pairs x queries per-query differences (NaN where either run has no value).

    Returns:
        One two-sided p-value per pair.

    """
    diffs = np.asarray(diffs, dtype=float)
    if not np.isnan(diffs).any():
        with np.errstate(divide="ignore", invalid="ignore"):
            res = sps.ttest_1samp(diffs, 0.0, axis=1)
        return np.asarray(res.pvalue, dtype=float).reshape(-1)
    # With NaN, the same statistic on each pair's complete queries: t = mean(d) / sqrt(var(d) / m).
    valid = ~np.isnan(diffs)
    m = valid.sum(axis=1).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(valid, diffs, 0.0).sum(axis=1) / m
        var = np.where(valid, (diffs - mean[:, None]) ** 2, 0.0).sum(axis=1) / (m - 1.0)
        t = mean / np.sqrt(var / m)
    return _two_sided_t_pvalue(t, m - 1.0)


def _two_sided_t_pvalue(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    """Two-sided p-value ``2 * P(T_df > |t|)``; NaN where ``t`` is NaN or ``df < 1``."""
    p = np.full(t.shape, np.nan)
    ok = ~np.isnan(t) & (df >= 1)
    p[ok] = 2.0 * sps.t.sf(np.abs(t[ok]), df[ok])
    return p


def _pvalues_tukey_hsd(values: np.ndarray) -> np.ndarray:
    """One all-pairs Tukey HSD over every run (scipy's statistic), returned for the pairs i < j."""
    from ir_rarity.meta.hsd import tukey_hsd_pvalues

    if (~np.isnan(values)).sum(axis=1).min() < 1:
        raise InputError("tukey_hsd needs at least one non-missing score per run")
    return tukey_hsd_pvalues(values)


def _pvalues_randomization(
    values: np.ndarray, trials: int, seed: int | np.random.Generator | None
) -> np.ndarray:
    """Paired sign-flip randomization test for all pairs, sharing one random sign matrix across pairs."""
    _, _, diffs = _paired_differences(values)
    return randomization_pvalues(diffs, trials, seed)


def randomization_pvalues(diffs: np.ndarray, trials: int = 10_000,
                          seed: int | np.random.Generator | None = None) -> np.ndarray:
    r"""Two-sided paired randomization (sign-flip) test of every row of a pairs x queries difference matrix.

    Fisher's randomization test as Smucker, Allan & Carterette (CIKM 2007) apply it to IR: under the null
    hypothesis the two runs are exchangeable on every query, so each difference :math:`d_q` may flip its sign.
    With ``trials`` random sign vectors :math:`e` (one matrix shared by all pairs, so a seed fixes every p-value),
    :math:`p = (\#\{e : |\sum_q e_q d_q| \ge |\sum_q d_q|\} + 1) / (\text{trials} + 1)`. A query with NaN
    contributes nothing to its pair's sums (it is left out of that pair only). Computed as one matrix product per
    block of pairs.

    Args:
        diffs: Pairs x queries per-query differences (NaN where either run has no value).
        trials: Number of random sign vectors.
        seed: Seed or :class:`numpy.random.Generator`.

    Returns:
        One p-value per pair (NaN for a pair without any query).

    """
    diffs = np.asarray(diffs, dtype=float)
    rng = np.random.default_rng(seed)
    n_queries = diffs.shape[1]
    signs = rng.integers(0, 2, size=(trials, n_queries)).astype(float) * 2.0 - 1.0
    valid = ~np.isnan(diffs)
    counts = valid.sum(axis=1)
    diffs = np.where(valid, diffs, 0.0)  # a dropped query contributes nothing to any signed sum
    pvals = np.full(diffs.shape[0], np.nan)
    chunk = max(1, _BLOCK_ELEMENTS // max(trials, 1))
    for start in range(0, diffs.shape[0], chunk):
        block = diffs[start : start + chunk]
        observed = np.abs(block.sum(axis=1))
        permuted = np.abs(block @ signs.T)  # pairs x trials signed sums (same ordering as the means)
        # Tolerance so that sign patterns reproducing |observed| exactly are not lost to rounding.
        tol = 1e-10 * np.abs(block).sum(axis=1)
        hits = (permuted >= (observed - tol)[:, None]).sum(axis=1)
        pvals[start : start + chunk] = (hits + 1.0) / (trials + 1.0)
    pvals[counts == 0] = np.nan
    return pvals


def discriminative_power(
    scores: pd.DataFrame,
    method: DiscriminativePowerMethod = "paper",
    alpha: float = 0.05,
    higher_is_better: bool = True,
    trials: int = 10_000,
    seed: int | np.random.Generator | None = None,
) -> DiscriminativePowerResult:
    """Discriminative power: the number of run pairs a significance test tells apart (Zhou et al., CIKM 2013).

    For the ``n`` runs, every unordered pair ``(r_i, r_j)``, ``i < j``, is tested for a difference in mean
    score at level ``alpha``, and ``significant_pairs = #{(i, j) : p_ij < alpha}`` is reported out of
    ``n (n - 1) / 2`` pairs. Section 4.3 of Türkmen, Lease & Kutlu (ECIR 2023) uses Tukey's HSD; their code
    runs statsmodels' ``pairwise_tukeyhsd`` separately on each pair, treating the two runs' per-query scores
    as two independent groups, and counts ``reject``.

    Methods (they differ in pairing and in error control):

    * ``"paper"``: the authors' procedure, a two-group Tukey HSD per pair (statsmodels). Unpaired, and *no*
      family-wise control: with only two groups Tukey's HSD is exactly the pooled-variance two-sample t-test
      (``q = sqrt(2) |t|`` on ``n_i + n_j - 2`` degrees of freedom), so p-values equal those of
      ``"ttest_ind"``. Computed for all pairs at once (:func:`ir_rarity.meta.hsd.paper_hsd`): statsmodels'
      decision ``q > q_crit`` with one critical value per degrees of freedom, so the same pairs are rejected.
    * ``"ttest_ind"``: the same test, vectorised over all pairs with :func:`scipy.stats.ttest_ind`
      (``equal_var=True``). Use this instead of ``"paper"`` for speed.
    * ``"ttest_rel"``: paired t-test per pair on the per-query differences ``d_q = s_iq - s_jq``,
      ``t = mean(d) / (sd(d) / sqrt(m))`` on ``m - 1`` degrees of freedom. Paired (queries matched), no
      family-wise control.
    * ``"tukey_hsd"``: one proper Tukey HSD over all ``n`` runs at once (the statistic of
      :func:`scipy.stats.tukey_hsd`; one studentized-range distribution interpolated for all pairs,
      :func:`ir_rarity.meta.hsd.studentized_range_sf`, p-values within 1e-6 of scipy's).
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

    Args:
        scores: Runs x queries per-query scores (index = run names, columns = query ids).
        method: The significance test, see above.
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
    frame = _check_scores(scores)
    values = frame.to_numpy(dtype=float)

    reject: np.ndarray | None = None
    if method == "paper":
        pvals, reject = _pvalues_paper(values, alpha)
    elif method == "ttest_ind":
        pvals = _pvalues_ttest_ind(values)
    elif method == "ttest_rel":
        pvals = _pvalues_ttest_rel(values)
    elif method == "tukey_hsd":
        pvals = _pvalues_tukey_hsd(values)
    else:
        pvals = _pvalues_randomization(values, trials, seed)
    if reject is None:
        with np.errstate(invalid="ignore"):
            reject = np.nan_to_num(pvals, nan=1.0) < alpha

    n_runs = values.shape[0]
    i, j = np.triu_indices(n_runs, k=1)
    p_square = np.full((n_runs, n_runs), np.nan)
    p_square[i, j] = pvals
    p_square[j, i] = pvals
    s_square = np.zeros((n_runs, n_runs), dtype=bool)
    s_square[i, j] = reject
    s_square[j, i] = reject
    return DiscriminativePowerResult(
        significant_pairs=int(reject.sum()),
        total_pairs=len(i),
        method=method,
        alpha=alpha,
        pvalues=pd.DataFrame(p_square, index=frame.index, columns=frame.index),
        significant=pd.DataFrame(s_square, index=frame.index, columns=frame.index),
    )


# ----------------------------------------------------------------------------------------------------------
# Section 4.4: stability
# ----------------------------------------------------------------------------------------------------------


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
    matrix gives all subset means at once; pairs are compared by broadcasting, in blocks of trials.

    Args:
        scores: Runs x queries per-query scores (index = run names, columns = query ids).
        topics: Queries per subset; defaults to ``floor(n_queries / 2)`` as in the paper.
        trials: Number of subsets ``R`` (the paper uses 1000).
        fuzziness: Margin below which a difference counts as a tie (the paper's code uses 0.05).
        relative: Interpret ``fuzziness`` as a fraction of the larger absolute mean of the pair.
        seed: Seed or :class:`numpy.random.Generator`; the same seed gives the same result.
        higher_is_better: Direction of the measure; only the per-pair ``wins_a``/``wins_b`` of the details
            depend on it, the score does not.
        return_details: Return a :class:`StabilityResult` instead of the bare score.

    Returns:
        The stability score, or a :class:`StabilityResult` if ``return_details``.

    Raises:
        ParameterError: If ``topics`` is not in [1, n_queries], ``trials < 1`` or ``fuzziness < 0``.
        InputError: If ``scores`` is not a numeric runs x queries table with at least 2 runs.

    """
    frame = _check_scores(scores)
    values = frame.to_numpy(dtype=float)
    n_runs, n_queries = values.shape
    if topics is None:
        topics = n_queries // 2
    if not 1 <= topics <= n_queries:
        raise ParameterError(f"topics must be in [1, {n_queries}], got {topics}")
    if trials < 1:
        raise ParameterError(f"trials must be >= 1, got {trials}")
    if fuzziness < 0:
        raise ParameterError(f"fuzziness must be >= 0, got {fuzziness}")

    rng = np.random.default_rng(seed)
    drawn = np.argsort(rng.random((trials, n_queries)), axis=1)[:, :topics]
    selection = np.zeros((trials, n_queries))
    selection[np.arange(trials)[:, None], drawn] = 1.0

    valid = ~np.isnan(values)
    sums = selection @ np.where(valid, values, 0.0).T  # trials x runs
    counts = selection @ valid.T.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts  # NaN when a run has no scored query in the subset
    if not _direction_of(scores, higher_is_better):
        means = -means

    i, j = np.triu_indices(n_runs, k=1)
    n_pairs = len(i)
    wins_a = np.zeros(n_pairs, dtype=np.int64)
    wins_b = np.zeros(n_pairs, dtype=np.int64)
    chunk = max(1, _BLOCK_ELEMENTS // n_pairs)
    for start in range(0, trials, chunk):
        block = means[start : start + chunk]
        m_a = block[:, i]
        m_b = block[:, j]
        diff = m_a - m_b
        margin = fuzziness * np.maximum(np.abs(m_a), np.abs(m_b)) if relative else fuzziness
        wins_a += (diff > margin).sum(axis=0)
        wins_b += (-diff > margin).sum(axis=0)  # NaN compares False: an undefined mean counts as a tie
    ties = trials - wins_a - wins_b

    total = n_pairs * trials
    majority = np.maximum(wins_a, wins_b)
    score = float(majority.sum() / total)
    if not return_details:
        return score
    runs = frame.index
    pairs = pd.DataFrame(
        {
            "run_a": runs[i],
            "run_b": runs[j],
            "wins_a": wins_a,
            "wins_b": wins_b,
            "ties": ties,
            "stability": majority / trials,
        }
    )
    return StabilityResult(
        score=score,
        minority_rate=float(np.minimum(wins_a, wins_b).sum() / total),
        tie_rate=float(ties.sum() / total),
        pairs=pairs,
        trials=trials,
        topics=topics,
        fuzziness=fuzziness,
        relative=relative,
    )
