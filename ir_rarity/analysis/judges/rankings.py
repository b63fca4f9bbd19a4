r"""Each judge's leaderboard of every measure, and how much the leaderboards of two judges agree.

For each measure and each pair of judges (a, b), with the runs' means under each judge:

* ``tau``: Kendall's tau-b between the two rankings (Kendall, Biometrika 1945), :func:`ir_rarity.stats.kendall_tau`;
* ``tau_ap``: tau_AP of judge b's ranking against judge a's as the reference (Yilmaz, Aslam & Robertson, SIGIR
  2008), :func:`ir_rarity.stats.tau_ap`: swaps near the top count more;
* ``top10_overlap``: :math:`|T_a \cap T_b| / \max(|T_a|, |T_b|)`, where :math:`T_j` are the runs whose competition
  rank under judge j is at most 10 (:func:`ir_rarity.stats.ties.rank`, ``method="min"``: runs tied at the 10th
  place are all in, so :math:`|T_j|` may exceed 10; without ties this is :math:`|T_a \cap T_b| / 10`).

Means tie under the package's one rule (:mod:`ir_rarity.stats.ties`), in all three.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ir_rarity.stats.correlation import kendall_tau, tau_ap
from ir_rarity.stats.ties import rank

__all__ = ["TOP_K", "leaderboards", "ranking_agreement", "top_overlap"]

TOP_K = 10
"""The k of the top-k overlap."""


def top_overlap(a: pd.Series, b: pd.Series, higher_is_better: bool = True, k: int = TOP_K) -> float:
    """The top-k overlap of two rankings of the same runs by their means (see the module).

    Args:
        a: Run means under one judge (index: runs).
        b: Run means under the other judge; aligned on the runs of ``a``.
        higher_is_better: The measure's direction.
        k: The depth of the top.

    Returns:
        The overlap in [0, 1]; NaN with no run.

    """
    b = b.reindex(a.index)
    keep = a.notna().to_numpy() & b.notna().to_numpy()
    if not keep.any():
        return float("nan")
    rank_a = rank(a.to_numpy()[keep], higher_is_better=higher_is_better, method="min")
    rank_b = rank(b.to_numpy()[keep], higher_is_better=higher_is_better, method="min")
    top_a, top_b = rank_a <= k, rank_b <= k
    return float((top_a & top_b).sum() / max(int(top_a.sum()), int(top_b.sum())))


def leaderboards(means: Mapping[str, pd.DataFrame], higher: Mapping[str, bool]) -> pd.DataFrame:
    """Each judge's leaderboard of every measure: ``measure, judge, run, score, rank`` (rank 1 the best).

    Args:
        means: Judge -> runs x measures table of run means.
        higher: Measure -> whether larger is better.

    Returns:
        One row per measure, judge and run, ordered by measure, judge and rank (competition ranks, ties under the
        package's rule share the best rank), then run name.

    """
    parts = []
    for judge, table in means.items():
        for measure in table.columns:
            scores = table[measure]
            ranks = rank(scores.to_numpy(), higher_is_better=higher[measure], method="min")
            parts.append(pd.DataFrame({"measure": measure, "judge": judge, "run": scores.index.astype(str),
                                       "score": scores.to_numpy(np.float64), "rank": ranks}))
    frame = pd.concat(parts, ignore_index=True)
    order = {m: i for i, m in enumerate(next(iter(means.values())).columns)}
    judges = {j: i for i, j in enumerate(means)}
    frame = frame.assign(_m=frame["measure"].map(order), _j=frame["judge"].map(judges))
    frame = frame.sort_values(["_m", "_j", "rank", "run"], kind="stable").drop(columns=["_m", "_j"])
    return frame.reset_index(drop=True)


def ranking_agreement(means: Mapping[str, pd.DataFrame], higher: Mapping[str, bool],
                      pairs: Sequence[tuple[str, str]]) -> pd.DataFrame:
    """``measure, judge_a, judge_b, n_runs, tau, tau_ap, top10_overlap`` for every measure and pair of judges.

    Args:
        means: Judge -> runs x measures table of run means (the same runs and measures for every judge).
        higher: Measure -> whether larger is better.
        pairs: The (reference judge a, judge b) pairs.

    """
    rows = []
    measures = list(next(iter(means.values())).columns)
    for measure in measures:
        hib = higher[measure]
        for a, b in pairs:
            mean_a, mean_b = means[a][measure], means[b][measure]
            n = int((mean_a.notna() & mean_b.reindex(mean_a.index).notna()).sum())
            tau = kendall_tau(mean_a, mean_b, higher_is_better=hib) if n >= 2 else float("nan")
            tap = tau_ap(mean_b, mean_a, higher_is_better=hib) if n >= 2 else float("nan")
            rows.append({"measure": measure, "judge_a": a, "judge_b": b, "n_runs": n, "tau": tau, "tau_ap": tap,
                         f"top{TOP_K}_overlap": top_overlap(mean_a, mean_b, hib)})
    return pd.DataFrame(rows)
