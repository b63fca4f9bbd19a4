"""Runs x queries score tables: their validation, each run's mean and moments, and the direction of a measure.

Every statistic of :mod:`ir_rarity.stats` that orders or compares systems reads per-query scores as a
:class:`pandas.DataFrame` with one row per run (index = run names) and one column per query (columns = query ids),
as :meth:`ir_rarity.Evaluation.matrix` gives them, or as the underlying ``(runs, queries)`` array. Missing values
(NaN, e.g. Atomized Search Length on a query without relevant documents) are allowed; each function says how it
treats them.

Seeded resampling (bootstrap intervals, randomization tests, topic subsets) draws by query *position*, so it is
made order-free by :func:`natural_order`: every function that receives query ids puts the queries in natural
order of their ids before any seeded draw.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.engine import exact_means
from ir_rarity.errors import InputError

__all__ = ["BLOCK_ELEMENTS", "check_scores", "direction_of", "group_moments", "in_natural_order", "natural_order",
           "run_means"]

BLOCK_ELEMENTS = 4_000_000
"""Upper bound on the float64 elements of one intermediate block of a vectorized statistic (about 32 MB)."""


_DIGITS = re.compile(r"([0-9]+)")


def _natural_key(text: str) -> tuple[tuple[tuple[int, int, str], ...], str]:
    """Runs of ASCII digits by value before text, piece by piece; the id itself breaks ties ("01" vs "1")."""
    pieces = tuple((0, int(piece), "") if i % 2 else (1, 0, piece)
                   for i, piece in enumerate(_DIGITS.split(text)) if piece)
    return pieces, text


def natural_order(ids: Iterable[Any]) -> np.ndarray:
    """Positions that put ids in natural order: ``"1" < "2" < "10"``, ``"q2" < "q10"``, numbers before text.

    Each id (as ``str``) is split into runs of digits and of other characters, compared piece by piece: a run of
    digits by its value and before any text, text by its characters; an id that is a prefix of another comes
    first, and ids equal so far (``"01"`` and ``"1"``) are ordered by their text. The order is total, so the
    same set of ids gives the same order whatever order it came in. Seeded resampling over queries applies it
    first (``values[:, natural_order(query_ids)]``), so that its result does not depend on the order the data
    came in.

    Args:
        ids: Query (or team) ids.

    Returns:
        Integer positions into ``ids``, in natural order of the ids.

    """
    keys = [_natural_key(str(i)) for i in ids]
    return np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)


def in_natural_order(scores: pd.DataFrame) -> pd.DataFrame:
    """A runs x queries table with its query columns in :func:`natural_order` of their ids."""
    return scores.iloc[:, natural_order(scores.columns)]


def _first_duplicates(index: pd.Index) -> list[Any]:
    return index[index.duplicated()].unique().tolist()[:5]


def check_scores(scores: pd.DataFrame, min_runs: int = 2) -> pd.DataFrame:
    """Validate a runs x queries score table and return it with float values.

    Args:
        scores: One row per run, one column per query.
        min_runs: The fewest runs the caller's statistic needs.

    Returns:
        ``scores`` as floats (same index, columns and ``attrs``).

    Raises:
        InputError: Not a DataFrame, duplicate run names or query ids, too few runs, no query, or not numeric.

    """
    if not isinstance(scores, pd.DataFrame):
        raise InputError(f"scores must be a pandas DataFrame (runs x queries), got {type(scores).__name__}")
    if scores.index.has_duplicates:
        raise InputError(f"scores has duplicate run names: {_first_duplicates(scores.index)}")
    if scores.columns.has_duplicates:
        raise InputError(f"scores has duplicate query ids: {_first_duplicates(scores.columns)}")
    if scores.shape[0] < min_runs:
        raise InputError(f"scores needs at least {min_runs} runs (rows), got {scores.shape[0]}")
    if scores.shape[1] < 1:
        raise InputError("scores has no queries (columns)")
    try:
        return scores.astype(float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"scores must be numeric: {exc}") from exc


def run_means(scores_or_means: pd.DataFrame | pd.Series) -> pd.Series:
    """Each run's mean over its queries with a score, or the given Series of means.

    The mean of run r is ``m_r = (1 / |Q_r|) * sum_{q in Q_r} s_{r,q}``, ``Q_r`` the queries with a non-missing
    score for r, the sum exactly rounded (:func:`ir_rarity.engine.means.exact_means`: the same values in any
    order give the same mean); NaN when r has no score at all.

    Args:
        scores_or_means: A runs x queries table, or a Series of run means indexed by run name.

    Returns:
        Float means indexed by run name.

    Raises:
        InputError: Neither a DataFrame nor a Series, duplicate run names, or values that are not numeric.

    """
    if isinstance(scores_or_means, pd.DataFrame):
        scores = check_scores(scores_or_means, min_runs=1)
        return pd.Series(exact_means(scores.to_numpy(dtype=np.float64), skipna=True), index=scores.index)
    if not isinstance(scores_or_means, pd.Series):
        raise InputError("expected a runs x queries DataFrame or a Series of run means, "
                         f"got {type(scores_or_means).__name__}")
    if scores_or_means.index.has_duplicates:
        raise InputError("run means have duplicate run names")
    try:
        return scores_or_means.astype(float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"run means must be numeric: {exc}") from exc


def direction_of(scores: Any, higher_is_better: bool | None) -> bool:
    """Whether larger scores are better: the given flag, else the one ``scores.attrs`` records, else True.

    :meth:`ir_rarity.Evaluation.matrix` records ``attrs["higher_is_better"]`` (False for search lengths), so a
    table read from an evaluation is ranked the right way round without being told.

    Args:
        scores: A score table or Series (any object; only its ``attrs`` are read).
        higher_is_better: The direction, or None to read it from ``scores``.

    Returns:
        The direction.

    """
    if higher_is_better is not None:
        return bool(higher_is_better)
    return bool(getattr(scores, "attrs", {}).get("higher_is_better", True))


def group_moments(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Per row of a runs x queries array, NaN scores dropped: count, mean and sum of squared deviations.

    :math:`n_r = |Q_r|`, :math:`\bar x_r = \sum_{q \in Q_r} x_{r,q} / n_r` and
    :math:`SS_r = \sum_{q \in Q_r} (x_{r,q} - \bar x_r)^2`, the moments of the unpaired two-sample t-test and of
    Tukey's HSD. A row without a score has ``n = 0``, a NaN mean and ``SS = 0``.

    Args:
        values: Runs x queries scores.

    Returns:
        ``(n, mean, ss)``, one value per run each.

    """
    valid = ~np.isnan(values)
    n = valid.sum(axis=1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(valid, values, 0.0).sum(axis=1) / n
        ss = np.where(valid, (values - mean[:, None]) ** 2, 0.0).sum(axis=1)
    return n, mean, ss
