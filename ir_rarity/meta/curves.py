"""Per-query score tables and the Kendall tau vs. alpha curve (Türkmen, Lease & Kutlu, ECIR 2023, Figure 2).

:func:`per_query_matrix` gives the runs x queries table every statistic of :mod:`ir_rarity.stats` and
:mod:`ir_rarity.meta` takes (:meth:`ir_rarity.Evaluation.matrix` of one measure). :func:`tau_alpha_curve`
compares the system ranking of ``P_rare@k`` and ``AP_rare@k`` at each rarity weight alpha with the ranking of
``P@k`` and ``AP@k`` (Section 4.2, Figure 2), all of them scored in one evaluation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import ir_measures
import pandas as pd

from ir_rarity.errors import ParameterError
from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.measures import FAMILIES
from ir_rarity.measures.parse import parse_measure
from ir_rarity.pool.pool import Pool
from ir_rarity.stats import kendall_tau, run_means, tau_ap

__all__ = ["DEFAULT_ALPHAS", "PAIRS", "curve_measures", "curve_parameters", "per_query_matrix", "score_matrices",
           "tau_alpha_curve"]

DEFAULT_ALPHAS: tuple[float, ...] = tuple(round(0.1 * i, 1) for i in range(11))
"""The rarity weights of Figure 2: 0, 0.1, ..., 1."""

PAIRS: tuple[tuple[str, str], ...] = tuple((str(m.NAME), str(m.BASE_MEASURE)) for m in FAMILIES
                                           if m.ALPHA_CURVE and m.BASE_MEASURE)
"""Each rarity measure of the curve and its base measure (the rarity measure at alpha = 0): the families that
declare :attr:`~ir_rarity.measures.base.RarityMeasure.ALPHA_CURVE`."""

MeasureLike = ir_measures.Measure | str


def per_query_matrix(pool: Pool, qrels: Any, measure: MeasureLike) -> pd.DataFrame:
    """Per-query values of one measure for every run of the pool, as a runs x queries table.

    ``evaluate_campaign(pool, qrels, [measure]).matrix(measure)``: rarity measures are scored by the
    vectorized engine, any other measure by ir_measures. Every query of the qrels is a column; a query a run did
    not retrieve anything for holds the measure's default (0 for P, AP and the rarity measures), as in trec_eval.

    Args:
        pool: The pool whose runs are evaluated (and whose S_d the rarity measures use).
        qrels: Qrels in any shape :func:`ir_rarity.evaluation.evaluate_campaign` accepts.
        measure: One measure, as an object or in ir_measures syntax (``'P_rare(alpha=0.5)@100'``).

    Returns:
        A DataFrame with one row per run (index ``run``, pool order) and one column per qrels query id
        (``query_id``, sorted), with ``attrs["measure"]``, ``attrs["higher_is_better"]`` (read by the statistics
        when not told the direction) and ``attrs["pool"]`` (what the values were computed against), ready for
        :func:`~ir_rarity.stats.correlation.kendall_tau`,
        :func:`~ir_rarity.meta.discriminative.discriminative_power` and :func:`~ir_rarity.meta.stability.stability`.

    """
    m = parse_measure(measure)
    return evaluate_campaign(pool, qrels, [m]).matrix(m)


def score_matrices(pool: Pool, qrels: Any, measures: Sequence[MeasureLike],
                   known: Mapping[str, pd.DataFrame] | None = None, progress: bool | None = None
                   ) -> dict[str, pd.DataFrame]:
    """Runs x queries tables of several measures, those not ``known`` scored together in one evaluation.

    Args:
        pool: The campaign.
        qrels: Qrels in any shape :func:`ir_rarity.evaluation.evaluate_campaign` accepts.
        measures: The measures (objects or strings).
        known: Tables already computed, by ``str(measure)``; they are used as they are.
        progress: Progress bars of the evaluation (None: on a terminal only).

    Returns:
        ``str(measure)`` -> table (as :func:`per_query_matrix` gives it), for every measure and every known one.

    """
    tables = dict(known or {})
    parsed = {str(m): m for m in map(parse_measure, measures)}  # each parsed once, by its name
    missing = {name: m for name, m in parsed.items() if name not in tables}
    if missing:  # the parsed measures, each named str(measure): not parsed again
        evaluation = evaluate_campaign(pool, qrels, list(missing.values()), progress=progress)
        tables.update({name: evaluation.matrix(m) for name, m in missing.items()})
    return tables


def curve_measures(alphas: Sequence[float], cutoff: int) -> list[str]:
    """The measures of the tau vs. alpha curve: each rarity measure at alpha 0 (its base) and at every alpha.

    Args:
        alphas: Rarity weights.
        cutoff: The rank cutoff k (and S_d depth).

    Returns:
        ``str(measure)`` of every measure, without repeats, in the curve's order.

    """
    return list(dict.fromkeys(str(m) for m in _curve(alphas, cutoff).values()))


_FAMILIES = {str(m.NAME): m for m in FAMILIES}


def _curve(alphas: Sequence[float], cutoff: int) -> dict[tuple[str, float], ir_measures.Measure]:
    """``(rarity measure name, alpha) -> measure`` of the curve, alpha 0 (the base) first: each made once.

    The measures are made as objects, not parsed from text, with alpha as its name writes it (``alpha:g``, six
    significant digits), which is the value the text ``f"{name}(alpha={alpha:g})@{cutoff}"`` parses to.
    """
    return {(name, alpha): parse_measure(_FAMILIES[name](alpha=float(f"{alpha:g}")) @ cutoff)
            for name, _ in PAIRS for alpha in (0.0, *alphas)}


def _tau_b(means: pd.Series, base: pd.Series) -> float:
    """Kendall tau-b, exactly 1 for identical non-constant rankings (scipy's tie correction can give 1 - 1e-16)."""
    if means.equals(base) and means.nunique() > 1:
        return 1.0
    return kendall_tau(means, base)


def curve_parameters(alphas: Sequence[float], cutoff: int) -> tuple[list[float], int]:
    """The rarity weights and the cutoff of a tau vs. alpha curve, checked.

    Args:
        alphas: Rarity weights, each >= 0.
        cutoff: The rank cutoff k, >= 1.

    Returns:
        The alphas as floats and the cutoff as an int.

    Raises:
        ParameterError: On a negative alpha, no alphas, or a cutoff < 1.

    """
    values = [float(a) for a in alphas]
    if not values:
        raise ParameterError("tau_alpha_curve needs at least one alpha")
    if any(a < 0 for a in values):
        raise ParameterError(f"alphas must be >= 0, got {values}")
    if int(cutoff) < 1:
        raise ParameterError(f"cutoff must be a positive integer, got {cutoff}")
    return values, int(cutoff)


def _pair_records(tables: Mapping[str, pd.DataFrame], curve: Mapping[tuple[str, float], ir_measures.Measure],
                  name: str, base_label: str, alphas: Sequence[float], cutoff: int) -> list[dict[str, Any]]:
    """One row per alpha comparing ``name`` at that alpha with its base measure (``name`` at alpha 0).

    ``curve`` is :func:`_curve` of ``alphas`` and ``cutoff``.
    """
    base = run_means(tables[str(curve[(name, 0.0)])])
    records = []
    for alpha in alphas:
        measure = str(curve[(name, alpha)])
        means = base if alpha == 0 else run_means(tables[measure])
        records.append({"alpha": alpha, "pair": f"{name} vs {base_label}", "measure": measure,
                        "base": f"{base_label}@{cutoff}", "tau": _tau_b(means, base), "tau_ap": tau_ap(means, base)})
    return records


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
    Kendall's tau-b (:func:`~ir_rarity.stats.correlation.kendall_tau`, Kendall, Biometrika 1945) and tau_AP with
    the base measure as the reference ranking (:func:`~ir_rarity.stats.correlation.tau_ap`, Yilmaz, Aslam &
    Robertson, SIGIR 2008). S_d is counted at depth ``cutoff``. Every measure not in ``matrices`` is scored in
    one :func:`~ir_rarity.evaluation.evaluate_campaign` call.

    The base measures are computed by the same engine as the rarity measure at ``alpha=0``, which equals
    trec_eval's P@k and AP@k value for value (tested against pytrec_eval on TREC-COVID round 1). So at
    ``alpha=0`` both rankings are the same array and tau is exactly 1 (also with tied systems, where scipy's
    tau-b would round to ``1 - 1e-16``).

    Args:
        pool: The campaign.
        qrels: Qrels in any shape :func:`ir_rarity.evaluation.evaluate_campaign` accepts.
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
    alpha_values, cutoff = curve_parameters(alphas, cutoff)
    curve = _curve(alpha_values, cutoff)
    tables = score_matrices(pool, qrels, list(dict.fromkeys(curve.values())), matrices)
    records = [record for name, base_label in PAIRS
               for record in _pair_records(tables, curve, name, base_label, alpha_values, cutoff)]
    out = pd.DataFrame.from_records(records)
    out["tau"] = out["tau"].astype(float)
    out["tau_ap"] = out["tau_ap"].astype(float)
    return out
