r"""Reusability of simulated pools, and S_d from the official runs only.

**Reusability** (pooling bias; Zobel, SIGIR 1998, leave-one-out test). For a strategy and budget, every run is
scored with the qrels restricted to the simulated pool: a judged document outside it counts as unjudged, that
is non-relevant. Its label is set to 0 rather than the judgment dropped, so every query keeps its place in the
means (for P, AP, nDCG and the rarity measures the two are the same, as in
:func:`ir_rarity.campaign.leave_one_team_out`). The ranking of the runs is compared with the ranking under the
full qrels by Kendall's tau-b and tau_AP (:mod:`ir_rarity.stats.correlation`), and the leave-one-team-out test is run on
the restricted qrels: a team's relevant documents in that pool that no other team retrieved (within the
candidates' depth) are made non-relevant and its runs are scored as newcomers to the other teams' pool; the
mean and maximum rank drop of the left-out runs say how much the pool penalises a system that did not help
build it.

**Official vs additional runs** (Türkmen, Lease & Kutlu, ECIR 2023, section 5.4). S_d from the runs that
contributed to judging only, every run scored against that pool (the official runs as members, the others each
as a newcomer: the one evaluation rule), compared with S_d from all runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.campaign import leave_one_team_out
from ir_rarity.engine import Restrictor, pool_qrels, restricted_scores
from ir_rarity.engine.judgments import Judgments
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.io.csvfile import read_csv_columns
from ir_rarity.io.frames import as_qrels_frame
from ir_rarity.judging.simulation import Simulation
from ir_rarity.measures.parse import higher_is_better, parse_measures
from ir_rarity.pool.pool import Pool
from ir_rarity.progress import progress as progress_bar
from ir_rarity.stats import kendall_tau, tau_ap
from ir_rarity.stats.ties import rank

__all__ = ["contributing_runs", "official_vs_all", "pool_qrels", "reusability"]


def _depth_of(sim: Simulation, pool: Pool, depth: int | None) -> int:
    if depth is not None:
        return depth
    return int(pool.encoded.rank.max()) + 1 if pool.encoded.n_rows else 1


def reusability(sim: Simulation, pool: Pool, qrels: Any, measures: Any, *, depth: int | None = None,
                loto: bool = True, teams: Iterable[str] | None = None, progress: bool = False) -> pd.DataFrame:
    """Rank correlation with the full-qrels ranking and leave-one-team-out rank drops, per strategy and budget.

    Args:
        sim: The simulation (its strategies and budgets).
        pool: The campaign it was run on.
        qrels: The full qrels (the oracle of the simulation), or their
            :class:`~ir_rarity.engine.judgments.Judgments` (``Evaluation.judgments``: encoded once, not again).
        measures: Measures to rank runs by (objects or ir_measures strings): P@k, AP, rarity measures...
        depth: The depth the candidates were cut at (None: whole runs); a document is a team's own when no
            other team has it within this depth.
        loto: Run the leave-one-team-out test (one evaluation per team: the slow part).
        teams: Teams to leave out (default: every team of the pool).
        progress: Show a progress bar over (strategy, budget) pairs.

    Returns:
        One row per (strategy, budget, measure): ``strategy, budget, judged, measure, tau`` (Kendall tau-b),
        ``tau_ap`` (full-qrels ranking as reference), and with ``loto`` ``loto_mean_drop, loto_max_drop``
        (mean and maximum rank change of the left-out teams' runs; positive: the run falls).

    """
    measure_list = parse_measures(measures)
    judgments = qrels if isinstance(qrels, Judgments) else Judgments(qrels)  # an evaluation's: encoded already
    full = evaluate_campaign(pool, judgments, measure_list).table()
    restrictor = Restrictor(pool, judgments)
    loto_depth = _depth_of(sim, pool, depth)
    team_list = None if teams is None else list(teams)
    cells = [(s, b) for s in sim.orders for b in sim.budgets]
    judged = [sim.orders[strategy].frame(sim.per_query(budget)) for strategy, budget in cells]
    restricted = [restrictor.restrict(frame) for frame in judged]
    every = restricted_scores(pool, restrictor, restricted, measure_list, full.index)  # all pools in one pass
    rows = []
    for k in progress_bar(range(len(cells)), desc="reusability", unit="pool", enabled=progress):
        (strategy, budget), scores = cells[k], every[k]
        drops = (leave_one_team_out(pool, restricted[k].frame, measure_list, loto_depth, teams=team_list)
                 if loto else None)
        for m in measure_list:
            name, hib = str(m), higher_is_better(m)
            row: dict[str, Any] = {"strategy": strategy, "budget": budget, "judged": len(judged[k]), "measure": name,
                                   "tau": kendall_tau(scores[name], full[name], higher_is_better=hib),
                                   "tau_ap": tau_ap(scores[name], full[name], higher_is_better=hib)}
            if drops is not None:
                change = drops.loc[drops["measure"] == name, "rank_change"].to_numpy(np.float64)
                row["loto_mean_drop"] = float(change.mean()) if len(change) else 0.0
                row["loto_max_drop"] = float(change.max()) if len(change) else 0.0
            rows.append(row)
    table = pd.DataFrame(rows)
    table.attrs["pool"] = full.attrs.get("pool", {})
    return table


def leaderboard_spec(leaderboard: Any) -> tuple[str, str]:
    """``(path, run column)`` of a leaderboard given as a path, ``'path:COLUMN'`` or a pair ``(path, column)``.

    The run column defaults to ``run``; official TREC leaderboards name it ``tag`` (``'board.csv:tag'``). A string
    naming an existing file is taken as a path even if it contains a colon.
    """
    if isinstance(leaderboard, tuple) and len(leaderboard) == 2:
        return os.fspath(leaderboard[0]), str(leaderboard[1])
    path = os.fspath(leaderboard)
    if Path(path).exists() or ":" not in path:
        return path, "run"
    head, column = path.rsplit(":", 1)
    return (head, column) if column else (path, "run")


def contributing_runs(leaderboard: Any, column: str = "contributed judgments") -> list[str]:
    """Runs a leaderboard marks as having contributed to judging (``yes``/``true``/``1`` in ``column``).

    Args:
        leaderboard: A CSV path (its run column ``run``), ``'path:COLUMN'`` or ``(path, COLUMN)`` naming the run
            column (``'board.csv:tag'`` for TREC's leaderboards), or a DataFrame (column ``run``).
        column: The column saying whether the run contributed.

    Raises:
        InputError: the file lacks the run column or ``column``.

    """
    if isinstance(leaderboard, pd.DataFrame):
        frame, run_column = leaderboard, "run"
        for needed in (run_column, column):
            if needed not in frame.columns:
                raise InputError(f"no column {needed!r} in the leaderboard frame", "leaderboard")
    else:
        path, run_column = leaderboard_spec(leaderboard)
        frame = read_csv_columns(path, (run_column, column), "leaderboard")
    flag = frame[column].astype(str).str.strip().str.lower().isin(["yes", "y", "true", "1"])
    return [str(r) for r in frame.loc[flag, run_column]]


def check_official(pool: Pool, official: Sequence[str]) -> tuple[list[str], list[str]]:
    """``(official, others)``: the official runs (once each) and the pool's other runs.

    Raises:
        ParameterError: an official run the pool lacks, fewer than two official runs, or none left over.

    """
    official = list(dict.fromkeys(str(n) for n in official))
    unknown = [n for n in official if n not in pool]
    if unknown:
        raise ParameterError(f"official run(s) not in the pool: {unknown[:5]}")
    others = [n for n in pool.names if n not in set(official)]
    if len(official) < 2 or not others:
        raise ParameterError(f"need at least two official runs and one other; got {len(official)} and "
                             f"{len(others)}")
    return official, others


def official_vs_all(pool: Pool, qrels: Any, measures: Any, official: Sequence[str]) -> tuple[pd.DataFrame,
                                                                                            pd.DataFrame]:
    """Scores and ranks of every run with S_d from the official runs only, against S_d from all runs.

    The official runs form the pool (``pool.subset(official)``) and are scored as its members; every other run
    is scored against it as a newcomer (S + 1, its own documents counted in S_d), by the one evaluation rule.

    Args:
        pool: The campaign of all runs.
        qrels: Its judgments.
        measures: Measures (rarity measures are the ones S_d changes; standard ones stay equal).
        official: Names of the runs that contributed to judging.

    Returns:
        ``(runs, summary)``: per (run, measure) ``run, official, measure, score_all, score_official, rank_all,
        rank_official, rank_change`` (positive: the run falls when S_d comes from the official runs); per
        measure ``measure, tau, tau_ap, mean_abs_rank_change, max_rank_change, min_rank_change``.

    Raises:
        ParameterError: fewer than two official runs, or none left over.

    """
    official, others = check_official(pool, official)
    measure_list = parse_measures(measures)
    frame = as_qrels_frame(qrels)
    everyone = evaluate_campaign(pool, frame, measure_list).table()
    sub = pool.subset(official)
    members = evaluate_campaign(sub, frame, measure_list).table()
    newcomers = evaluate_campaign(sub, frame, measure_list, {n: pool.run(n) for n in others}).table()
    against = pd.concat([members, newcomers]).loc[pool.names]
    parts, summary = [], []
    for m in measure_list:
        name, hib = str(m), higher_is_better(m)
        rank_all = pd.Series(rank(everyone[name].to_numpy(), hib), index=everyone.index).astype(int)
        rank_off = pd.Series(rank(against[name].to_numpy(), hib), index=against.index).astype(int)
        change = rank_off - rank_all
        parts.append(pd.DataFrame({"run": pool.names, "official": [n in set(official) for n in pool.names],
                                   "measure": name, "score_all": everyone[name].to_numpy(),
                                   "score_official": against[name].to_numpy(), "rank_all": rank_all.to_numpy(),
                                   "rank_official": rank_off.to_numpy(), "rank_change": change.to_numpy()}))
        summary.append({"measure": name, "tau": kendall_tau(against[name], everyone[name], higher_is_better=hib),
                        "tau_ap": tau_ap(against[name], everyone[name], higher_is_better=hib),
                        "mean_abs_rank_change": float(change.abs().mean()), "max_rank_change": int(change.max()),
                        "min_rank_change": int(change.min())})
    runs = pd.concat(parts, ignore_index=True)
    runs.attrs["pool"] = {"official": len(official), "additional": len(others), "all": everyone.attrs.get("pool")}
    return runs, pd.DataFrame(summary)
