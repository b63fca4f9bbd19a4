"""The campaign's ranked documents within the qrels' queries, with their labels: a plain value for analyses.

Campaign helpers (unique relevant documents, unjudged shares) and judging strategies read which run retrieved
which document at which rank and what the qrels say of it; they take a :class:`LabelledRows`, never the engine's
own row structures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["LabelledRows"]


@dataclass(frozen=True, eq=False)
class LabelledRows:
    """Every member run's rows within the qrels' queries, sorted by (run, query, rank).

    Attributes:
        run_names: The runs; ``run`` values are positions in it.
        query_ids: The qrels' queries (sorted); ``query`` values are positions in it.
        run: Run of each row.
        query: Query of each row.
        rank: 0-based rank of each row in its ranking (trec_eval order).
        key: (query, document) pair key of each row, in the campaign's codes.
        label: Qrels label of each row (:data:`~ir_rarity.engine.qrels.UNJUDGED` when not judged).
        decode: Pair keys -> (query ids, docnos), in the campaign's vocabularies.
        n_relevant: For a threshold ``rel``, the number of documents each query's qrels judge relevant.

    """

    run_names: tuple[str, ...]
    query_ids: pd.Index
    run: np.ndarray
    query: np.ndarray
    rank: np.ndarray
    key: np.ndarray
    label: np.ndarray
    decode: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
    n_relevant: Callable[[int], np.ndarray]
    lookup: Callable[[np.ndarray], np.ndarray]
    """Pair keys -> their qrels labels (``UNJUDGED`` outside the qrels)."""
