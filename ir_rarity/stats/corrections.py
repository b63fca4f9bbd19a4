r"""Multiple-testing corrections of one family of p-values, by statsmodels' ``multipletests``.

Testing m pairs at level :math:`\alpha` each rejects a true null hypothesis with probability up to
:math:`1 - (1 - \alpha)^m`. The corrections of :data:`~ir_rarity.stats.names.CORRECTIONS` bound either the
family-wise error rate, e.g. Bonferroni's :math:`\tilde p_i = \min(1, m\, p_i)` or Holm's step-down
:math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1)\, p_{(j)})` (Holm, "A simple sequentially rejective
multiple test procedure", Scandinavian Journal of Statistics 1979), or the false discovery rate, e.g. Benjamini &
Hochberg's :math:`\tilde p_{(i)} = \min_{j \ge i} \min(1, m\, p_{(j)} / j)` (Benjamini & Hochberg, "Controlling
the false discovery rate", Journal of the Royal Statistical Society B 1995). Sakai ("Statistical reform in
information retrieval?", SIGIR Forum 2014) argues for correcting IR comparisons.
"""

from __future__ import annotations

import numpy as np

from ir_rarity.errors import ParameterError
from ir_rarity.stats.names import CORRECTIONS

__all__ = ["correct"]


def correct(pvalues: np.ndarray, method: str | None, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    r"""Corrected p-values and rejections of one family, with statsmodels' ``multipletests``.

    A hypothesis is rejected when its corrected p-value :math:`\tilde p_i` is at most ``alpha`` (below
    ``alpha`` without a correction), e.g. :math:`\tilde p_i = \min(1, m\, p_i)` for ``"bonferroni"`` (see the
    module for Holm, Scandinavian Journal of Statistics 1979, and Benjamini & Hochberg, JRSS B 1995). Undefined
    p-values (NaN) are not part of the family: they stay NaN and are not rejected.

    Args:
        pvalues: The family's p-values.
        method: A :data:`~ir_rarity.stats.names.CORRECTIONS` name, or None (the p-values as they are, rejected
            below ``alpha``).
        alpha: The family-wise error rate (or false discovery rate, for ``fdr_*``).

    Returns:
        ``(rejected, corrected p-values)``.

    Raises:
        ParameterError: ``alpha`` outside (0, 1), or an unknown method.

    """
    if not 0.0 < alpha < 1.0:
        raise ParameterError(f"alpha must be in (0, 1), got {alpha}")
    pvalues = np.asarray(pvalues, dtype=float)
    defined = ~np.isnan(pvalues)
    reject = np.zeros(len(pvalues), dtype=bool)
    if method is None:
        reject[defined] = pvalues[defined] < alpha
        return reject, pvalues.copy()
    if method not in CORRECTIONS:
        raise ParameterError(f"unknown correction {method!r}; choose from {', '.join(CORRECTIONS)}")
    corrected = np.full(len(pvalues), np.nan)
    if defined.any():
        from statsmodels.stats.multitest import multipletests  # a dependency: imported when a correction is asked

        rejected, adjusted, _, _ = multipletests(pvalues[defined], alpha=alpha, method=method)
        reject[defined], corrected[defined] = rejected, adjusted
    return reject, corrected
