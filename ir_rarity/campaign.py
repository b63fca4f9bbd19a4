r"""Campaign helpers: judging pool, unjudged documents, unique relevant documents, leave-one-team-out.

The last one tests how reusable a campaign's judgments and pool are.

Depth-k pooling (Glavaš, lecture notes "Evaluation in Information Retrieval", Würzburg, on relevance judgements and
pooling): the documents judged for a query are the union of every run's top k. A relevant document that only one
team put in its top k would not have been judged had that team not taken part; :func:`leave_one_team_out` measures
how much each team's scores depend on such documents (Zobel's leave-one-group-out test, extended to rarity, whose S
and S_d also change without the team).

Everything that touches every row is vectorized (numpy over the pool's arrays); loops run over teams or over a
team's runs only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ir_rarity.checks import check_depth
from ir_rarity.engine import UNJUDGED, is_relevant
from ir_rarity.errors import ParameterError, did_you_mean
from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.io.frames import as_qrels_frame
from ir_rarity.measures.parse import higher_is_better, parse_measures
from ir_rarity.pool.pool import Pool
from ir_rarity.stats.ties import better

__all__ = ["UniqueRelevant", "judging_pool", "leave_one_team_out", "unique_relevant", "unjudged_share"]


def _depth(depth: Any) -> int:
    checked = check_depth(depth)
    assert checked is not None
    return checked


def judging_pool(pool: Pool, depth: int) -> pd.DataFrame:
    """The depth-k judging pool: every (query, document) in some run's top ``depth``.

    Args:
        pool: The campaign.
        depth: k, the pool depth.

    Returns:
        A DataFrame ``query_id, doc_id, n_runs`` (how many runs have the document in their top k; runs, even for
        a pool built with teams), sorted by query id then docno.

    """
    keys, n_runs = pool.judged_keys(_depth(depth))
    queries, docs = pool.encoded.decode(keys)
    return pd.DataFrame({"query_id": queries, "doc_id": docs, "n_runs": n_runs.astype(np.int64)})


def unjudged_share(pool: Pool, qrels: Any, depth: int) -> pd.DataFrame:
    """Per run, the share of its top-``depth`` documents that the qrels do not judge.

    Only the queries of the qrels count (the others are not evaluated at all). A run judged by a pool it was
    not part of typically has a larger share; measures count its unjudged documents as non-relevant.

    Returns:
        One row per run (index ``run``): ``n_retrieved`` (documents in its top k over the qrels' queries),
        ``n_unjudged`` and ``unjudged_share`` (their ratio; 0 for a run that retrieved nothing there).

    """
    depth = _depth(depth)
    rows = pool.labelled_rows(qrels)
    top = rows.rank < depth
    run = rows.run[top]
    n_retrieved = np.bincount(run, minlength=len(pool))
    n_unjudged = np.bincount(run[rows.label[top] == UNJUDGED], minlength=len(pool))
    share = np.where(n_retrieved > 0, n_unjudged / np.maximum(n_retrieved, 1), 0.0)
    return pd.DataFrame({"n_retrieved": n_retrieved, "n_unjudged": n_unjudged, "unjudged_share": share},
                        index=pd.Index(pool.names, name="run"))


class UniqueRelevant(NamedTuple):
    """Result of :func:`unique_relevant`."""

    counts: pd.Series
    """Number of unique relevant documents of each run or team (every one listed, 0 included)."""
    documents: pd.DataFrame
    """The documents: ``run`` or ``team``, ``query_id``, ``doc_id``, ``relevance``."""


def unique_relevant(pool: Pool, qrels: Any, depth: int, by: str = "run", rel: int = 1) -> UniqueRelevant:
    """Relevant documents that exactly one run (or team) has in its top ``depth``, and no other.

    Args:
        pool: The campaign.
        qrels: The judgments (any shape :meth:`Pool.evaluate` accepts).
        depth: k: a run "retrieved" d when d is in its top k (the judging pool's depth).
        by: ``'run'`` (unique to a run: not even a run of the same team has it) or ``'team'`` (unique to a team,
            as the pool's teams define them; each run is its own team in a pool built without teams).
        rel: Minimum relevance label counted as relevant.

    Returns:
        :class:`UniqueRelevant` ``(counts, documents)``.

    """
    depth = _depth(depth)
    if by not in ("run", "team"):
        raise ParameterError(f"by must be 'run' or 'team', got {by!r}")
    rows = pool.labelled_rows(qrels)
    keep = (rows.rank < depth) & is_relevant(rows.label, rel)
    if by == "run":
        unit_names = pool.names
        unit = rows.run[keep].astype(np.int64)
    else:
        team_of = pool.teams
        codes, uniques = pd.factorize(pd.Series([team_of[n] for n in pool.names]))
        unit_names = [str(u) for u in uniques]
        unit = codes[rows.run[keep]].astype(np.int64)
    key, label = rows.key[keep], rows.label[keep]
    pairs = pd.DataFrame({"key": key, "unit": unit, "label": label}).drop_duplicates(["key", "unit"])
    n_units = pairs.groupby("key", sort=False)["unit"].transform("size").to_numpy()
    single = pairs[n_units == 1].sort_values(["unit", "key"])
    counts = pd.Series(np.bincount(single["unit"].to_numpy(), minlength=len(unit_names)),
                       index=pd.Index(unit_names, name=by), name="unique_relevant")
    queries, docs = pool.encoded.decode(single["key"].to_numpy())
    documents = pd.DataFrame({by: np.asarray(unit_names, dtype=object)[single["unit"].to_numpy()],
                              "query_id": queries, "doc_id": docs,
                              "relevance": single["label"].to_numpy(np.int64)})
    return UniqueRelevant(counts, documents)


def _rank_among(value: np.ndarray, competitors: np.ndarray, higher: bool) -> np.ndarray:
    """1 + number of ``competitors`` better than each ``value``, a tie (:mod:`ir_rarity.stats.ties`) not better."""
    return 1 + better(competitors[None, :], value[:, None], higher).sum(axis=1)


def leave_one_team_out(pool: Pool, qrels: Any, measures: Any, depth: int, teams: Iterable[str] | None = None,
                       rel: int = 1) -> pd.DataFrame:
    r"""Scores and ranks of each team's runs with and without the team in the campaign.

    For a team T, "without T" is the campaign as it would have been had T not taken part, following the
    leave-one-out test of pool reusability (depth-k pooling; Zobel, SIGIR 1998, leave-one-group-out):

    * **qrels**: the relevant documents unique to T -- in the top ``depth`` of one of T's runs and of no run of
      any other team (:func:`unique_relevant` with ``by='team'``) -- lose their relevance: a depth-k pool
      without T would not have judged them, so they count as non-relevant for every run. Their label is set to
      0 rather than the judgment dropped, so that every query keeps its place in the means (a query whose only
      judgments came from T would otherwise vanish); for every measure that treats unjudged documents as
      non-relevant (P, AP, nDCG, the rarity measures, ``U_novel``...) the two are the same;
    * **pool**: T's runs leave the pool, so S and S_d come from the other teams' runs only
      (``pool.subset``), and each of T's runs is scored against that pool on its own, as a new system joining
      it (S + 1, its own documents counted in S_d: the evaluation rule of :mod:`ir_rarity.engine.rule`).

    The other teams' runs are scored in the same setting (reduced qrels, pool without T). A run's ``rank`` is
    1 + the number of *other teams'* runs with a strictly better score (in the measure's direction) in the full
    campaign; ``rank_without`` is the same count in the setting without T. Both compare the run to the same
    competitors, so ``rank_change = rank_without - rank`` is only the effect of T's absence (positive: the run
    falls). A pool built without teams makes every run its own team: leave-one-run-out.

    A run of T whose ranked lists equal those of another team's run is, as everywhere in ir_rarity, recognised
    as that run (membership by content) and scored as a member of the reduced pool.

    Args:
        pool: The campaign.
        qrels: Its judgments.
        measures: Measures (objects or ir_measures strings), rarity or standard.
        depth: k, the judging pool's depth.
        teams: Teams to leave out, one at a time (default: every team).
        rel: Minimum relevance label of the documents counted as relevant when finding unique ones.

    Returns:
        A long DataFrame with one row per (team, run, measure): ``team, run, measure, n_unique`` (T's unique
        relevant documents, made non-relevant), ``score, rank, score_without, rank_without, rank_change``.

    Raises:
        ParameterError: a bad depth, an unknown team, or a campaign of a single team.

    """
    depth = _depth(depth)
    measure_list = parse_measures(measures)
    names = [str(m) for m in measure_list]
    qrels_frame = as_qrels_frame(qrels)
    team_of = pool.teams
    all_teams = list(dict.fromkeys(team_of[n] for n in pool.names))
    if len(all_teams) < 2:
        raise ParameterError("leave_one_team_out needs at least two teams")
    chosen = all_teams if teams is None else [str(t) for t in teams]
    unknown = [t for t in chosen if t not in all_teams]
    if unknown:
        listed = f"; the pool's teams are e.g. {all_teams[:5]}"
        raise ParameterError(f"unknown team {unknown[0]!r}" + did_you_mean(unknown[0], all_teams, listed))
    full = evaluate_campaign(pool, qrels_frame, measure_list).table()
    unique = unique_relevant(pool, qrels_frame, depth, by="team", rel=rel).documents
    qrels_pairs = pd.MultiIndex.from_frame(qrels_frame[["query_id", "doc_id"]].astype(str))
    parts = []
    for team in chosen:
        own = [n for n in pool.names if team_of[n] == team]
        others = [n for n in pool.names if team_of[n] != team]
        removed = unique[unique["team"] == team]
        reduced = qrels_frame.copy()
        reduced.loc[qrels_pairs.isin(pd.MultiIndex.from_frame(removed[["query_id", "doc_id"]])), "relevance"] = 0
        sub = pool.subset(others)
        other_scores = evaluate_campaign(sub, reduced, measure_list).table()
        without = evaluate_campaign(sub, reduced, measure_list, {n: pool.run(n) for n in own}).table()
        for m, name in zip(measure_list, names, strict=True):
            higher = higher_is_better(m)
            score = full.loc[own, name].to_numpy(np.float64)
            score_without = without.loc[own, name].to_numpy(np.float64)
            rank = _rank_among(score, full.loc[others, name].to_numpy(np.float64), higher)
            rank_without = _rank_among(score_without, other_scores[name].to_numpy(np.float64), higher)
            parts.append(pd.DataFrame({
                "team": team, "run": own, "measure": name, "n_unique": len(removed),
                "score": score, "rank": rank, "score_without": score_without, "rank_without": rank_without,
                "rank_change": rank_without - rank,
            }))
    return pd.concat(parts, ignore_index=True)
