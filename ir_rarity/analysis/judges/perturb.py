r"""A second judge made from one set of qrels by a documented, seeded perturbation (for examples and tests).

A campaign judged once (TREC-COVID round 1) has no second judge to compare with. :func:`lenient_judge` makes one
that mimics what is reported of LLM judges: they are more lenient than people (Thomas, Spielman, Craswell &
Mitra, "Large language models can accurately predict searcher preferences", SIGIR 2024; Clarke & Dietz, "LLM-based
relevance assessment still can't replace human relevance assessment", 2024), and an unfamiliar document found by
few systems is where a lenient judge's false positive turns into a rarity gain. Each judged (query, document) with
label :math:`l` (top grade :math:`L`) and rarity :math:`S_d` of :math:`S` systems is, independently,

* raised by one grade with probability :math:`p_\uparrow(d) = \min(1, u + r\,(1 - S_d / S))` if :math:`l < L`;
* else lowered by one grade with probability :math:`p_\downarrow` if :math:`l > 0`;

one uniform draw :math:`U_d` per pair decides both (raised when :math:`U_d < p_\uparrow`, lowered when
:math:`U_d > 1 - p_\downarrow`), drawn from ``numpy.random.default_rng(seed)`` in the order of the pairs sorted by
query id then docno, so the judge depends on the seed and the qrels alone, not on their row order.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ir_rarity.errors import ParameterError

__all__ = ["lenient_judge"]


def lenient_judge(qrels: pd.DataFrame, counts: pd.DataFrame, num_systems: int, *, up: float = 0.05,
                  rare_up: float = 0.2, down: float = 0.05, seed: int = 0) -> pd.DataFrame:
    r"""A lenient second judge: the qrels with grades moved by the rule of the module.

    Args:
        qrels: Canonical qrels (``query_id, doc_id, relevance``).
        counts: The campaign's S_d table (``query_id, doc_id, S_d``, e.g. :meth:`ir_rarity.Pool.counts`); a
            judged pair missing from it has S_d = 0 (the rarest).
        num_systems: S.
        up: u, the chance of a grade raised whatever the rarity.
        rare_up: r, the extra chance of a grade raised for a document no system retrieved, falling linearly to 0
            at :math:`S_d = S`.
        down: :math:`p_\downarrow`, the chance of a grade lowered (when not raised).
        seed: The seed of the draws.

    Returns:
        Canonical qrels of the same pairs, sorted by query id then docno, with the moved grades.

    Raises:
        ParameterError: a probability outside [0, 1], ``up + rare_up + down > 1`` or ``num_systems < 1``.

    """
    for name, value in (("up", up), ("rare_up", rare_up), ("down", down)):
        if not 0.0 <= value <= 1.0:
            raise ParameterError(f"{name} must be in [0, 1], got {value}")
    if up + rare_up + down > 1.0:
        raise ParameterError(f"up + rare_up + down must be at most 1, got {up + rare_up + down}")
    if num_systems < 1:
        raise ParameterError(f"num_systems must be at least 1, got {num_systems}")
    frame = qrels[["query_id", "doc_id", "relevance"]].sort_values(["query_id", "doc_id"], kind="stable")
    frame = frame.reset_index(drop=True)
    s_d = frame.merge(counts[["query_id", "doc_id", "S_d"]], on=["query_id", "doc_id"], how="left")["S_d"]
    s_d = s_d.fillna(0).to_numpy(np.float64)
    label = frame["relevance"].to_numpy(np.int64)
    top = int(label.max()) if len(label) else 0
    p_up = np.minimum(1.0, up + rare_up * (1.0 - np.minimum(s_d, num_systems) / num_systems))
    draw = np.random.default_rng(seed).random(len(frame))
    raised = (draw < p_up) & (label < top)
    lowered = ~raised & (draw > 1.0 - down) & (label > 0)
    frame["relevance"] = label + raised.astype(np.int64) - lowered.astype(np.int64)
    return frame
