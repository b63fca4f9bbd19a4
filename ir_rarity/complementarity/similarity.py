r"""How alike a campaign's runs and teams rank: Jaccard of top-k sets, rank-biased overlap, and a clustering.

For two rankings S and T of one query, let :math:`X_d = |S_{:d} \cap T_{:d}|` be the overlap of their top d.

* **Jaccard at k**: :math:`|S_{:k} \cap T_{:k}| / |S_{:k} \cup T_{:k}| = X_k / (|S_{:k}| + |T_{:k}| - X_k)`.
* **Rank-biased overlap**, extrapolated (Webber, Moffat & Zobel, "A similarity measure for indefinite rankings",
  ACM TOIS 28(4), 2010, eq. 32): with s and l the lengths of the shorter and longer list (both cut at k),

  .. math:: RBO_{ext} = \frac{1-p}{p}\Bigl(\sum_{d=1}^{l}\frac{X_d}{d}p^d
            + \sum_{d=s+1}^{l}\frac{X_s (d-s)}{s\,d}p^d\Bigr) + \Bigl(\frac{X_l - X_s}{l} + \frac{X_s}{s}\Bigr)p^l,

  which for lists of equal length k is :math:`\frac{1-p}{p}\sum_{d=1}^{k}\frac{X_d}{d}p^d + \frac{X_k}{k}p^k`
  (their eq. 30). p is the persistence: the top d documents carry weight :math:`1 - p^{d}` of the evaluation.

Per query, a pair of runs where one retrieved nothing has similarity 0; where neither did, the query is left out
of the pair's mean. A pair's value is the mean over the remaining queries. Teams: the mean over pairs of their
runs (within a team, over its distinct pairs). The overlaps of every pair at every depth come from one gather per
query (:math:`X_d` as a cumulative sum of the documents entering both top-d sets at depth d), not from pair loops.

Runs are clustered by average linkage (UPGMA) on :math:`1 - RBO` (or :math:`1 - \text{Jaccard}`),
``scipy.cluster.hierarchy``, cut at a distance.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from ir_rarity.complementarity.ranked import RankedCampaign
from ir_rarity.errors import ParameterError
from ir_rarity.plotting import new_figure, written

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Similarity", "cluster_runs", "overlaps", "plot_dendrogram", "rbo_ext", "run_similarity",
           "team_similarity"]

Basis = Literal["rbo", "jaccard"]


def overlaps(lists: np.ndarray, rows: slice | None = None) -> np.ndarray:
    """:math:`X_d` of pairs of ranked lists of one query, at every depth d = 1..k.

    Args:
        lists: ``(n, k)`` integer document codes, each row a ranking (best first), padded with -1 after its end.
        rows: The first lists of the pairs (default all): a block of them bounds memory to ``block x n x k``.

    Returns:
        ``(len(rows), n, k)`` int32: entry ``[i, j, d-1]`` is the number of documents in both top-d sets of the
        i-th list of ``rows`` and list j.

    """
    n, k = lists.shape
    block = slice(0, n) if rows is None else rows
    present = lists >= 0
    codes, inverse = np.unique(lists[present], return_inverse=True)
    ranks = np.full((n, len(codes) + 1), k + 1, dtype=np.int32)  # last column: the padding, never found
    doc = np.full(lists.shape, len(codes), dtype=np.int64)
    doc[present] = inverse
    run = np.broadcast_to(np.arange(n)[:, None], lists.shape)
    depth = np.broadcast_to(np.arange(1, k + 1, dtype=np.int32)[None, :], lists.shape)
    ranks[run[present], doc[present]] = depth[present]
    d = np.arange(1, k + 1, dtype=np.int32)
    # [i, j, d-1]: rank in run j of run i's d-th document (i in the block); then rank in run i of run j's d-th
    mine_in_theirs = ranks[:, doc[block]].transpose(1, 0, 2)
    theirs_in_mine = ranks[block][:, doc]
    entering = (mine_in_theirs <= d).astype(np.int32)  # i's d-th document is in j's top d
    entering += (theirs_in_mine < d)  # j's d-th document was in i's top d-1
    return np.cumsum(entering, axis=2, dtype=np.int32)


def _tail_table(k: int, p: float) -> np.ndarray:
    """``T[s, l] = sum_{d=s+1}^{l} (d - s) / d * p^d`` for 0 <= s <= l <= k (the uneven-list term of eq. 32)."""
    d = np.arange(1, k + 1, dtype=np.float64)
    table = np.zeros((k + 1, k + 1))
    for s in range(1, k + 1):  # k rows of one cumulative sum each: the table, not the pairs
        terms = np.where(d > s, (d - s) / d * p ** d, 0.0)
        table[s, 1:] = np.cumsum(terms)
    return table


def rbo_ext(x: np.ndarray, len_a: np.ndarray, len_b: np.ndarray, p: float) -> np.ndarray:
    """Extrapolated RBO (Webber, Moffat & Zobel, TOIS 2010, eq. 32) from overlaps :math:`X_d`.

    Args:
        x: ``(..., k)`` overlaps at depths 1..k.
        len_a: ``(...)`` length of the first list (<= k).
        len_b: ``(...)`` length of the second list (<= k).
        p: Persistence, in (0, 1).

    Returns:
        ``(...)`` RBO_ext; 0 where one list is empty, NaN where both are.

    """
    if not 0.0 < p < 1.0:
        raise ParameterError(f"RBO's persistence p must lie in (0, 1), got {p}")
    k = x.shape[-1]
    short = np.minimum(len_a, len_b).astype(np.int64)
    long = np.maximum(len_a, len_b).astype(np.int64)
    d = np.arange(1, k + 1, dtype=np.float64)
    head = np.where(d <= long[..., None], x / d * p ** d, 0.0).sum(axis=-1)
    safe_s, safe_l = np.maximum(short, 1), np.maximum(long, 1)
    x_s = np.take_along_axis(x, (safe_s - 1)[..., None], axis=-1)[..., 0].astype(np.float64)
    x_l = np.take_along_axis(x, (safe_l - 1)[..., None], axis=-1)[..., 0].astype(np.float64)
    tail = x_s / safe_s * _tail_table(k, p)[short, long]
    value = (1 - p) / p * (head + tail) + ((x_l - x_s) / safe_l + x_s / safe_s) * p ** long.astype(np.float64)
    value = np.where(short == 0, 0.0, value)
    return np.where(long == 0, np.nan, value)


class Similarity:
    """Pairwise similarity of a campaign's runs: Jaccard of top-k sets and RBO_ext, means over queries.

    Attributes:
        run_names: The runs.
        run_team: The team of each run.
        jaccard: ``(n, n)`` mean Jaccard at k (1 on the diagonal).
        rbo: ``(n, n)`` mean RBO_ext at persistence p.
        n_queries: ``(n, n)`` number of queries in each pair's mean.
        k: The depth the lists were cut at.
        p: RBO's persistence.

    """

    def __init__(self, run_names: tuple[str, ...], run_team: tuple[str, ...], jaccard: np.ndarray, rbo: np.ndarray,
                 n_queries: np.ndarray, k: int, p: float) -> None:
        self.run_names, self.run_team = run_names, run_team
        self.jaccard, self.rbo, self.n_queries, self.k, self.p = jaccard, rbo, n_queries, k, p

    def pairs(self) -> pd.DataFrame:
        """One row per unordered pair of runs: ``run_a, run_b, team_a, team_b, jaccard, rbo, n_queries``."""
        i, j = np.triu_indices(len(self.run_names), k=1)
        names, teams = np.asarray(self.run_names, dtype=object), np.asarray(self.run_team, dtype=object)
        frame = pd.DataFrame({"run_a": names[i], "run_b": names[j], "team_a": teams[i], "team_b": teams[j],
                              "jaccard": self.jaccard[i, j], "rbo": self.rbo[i, j],
                              "n_queries": self.n_queries[i, j]})
        frame.attrs["computed_against"] = (f"top {self.k} of each run per query; Jaccard at {self.k}, "
                                           f"RBO_ext with p={self.p}; means over queries")
        return frame


def run_similarity(ranked: RankedCampaign, k: int = 100, p: float = 0.9, block_cells: int = 20_000_000
                   ) -> Similarity:
    """Jaccard at ``k`` and RBO_ext (persistence ``p``, lists cut at ``k``) of every pair of runs.

    Args:
        ranked: The campaign's ranked lists.
        k: Depth the lists are cut at (Jaccard of top-k sets; RBO's evaluation depth).
        p: RBO's persistence (0.9: the top 10 carry about 86% of the weight; Webber et al.).
        block_cells: Pairs x depths computed at once (memory: a few times this many int32 and float64 cells).

    Raises:
        ParameterError: ``k`` < 1 or ``p`` outside (0, 1).

    """
    if k < 1:
        raise ParameterError(f"k must be >= 1, got {k}")
    if not 0.0 < p < 1.0:
        raise ParameterError(f"RBO's persistence p must lie in (0, 1), got {p}")
    n = len(ranked.run_names)
    sum_j = np.zeros((n, n))
    sum_r = np.zeros((n, n))
    count = np.zeros((n, n), dtype=np.int64)
    top = ranked.rank <= k
    size = max(1, block_cells // max(n * k, 1))
    for q in range(len(ranked.query_ids)):  # one gather per query
        rows = top & (ranked.query == q)
        lists = np.full((n, k), -1, dtype=np.int64)
        lists[ranked.run[rows], ranked.rank[rows] - 1] = ranked.key[rows]
        length = (lists >= 0).sum(axis=1)
        for start in range(0, n, size):  # blocks of first lists: memory about block_cells int32 cells
            block = slice(start, min(start + size, n))
            x = overlaps(lists, block)
            la, lb = length[block, None], length[None, :]
            shape = x.shape[:2]
            x_k = x[:, :, -1].astype(np.float64)
            union = la + lb - x_k
            jac = np.where(union > 0, x_k / np.maximum(union, 1), np.nan)
            rbo = rbo_ext(x, np.broadcast_to(la, shape), np.broadcast_to(lb, shape), p)
            seen = ~np.isnan(rbo)
            sum_j[block] += np.where(seen, jac, 0.0)
            sum_r[block] += np.where(seen, rbo, 0.0)
            count[block] += seen
    with np.errstate(invalid="ignore", divide="ignore"):
        jaccard = np.where(count > 0, sum_j / count, np.nan)
        rbo_mean = np.where(count > 0, sum_r / count, np.nan)
    return Similarity(ranked.run_names, ranked.run_team, jaccard, rbo_mean, count, k, p)


def team_similarity(sim: Similarity) -> pd.DataFrame:
    """Mean Jaccard and RBO over the pairs of runs of two teams (within a team: its distinct pairs).

    Returns:
        One row per unordered pair of teams (a team with itself included when it has two runs or more):
        ``team_a, team_b, jaccard, rbo, n_pairs``.

    """
    codes, teams = pd.factorize(pd.Series(sim.run_team))
    n_teams = len(teams)
    onehot = np.zeros((len(codes), n_teams))
    onehot[np.arange(len(codes)), codes] = 1.0
    off = ~np.eye(len(codes), dtype=bool)  # a run is not a pair with itself
    out = {}
    for name, matrix in (("jaccard", sim.jaccard), ("rbo", sim.rbo)):
        valid = off & ~np.isnan(matrix)
        out[name] = onehot.T @ np.where(valid, matrix, 0.0) @ onehot
        out["n_pairs"] = onehot.T @ valid.astype(np.float64) @ onehot
    a, b = np.triu_indices(n_teams)
    pairs = out["n_pairs"][a, b]
    keep = pairs > 0
    a, b = a[keep], b[keep]
    names = np.asarray([str(t) for t in teams], dtype=object)
    n_pairs = out["n_pairs"][a, b]
    return pd.DataFrame({"team_a": names[a], "team_b": names[b], "jaccard": out["jaccard"][a, b] / n_pairs,
                         "rbo": out["rbo"][a, b] / n_pairs,
                         "n_pairs": (n_pairs / np.where(a == b, 2, 1)).astype(np.int64)})


def _linkage(sim: Similarity, basis: Basis) -> np.ndarray:
    from scipy.cluster.hierarchy import linkage
    from scipy.spatial.distance import squareform

    if basis not in ("rbo", "jaccard"):
        raise ParameterError(f"cluster on 'rbo' or 'jaccard', got {basis!r}")
    if len(sim.run_names) < 2:
        raise ParameterError("clustering needs at least two runs")
    matrix = sim.rbo if basis == "rbo" else sim.jaccard
    distance = 1.0 - np.where(np.isnan(matrix), 0.0, matrix)
    distance = (distance + distance.T) / 2
    np.fill_diagonal(distance, 0.0)
    return np.asarray(linkage(squareform(np.clip(distance, 0.0, 1.0), checks=False), method="average"))


def cluster_runs(sim: Similarity, basis: Basis = "rbo", cut: float = 0.5) -> pd.DataFrame:
    """Average-linkage clusters of the runs on ``1 - basis``, cut at distance ``cut``.

    Returns:
        ``run, team, cluster`` (clusters numbered from 1 by scipy's ``fcluster``); ``attrs['computed_against']``
        names the basis and the cut.

    """
    from scipy.cluster.hierarchy import fcluster

    labels = fcluster(_linkage(sim, basis), t=cut, criterion="distance")
    frame = pd.DataFrame({"run": list(sim.run_names), "team": list(sim.run_team),
                          "cluster": np.asarray(labels, dtype=np.int64)})
    frame.attrs["computed_against"] = (f"average linkage on 1 - {basis} (top {sim.k}"
                                       + (f", p={sim.p}" if basis == "rbo" else "") + f"), cut at distance {cut}")
    return frame


def plot_dendrogram(sim: Similarity, basis: Basis = "rbo", cut: float | None = 0.5,
                    path: str | os.PathLike[str] | None = None) -> Figure:
    """The runs' average-linkage dendrogram on ``1 - basis`` (matplotlib's object API; the backend is untouched).

    scipy computes the tree's coordinates (``dendrogram(no_plot=True)``); the lines are drawn here, so that pyplot
    is never imported. Written atomically when given a path.
    """
    from scipy.cluster.hierarchy import dendrogram

    tree = dendrogram(_linkage(sim, basis), no_plot=True, labels=list(sim.run_names))
    n = len(sim.run_names)
    fig = new_figure(8, max(3.0, 0.14 * n + 1.0))
    ax = fig.subplots()
    for xs, ys in zip(tree["dcoord"], tree["icoord"], strict=True):
        ax.plot(xs, ys, color="0.25", linewidth=0.8)
    ax.set_yticks(5 + 10 * np.arange(n))
    ax.set_yticklabels(tree["ivl"], fontsize=6 if n > 40 else 8)
    ax.set_ylim(0, 10 * n)
    if cut is not None:
        ax.axvline(cut, color="tab:red", linestyle="--", linewidth=0.8, label=f"cut at {cut}")
        ax.legend(fontsize=8, loc="lower right")
    ax.set_xlabel(f"1 - {'RBO' if basis == 'rbo' else 'Jaccard'} (average linkage)")
    detail = f"top {sim.k}" + (f", p={sim.p}" if basis == "rbo" else "")
    ax.set_title(f"Runs clustered by {basis.upper() if basis == 'rbo' else 'Jaccard'} ({detail})")
    return written(fig, path)
