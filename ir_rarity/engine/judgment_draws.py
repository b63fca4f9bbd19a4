r"""What the judgments left open: sampled judgments of the unjudged documents, scored by the engine's kernels.

A score counts an unjudged document as non-relevant. How much it could change had the documents been judged is
estimated as in bootstrapped judgments (Fröbe, Gienapp, Potthast & Hagen, "Bootstrapped nDCG estimation in the
presence of unjudged documents", ECIR 2023): the relevance of every unjudged (query, document) pair the evaluated
runs retrieved is drawn from a model fitted on the judged documents of the same campaign, many times, and each
draw's judgments are scored by the same kernels as every evaluation (the rows relabelled, as
:mod:`ir_rarity.engine.relabelled` does for restricted qrels). The percentile interval of the draws' *mean* scores
is the interval of what the judgments left open; drawing the queries with replacement in the same draws gives the
interval of both (topics and judgments).

**The model.** An unjudged pair (q, d) the evaluated runs retrieved, with S_d (at the campaign's whole rankings)
in bucket :math:`b = \lfloor \log_2 S_d \rfloor` (1, 2-3, 4-7, ...: rarity matters, a document one system retrieved
is relevant far less often than one most retrieved), at best rank r in the evaluated run s that ranks it best, is
drawn relevant in one draw when

.. math::

    U_s < \pi_r \quad\text{and}\quad V_{q,d} < \min(1,\ \theta_{q,b}\,\phi_s), \qquad
    \theta_{q,b} \sim \mathrm{Beta}\big(R_{q,b} + m\,\rho_b,\ N_{q,b} - R_{q,b} + m\,(1 - \rho_b)\big), \quad
    \log \phi_s \sim \mathcal N(\log \hat\phi_s, \sigma^2)

with U, V uniform and everything drawn anew in each draw:

* **reach** :math:`\pi_r`: the share judged of the campaign's rows at rank r whose document only one system
  retrieved (such a document is judged only if that system's own judging reached rank r: a depth-k pool judges
  every document in some run's top k). One uniform :math:`U_s` per run and draw decides how deep that run's judging
  reaches, so a run is either judged to some depth or not, as pools judge runs (priority runs to depth k, others
  not);
* **relevance** :math:`\theta_{q,b}`: :math:`N_{q,b}` and :math:`R_{q,b}` count the judged and the relevant pairs
  of query q in bucket b, :math:`\rho_b` the share relevant of all judged pairs in bucket b; a query's rate is
  shrunk towards its bucket's by ``m`` pseudo-judgments and drawn from its posterior;
* **the run** :math:`\phi_s`: the run's relevant judged rows over their expected number
  (:math:`\hat\phi_s = (O_s + 1) / (E_s + 1)`, E from the Beta means), with :math:`\sigma` the standard deviation
  of :math:`\log \hat\phi` over the campaign's members (how much runs differ from the model);
* a relevant draw takes grade g with the share of grade g among the relevant judged pairs of bucket b.

Everything is fitted on the judgments given (in the calibration study of :mod:`ir_rarity.judging.coverage`, the
reduced ones).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from ir_measures.providers.base import NOT_PROVIDED

from ir_rarity.engine.compute import compute
from ir_rarity.engine.contract import MemberCampaign
from ir_rarity.engine.families import is_engine_measure
from ir_rarity.engine.qrels import UNJUDGED, EncodedQrels, is_relevant
from ir_rarity.engine.rows import Labelled, Rows, Subrows
from ir_rarity.engine.standard import compute_standard, covers
from ir_rarity.errors import ParameterError

__all__ = ["BANDS", "DRAWN_STANDARD", "JudgmentModel", "OpenPairs", "can_draw", "draw_labels", "drawn_interval",
           "drawn_values", "fit_model",
           "open_pairs", "rank_band", "sd_bucket"]

BANDS = np.array([5, 10, 20, 50, 100, 200, 500], dtype=np.int64)
"""Upper ends (exclusive, 0-based ranks) of the rank bands: 1-5, 6-10, 11-20, 21-50, 51-100, 101-200, 201-500,
deeper."""

MIN_ROWS = 20
"""Rows of single-system documents a rank needs for its own judged share; fewer: its band's share."""

N_BUCKETS = 24
"""S_d buckets :math:`\\lfloor \\log_2 S_d \\rfloor`, enough for any campaign (2^24 systems)."""

DRAWN_STANDARD: frozenset[str] = frozenset({"P", "R", "AP", "RR", "Rprec", "nDCG", "NDCG", "RBP"})
"""Standard measures whose value depends on the relevant rows and the qrels' labels alone (no judged-ness); RBP
is the engine's own (:mod:`ir_rarity.engine.rbp`), its residual is not drawn."""


def sd_bucket(s_d: np.ndarray) -> np.ndarray:
    r"""The S_d bucket :math:`\lfloor \log_2 S_d \rfloor` (S_d below 1 counts as 1)."""
    s = np.maximum(np.asarray(s_d, dtype=np.int64), 1)
    return np.minimum(np.floor(np.log2(s)).astype(np.int64), N_BUCKETS - 1)


def rank_band(rank: np.ndarray) -> np.ndarray:
    """The band of each 0-based rank (:data:`BANDS`)."""
    return np.searchsorted(BANDS, np.asarray(rank, dtype=np.int64), side="right")


def can_draw(measure: Any) -> bool:
    """Whether a measure's value depends on relevant rows and labels only, so drawn judgments can score it.

    The rarity measures that read relevant rows only, trec_eval's P, R, AP, RR, Rprec and nDCG and RBP (without
    ``judged_only``, which reads which documents are judged).
    """
    if "judged_only" in getattr(measure, "SUPPORTED_PARAMS", {}) and bool(measure["judged_only"]):
        return False
    if is_engine_measure(measure):
        return bool(getattr(measure, "RELEVANT_ROWS_ONLY", False))
    return str(getattr(measure, "NAME", "")) in DRAWN_STANDARD and covers(measure)


@dataclass(frozen=True)
class JudgmentModel:
    r"""The fitted model of the module docstring.

    Attributes:
        reach: :math:`\\pi_r` per 0-based rank r.
        log_ratio: Per campaign member, :math:`\\log \\phi_s`: its relevant judged rows over the rows' expected
            rates (both plus one).
        run_sd: :math:`\\sigma`, the standard deviation of ``log_ratio`` over the members.
        n_judged: :math:`N_{q,b}`, queries x buckets.
        n_relevant: :math:`R_{q,b}`, queries x buckets.
        bucket_rate: :math:`\\rho_b`.
        grades: The relevant grades (sorted) and ``grade_share``, buckets x grades.
        prior: ``m``, the pseudo-judgments a query's rate is shrunk with.
        rel: The lowest relevant grade.

    """

    reach: np.ndarray
    log_ratio: np.ndarray
    run_sd: float
    n_judged: np.ndarray
    n_relevant: np.ndarray
    bucket_rate: np.ndarray
    grades: np.ndarray
    grade_share: np.ndarray
    prior: float
    rel: int


def fit_model(campaign: MemberCampaign, qrels: EncodedQrels, rel: int = 1, prior: float = 5.0) -> JudgmentModel:
    """Fit the model on every member row of ``campaign`` and the judged pairs among them (whole arrays).

    Raises:
        ParameterError: the campaign keeps only the rows some measures read (not whole runs).

    Args:
        campaign: The campaign (all its members' rows are read once).
        qrels: The judgments, encoded for ``campaign``.
        rel: The lowest relevant grade.
        prior: ``m``.

    """
    rows = campaign.member_rows(qrels)
    if rows.returned is not None:
        rows.release()
        raise ParameterError("the unjudged documents' judgments are drawn from whole runs, and this campaign keeps "
                             "only the rows its measures read: evaluate with unjudged=True (runs read whole) or "
                             "build the pool with Pool.from_runs")
    labels = rows.labels()
    bucket = sd_bucket(rows.s_d(None)[0])
    judged = labels != UNJUDGED
    alone = bucket == 0  # documents only one system retrieved: judged only if that system's judging reached them
    rank = rows.rank.astype(np.int64)
    n_ranks = int(rank.max()) + 1 if len(rank) else 1
    every = np.bincount(rank[alone], minlength=n_ranks)
    seen = np.bincount(rank[alone & judged], minlength=n_ranks)
    band = rank_band(rank[alone])
    band_every = np.bincount(band, minlength=len(BANDS) + 1)
    band_seen = np.bincount(band[judged[alone]], minlength=len(BANDS) + 1)
    band_share = band_seen / np.maximum(band_every, 1)
    reach = np.where(every >= MIN_ROWS, seen / np.maximum(every, 1), band_share[rank_band(np.arange(n_ranks))])
    _keys, first = np.unique(rows.keys(), return_index=True)  # one entry per pair: its query, bucket and label
    pair_label, pair_bucket, pair_query = labels[first], bucket[first], rows.query[first]
    rows_run, rows_query, n_runs = rows.run.astype(np.int64), rows.query.astype(np.int64), rows.n_runs
    rows.release()
    n_queries = len(qrels.query_ids)
    pj = pair_label != UNJUDGED
    pr = is_relevant(pair_label, rel)
    flat = pair_query.astype(np.int64) * N_BUCKETS + pair_bucket
    n_judged = np.bincount(flat[pj], minlength=n_queries * N_BUCKETS).reshape(n_queries, N_BUCKETS)
    n_relevant = np.bincount(flat[pr], minlength=n_queries * N_BUCKETS).reshape(n_queries, N_BUCKETS)
    total_j, total_r = n_judged.sum(axis=0), n_relevant.sum(axis=0)
    overall = total_r.sum() / max(total_j.sum(), 1)
    bucket_rate = np.where(total_j > 0, (total_r + overall) / (total_j + 1.0), overall)  # one pseudo-judgment
    expected = (n_relevant + prior * bucket_rate) / (n_judged + prior)  # a query's rate: the Beta's mean
    row_judged = judged
    row_expected = np.bincount(rows_run, weights=np.where(row_judged, expected[rows_query, bucket], 0.0),
                               minlength=n_runs)
    row_observed = np.bincount(rows_run, weights=is_relevant(labels, rel).astype(float), minlength=n_runs)
    log_ratio = np.log((row_observed + 1.0) / (row_expected + 1.0))
    run_sd = float(np.std(log_ratio)) if n_runs > 1 else 0.0
    grades = np.unique(pair_label[pr]) if pr.any() else np.array([max(rel, 1)], dtype=np.int64)
    counts = np.zeros((N_BUCKETS, len(grades)))
    np.add.at(counts, (pair_bucket[pr], np.searchsorted(grades, pair_label[pr])), 1.0)
    pooled = counts.sum(axis=0) + 1e-12
    counts = counts + pooled / pooled.sum()  # an empty bucket takes the campaign's grade shares
    return JudgmentModel(reach=reach, log_ratio=log_ratio, run_sd=run_sd, n_judged=n_judged, n_relevant=n_relevant,
                         bucket_rate=bucket_rate, grades=grades.astype(np.int64),
                         grade_share=counts / counts.sum(axis=1, keepdims=True), prior=float(prior), rel=rel)


@dataclass(frozen=True)
class OpenPairs:
    """The unjudged pairs the evaluated runs retrieved: key, query position, S_d bucket, best (0-based) rank."""

    keys: np.ndarray
    query: np.ndarray
    bucket: np.ndarray
    rank: np.ndarray
    run: np.ndarray


def _selected_blocks(runs: Sequence[int]) -> list[slice]:
    """Consecutive campaign positions of ``runs`` (sorted) as slices."""
    blocks: list[slice] = []
    for r in sorted(set(int(x) for x in runs)):
        if blocks and blocks[-1].stop == r:
            blocks[-1] = slice(blocks[-1].start, r + 1)
        else:
            blocks.append(slice(r, r + 1))
    return blocks


def open_pairs(campaign: MemberCampaign, qrels: EncodedQrels, runs: Sequence[int]) -> OpenPairs:
    """The unjudged pairs of the campaign members at positions ``runs``, with the best rank over those runs."""
    keys, query, bucket, band, run = [], [], [], [], []
    for block in _selected_blocks(runs):
        rows = campaign.member_rows(qrels, block)
        unjudged = rows.labels() == UNJUDGED
        keys.append(rows.keys()[unjudged])
        query.append(rows.query[unjudged].astype(np.int64))
        bucket.append(sd_bucket(rows.s_d(None)[0][unjudged]))
        band.append(rows.rank[unjudged].astype(np.int64))
        run.append(rows.run[unjudged].astype(np.int64) + block.start)
        rows.release()
    k = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    order = np.lexsort((np.concatenate(band) if band else k, k))
    k = k[order]
    first = np.ones(len(k), dtype=bool)
    first[1:] = k[1:] != k[:-1]  # sorted by key then band: the first row of a key has its best band
    pick = order[first]
    return OpenPairs(keys=k[first], query=np.concatenate(query)[pick] if query else k,
                     bucket=np.concatenate(bucket)[pick] if bucket else k,
                     rank=np.concatenate(band)[pick] if band else k, run=np.concatenate(run)[pick] if run else k)


def draw_labels(model: JudgmentModel, pairs: OpenPairs, draws: int, rng: np.random.Generator) -> np.ndarray:
    r"""``draws`` x pairs drawn labels (0 or a relevant grade) of the open pairs (the module's model)."""
    n = len(pairs.keys)
    if n == 0:
        return np.zeros((draws, 0), dtype=np.int64)
    rate = model.bucket_rate[pairs.bucket]
    judged = model.n_judged[pairs.query, pairs.bucket].astype(float)
    relevant = model.n_relevant[pairs.query, pairs.bucket].astype(float)
    a = relevant + model.prior * rate
    b = judged - relevant + model.prior * (1.0 - rate)
    reach = model.reach[np.minimum(pairs.rank, len(model.reach) - 1)] * (pairs.rank < len(model.reach))
    # one theta per (query, bucket) and draw, shared by that cell's pairs
    cells, cell_of = np.unique(pairs.query * N_BUCKETS + pairs.bucket, return_inverse=True)
    first = np.zeros(len(cells), dtype=np.int64)
    first[cell_of[::-1]] = np.arange(n)[::-1]
    theta = rng.beta(np.maximum(a[first], 1e-9), np.maximum(b[first], 1e-9), size=(draws, len(cells)))
    members, member_of = np.unique(pairs.run, return_inverse=True)
    factor = np.exp(rng.normal(model.log_ratio[members][None, :], model.run_sd, size=(draws, len(members))))
    # how deep the run's own judging reaches: one uniform per run and draw, so a run is judged to one depth
    reached = rng.random((draws, len(members)))[:, member_of] < reach[None, :]
    p = np.where(reached, np.minimum(theta[:, cell_of] * factor[:, member_of], 1.0), 0.0)
    relevant_draw = rng.random((draws, n)) < p
    cumulative = np.cumsum(model.grade_share[pairs.bucket], axis=1)  # pairs x grades
    u = rng.random((draws, n))
    grade_index = (u[:, :, None] > cumulative[None, :, :]).sum(axis=2)
    grade = model.grades[np.minimum(grade_index, len(model.grades) - 1)]
    return np.where(relevant_draw, grade, 0).astype(np.int64)


def _rel(measure: Any) -> int:
    """The measure's lowest relevant grade (1 when it takes none or leaves it unset, as RBP may)."""
    if "rel" not in getattr(measure, "SUPPORTED_PARAMS", {}):
        return 1
    value = measure["rel"]
    return 1 if value is None or value is NOT_PROVIDED else int(value)


def _with_open(qrels: EncodedQrels, pairs: OpenPairs, top: int) -> tuple[EncodedQrels, np.ndarray]:
    """The qrels with the open pairs added at label ``top``, and each open pair's position among the extended keys.

    At label ``top`` every row that can be relevant in some draw is gathered once.
    """
    keys = np.concatenate([qrels.keys, pairs.keys])
    order = np.argsort(keys, kind="stable")
    labels = np.concatenate([qrels.labels, np.full(len(pairs.keys), top, dtype=qrels.labels.dtype)])[order]
    key_query = np.concatenate([qrels.key_query, pairs.query.astype(qrels.key_query.dtype)])[order]
    where = np.empty(len(keys), dtype=np.int64)
    where[order] = np.arange(len(keys))
    extended = replace(qrels, keys=keys[order], labels=labels, key_query=key_query)
    return extended, where[len(qrels.keys):]


def drawn_values(campaign: MemberCampaign, qrels: EncodedQrels, runs: Sequence[int], measures: Sequence[Any],
                 draws: int, seed: int | np.random.Generator | None = 0, model: JudgmentModel | None = None,
                 prior: float = 5.0) -> dict[Any, np.ndarray]:
    """Per measure, ``draws`` x runs x queries values of the campaign members ``runs`` under drawn judgments.

    Each draw labels the open pairs (:func:`open_pairs`, :func:`draw_labels`) and keeps every judgment; the rows
    that can be relevant in some draw are gathered once per block of runs and scored under each draw's labels by
    the engine's kernels (a row left out is relevant in no draw, so each value is the front door's value for
    those qrels; tested). Runs come back in the order given.

    Raises:
        ParameterError: a measure whose value reads which documents are judged (:func:`can_draw`).

    """
    bad = [str(m) for m in measures if not can_draw(m)]
    if bad:
        raise ParameterError(f"judgments cannot be drawn for {', '.join(bad)}: its value reads which documents are "
                             "judged (use P, R, AP, RR, Rprec, nDCG, RBP or a rarity measure)")
    rng = np.random.default_rng(seed)
    rel = min((_rel(m) for m in measures), default=1)
    model = model if model is not None else fit_model(campaign, qrels, rel, prior)
    pairs = open_pairs(campaign, qrels, runs)
    drawn = draw_labels(model, pairs, draws, rng)
    top = int(max(model.grades.max(), rel, 1))
    extended, at = _with_open(qrels, pairs, top)
    blocks = _selected_blocks(runs)
    n_queries = len(qrels.query_ids)
    position = {r: i for i, r in enumerate(runs)}
    out = {m: np.zeros((draws, len(runs), n_queries)) for m in measures}
    for block in blocks:
        rows = campaign.member_rows(extended, block)
        held = np.flatnonzero(is_relevant(rows.labels(), rel))
        judgment = np.searchsorted(extended.keys, rows.keys(held))
        base = Rows(run=rows.run[held], query=rows.query[held], rank=rows.rank[held], present=rows.present,
                    n_runs=rows.n_runs, qrels=extended, source=Subrows(rows, held), returned=rows.cell_sizes())
        base.s_d(None)
        target = [position[r] for r in range(block.start, block.stop)]
        for d in range(draws):
            labels = extended.labels.copy()
            labels[at] = drawn[d]
            relabelled = Rows(run=base.run, query=base.query, rank=base.rank, present=base.present,
                              n_runs=base.n_runs, qrels=replace(extended, labels=labels),
                              source=Labelled(base, labels[judgment]), returned=base.returned)
            for m in measures:
                out[m][d, target] = compute(m, relabelled) if is_engine_measure(m) else compute_standard(m, relabelled)
            relabelled.release()
        base.release()
        rows.release()
    return out


def drawn_interval(drawn: np.ndarray, level: float, topics: bool = False,
                   seed: int | np.random.Generator | None = 0) -> tuple[np.ndarray, np.ndarray]:
    r"""Percentile interval of each run's mean score over the draws (draws x runs x queries values).

    Without ``topics`` the interval of what the judgments left open: the :math:`(1 \mp \text{level})/2` quantiles
    (linear, Hyndman & Fan's definition 7) of :math:`\bar x^{(b)}_r`, the mean over the queries of draw b. With
    ``topics`` each draw also draws the queries with replacement (the same queries for every run, as the
    bootstrap over topics of :mod:`ir_rarity.stats.intervals` does), so the interval covers both.
    """
    if not 0.0 < float(level) < 1.0:
        raise ParameterError(f"the confidence level must be in (0, 1), got {level}")
    n_draws, _, n_queries = drawn.shape
    if topics:
        rng = np.random.default_rng(seed)
        picked = rng.integers(0, n_queries, size=(n_draws, n_queries))
        means = np.take_along_axis(drawn, picked[:, None, :], axis=2).mean(axis=2)
    else:
        means = drawn.mean(axis=2)
    tail = (1.0 - float(level)) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail], axis=0)
    return low, high
