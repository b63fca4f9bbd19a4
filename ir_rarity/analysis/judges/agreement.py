r"""Agreement between judges on the documents they both judged: Cohen's kappa, Krippendorff's alpha, confusions.

* :func:`cohen_kappa`: Cohen's kappa of two judges' labels (Cohen, "A coefficient of agreement for nominal
  scales", Educational and Psychological Measurement 1960), weighted on grades with linear or quadratic
  disagreement weights (Cohen, "Weighted kappa", Psychological Bulletin 1968):

  .. math:: \kappa_w = 1 - \frac{\sum_{ij} w_{ij} O_{ij}}{\sum_{ij} w_{ij} E_{ij}}, \qquad
            E_{ij} = \frac{O_{i\cdot} O_{\cdot j}}{n},

  with :math:`w_{ij} = [i \ne j]` (unweighted), :math:`|i - j|` (linear) or :math:`(i - j)^2` (quadratic),
  :math:`i, j` the positions of the labels in the sorted union of both judges' labels (as scikit-learn's
  ``cohen_kappa_score``);
* :func:`krippendorff_alpha`: Krippendorff's alpha over any number of judges, each unit (a query-document pair)
  judged by any of them, from the coincidence matrix (Krippendorff, "Computing Krippendorff's alpha-reliability",
  2011): :math:`o_{ck} = \sum_u \sum_{i \ne j} [v_{ui} = c][v_{uj} = k] / (m_u - 1)` over the units with
  :math:`m_u \ge 2` values, :math:`n_c = \sum_k o_{ck}`, :math:`n = \sum_c n_c`, and

  .. math:: \alpha = 1 - (n - 1) \frac{\sum_{c,k} o_{ck}\, \delta^2_{ck}}{\sum_{c,k} n_c n_k\, \delta^2_{ck}},

  with :math:`\delta^2_{ck} = [c \ne k]` (nominal), :math:`(c - k)^2` (interval) or
  :math:`\left(\sum_{g=c}^{k} n_g - (n_c + n_k)/2\right)^2` (ordinal, over the values' order);
* :func:`confusion`: the confusion matrix of two judges.

Everything is whole-array numpy: a judge is a vector of labels, NaN where it did not judge the unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

from ir_rarity.errors import ParameterError

__all__ = ["ALPHA_LEVELS", "KAPPA_WEIGHTS", "cohen_kappa", "confusion", "krippendorff_alpha"]

KAPPA_WEIGHTS = (None, "linear", "quadratic")
"""The disagreement weights of :func:`cohen_kappa`: None (unweighted), linear or quadratic."""

ALPHA_LEVELS = ("nominal", "ordinal", "interval")
"""The metrics of :func:`krippendorff_alpha`'s differences."""


def confusion(a: np.ndarray, b: np.ndarray, labels: Sequence[int] | None = None) -> pd.DataFrame:
    """The confusion matrix of two judges' labels of the same units: rows judge ``a``'s label, columns ``b``'s.

    Args:
        a: One judge's labels.
        b: The other judge's labels of the same units, in the same order.
        labels: The labels to list (default: the sorted union of both).

    Returns:
        Counts, index ``a``'s labels, columns ``b``'s (every label of ``labels`` listed, zeros included).

    """
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    if a.shape != b.shape:
        raise ParameterError(f"the judges label {len(a)} and {len(b)} units: give both the same units")
    values = np.unique(np.concatenate([a, b])) if labels is None else np.asarray(sorted(labels), dtype=np.int64)
    ia, ib = np.searchsorted(values, a), np.searchsorted(values, b)
    if len(a) and (ia.max(initial=0) >= len(values) or not np.array_equal(values[ia], a)
                   or not np.array_equal(values[np.minimum(ib, len(values) - 1)], b)):
        raise ParameterError("a label is not among the labels listed")
    k = len(values)
    counts = np.bincount(ia * k + ib, minlength=k * k).reshape(k, k)
    return pd.DataFrame(counts, index=pd.Index(values, name="a"), columns=pd.Index(values, name="b"))


def cohen_kappa(a: np.ndarray, b: np.ndarray, weights: Literal["linear", "quadratic"] | None = None) -> float:
    """Cohen's kappa of two judges' labels of the same units, unweighted or weighted (see the module).

    Args:
        a: One judge's integer labels (e.g. grades 0, 1, 2, or 0/1 after thresholding at ``rel``).
        b: The other judge's labels of the same units.
        weights: None, ``"linear"`` or ``"quadratic"`` (distances between label positions in the sorted union).

    Returns:
        Kappa in [-1, 1]; NaN with no unit, or when the expected disagreement is 0 (both judges gave one and the
        same label to every unit: agreement by chance is certain, kappa is undefined).

    Raises:
        ParameterError: ``weights`` not one of :data:`KAPPA_WEIGHTS`, or ``a`` and ``b`` of different lengths.

    """
    if weights not in KAPPA_WEIGHTS:
        raise ParameterError(f"weights must be one of None, 'linear', 'quadratic', got {weights!r}")
    table = confusion(a, b).to_numpy(dtype=np.float64)
    n = table.sum()
    if n == 0:
        return float("nan")
    k = len(table)
    i, j = np.indices((k, k))
    w = (i != j).astype(np.float64) if weights is None else np.abs(i - j).astype(np.float64)
    if weights == "quadratic":
        w = w**2
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n
    denominator = float((w * expected).sum())
    if denominator == 0.0:
        return float("nan")
    return 1.0 - float((w * table).sum()) / denominator


def _coincidences(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sorted distinct values, coincidence matrix o_ck)`` of units x judges ``values`` (NaN: not judged)."""
    judged = ~np.isnan(values)
    m = judged.sum(axis=1)
    pairable = m >= 2
    values, judged, m = values[pairable], judged[pairable], m[pairable]
    distinct = np.unique(values[judged])
    codes = np.searchsorted(distinct, np.where(judged, values, distinct[0] if len(distinct) else 0.0))
    units = np.repeat(np.arange(len(values)), values.shape[1]).reshape(values.shape)
    per_unit = np.zeros((len(values), len(distinct)))  # n_uc: how many judges gave unit u value c
    np.add.at(per_unit, (units[judged], codes[judged]), 1.0)
    scaled = per_unit / (m - 1)[:, None]
    o = scaled.T @ per_unit - np.diag(scaled.sum(axis=0))  # pairs of distinct judges of each unit, over m_u - 1
    return distinct, o


def krippendorff_alpha(values: np.ndarray, level: Literal["nominal", "ordinal", "interval"] = "ordinal") -> float:
    """Krippendorff's alpha of units x judges labels, NaN where a judge did not judge a unit (see the module).

    Units judged by fewer than two judges are not pairable and take no part (Krippendorff 2011).

    Args:
        values: ``(n_units, n_judges)`` labels (float, NaN for missing).
        level: ``"nominal"``, ``"ordinal"`` or ``"interval"``: the metric of differences between labels.

    Returns:
        Alpha (1: perfect agreement, 0: agreement at chance); NaN with no pairable unit or when the expected
        disagreement is 0 (a single value throughout).

    Raises:
        ParameterError: an unknown ``level`` or ``values`` not two-dimensional.

    """
    if level not in ALPHA_LEVELS:
        raise ParameterError(f"level must be one of {', '.join(ALPHA_LEVELS)}, got {level!r}")
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 2:
        raise ParameterError(f"values must be units x judges (2 dimensions), got {values.ndim}")
    distinct, o = _coincidences(values)
    n_c = o.sum(axis=1)
    n = float(n_c.sum())
    if n <= 1.0:
        return float("nan")
    if level == "nominal":
        delta = (distinct[:, None] != distinct[None, :]).astype(np.float64)
    elif level == "interval":
        delta = (distinct[:, None] - distinct[None, :]) ** 2
    else:  # ordinal: the n_g of the values from c to k, less half of n_c and n_k
        cumulative = np.concatenate([[0.0], np.cumsum(n_c)])
        lo = np.minimum.outer(np.arange(len(distinct)), np.arange(len(distinct)))
        hi = np.maximum.outer(np.arange(len(distinct)), np.arange(len(distinct)))
        delta = (cumulative[hi + 1] - cumulative[lo] - (n_c[:, None] + n_c[None, :]) / 2.0) ** 2
    expected = float((np.outer(n_c, n_c) * delta).sum())
    if expected == 0.0:
        return float("nan")
    return 1.0 - (n - 1.0) * float((o * delta).sum()) / expected
