r"""Complementarity of a campaign's runs: who ranks alike, what the campaign's fusion is worth, what each team adds.

:func:`complementarity` answers the rarity paper's question (Türkmen, Lease & Kutlu, ECIR 2023, section 5.1:
rare relevant documents are what fusion and pooling gain from a system that finds what the others miss): is a
team's rarity score correlated with its contribution to the campaign's fused ranking and to the pool's relevant
documents? It gathers, for one campaign and its qrels:

* run and team similarity (:mod:`~ir_rarity.complementarity.similarity`) and a clustering of the runs;
* the fused runs of the whole campaign (RRF, CombSUM, CombMNZ; :mod:`~ir_rarity.complementarity.fusion`)
  evaluated with every measure by :func:`ir_rarity.evaluate` against the campaign (a fused run joins it as one
  more system, :math:`S + 1`);
* each team's contribution (with minus without its runs) and sampled Shapley value
  (:mod:`~ir_rarity.complementarity.contribution`);
* per team, its rarity score (its best run's mean, or the mean of its runs' means), the relevant documents only
  it has in its top ``pool_depth`` (:func:`ir_rarity.unique_relevant`, ``by="team"``), and Spearman's rho and
  Kendall's tau-b (scipy, with two-sided p-values) between the rarity score and each of contribution, Shapley
  value and unique relevant documents.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from ir_rarity.campaign import unique_relevant
from ir_rarity.checks import check_depth
from ir_rarity.complementarity.contribution import (
    CoalitionGame,
    ShapleyValues,
    leave_one_team_out_fusion,
    shapley,
)
from ir_rarity.complementarity.fusion import fusion_parts
from ir_rarity.complementarity.names import DEFAULT_MEASURES, DEFAULT_RARITY, METHODS, Method
from ir_rarity.complementarity.ranked import ranked_campaign
from ir_rarity.complementarity.similarity import Basis, Similarity, cluster_runs, run_similarity, team_similarity
from ir_rarity.errors import ParameterError
from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.io.frames import as_qrels_frame
from ir_rarity.measures.parse import higher_is_better, measure_label, parse_measures
from ir_rarity.pool import Pool

__all__ = ["Complementarity", "complementarity", "correlations"]

TeamScore = Literal["best", "mean"]


@dataclass
class Complementarity:
    """Everything :func:`complementarity` measured, and what it was computed against.

    Attributes:
        similarity: Pairwise Jaccard and RBO of the runs.
        team_pairs: Mean similarity of every pair of teams (:func:`team_similarity`).
        clusters: ``run, team, cluster``.
        fusion: ``method, measure, value, best_run, best_run_value``: the whole campaign fused, each measure,
            beside the best single run.
        contribution: ``method, team, measure, with, without, contribution`` (with minus without).
        shapley: Shapley values of the teams for ``shapley_method`` and ``shapley_measure``.
        teams: One row per team: ``team, n_runs``, its rarity score per rarity measure (and its score of the
            Shapley measure, when that is no rarity measure: effectiveness alone, for comparison),
            ``contribution``, ``shapley``, ``shapley_se``, ``unique_relevant``.
        correlations: ``rarity_measure, against, n_teams, spearman, spearman_p, kendall, kendall_p``; the last
            rows, for the Shapley measure itself, say how much of a correlation effectiveness alone explains.
        settings: The parameters, and the campaign (S, what it counts, runs, queries) the values rest on.

    """

    similarity: Similarity
    team_pairs: pd.DataFrame
    clusters: pd.DataFrame
    fusion: pd.DataFrame
    contribution: pd.DataFrame
    shapley: ShapleyValues
    teams: pd.DataFrame
    correlations: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """One paragraph: what the values were computed against."""
        s = self.settings
        held = f" (rankings as the campaign holds them, to depth {s['held_depth']} at most)"
        return (f"Campaign of {s['n_runs']} runs{held}, S = {s['S']} ({s['systems']}), {s['n_queries']} queries of "
                f"the qrels. Similarity: top {s['k']} per query, RBO_ext p = {s['p']}; clusters: average linkage on "
                f"1 - {s['basis']}, cut at {s['cut']}. Fusion of every run (RRF k = {s['rrf_k']}, CombSUM and "
                f"CombMNZ on per-query min-max scores), fused runs cut at {s['depth']} documents and scored by "
                f"ir_rarity.evaluate against the campaign (rarity: S_d of the campaign's runs, a fused run joining "
                f"as S + 1). Contribution = score with the team's runs - score without them. Shapley values: "
                f"{s['shapley_method']}, {s['shapley_measure']}, {s['samples']} sampled orders (seed {s['seed']}). "
                f"Team rarity score: {'its best run' if s['team_score'] == 'best' else 'the mean of its runs'}; "
                f"unique relevant documents at pool depth {s['pool_depth']} (relevance >= {s['rel']}).")


def correlations(teams: pd.DataFrame, rarity: Sequence[str],
                 against: Sequence[str] = ("contribution", "shapley", "unique_relevant")) -> pd.DataFrame:
    """Spearman's rho and Kendall's tau-b (scipy; two-sided p-values) of each rarity score with each column.

    Teams with a missing value in either column are left out of that pair.
    """
    from scipy.stats import kendalltau, spearmanr

    rows = []
    for r in rarity:
        for a in against:
            x, y = teams[r].to_numpy(np.float64), teams[a].to_numpy(np.float64)
            ok = ~(np.isnan(x) | np.isnan(y))
            n = int(ok.sum())
            if n >= 3 and np.ptp(x[ok]) > 0 and np.ptp(y[ok]) > 0:
                rho = spearmanr(x[ok], y[ok])
                tau = kendalltau(x[ok], y[ok])  # tau-b
                values = (float(rho.statistic), float(rho.pvalue), float(tau.statistic), float(tau.pvalue))
            else:
                values = (np.nan, np.nan, np.nan, np.nan)
            rows.append((r, a, n, *values))
    return pd.DataFrame(rows, columns=["rarity_measure", "against", "n_teams", "spearman", "spearman_p", "kendall",
                                       "kendall_p"])


def _check(*, k: int, p: float, samples: int, depth: int, pool_depth: int, rrf_k: int, cut: float,
           basis: str) -> None:
    """Every parameter checked before anything is read (one line naming the parameter and its value).

    Raises:
        ParameterError: a parameter out of its range.

    """
    for name, value in (("k", k), ("depth", depth), ("pool_depth", pool_depth)):
        check_depth(value, name)
    if not 0.0 < p < 1.0:
        raise ParameterError(f"RBO's persistence p must lie in (0, 1), got {p}")
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 2:
        raise ParameterError(f"samples must be an integer >= 2 (a standard error needs two), got {samples!r}")
    if rrf_k < 0:
        raise ParameterError(f"RRF's k must be >= 0, got {rrf_k}")
    if not cut >= 0.0:
        raise ParameterError(f"the clusters' cut must be a distance >= 0, got {cut}")
    if basis not in ("rbo", "jaccard"):
        raise ParameterError(f"cluster on 'rbo' or 'jaccard', got {basis!r}")


def _labels(measures: Any) -> list[str]:
    items = [measures] if isinstance(measures, str) else list(measures)
    labels = [measure_label(m) if isinstance(m, str) else str(m) for m in items]
    if not labels:
        raise ParameterError("give at least one measure")
    return list(dict.fromkeys(labels))


def complementarity(
    qrels: Any,
    runs: Any,
    measures: Any = DEFAULT_MEASURES,
    *,
    k: int = 100,
    p: float = 0.9,
    teams: Any = None,
    samples: int = 100,
    seed: int = 0,
    rarity: Any = DEFAULT_RARITY,
    team_score: TeamScore = "best",
    shapley_method: Method = "rrf",
    shapley_measure: str | None = None,
    pool_depth: int = 10,
    depth: int = 100,
    rrf_k: int = 60,
    basis: Basis = "rbo",
    cut: float = 0.5,
    rel: int = 1,
    split_by_tag: bool | None = None,
    duplicates: Any = "error",
) -> Complementarity:
    r"""Similarity, fusion and each team's contribution in one campaign, and their correlation with rarity.

    Args:
        qrels: The campaign's judgments (a file, a DataFrame, an ir_datasets id).
        runs: The campaign: a :class:`~ir_rarity.Pool`, or runs in any shape :meth:`Pool.from_runs` reads.
        measures: Measures the fused runs are evaluated with (the first is the Shapley game's unless
            ``shapley_measure`` names another).
        k: Similarity depth: Jaccard of top-k sets, RBO_ext of the lists cut at k.
        p: RBO's persistence.
        teams: Run -> team (a mapping or a leaderboard spec ``'CSV:run_column:team_column'``); without teams
            every run is its own team. Ignored when ``runs`` is a Pool (its teams are used).
        samples: Orders drawn for the Shapley values.
        seed: Seed of those draws.
        rarity: Rarity measures a team's rarity score is taken from.
        team_score: ``"best"``: a team's score is its best run's mean; ``"mean"``: the mean of its runs' means.
        shapley_method: Fusion method of the Shapley game (``"rrf"``, ``"combsum"``, ``"combmnz"``).
        shapley_measure: Measure of the Shapley game and of the ``contribution`` column of ``teams`` (default:
            the first of ``measures``).
        pool_depth: Depth at which a team's unique relevant documents are counted (the judging pool's depth).
        depth: Documents per query of each fused run.
        rrf_k: RRF's constant (60; Cormack, Clarke & Buettcher, SIGIR 2009).
        basis: Clustering on ``1 - RBO`` (``"rbo"``) or ``1 - Jaccard`` (``"jaccard"``).
        cut: Distance at which the dendrogram is cut into clusters.
        rel: Minimum label counted relevant for unique relevant documents.
        split_by_tag: Read each run file as one run per tag.
        duplicates: ``"error"`` or ``"first"`` (as :meth:`Pool.from_runs`).

    Returns:
        :class:`Complementarity`.

    Raises:
        ParameterError: bad parameters, a campaign of one team, or a Shapley measure not among ``measures``.

    """
    labels = _labels(measures)
    rarity_labels = _labels(rarity)
    game_measure = labels[0] if shapley_measure is None else measure_label(shapley_measure)
    if game_measure not in labels:
        raise ParameterError(f"the Shapley measure {game_measure} is not among the measures ({', '.join(labels)})")
    if shapley_method not in METHODS:
        raise ParameterError(f"fusion method must be one of {', '.join(METHODS)}, got {shapley_method!r}")
    if team_score not in ("best", "mean"):
        raise ParameterError(f"team_score must be 'best' or 'mean', got {team_score!r}")
    _check(k=k, p=p, samples=samples, depth=depth, pool_depth=pool_depth, rrf_k=rrf_k, cut=cut, basis=basis)
    parse_measures(labels + rarity_labels)  # an unknown measure is refused before the runs are read
    qrels_frame = as_qrels_frame(qrels)
    pool = runs if isinstance(runs, Pool) else Pool.from_runs(runs, teams=teams, split_by_tag=split_by_tag,
                                                             duplicates=duplicates)
    query_ids = sorted(set(qrels_frame["query_id"].astype(str)))
    ranked = ranked_campaign(pool, query_ids)
    n_teams = len(ranked.team_names)
    if n_teams < 2:
        raise ParameterError("complementarity needs at least two teams (or runs, without teams)")

    similarity = run_similarity(ranked, k=k, p=p)
    clusters = cluster_runs(similarity, basis=basis, cut=cut)

    member_scores = evaluate_campaign(pool, qrels_frame, list(dict.fromkeys(labels + rarity_labels))).table()
    parts = fusion_parts(ranked, k=rrf_k)
    games = {method: CoalitionGame(parts, pool, qrels_frame, labels, method, depth) for method in METHODS}
    full = np.ones((1, n_teams), dtype=bool)
    fusion_rows, contribution_parts = [], []
    for method, game in games.items():
        values = game.values(full)[0]
        for m, label in enumerate(labels):
            column = member_scores[label].to_numpy(np.float64)
            best = int(np.argmax(column) if higher_is_better(label) else np.argmin(column))
            fusion_rows.append((method, label, float(values[m]), str(member_scores.index[best]),
                                float(column[best])))
        loo = leave_one_team_out_fusion(game)
        loo.insert(0, "method", method)
        contribution_parts.append(loo)
    fusion = pd.DataFrame(fusion_rows, columns=["method", "measure", "value", "best_run", "best_run_value"])
    contribution = pd.concat(contribution_parts, ignore_index=True)

    game = games[shapley_method]
    m_index = labels.index(game_measure)
    values = shapley(lambda c: game.value(c, m_index), n_teams, samples=samples, seed=seed)

    team_names = list(ranked.team_names)
    run_team = pd.Series(ranked.run_team, index=pd.Index(ranked.run_names, name="run"))
    table = pd.DataFrame({"team": team_names,
                          "n_runs": run_team.value_counts().reindex(team_names).to_numpy(np.int64)})
    reference = [] if game_measure in rarity_labels else [game_measure]  # effectiveness alone, for comparison
    for label in rarity_labels + reference:
        grouped = member_scores[label].groupby(run_team)
        top = grouped.max() if higher_is_better(label) else grouped.min()
        score = grouped.mean() if team_score == "mean" else top
        table[label] = score.reindex(team_names).to_numpy(np.float64)
    chosen = contribution[(contribution["method"] == shapley_method) & (contribution["measure"] == game_measure)]
    table["contribution"] = chosen.set_index("team")["contribution"].reindex(team_names).to_numpy(np.float64)
    table["shapley"] = values.value
    table["shapley_se"] = values.se
    unique = unique_relevant(pool, qrels_frame, pool_depth, by="team", rel=rel).counts
    table["unique_relevant"] = unique.reindex(team_names).fillna(0).to_numpy(np.int64)
    table = table.sort_values("shapley", ascending=False, kind="stable").reset_index(drop=True)

    info = pool.info()
    settings = {"n_runs": len(pool), "S": info.num_systems, "systems": info.systems, "n_queries": len(query_ids),
                "k": k, "p": p, "basis": basis, "cut": cut, "rrf_k": rrf_k, "depth": depth,
                "shapley_method": shapley_method, "shapley_measure": game_measure, "samples": samples,
                "seed": seed, "team_score": team_score, "pool_depth": pool_depth, "rel": rel,
                "measures": labels, "rarity": rarity_labels, "held_depth": int(ranked.rank.max()),
                "fused_runs_evaluated": sum(g.evaluated for g in games.values())}
    return Complementarity(similarity=similarity, team_pairs=team_similarity(similarity), clusters=clusters,
                           fusion=fusion, contribution=contribution, shapley=values, teams=table,
                           correlations=correlations(table, rarity_labels + reference), settings=settings)
