"""Per-query score tables and the Kendall tau vs. alpha curve (Türkmen, Lease & Kutlu, ECIR 2023, Figure 2).

:func:`per_query_matrix` gives the runs x queries table every function of :mod:`ir_rarity.meta.stats` takes.
:func:`tau_alpha_curve` compares the system ranking of ``P_rare@k`` and ``AP_rare@k`` at each rarity weight
alpha with the ranking of ``P@k`` and ``AP@k`` (Section 4.2, Figure 2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import ir_measures
import pandas as pd

from ir_rarity.engine.compute import compute, is_engine_measure
from ir_rarity.engine.qrels import EncodedQrels
from ir_rarity.engine.rows import Rows
from ir_rarity.errors import ParameterError
from ir_rarity.measures.parse import higher_is_better, parse_measure
from ir_rarity.meta.stats import kendall_tau, tau_ap
from ir_rarity.pool.pool import Pool

__all__ = ["DEFAULT_ALPHAS", "per_query_matrix", "tau_alpha_curve"]

DEFAULT_ALPHAS: tuple[float, ...] = tuple(round(0.1 * i, 1) for i in range(11))
"""The rarity weights of Figure 2: 0, 0.1, ..., 1."""

MeasureLike = ir_measures.Measure | str


def _parse(measure: MeasureLike) -> ir_measures.Measure:
    return parse_measure(measure)


def _engine_frame(pool: Pool, rows: Rows, encoded: EncodedQrels, measure: ir_measures.Measure) -> pd.DataFrame:
    """Runs x queries table of an engine measure from already built member rows."""
    values = compute(measure, rows)
    return pd.DataFrame(values, index=pd.Index(pool.names, name="run"),
                        columns=pd.Index([str(q) for q in encoded.query_ids], name="query_id"))


def per_query_matrix(pool: Pool, qrels: Any, measure: MeasureLike) -> pd.DataFrame:
    """Per-query values of one measure for every run of the pool, as a runs x queries table.

    Rarity measures (``P_rare``, ``AP_rare``) are computed by the vectorized engine, any other measure by
    ir_measures through :meth:`Pool.evaluate`. Every query of the qrels is a column; a query a run did not
    retrieve anything for holds the measure's default (0 for P, AP and the rarity measures), as in trec_eval.

    Args:
        pool: The pool whose runs are evaluated (and whose S_d the rarity measures use).
        qrels: Qrels in any shape :meth:`Pool.evaluate` accepts.
        measure: One measure, as an object or in ir_measures syntax (``'P_rare(alpha=0.5)@100'``).

    Returns:
        A DataFrame with one row per run (index ``run``, pool order) and one column per qrels query id
        (``query_id``, sorted), with ``attrs["measure"]`` and ``attrs["higher_is_better"]``, ready for
        :func:`~ir_rarity.meta.stats.kendall_tau`,
        :func:`~ir_rarity.meta.stats.discriminative_power` and :func:`~ir_rarity.meta.stats.stability`.

    """
    m = _parse(measure)
    if is_engine_measure(m):
        encoded = pool.encode_qrels(qrels)
        frame = _engine_frame(pool, pool.member_rows(encoded), encoded, m)
    else:
        long = pool.evaluate(qrels, [m], by_query=True)
        n_runs = len(pool)
        n_queries = len(long) // n_runs
        columns = pd.Index([str(q) for q in long["query_id"].iloc[:n_queries]], name="query_id")
        frame = pd.DataFrame(long["value"].to_numpy(float).reshape(n_runs, n_queries),
                             index=pd.Index(pool.names, name="run"), columns=columns)
    # The meta-evaluation functions read the direction from here when not told (ASL: lower is better).
    frame.attrs["measure"] = str(m)
    frame.attrs["higher_is_better"] = higher_is_better(m)
    return frame


def _tau_b(means: pd.Series, base: pd.Series) -> float:
    """Kendall tau-b, exactly 1 for identical non-constant rankings (scipy's tie correction can give 1 - 1e-16)."""
    if means.equals(base) and means.nunique() > 1:
        return 1.0
    return kendall_tau(means, base)


def tau_alpha_curve(
    pool: Pool,
    qrels: Any,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    cutoff: int = 100,
    matrices: Mapping[str, pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """Rank correlation between each rarity measure and its base measure as alpha grows (Figure 2).

    For every ``alpha``, the systems are ranked by their mean ``P_rare(alpha)@cutoff`` and by their mean
    ``P@cutoff``, and by ``AP_rare(alpha)@cutoff`` and ``AP@cutoff``; each pair of rankings is compared with
    Kendall's tau-b (:func:`~ir_rarity.meta.stats.kendall_tau`) and tau_AP with the base measure as the
    reference ranking (:func:`~ir_rarity.meta.stats.tau_ap`). S_d is counted at depth ``cutoff``.

    The base measures are computed by the same engine as the rarity measure at ``alpha=0``, which equals
    trec_eval's P@k and AP@k value for value (tested against pytrec_eval on TREC-COVID round 1). So at
    ``alpha=0`` both rankings are the same array and tau is exactly 1 (also with tied systems, where scipy's
    tau-b would round to ``1 - 1e-16``).

    Args:
        pool: The pool of runs.
        qrels: Qrels in any shape :meth:`Pool.evaluate` accepts.
        alphas: Rarity weights (>= 0) to evaluate.
        cutoff: The rank cutoff k of both measures (and the S_d depth).
        matrices: Per-query matrices already computed (``str(measure)`` -> runs x queries, as
            :func:`per_query_matrix` gives them), used instead of computing those measures again.

    Returns:
        A long DataFrame, one row per alpha and pair: ``alpha``, ``pair`` (``'P_rare vs P'`` or
        ``'AP_rare vs AP'``), ``measure``, ``base``, ``tau``, ``tau_ap``.

    Raises:
        ParameterError: On a negative alpha, no alphas, or a cutoff < 1.

    """
    alphas = [float(a) for a in alphas]
    if not alphas:
        raise ParameterError("tau_alpha_curve needs at least one alpha")
    if any(a < 0 for a in alphas):
        raise ParameterError(f"alphas must be >= 0, got {alphas}")
    if int(cutoff) < 1:
        raise ParameterError(f"cutoff must be a positive integer, got {cutoff}")
    cutoff = int(cutoff)
    encoded = pool.encode_qrels(qrels)
    rows = pool.member_rows(encoded)  # shared by every measure: S_d at depth `cutoff` is counted once
    known = dict(matrices or {})

    def matrix(measure: ir_measures.Measure) -> pd.DataFrame:
        if str(measure) not in known:
            known[str(measure)] = _engine_frame(pool, rows, encoded, measure)
        return known[str(measure)]

    records = []
    for name, base_label in (("P_rare", "P"), ("AP_rare", "AP")):
        base = matrix(_parse(f"{name}(alpha=0)@{cutoff}")).mean(axis=1)
        for alpha in alphas:
            measure = _parse(f"{name}(alpha={alpha:g})@{cutoff}")
            means = base if alpha == 0 else matrix(measure).mean(axis=1)
            records.append({
                "alpha": alpha,
                "pair": f"{name} vs {base_label}",
                "measure": str(measure),
                "base": f"{base_label}@{cutoff}",
                "tau": _tau_b(means, base),
                "tau_ap": tau_ap(means, base),
            })
    out = pd.DataFrame.from_records(records)
    out["tau"] = out["tau"].astype(float)
    out["tau_ap"] = out["tau_ap"].astype(float)
    return out
