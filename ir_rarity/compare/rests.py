"""Columns of what each score rests on in a campaign table: unjudged share, bounds, range over tie orders.

For measure M: ``"M unjudged"`` (the mean share of the documents M reads that are unjudged), ``"M low"`` and
``"M high"`` (the value with unjudged documents non-relevant, and relevant at the lowest relevant grade), for RBP
``"M residual"`` (Moffat & Zobel, TOIS 2008), and ``"M ties low"``, ``"M ties high"`` (min and max over every
order of tied documents). The values are the :class:`~ir_rarity.Evaluation`'s (``unjudged()``, ``bounds()``,
``ties()``), gathered by ``evaluate(..., unjudged=True, ties=True)``; this module only names and places them.

Two runs' order is *decided by judged documents alone* when one's bounds lie wholly above the other's (no
labelling of the unjudged documents either read can reverse it); :func:`undecided_pairs` lists the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ir_rarity.measures.parse import higher_is_better

if TYPE_CHECKING:
    from ir_rarity.engine.result import Evaluation

__all__ = ["REST_COLUMNS", "rest_columns", "rest_frame", "undecided_pairs"]

REST_COLUMNS = ("unjudged", "low", "high", "residual", "ties low", "ties high")
"""The suffixes of a measure's columns, in table order."""


def rest_columns(measure: Any) -> list[str]:
    """The column names of a measure's rests (``"<measure> unjudged"``...), given the measure or its column name."""
    return [f"{measure} {suffix}" for suffix in REST_COLUMNS]


def rest_frame(evaluation: Evaluation, measure: Any, unjudged: bool, ties: bool, key: str | None = None
               ) -> pd.DataFrame:
    """One row per run: the rest columns ``unjudged``/``ties`` ask for, named ``"<key> <suffix>"``.

    ``key`` names the columns (default: the measure's label).
    """
    name = key if key is not None else evaluation.label(evaluation.measure(measure))
    out = pd.DataFrame(index=pd.Index(evaluation.names, name="run"))
    if unjudged:
        shares, bounds = evaluation.unjudged(measure), evaluation.bounds(measure)
        out[f"{name} unjudged"] = shares["unjudged"]
        out[f"{name} low"] = bounds["low"]
        out[f"{name} high"] = bounds["high"]
        if "residual" in shares.columns:
            out[f"{name} residual"] = shares["residual"]
    if ties:
        tied = evaluation.ties(measure)
        out[f"{name} ties low"] = tied["ties low"]
        out[f"{name} ties high"] = tied["ties high"]
    return out


def undecided_pairs(evaluation: Evaluation, measure: Any) -> list[tuple[str, str]]:
    """Pairs of runs (better mean first) whose order on ``measure`` the judged documents alone do not decide.

    With ``lo`` and ``hi`` the smaller and larger of a run's two bounds, run A's place above run B is decided when
    ``lo(A) > hi(B)`` (``hi(A) < lo(B)`` for a measure where lower is better): then no labelling of the unjudged
    documents they read reverses it. Pairs are listed in the order of the runs' means.
    """
    m = evaluation.measure(measure)
    bounds = evaluation.bounds(m)
    better = higher_is_better(m)
    ranked = bounds.sort_values("low", ascending=not better, kind="mergesort")
    lo = np.minimum(ranked["low"].to_numpy(), ranked["high"].to_numpy())
    hi = np.maximum(ranked["low"].to_numpy(), ranked["high"].to_numpy())
    decided = lo[:, None] > hi[None, :] if better else hi[:, None] < lo[None, :]
    a, b = np.nonzero(~decided & np.triu(np.ones(decided.shape, dtype=bool), k=1))
    names = list(ranked.index)
    return [(str(names[i]), str(names[j])) for i, j in zip(a, b, strict=True)]
