"""How rarity scores depend on who else took part (Türkmen, Lease & Kutlu, ECIR 2023, Sections 3 and 4.5).

* :func:`system_count_robustness` is Algorithm 1 / Table 3: sample N of the campaign's systems, recompute S and
  S_d from the sample alone, and compare the sample's ranking with the ranking the same systems have in the
  full campaign (Kendall's tau, averaged over trials).
* :func:`synthetic_rank_curve` is the synthetic experiment of Section 3 / Figure 1: a hypothetical system that
  retrieves relevant documents no other system found, against one that retrieves the most commonly retrieved
  relevant documents first, both ranked among the real systems on ``P_rare@k`` for one topic.

Both take a campaign read in two passes (:class:`~ir_rarity.pool.stream.StreamedCampaign`) too, and give the
tables of the campaign held in memory to the last bit. The samples are scored on its judged rows
(:mod:`ir_rarity.pool.judged`), whose S_d of judged documents, recounted on a sample, is exact; the synthetic
systems on its rows within the cutoff (whether a hypothetical system equals a run is decided on those rows).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ir_measures
import numpy as np
import pandas as pd

from ir_rarity.checks import check_draws
from ir_rarity.engine import ENGINE_FAMILIES, SubsetScorer, exact_means, is_engine_measure, newcomer_prefix_scores
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.io.frames import as_qrels_frame
from ir_rarity.measures.parse import parse_measure
from ir_rarity.pool import pool_for_rows
from ir_rarity.pool.pool import Pool
from ir_rarity.pool.stream import StreamedCampaign
from ir_rarity.progress import counter
from ir_rarity.stats.ties import snap

__all__ = ["BAND_COLUMNS", "DEFAULT_SIZES", "kendall_tau_b_rows", "robustness_tables", "synthetic_rank_curve",
           "system_count_robustness"]

DEFAULT_SIZES: tuple[int, ...] = (2, 4, 8, 16, 32, 64)
"""The sample sizes N of Table 3: 2, 4, ..., 64."""

BAND_PERCENTILES: tuple[float, float] = (2.5, 97.5)
"""Percentiles of tau over the defined trials that bound the central 95% band of :func:`system_count_robustness`."""

BAND_COLUMNS: tuple[str, str] = ("p2.5", "p97.5")
"""Columns of :func:`system_count_robustness` holding :data:`BAND_PERCENTILES` (always inside [-1, 1])."""

TAU_CHUNK_ELEMENTS = 1 << 21
"""Bound on the (trial, system) signs :func:`kendall_tau_b_rows` holds at once."""

SYNTHETIC_PREFIX = "ir_rarity-synthetic-"
"""Docno prefix of the simulated documents of :func:`synthetic_rank_curve`."""


def _rarity_measure(measure: ir_measures.Measure | str) -> ir_measures.Measure:
    m = parse_measure(measure)
    if not is_engine_measure(m):
        raise ParameterError(f"{m} does not depend on the pool; use a rarity measure ({sorted(ENGINE_FAMILIES)})")
    return m


def system_count_robustness(
    pool: Pool | StreamedCampaign,
    qrels: Any,
    measure: ir_measures.Measure | str,
    sizes: Sequence[int] = DEFAULT_SIZES,
    trials: int = 1000,
    seed: int | np.random.Generator | None = None,
    progress: bool | None = None,
    *,
    scorer: SubsetScorer | None = None,
) -> pd.DataFrame:
    """Kendall's tau between rankings with S_d from N sampled systems and from all systems (Algorithm 1).

    ``R_o`` ranks all runs of ``pool`` by their mean ``measure`` (S and S_d from the whole pool). For each size
    N and each of ``trials`` trials, N runs are drawn uniformly without replacement; S and S_d are recomputed
    from those N runs alone (as :meth:`Pool.subset` would), the N runs are ranked by their mean ``measure``
    (``r_N``), and Kendall's tau-b is taken between ``r_N`` and the same N runs' scores in ``R_o``. The
    result is the mean and the standard deviation of tau over the trials (Table 3 of Türkmen, Lease & Kutlu,
    ECIR 2023, reports the mean), and the central 95% band of tau over the trials: its 2.5th and 97.5th
    percentiles (``numpy.percentile``, linear interpolation). Being percentiles of values of tau, the band lies
    in [-1, 1], which mean ± one standard deviation need not.

    The trials of a size are drawn first (the same draws, in the same order, as one trial at a time), then scored
    together by :meth:`SubsetScorer.batch_scores <ir_rarity.engine.samples.SubsetScorer.batch_scores>`: for
    ``P_rare`` and ``AP_rare`` with linear rarity, from a table of misses per pair of runs made once (each trial
    its N x N block); otherwise S_d of a chunk of trials is counted at once and the measure's kernel runs once
    per chunk. Means are exact (:func:`~ir_rarity.engine.means.exact_means`) and taus
    :func:`kendall_tau_b_rows`, equal trial by trial to :func:`ir_rarity.stats.kendall_tau_b`; the taus equal
    those of scoring every sample's rows (tested).

    Tau is undefined when either ranking is constant (e.g. N = 2 and the two runs tie, or every sampled run
    scores 0). Such trials give NaN, are left out of ``mean_tau`` and ``std``, and are counted in
    ``undefined``; a size whose every trial is undefined has ``mean_tau = NaN``.

    Args:
        pool: The campaign (a campaign read in two passes: its judged rows, read again from its files).
        qrels: Qrels in any shape :meth:`Pool.evaluate` accepts.
        measure: A rarity measure (``P_rare`` or ``AP_rare``); other measures do not depend on the pool.
        sizes: Sample sizes N, each in [2, number of runs].
        trials: Samples per size (the paper uses 1000).
        seed: Seed or :class:`numpy.random.Generator`; the same seed gives the same table.
        progress: Progress bar over the trials (None: :mod:`ir_rarity.progress`'s default).
        scorer: A :class:`~ir_rarity.engine.samples.SubsetScorer` of ``pool`` and ``qrels``, to share between calls
            (the rows and pair ids it makes once serve every measure); None makes one.

    Returns:
        A DataFrame with one row per size: ``size``, ``mean_tau``, ``std`` (population standard deviation
        over the defined trials), ``trials``, ``undefined``, then ``p2.5`` and ``p97.5`` (the 2.5th and 97.5th
        percentiles of tau over the defined trials, :data:`BAND_COLUMNS`).

    Raises:
        ParameterError: On a measure that is not a rarity measure, a size outside [2, len(pool)],
            ``trials < 1``, or a ``scorer`` of another pool.

    """
    return robustness_tables(pool, qrels, [measure], sizes, trials, seed, progress, scorer=scorer)[0]


def robustness_tables(
    pool: Pool | StreamedCampaign,
    qrels: Any,
    measures: Sequence[ir_measures.Measure | str],
    sizes: Sequence[int] = DEFAULT_SIZES,
    trials: int = 1000,
    seed: int | np.random.Generator | None = None,
    progress: bool | None = None,
    *,
    scorer: SubsetScorer | None = None,
) -> list[pd.DataFrame]:
    """:func:`system_count_robustness` of several measures on the same draws: one table per measure, in order.

    Each size's trials are drawn once and every measure scores them (:meth:`SubsetScorer.batch_scores_of
    <ir_rarity.engine.samples.SubsetScorer.batch_scores_of>`: measures reading the same rows share them). With an
    integer seed (or None... an integer, so that it is the same) the draws are those of
    ``system_count_robustness(..., measure, seed=seed)`` for every measure, so each table equals that call's
    (tested); a :class:`numpy.random.Generator` is drawn from once, for all measures.

    Args:
        pool: The campaign (a campaign read in two passes: its judged rows, read again from its files).
        qrels: Qrels in any shape :meth:`Pool.evaluate` accepts.
        measures: Rarity measures (``P_rare`` or ``AP_rare``).
        sizes: Sample sizes N, each in [2, number of runs].
        trials: Samples per size.
        seed: Seed or :class:`numpy.random.Generator`.
        progress: Progress bar over the trials (None: :mod:`ir_rarity.progress`'s default).
        scorer: A :class:`~ir_rarity.engine.samples.SubsetScorer` of ``pool`` and ``qrels`` to use; None makes one.

    Returns:
        One table per measure, as :func:`system_count_robustness` returns it.

    Raises:
        ParameterError: As :func:`system_count_robustness`; ``U_novel`` on a campaign read in two passes.

    """
    ms = [_rarity_measure(measure) for measure in measures]
    if scorer is not None and scorer.pool is not pool:
        raise ParameterError("scorer scores another pool's runs; make it with SubsetScorer(pool, qrels)")
    pool = pool_for_rows(pool, qrels, ms, "the robustness samples")
    sizes = [int(n) for n in sizes]
    bad = [n for n in sizes if not 2 <= n <= len(pool)]
    if bad:
        raise ParameterError(f"sizes must be in [2, {len(pool)}] (the number of runs), got {bad}")
    if trials < 1:
        raise ParameterError(f"trials must be >= 1, got {trials}")
    rng = np.random.default_rng(seed)
    sampler = scorer if scorer is not None else SubsetScorer(pool, qrels)
    if sizes:  # each size's draw: trials x N x queries values of each measure
        check_draws(trials, "trials", max(sizes) * len(sampler.qrels.query_ids), each="per-query values")
    everyone = np.arange(len(pool))
    full_means = {m: exact_means(sampler.scores(m, everyone)) for m in ms}
    records: dict[ir_measures.Measure, list[dict[str, Any]]] = {m: [] for m in ms}
    bar = counter(len(sizes) * trials * len(ms), desc=f"robustness {', '.join(map(str, ms))}", unit="trial",
                  enabled=progress)
    for n in sizes:
        picked = np.array([rng.choice(len(pool), size=n, replace=False) for _ in range(trials)])
        scores = sampler.batch_scores_of(ms, picked, done=bar.update)
        for m in ms:
            means = exact_means(scores[m].reshape(trials * n, -1)).reshape(trials, n)
            taus = kendall_tau_b_rows(means, full_means[m][picked])
            defined = taus[~np.isnan(taus)]
            records[m].append({
                "size": n,
                "mean_tau": float(defined.mean()) if len(defined) else math.nan,
                "std": float(defined.std()) if len(defined) else math.nan,
                "trials": trials,
                "undefined": int(trials - len(defined)),
                **_band(defined),
            })
    bar.close()
    return [pd.DataFrame.from_records(records[m]) for m in ms]


def kendall_tau_b_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    r"""Kendall's tau-b of every row pair ``(a[t], b[t])``: :func:`ir_rarity.stats.kendall_tau_b` over many trials.

    .. math:: \tau_b = \frac{\sum_{i<j} s^a_{ij} s^b_{ij}}{\sqrt{\sum_{i<j} |s^a_{ij}| \sum_{i<j} |s^b_{ij}|}},
              \qquad s_{ij} = \mathrm{sign}(x_i - x_j)

    (Kendall, Biometrika 1945), ties snapped row by row (:func:`ir_rarity.stats.ties.snap`). The sums are of
    integers (exact in any order; taken system by system, each against every later one, in contiguous blocks of
    all trials) and the rest is the same float operations, so each row's value equals
    ``kendall_tau_b(a[t], b[t])`` exactly, NaN for a constant row included (tested).

    Args:
        a: ``(trials, N)`` scores, larger is better.
        b: ``(trials, N)`` the other scores of the same systems.

    Returns:
        ``(trials,)`` coefficients in [-1, 1], NaN where either row is constant.

    """
    a = snap(np.asarray(a, dtype=np.float64), axis=1)
    b = snap(np.asarray(b, dtype=np.float64), axis=1)
    n = a.shape[1]
    by_a, by_b = np.ascontiguousarray(a.T), np.ascontiguousarray(b.T)  # runs x trials
    tau = np.empty(len(a))
    step = max(1, TAU_CHUNK_ELEMENTS // max(n, 1))  # trials per block: bounded sign blocks
    for first in range(0, len(a), step):
        block = slice(first, first + step)
        both, only_a, only_b = (np.zeros(len(a[block])) for _ in range(3))
        for i in range(n - 1):  # system i against every later one: contiguous blocks, no gathered pairs
            # sign(x_j - x_i) = -sign(x_i - x_j) exactly, for both rankings: the products and |s| are the same
            sa = np.sign(by_a[i + 1 :, block] - by_a[i, block])
            sb = np.sign(by_b[i + 1 :, block] - by_b[i, block])
            both += (sa * sb).sum(axis=0)
            only_a += np.abs(sa).sum(axis=0)
            only_b += np.abs(sb).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            tau[block] = both / np.sqrt(only_a * only_b)
    tau[(a == a[:, :1]).all(axis=1) | (b == b[:, :1]).all(axis=1)] = math.nan
    return tau


def _band(defined: np.ndarray) -> dict[str, float]:
    """:data:`BAND_COLUMNS` -> the percentiles of the defined taus (NaN when there are none)."""
    if not len(defined):
        return dict.fromkeys(BAND_COLUMNS, math.nan)
    values = np.percentile(defined, BAND_PERCENTILES)
    return {column: float(v) for column, v in zip(BAND_COLUMNS, values, strict=True)}


def synthetic_rank_curve(
    pool: Pool | StreamedCampaign,
    qrels: Any,
    query_id: str,
    measure_cutoff: int = 100,
    alphas: Sequence[float] = (0.0, 0.5, 1.0),
    max_relevant: int | None = None,
) -> pd.DataFrame:
    """Rank of a hypothetical rare-finding system vs. a common-finding one as it retrieves more relevant docs.

    The synthetic experiment of Section 3 (Figure 1) of Türkmen, Lease & Kutlu (ECIR 2023), on one topic:

    * ``'rare'`` retrieves ``n`` simulated relevant documents that no real system retrieved (docnos
      ``ir_rarity-synthetic-0001``, ..., added to the qrels with label 1);
    * ``'common'`` retrieves ``n`` real relevant documents (label >= 1), the most commonly retrieved first
      (largest S_d at depth ``measure_cutoff``, ties by docno).

    Each ranks only those ``n`` documents. As in the paper, it takes part "as if it had participated with the
    real participants": S becomes S + 1 and its documents count in S_d, for the hypothetical system (as
    the evaluation rule scores a newcomer) and for the real systems alike, which are rescored for every
    ``n``. It is ranked among them on ``P_rare(alpha)@measure_cutoff`` for that topic: ``rank = 1 + #{real
    systems scoring strictly more}`` (1 = best; ties go to the hypothetical system). At ``alpha = 0`` the
    measure is P@k and both curves coincide.

    Args:
        pool: The campaign (a campaign read in two passes: its rows within ``measure_cutoff``, read again from
            its files, as a pool cut there holds them).
        qrels: Qrels in any shape :meth:`Pool.evaluate` accepts; only ``query_id``'s judgments are used.
        query_id: The topic.
        measure_cutoff: k of ``P_rare@k`` (and the S_d depth).
        alphas: Rarity weights.
        max_relevant: Largest ``n``; default ``min(measure_cutoff, number of relevant documents of the
            topic)``. ``'common'`` stops at the topic's number of relevant documents.

    Returns:
        A long DataFrame ``system`` (``'rare'`` / ``'common'``), ``alpha``, ``n_relevant``, ``rank``,
        ``value`` (the hypothetical system's score), ``num_systems`` (real systems + 1).

    Raises:
        InputError: The qrels do not judge ``query_id`` or judge none of its documents relevant.
        ParameterError: On ``measure_cutoff < 1``, ``max_relevant < 1`` or a negative alpha.

    """
    cutoff = int(measure_cutoff)
    if cutoff < 1:
        raise ParameterError(f"measure_cutoff must be a positive integer, got {measure_cutoff}")
    if any(float(a) < 0 for a in alphas):
        raise ParameterError(f"alphas must be >= 0, got {list(alphas)}")
    query_id = str(query_id)
    topic, relevant = _topic_judgments(qrels, query_id)
    if max_relevant is None:
        max_relevant = min(cutoff, len(relevant))
    if max_relevant < 1:
        raise ParameterError(f"max_relevant must be >= 1, got {max_relevant}")

    rare_docs = [f"{SYNTHETIC_PREFIX}{i:04d}" for i in range(1, max_relevant + 1)]
    extended = pd.concat([topic.astype({"query_id": str, "doc_id": str}),
                          pd.DataFrame({"query_id": query_id, "doc_id": rare_docs, "relevance": 1})],
                         ignore_index=True)
    # two passes: every row within the cutoff, where S_d is counted and whether a newcomer equals a run decided
    pool = pool_for_rows(pool, extended, what="the synthetic experiment", depth=cutoff)
    counts = pool.counts(cutoff)
    counts = counts[counts["query_id"] == query_id].set_index("doc_id")["S_d"]
    common = pd.DataFrame({"doc_id": relevant.to_numpy()})
    common["S_d"] = common["doc_id"].map(counts).fillna(0).astype(int)
    common_docs = common.sort_values(["S_d", "doc_id"], ascending=[False, True])["doc_id"].tolist()
    known = set(topic["doc_id"].astype(str)) | set(counts.index)
    if known.intersection(rare_docs):
        raise InputError(f"docnos starting with {SYNTHETIC_PREFIX!r} already occur for query {query_id!r}")
    encoded = pool.encode_qrels(extended)  # one query: column 0 of every matrix
    measures = [parse_measure(f"P_rare(alpha={float(alpha):g})@{cutoff}") for alpha in alphas]
    curves = {}
    for system, docs in (("rare", rare_docs), ("common", common_docs)):
        longest = min(max_relevant, len(docs))
        run = pd.DataFrame({"query_id": query_id, "doc_id": docs[:longest], "score": np.arange(longest, 0, -1.0)})
        curves[system] = newcomer_prefix_scores(pool, encoded, measures, run, range(1, longest + 1))

    records = [{"system": system, "alpha": float(alpha), "n_relevant": i + 1,
                "rank": int(1 + np.sum(curves[system][m].members[i, :, 0] > value)), "value": value,
                "num_systems": pool.num_systems + 1}
               for alpha, m in zip(alphas, measures, strict=True) for system in ("rare", "common")
               for i, value in enumerate(curves[system][m].newcomer[:, 0].tolist())]
    return pd.DataFrame.from_records(records)


def _topic_judgments(qrels: Any, query_id: str) -> tuple[pd.DataFrame, pd.Series]:
    """The qrels of one topic (``query_id, doc_id, relevance``) and the docnos it judges relevant (label >= 1).

    Raises:
        InputError: The qrels do not judge the topic, or judge none of its documents relevant.

    """
    frame = as_qrels_frame(qrels)
    topic = frame[frame["query_id"].astype(str) == query_id][["query_id", "doc_id", "relevance"]]
    if topic.empty:
        raise InputError(f"the qrels do not judge query {query_id!r}")
    relevant = topic.loc[topic["relevance"] >= 1, "doc_id"].astype(str)
    if relevant.empty:
        raise InputError(f"query {query_id!r} has no relevant document (label >= 1)")
    return topic, relevant
