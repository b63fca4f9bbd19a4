r"""Per-document atomized search length and the analyses of Alex, Hall & Metzler built on it.

:func:`per_document_asl` gives :math:`ASL_{q,d}` of every relevant document (eq. 1-3), the atoms that the ``ASL``
measure averages. On top of it: the distribution of one run (Figure 5), the per-document differences between two
runs (Figure 6), the relative reduction in error of Table 1 (eq. 11, 12) and the effective fraction of documents
an average of precisions really measures (Appendix A.1). Plots are in :mod:`ir_rarity.analysis.plots`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ir_measures
import numpy as np
import pandas as pd

from ir_rarity.engine import is_relevant, per_row_search_length
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.io.frames import as_qrels_frame, as_run_frame
from ir_rarity.measures.asl import UNRETRIEVED_CHOICES
from ir_rarity.measures.parse import higher_is_better as _higher_is_better
from ir_rarity.pool.pool import Pool

__all__ = [
    "DISTRIBUTION_EDGES",
    "NOT_RETRIEVED",
    "asl_differences",
    "asl_distribution",
    "difference_buckets",
    "effective_fraction",
    "per_document_asl",
    "relative_error_reduction",
]

NOT_RETRIEVED = "not retrieved"
"""Label of the bucket of relevant documents the run did not retrieve (the rightmost bar of Figure 5)."""

DISTRIBUTION_EDGES: tuple[int, ...] = (1, 2, 3, 6, 11, 21, 51, 101, 201, 501, 1001)
"""Default left edges of the per-document ASL buckets: [1, 2), [2, 3), [3, 6), ..., [1001, inf)."""


def per_document_asl(run: Any, qrels: Any, rel: int = 1, unretrieved: str = "after_last") -> pd.DataFrame:
    r""":math:`ASL_{q,d}` of every relevant document of the qrels for one run.

    Same semantics as the ``ASL`` measure: trec_eval order, relevant means label >= ``rel``, unjudged documents
    are non-relevant, a relevant document the run did not retrieve scores :math:`irrel_q + 1` (``'after_last'``)
    or :math:`irrel_q` (``'eq3'``). The mean of ``asl`` per query is the query's ``ASL``.

    Args:
        run: One run, in any shape :meth:`ir_rarity.Pool.from_runs` accepts for a run.
        qrels: Qrels in any accepted shape.
        rel: Minimum relevance label counted as relevant.
        unretrieved: ``'after_last'`` or ``'eq3'``.

    Returns:
        A DataFrame ``query_id, doc_id, rank, asl, retrieved``, one row per relevant document, sorted by query id
        then ASL; ``rank`` is the 1-based rank (NaN when not retrieved).

    """
    if unretrieved not in UNRETRIEVED_CHOICES:
        raise ParameterError(f"unretrieved must be one of {UNRETRIEVED_CHOICES}, got {unretrieved!r}")
    qframe = as_qrels_frame(qrels)
    ordered = Pool.from_runs({"run": as_run_frame(run)}).run("run")  # trec_eval order, rank from 1
    ordered = ordered[ordered["query_id"].isin(set(qframe["query_id"]))]
    ordered = ordered.merge(qframe, on=["query_id", "doc_id"], how="left")
    label = ordered["relevance"].to_numpy(np.float64)
    relevant = is_relevant(label, rel)  # NaN (unjudged) compares False
    query = ordered["query_id"].to_numpy()
    rank = ordered["rank"].to_numpy(np.int64)  # 1-based; each query's whole ranking, in order
    search_length = per_row_search_length(relevant, pd.factorize(query)[0], rank - 1)
    found = pd.DataFrame({
        "query_id": query[relevant],
        "doc_id": ordered["doc_id"].to_numpy()[relevant],
        "rank": rank[relevant].astype(np.float64),
        "asl": search_length[relevant].astype(np.float64),
        "retrieved": True,
    })
    n_irrelevant = pd.Series((~relevant).astype(np.int64)).groupby(query).sum()
    wanted = qframe[is_relevant(qframe["relevance"].to_numpy(), rel)][["query_id", "doc_id"]]
    missing = wanted.merge(found[["query_id", "doc_id"]], how="left", indicator=True)
    missing = missing[missing["_merge"] == "left_only"]
    base = missing["query_id"].map(n_irrelevant).fillna(0).to_numpy(np.float64)
    lost = pd.DataFrame({
        "query_id": missing["query_id"].to_numpy(),
        "doc_id": missing["doc_id"].to_numpy(),
        "rank": np.nan,
        "asl": base + (1.0 if unretrieved == "after_last" else 0.0),
        "retrieved": False,
    })
    table = pd.concat([found, lost], ignore_index=True)
    return table.sort_values(["query_id", "asl", "rank"], kind="stable", na_position="last").reset_index(drop=True)


def asl_distribution(pool_or_run: Any, qrels: Any, run: str | None = None,
                     edges: Sequence[float] = DISTRIBUTION_EDGES, rel: int = 1,
                     unretrieved: str = "after_last") -> pd.DataFrame:
    """Number of relevant documents per per-document ASL bucket for one run (Figure 5).

    Retrieved relevant documents fall in ``[edges[i], edges[i+1])`` (the last bucket is open); relevant documents
    the run did not retrieve are counted in a last bucket :data:`NOT_RETRIEVED`.

    Args:
        pool_or_run: A :class:`ir_rarity.Pool` (then ``run`` names one of its runs) or a run itself.
        qrels: Qrels in any accepted shape.
        run: Name of the run in the pool; must be None when ``pool_or_run`` is a run.
        edges: Increasing left edges of the buckets, the first one <= 1 (0 with ``'eq3'``).
        rel: Minimum relevance label counted as relevant.
        unretrieved: ``'after_last'`` or ``'eq3'``.

    Returns:
        A DataFrame ``bucket, low, high, count`` (``low``/``high`` NaN for the not-retrieved bucket).

    """
    if isinstance(pool_or_run, Pool):
        if run is None:
            raise InputError("asl_distribution(pool, qrels, run=...) needs the name of one of the pool's runs")
        pool_or_run = pool_or_run.run(run)
    elif run is not None:
        raise InputError("run= names a run of a pool; pass either a pool and a run name, or a run alone")
    bounds = np.asarray(edges, dtype=np.float64)
    if len(bounds) == 0 or np.any(np.diff(bounds) <= 0):
        raise ParameterError(f"edges must be a non-empty increasing sequence, got {list(bounds)}")
    docs = per_document_asl(pool_or_run, qrels, rel, unretrieved)
    retrieved = docs[docs["retrieved"]]["asl"].to_numpy()
    if len(retrieved) and retrieved.min() < bounds[0]:
        raise ParameterError(f"the first edge {bounds[0]:g} is above the smallest ASL {retrieved.min():g}")
    highs = np.append(bounds[1:], np.inf)
    counts = np.bincount(np.searchsorted(bounds, retrieved, side="right") - 1, minlength=len(bounds))
    labels = [f"{lo:g}" if hi == lo + 1 else (f">={lo:g}" if np.isinf(hi) else f"{lo:g}-{hi - 1:g}")
              for lo, hi in zip(bounds, highs, strict=True)]
    table = pd.DataFrame({"bucket": labels, "low": bounds, "high": highs, "count": counts[: len(bounds)]})
    last = pd.DataFrame({"bucket": [NOT_RETRIEVED], "low": [np.nan], "high": [np.nan],
                         "count": [int((~docs["retrieved"]).sum())]})
    return pd.concat([table, last], ignore_index=True)


def asl_differences(run_a: Any, run_b: Any, qrels: Any, rel: int = 1, unretrieved: str = "after_last"
                    ) -> pd.DataFrame:
    """Per-document ASL of two runs and their difference (Figure 6: best system minus median system).

    Returns:
        A DataFrame ``query_id, doc_id, asl_a, asl_b, difference`` with ``difference = asl_a - asl_b``, one row per
        relevant document of the qrels: negative values are wins for ``run_a`` (lower ASL).

    """
    a = per_document_asl(run_a, qrels, rel, unretrieved)[["query_id", "doc_id", "asl"]]
    b = per_document_asl(run_b, qrels, rel, unretrieved)[["query_id", "doc_id", "asl"]]
    table = a.merge(b, on=["query_id", "doc_id"], suffixes=("_a", "_b"), validate="one_to_one")
    table["difference"] = table["asl_a"] - table["asl_b"]
    return table.sort_values(["query_id", "doc_id"], kind="stable").reset_index(drop=True)


def difference_buckets(differences: Any, edges: Sequence[float] = (10, 100, 1000)) -> pd.DataFrame:
    """Symmetric buckets of per-document ASL differences, wins (negative) left, losses right (Figure 6).

    With ``edges=(10, 100, 1000)`` the buckets are ``<=-1000, -999..-100, -99..-10, -9..-1, 0, 1..9, 10..99,
    100..999, >=1000``.

    Args:
        differences: Per-document differences (a Series, array, or the DataFrame of :func:`asl_differences`).
        edges: Increasing positive magnitudes separating the buckets.

    Returns:
        A DataFrame ``bucket, count``, from the largest wins to the largest losses.

    """
    if isinstance(differences, pd.DataFrame):
        differences = differences["difference"]
    values = np.asarray(differences, dtype=np.float64)
    bounds = np.asarray(edges, dtype=np.float64)
    if len(bounds) == 0 or bounds[0] <= 1 or np.any(np.diff(bounds) <= 0):
        raise ParameterError(f"edges must be increasing magnitudes > 1, got {list(bounds)}")
    lows = np.concatenate([[1.0], bounds])
    size = np.searchsorted(bounds, np.abs(values), side="right")  # 0: |d| < bounds[0]
    names = [f">={lo:g}" if i == len(bounds) else f"{lo:g}..{bounds[i] - 1:g}" for i, lo in enumerate(lows)]
    wins = [np.sum((values < 0) & (size == i)) for i in range(len(lows))]
    losses = [np.sum((values > 0) & (size == i)) for i in range(len(lows))]
    labels = [("<=-" + n[2:]) if n.startswith(">=") else "-" + n.replace("..", "..-") for n in names][::-1]
    labels = [*labels, "0", *names]
    counts = [*wins[::-1], int(np.sum(values == 0)), *losses]
    return pd.DataFrame({"bucket": labels, "count": np.asarray(counts, dtype=np.int64)})


def relative_error_reduction(a: Any, b: Any, higher_is_better: bool | ir_measures.Measure | str) -> Any:
    r"""Relative reduction in error from ``a`` (baseline) to ``b`` (Table 1 of Alex, Hall & Metzler).

    For precision-like measures, whose optimum is 1 (eq. 11):

    .. math:: RRIE = \frac{(1 - a) - (1 - b)}{1 - a}

    For ASL-like measures, whose optimum is also 1 but from above (eq. 12):

    .. math:: RRIE = \frac{(a - 1) - (b - 1)}{a - 1}

    E.g. P@20 0.456 -> 0.594 gives 25%, ASL@g1-10 14 -> 5 gives 69%.

    Args:
        a: Baseline value(s) (scalars or arrays).
        b: Improved value(s).
        higher_is_better: True for eq. 11, False for eq. 12, or a measure (object or string) to decide from.

    Returns:
        The reduction as a fraction (positive when ``b`` is better), a float for scalar inputs.

    """
    if not isinstance(higher_is_better, bool):
        higher_is_better = _higher_is_better(higher_is_better)
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    error_a, error_b = (1.0 - a, 1.0 - b) if higher_is_better else (a - 1.0, b - 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (error_a - error_b) / error_a
    return float(out) if out.ndim == 0 else out


def effective_fraction(search_lengths: Any) -> float:
    r"""Fraction of documents an arithmetic mean of precisions effectively averages (Appendix A.1).

    The mean of precisions :math:`P_i = 1/SL_i`, read back in search-length space, is the harmonic mean
    :math:`n / \sum_i 1/SL_i` (eq. 14, 15). Sorting the search lengths increasingly, the result is the fraction
    :math:`k/n` of documents whose unweighted mean :math:`\frac{1}{k}\sum_{i \le k} SL_{(i)}` is closest to it
    (the first such k on ties). The paper finds about 57% for MAP across TREC tracks.

    Args:
        search_lengths: Positive per-document search lengths (e.g. the ``asl`` column of
            :func:`per_document_asl`; for precisions :math:`P_i`, pass :math:`1/P_i`).

    Raises:
        ParameterError: empty input or a search length that is not positive.

    """
    values = np.sort(np.asarray(search_lengths, dtype=np.float64).ravel())
    if len(values) == 0 or not np.all(values > 0):
        raise ParameterError("effective_fraction needs a non-empty set of positive search lengths")
    target = len(values) / np.sum(1.0 / values)
    prefix_means = np.cumsum(values) / np.arange(1, len(values) + 1)
    k = int(np.argmin(np.abs(prefix_means - target))) + 1
    return k / len(values)
