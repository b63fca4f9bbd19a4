"""What a score rests on, gathered block by block of rows: the unjudged and tie values an evaluation carries.

:class:`Rests` is handed every block of rows the rule scores (:func:`~ir_rarity.engine.rule.apply_rule` with
``unjudged=True`` or ``ties=True``) and keeps, per measure, ``(n_runs, n_queries)`` matrices of the values of
:mod:`ir_rarity.engine.unjudged` (``"unjudged"``, ``"high"``, ``"rare judged"``, and ``"residual"`` for RBP) and
:mod:`ir_rarity.engine.ties` (``"ties low"``, ``"ties high"``, ``"ties expected"``). A measure the engine does not
score itself (one that goes through ir_measures) gets NaN bounds and tie values, and an evaluation with only such
measures NaN shares too (no rows are made for them). ``Judged`` (which reads judged-ness, not relevance) gets NaN
bounds too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ir_rarity.engine.rbp import rbp_residual
from ir_rarity.engine.rows import Rows
from ir_rarity.engine.ties import MONOTONE, expected_value, tie_range
from ir_rarity.engine.unjudged import high_values, rare_judged_share, score, supports, unjudged_share

__all__ = ["TIE_KINDS", "UNJUDGED_KINDS", "Rests"]

UNJUDGED_KINDS = ("unjudged", "high", "rare judged", "residual")
"""The values ``unjudged=True`` adds per measure (``"residual"`` for RBP only)."""

TIE_KINDS = ("ties low", "ties high", "ties expected")
"""The values ``ties=True`` adds per measure."""


class Rests:
    """The unjudged and tie values of some measures, block by block of rows, stacked in run order."""

    def __init__(self, measures: Sequence[Any], unjudged: bool = False, ties: bool = False,
                 precision: str = "float32") -> None:
        self.measures, self.unjudged, self.ties, self.precision = list(measures), unjudged, ties, precision
        self.parts: dict[tuple[Any, str], list[np.ndarray]] = {}

    def _put(self, measure: Any, kind: str, values: np.ndarray) -> None:
        self.parts.setdefault((measure, kind), []).append(values)

    def add(self, rows: Rows) -> None:
        """Gather every value of one block of rows (before it is released)."""
        nan = np.full((rows.n_runs, rows.n_queries), np.nan)
        for m in self.measures:
            engine = supports(m)
            if self.unjudged:
                self._put(m, "unjudged", unjudged_share(m, rows))
                # Judged reads which documents are judged, not their relevance: no bounds over relevance
                bounded = engine and str(getattr(m, "NAME", "")) != "Judged"
                self._put(m, "high", high_values(m, rows, score) if bounded else nan)
                self._put(m, "rare judged", rare_judged_share(m, rows) if engine else nan)
                if str(getattr(m, "NAME", "")) == "RBP":
                    self._put(m, "residual", rbp_residual(m, rows).reshape(rows.n_runs, rows.n_queries))
            if self.ties:
                exact = engine and str(getattr(m, "NAME", "")) in MONOTONE
                low, high = tie_range(m, rows, self.precision) if exact else (nan, nan)
                self._put(m, "ties low", low)
                self._put(m, "ties high", high)
                self._put(m, "ties expected", expected_value(m, rows, self.precision) if engine else nan)

    def values(self, n_runs: int, n_queries: int) -> dict[tuple[Any, str], np.ndarray]:
        """``(measure, kind) -> (n_runs, n_queries)`` over every block added; NaN for a measure no block read."""
        out = {key: p[0] if len(p) == 1 else np.vstack(p) for key, p in self.parts.items()}
        kinds = [*(("unjudged", "high", "rare judged") if self.unjudged else ()), *(TIE_KINDS if self.ties else ())]
        for m in self.measures:
            for kind in kinds:
                out.setdefault((m, kind), np.full((n_runs, n_queries), np.nan))
        return out

