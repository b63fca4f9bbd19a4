r"""Does the interval cover what judging would have found? A leave-one-team-out re-judging study.

For each team T of a campaign judged by depth-k pooling, the judgments of the documents that only T's runs brought
into the pool (judged, in the top ``depth`` of one of T's runs and of no other team's run) are removed: those
documents become unjudged, as they would be had T not taken part in judging (Zobel, SIGIR 1998, the
leave-one-group-out test; Fröbe, Gienapp, Potthast & Hagen, ECIR 2023, evaluate bootstrapped judgments the same
way). T's runs are then scored with the reduced judgments (the campaign and its S_d unchanged: only the judgments
differ) and given each interval at nominal ``level``; the *truth* is T's score with the full judgments. A case is a
(run, measure) whose score the removed judgments change; the study reports, per measure, the share of cases whose
truth lies inside the interval (its coverage) and the median width, for

* ``topics``: the percentile bootstrap over queries of the reduced scores (:mod:`ir_rarity.stats.intervals`);
* ``unjudged``: the interval of what the judgments left open (:mod:`ir_rarity.engine.judgment_draws`), with the
  model fitted on the reduced judgments only;
* ``all``: judgments and queries drawn together.

A query whose judgments all came from T keeps them (labelled 0), so every score averages the same queries.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.checks import check_depth
from ir_rarity.engine import Judgments, drawn_interval, drawn_values
from ir_rarity.errors import ParameterError, did_you_mean
from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.measures.parse import parse_measures
from ir_rarity.pool.pool import Pool
from ir_rarity.progress import progress as progress_bar
from ir_rarity.stats import bootstrap_interval, natural_order

__all__ = ["COVERS", "CoverageStudy", "coverage_study", "team_unique_pairs"]

COVERS = ("topics", "unjudged", "all")
"""The intervals the study checks, in the order its table shows them."""


def team_unique_pairs(pool: Pool, qrels: Any, depth: int) -> pd.DataFrame:
    """Judged pairs in the top ``depth`` of exactly one team's runs: ``team, query_id, doc_id``.

    The documents that team alone brought into a depth-k judging pool.
    """
    depth_ = check_depth(depth)
    assert depth_ is not None
    rows = pool.labelled_rows(qrels)
    team_of = pool.teams
    codes, uniques = pd.factorize(pd.Series([team_of[n] for n in pool.names]))
    top = rows.rank < depth_
    pairs = pd.DataFrame({"key": rows.key[top], "team": codes[rows.run[top]],
                          "judged": rows.label[top] > np.iinfo(np.int64).min}).drop_duplicates(["key", "team"])
    n_teams = pairs.groupby("key", sort=False)["team"].transform("size").to_numpy()
    single = pairs[(n_teams == 1) & pairs["judged"].to_numpy()]
    queries, docs = pool.encoded.decode(single["key"].to_numpy())
    return pd.DataFrame({"team": np.asarray(uniques, dtype=object)[single["team"].to_numpy()],
                         "query_id": queries, "doc_id": docs})


@dataclass
class CoverageStudy:
    """The study's cases and its table.

    Attributes:
        cases: One row per (team, run, measure): ``team, run, measure, removed`` (judgments removed for the team),
            ``truth`` (full judgments), ``score`` (reduced), ``changed``, and per interval ``<covers> low``,
            ``<covers> high``.
        level: The nominal level.
        depth: The judging depth.
        draws: Draws of the judgments.

    """

    cases: pd.DataFrame
    level: float
    depth: int
    draws: int

    def summary(self) -> pd.DataFrame:
        """The study's table: per measure, over the changed cases, coverage and median width of each interval.

        Columns ``measure, level, cases``, per interval ``<covers> coverage`` and ``<covers> median width``, and
        the ratios of the medians to the topic-only interval's.
        """
        rows = []
        for name, part in self.cases.groupby("measure", sort=False):
            part = part[part["changed"]]
            row: dict[str, Any] = {"measure": name, "level": self.level, "cases": len(part)}
            for covers in COVERS:
                low, high = part[f"{covers} low"].to_numpy(), part[f"{covers} high"].to_numpy()
                inside = (low <= part["truth"].to_numpy() + 1e-12) & (part["truth"].to_numpy() <= high + 1e-12)
                row[f"{covers} coverage"] = float(inside.mean()) if len(part) else float("nan")
                row[f"{covers} median width"] = float(np.median(high - low)) if len(part) else float("nan")
            for covers in ("unjudged", "all"):
                topic = row["topics median width"]
                row[f"{covers} width / topics"] = row[f"{covers} median width"] / topic if topic else float("nan")
            rows.append(row)
        return pd.DataFrame(rows)


def coverage_study(pool: Pool, qrels: Any, measures: Any, depth: int, *, level: float = 0.95, draws: int = 500,
                   resamples: int = 2000, seed: int = 0, teams: Iterable[str] | None = None,
                   progress: bool = False) -> CoverageStudy:
    """Run the leave-one-team-out re-judging study of the module docstring.

    Args:
        pool: The campaign (its teams, or each run its own team).
        qrels: The full judgments.
        measures: Measures whose judgments can be drawn (P, R, AP, RR, Rprec, nDCG, RBP, rarity measures).
        depth: The campaign's judging depth k.
        level: Nominal level of every interval.
        draws: Draws of the judgments (``unjudged`` and ``all``).
        resamples: Bootstrap resamples of the queries (``topics``).
        seed: Seed of every draw (a team's draws come from ``default_rng([seed, team position])``).
        teams: The teams to leave out (default: every team).
        progress: Show a progress bar over teams.

    Raises:
        ParameterError: fewer than two teams, an unknown team, or a measure whose judgments cannot be drawn.

    """
    measure_list = parse_measures(measures)
    depth_ = check_depth(depth)
    assert depth_ is not None
    judgments = Judgments(qrels)
    frame = judgments.frame
    team_of = pool.teams
    all_teams = list(dict.fromkeys(team_of[n] for n in pool.names))
    if len(all_teams) < 2:
        raise ParameterError("the coverage study leaves one team out at a time: it needs at least two teams")
    chosen = all_teams if teams is None else [str(t) for t in teams]
    for t in chosen:
        if t not in all_teams:
            raise ParameterError(f"unknown team {t!r}" + did_you_mean(t, all_teams))
    full = evaluate_campaign(pool, judgments, measure_list)
    unique = team_unique_pairs(pool, frame, depth_)
    pairs = pd.MultiIndex.from_frame(frame[["query_id", "doc_id"]].astype(str))
    order = natural_order(full.query_ids)
    parts = []
    for k in progress_bar(range(len(chosen)), desc="coverage", unit="team", enabled=progress):
        team = chosen[k]
        removed = unique[unique["team"] == team]
        if removed.empty:
            continue
        drop = pairs.isin(pd.MultiIndex.from_frame(removed[["query_id", "doc_id"]].astype(str)))
        kept = frame.loc[~drop]
        lost = set(frame["query_id"]) - set(kept["query_id"])
        reduced = frame.loc[~drop | frame["query_id"].isin(lost)].copy()
        reduced.loc[reduced["query_id"].isin(lost), "relevance"] = 0
        reduced_judgments = Judgments(reduced.reset_index(drop=True))
        own = [i for i, n in enumerate(pool.names) if team_of[n] == team]
        names = [pool.names[i] for i in own]
        scored = evaluate_campaign(pool, reduced_judgments, measure_list).select(names)
        encoded = reduced_judgments.encoded_for(pool)
        rng = np.random.default_rng([seed, all_teams.index(team)])
        drawn = drawn_values(pool, encoded, own, measure_list, draws, rng)
        for m in measure_list:
            truth = full.means(m).loc[names].to_numpy()
            score = scored.means(m).to_numpy()
            topic_low, topic_high = bootstrap_interval(scored.values[m][:, order], level, resamples, rng)
            un_low, un_high = drawn_interval(drawn[m], level)
            all_low, all_high = drawn_interval(drawn[m], level, topics=True, seed=rng)
            parts.append(pd.DataFrame({
                "team": team, "run": names, "measure": scored.label(m), "removed": len(removed), "truth": truth,
                "score": score, "changed": np.abs(truth - score) > 1e-12, "topics low": topic_low,
                "topics high": topic_high, "unjudged low": un_low, "unjudged high": un_high, "all low": all_low,
                "all high": all_high}))
    cases = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        columns=["team", "run", "measure", "removed", "truth", "score", "changed"]
        + [f"{c} {b}" for c in COVERS for b in ("low", "high")])
    cases.attrs["pool"] = full.attrs()
    return CoverageStudy(cases=cases, level=level, depth=depth_, draws=draws)
