r"""Confidence interval columns of a campaign table: each run's mean with its interval bounds.

The intervals are those of :mod:`ir_rarity.stats.intervals` (a percentile bootstrap over queries, Efron &
Tibshirani, Chapman & Hall 1993, or Student's t-interval, Biometrika 1908). A measure that
:func:`skips undefined queries <ir_rarity.engine.means.skips_undefined>` (ASL) is averaged over the queries
with a value, in every resample as in the table.

Given the query ids, the queries are put in natural order of their ids
(:func:`ir_rarity.stats.scores.natural_order`) before any seeded draw, so the result does not depend on the order
the data came in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from ir_measures import Measure

from ir_rarity.engine import COVERS, skips_undefined
from ir_rarity.errors import ParameterError
from ir_rarity.stats import INTERVALS, bootstrap_interval, natural_order, t_interval

if TYPE_CHECKING:
    from ir_rarity.engine.result import Evaluation

__all__ = ["add_covered_intervals", "add_intervals", "evaluation_frame", "interval_columns"]


def interval_columns(measure: Measure | str) -> tuple[str, str]:
    """Column names of a measure's interval bounds: ``"<measure> ci low"``, ``"<measure> ci high"``.

    ``measure`` is the measure or the name of its column (the name the user gave it).
    """
    return f"{measure} ci low", f"{measure} ci high"


def add_intervals(table: pd.DataFrame, values: dict[Any, np.ndarray], measures: Sequence[Any], level: float,
                  method: str = "bootstrap", resamples: int = 10_000, seed: int | None = 0,
                  query_ids: Iterable[Any] | None = None, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """``table`` (one row per run, in the order of the matrices' rows) with interval bound columns after each measure.

    With ``query_ids`` the queries are put in natural order of their ids before any seeded draw, so the result does
    not depend on the order the data came in; without them the matrices' columns are resampled in the order given
    (the caller orders them).

    Args:
        table: One row per run, one column per measure (``str(measure)``), as ``Evaluation.table()``.
        values: Measure -> runs x queries matrix, rows in the table's order.
        measures: The measures to give intervals for.
        level: Confidence level.
        method: ``"bootstrap"`` or ``"t"``.
        resamples: Bootstrap resamples.
        seed: Bootstrap seed.
        query_ids: The ids of the matrices' columns (e.g. ``Evaluation.query_ids``), or None.
        columns: The table's column of each measure (``Evaluation.label``), or None for ``str(measure)``.

    Returns:
        A new table; ``attrs["interval"]`` records the method, level, resamples and seed.

    """
    if method not in INTERVALS:
        raise ParameterError(f"unknown interval method {method!r}; choose from {', '.join(INTERVALS)}")
    out = table.copy()
    order = None if query_ids is None else natural_order(query_ids)
    names = [str(m) for m in measures] if columns is None else list(columns)
    for m, name in zip(measures, names, strict=True):
        skip = skips_undefined(m)
        if method == "bootstrap":
            matrix = np.asarray(values[m], dtype=float)
            low, high = bootstrap_interval(matrix if order is None else matrix[:, order], level, resamples, seed,
                                           skip)
        else:
            low, high = t_interval(values[m], level, skip)
        at = out.columns.get_loc(name) + 1
        lo_name, hi_name = interval_columns(name)
        out.insert(at, lo_name, low)
        out.insert(at + 1, hi_name, high)
    out.attrs = {**table.attrs, "interval": {"method": method, "level": level, "resamples": resamples,
                                             "seed": seed}}
    return out


def add_covered_intervals(table: pd.DataFrame, evaluation: Evaluation, level: float, covers: str, *,
                          draws: int = 1000, seed: int | None = 0, measures: Sequence[Any] | None = None,
                          columns: Sequence[str] | None = None) -> pd.DataFrame:
    """``table`` with each measure's ``Evaluation.interval(covers=...)`` bounds after it (as :func:`add_intervals`).

    The columns are named as the topic intervals' (:func:`interval_columns`): ``"<measure> ci low"``,
    ``"<measure> ci high"``; ``attrs["interval"]`` records what they cover (``covers`` and, in words, ``"what"``:
    :data:`ir_rarity.engine.names.COVERS`), the level, the draws and the seed.

    Args:
        table: One row per run, one column per measure (``str(measure)``), rows in the evaluation's order.
        evaluation: The evaluation.
        level: Confidence level.
        covers: ``"unjudged"``, ``"ties"`` or ``"all"`` (``"topics"``: :func:`add_intervals`).
        draws: Draws of the unjudged documents' judgments.
        seed: Seed of the draws.
        measures: The measures to give intervals for (default: every measure of the evaluation).
        columns: The table's column of each measure (default ``str(measure)``).

    """
    out = table.copy()
    chosen = list(evaluation.measures) if measures is None else list(measures)
    names = [str(m) for m in chosen] if columns is None else list(columns)
    for m, name in zip(chosen, names, strict=True):
        interval = evaluation.interval(m, covers=covers, level=level, draws=draws, seed=seed)
        at = out.columns.get_loc(name) + 1
        lo_name, hi_name = interval_columns(name)
        out.insert(at, lo_name, interval["low"].to_numpy())
        out.insert(at + 1, hi_name, interval["high"].to_numpy())
    out.attrs = {**table.attrs, "interval": {"covers": covers, "what": COVERS[covers], "level": level,
                                             "draws": draws, "seed": seed}}
    return out


def evaluation_frame(evaluation: Evaluation, *, by_query: bool = False, ci: float | None = None) -> pd.DataFrame:
    """An evaluation as the frame the deprecated ``Pool.evaluate`` and ``CountTable.evaluate`` return.

    Its table, its long per-query values (``by_query``), or the table with a confidence interval of each mean
    (``ci``, a percentile bootstrap over queries, seed 0).

    Raises:
        ParameterError: ``ci`` with ``by_query`` (per-query values have no mean to bound).

    """
    if by_query:
        if ci is not None:
            raise ParameterError("ci= gives intervals of each run's mean; with by_query=True there is no mean")
        return evaluation.long()
    if ci is None:
        return evaluation.table()
    return add_intervals(evaluation.table(), evaluation.values, evaluation.measures, ci,
                         query_ids=evaluation.query_ids, columns=[evaluation.label(m) for m in evaluation.measures])
