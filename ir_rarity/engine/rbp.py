r"""Rank-biased precision and its residual (Moffat & Zobel, TOIS 2008), over whole arrays.

.. math:: RBP = (1 - p) \sum_{i=1}^{m} rel(d_i)\, p^{i-1},
          \qquad \mathit{residual} = (1 - p) \sum_{i \le m:\ d_i \text{ unjudged}} p^{i-1} \;+\; p^{m}

:math:`m` is the number of documents read: the run's ranking cut at ``cutoff`` (the whole ranking without one);
:math:`rel(d) = 1` when the label is at least ``rel`` (default 1), unjudged documents count as non-relevant.
The residual is the weight RBP could still gain: the unjudged documents within the ranking read, and everything
past its end (:math:`p^m`). The value is RBP's lower bound, value + residual its upper bound.

trec_eval 10.0's ``rbp`` is not this value's reference: its ``p`` and accumulator are read from a variable it does
not initialise for every call, so its value changes with the other measures asked for in the same run.

.. cite:: Moffat & Zobel. Rank-biased precision for measurement of retrieval effectiveness. ACM TOIS 27(1), 2008.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ir_measures.providers.base import NOT_PROVIDED

from ir_rarity.engine import kernels
from ir_rarity.engine.qrels import UNJUDGED, is_relevant
from ir_rarity.engine.rows import Rows
from ir_rarity.errors import ParameterError

__all__ = ["persistence", "rank_biased_precision", "rbp_residual"]


def _given(measure: Any, name: str, default: Any) -> Any:
    value = measure[name] if name in measure.SUPPORTED_PARAMS else NOT_PROVIDED
    return default if value is NOT_PROVIDED or value is None else value


def persistence(measure: Any) -> tuple[float, int, int | None]:
    """``(p, rel, cutoff)`` of an ``RBP`` measure (p defaults to 0.8, rel to 1, cutoff to none).

    Raises:
        ParameterError: p is not in (0, 1).

    """
    p = float(_given(measure, "p", 0.8))
    if not 0.0 < p < 1.0:
        raise ParameterError(f"{measure}: p must lie in (0, 1), not {p!r}")
    cutoff = _given(measure, "cutoff", None)
    return p, int(_given(measure, "rel", 1)), None if cutoff is None else int(cutoff)


def _read(rows: Rows, cutoff: int | None) -> np.ndarray | slice:
    return slice(None) if cutoff is None else rows.within(cutoff)


def rank_biased_precision(measure: Any, rows: Rows) -> np.ndarray:
    r""":math:`(1-p)\sum_{i \le m} rel(d_i) p^{i-1}` per cell (run-major), Moffat & Zobel (TOIS 2008)."""
    p, rel, cutoff = persistence(measure)
    keep = _read(rows, cutoff)
    relevant = is_relevant(rows.labels()[keep], rel)
    rank = rows.rank[keep][relevant].astype(np.float64)
    return kernels.cell_sum((1.0 - p) * np.power(p, rank), rows.cell()[keep][relevant], rows.n_cells)


def rbp_residual(measure: Any, rows: Rows) -> np.ndarray:
    r"""The residual per cell: :math:`(1-p)\sum_{i \le m,\ unjudged} p^{i-1} + p^m` (Moffat & Zobel, TOIS 2008).

    Since :math:`(1-p)\sum_{i=1}^{m} p^{i-1} = 1 - p^m`, this is :math:`1 - (1-p)\sum_{i \le m,\ judged} p^{i-1}`:
    one minus the weight of the judged documents read, which needs only the judged rows (a query a run returned
    nothing for has residual 1: every weight is still open).
    """
    p, _, cutoff = persistence(measure)
    keep = _read(rows, cutoff)
    judged = rows.labels()[keep] != UNJUDGED
    rank = rows.rank[keep][judged].astype(np.float64)
    return 1.0 - kernels.cell_sum((1.0 - p) * np.power(p, rank), rows.cell()[keep][judged], rows.n_cells)
