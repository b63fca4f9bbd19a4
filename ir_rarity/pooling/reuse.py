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
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.campaign import leave_one_team_out
from ir_rarity.engine.aggregate import aggregate
from ir_rarity.engine.codes import encode, pair_keys
from ir_rarity.engine.compute import compute, s_d_depth
from ir_rarity.engine.contract import Campaign
from ir_rarity.engine.evaluate import BLOCK_ROWS
from ir_rarity.engine.families import is_engine_measure
from ir_rarity.engine.qrels import UNJUDGED, EncodedQrels, is_relevant
from ir_rarity.engine.rows import Rows, Selection, Subrows
from ir_rarity.engine.standard import compute_standard, covers
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.io.csvfile import read_csv_columns
from ir_rarity.io.frames import as_qrels_frame
from ir_rarity.measures.parse import higher_is_better, parse_measures
from ir_rarity.pool.pool import Pool
from ir_rarity.pooling.simulation import Simulation
from ir_rarity.progress import progress as progress_bar
from ir_rarity.scoring import Judgments, evaluate_campaign, evaluation_frame
from ir_rarity.stats import kendall_tau, tau_ap
from ir_rarity.stats.ties import rank

__all__ = ["contributing_runs", "official_vs_all", "pool_qrels", "reusability"]


def pool_qrels(qrels: Any, judged: pd.DataFrame, drop: bool = False) -> pd.DataFrame:
    """The qrels as a campaign that judged only ``judged`` would have them.

    Args:
        qrels: The full judgments.
        judged: The simulated pool: a frame with ``query_id, doc_id``.
        drop: Drop the judgments outside ``judged`` instead of setting their label to 0. Needed where "judged"
            matters (``judged_only=True``, ``Judged@k``); queries left without a judgment then leave the means.

    Returns:
        The qrels frame with label 0 for every judgment of a document outside ``judged`` (see the module), or
        without those judgments.

    """
    frame = as_qrels_frame(qrels).copy()
    pairs = pd.MultiIndex.from_frame(frame[["query_id", "doc_id"]].astype(str))
    inside = pairs.isin(pd.MultiIndex.from_frame(judged[["query_id", "doc_id"]].astype(str)))
    if drop:
        return frame.loc[inside].reset_index(drop=True)
    frame.loc[~inside, "relevance"] = 0
    return frame


def _depth_of(sim: Simulation, pool: Pool, depth: int | None) -> int:
    if depth is not None:
        return depth
    return int(pool.encoded.rank.max()) + 1 if pool.encoded.n_rows else 1


class _Relabelled(Judgments):
    """Restricted qrels that share the full qrels' encoding against one campaign: only the labels differ.

    :meth:`encoded_for` gives that campaign the full qrels' :class:`~ir_rarity.engine.qrels.EncodedQrels` with the
    restricted labels (the same sorted pair keys, queries and extensions ``encode_qrels`` gives the restricted
    frame, which holds the same pairs), so nothing is encoded again; any other campaign encodes the frame.
    """

    def __init__(self, frame: pd.DataFrame, campaign: Campaign, encoded: EncodedQrels) -> None:
        super().__init__(frame)
        self.vocabularies, self.encoded = campaign.vocabularies(), encoded

    def encoded_for(self, campaign: Campaign) -> EncodedQrels:
        """The relabelled encoding for the campaign it was made for."""
        queries, docs = campaign.vocabularies()
        if queries is self.vocabularies[0] and docs is self.vocabularies[1]:
            return self.encoded
        return super().encoded_for(campaign)


class _Restrictor:
    """Restricted qrels of many simulated pools (:func:`pool_qrels`, labels set to 0), the full qrels encoded once.

    The full qrels' (query, document) pairs are keyed once in the campaign's codes; a simulated pool's pairs are
    keyed the same way and looked up by integer (``np.isin``), and the restricted qrels reuse the full qrels'
    encoding with their labels only changed (:class:`_Relabelled`).
    """

    def __init__(self, pool: Pool, judgments: Judgments) -> None:
        self.pool, self.frame = pool, judgments.frame
        self.encoded = judgments.encoded_for(pool)
        self.queries, self.docs = pool.vocabularies()
        self.query_chain = [self.queries, self.encoded.query_extra]
        self.doc_chain = [self.docs, self.encoded.doc_extra]
        self.row_keys = self._keys(self.frame)
        # The frame's keys are those of the encoding (same codes, one per judgment); otherwise encode each pool.
        self.shared = bool(np.array_equal(np.sort(self.row_keys), self.encoded.keys))

    def _keys(self, frame: pd.DataFrame) -> np.ndarray:
        queries, _ = encode(frame["query_id"].astype(str).to_numpy(), self.query_chain)
        docs, _ = encode(frame["doc_id"].astype(str).to_numpy(), self.doc_chain)
        return pair_keys(queries, docs)

    def restrict(self, judged: pd.DataFrame) -> Judgments:
        """The qrels restricted to ``judged`` (``query_id, doc_id``): equal to ``pool_qrels(qrels, judged)``."""
        if not self.shared:
            return Judgments(pool_qrels(self.frame, judged))
        inside = self._keys(judged)
        frame = self.frame.copy()
        frame.loc[~np.isin(self.row_keys, inside), "relevance"] = 0
        labels = np.where(np.isin(self.encoded.keys, inside), self.encoded.labels, 0)
        return _Relabelled(frame, self.pool, replace(self.encoded, labels=labels))


RELEVANT_ROWS_STANDARD: frozenset[str] = frozenset({"P", "R", "AP", "RR", "Rprec"})
"""trec_eval measures whose value of a ranking is that of its relevant rows alone, at their ranks (a non-relevant
row adds nothing: P, R and Rprec count relevant rows, AP and RR read their ranks); without ``judged_only``."""


def _reads_relevant_rows_only(measure: Any) -> bool:
    """Whether a measure's value of a ranking depends on its relevant rows only (and the qrels' counts).

    The rarity-weighted measures (``RELEVANT_ROWS_ONLY``, the rows :class:`~ir_rarity.pool.samples.SubsetScorer`
    gathers for them) and :data:`RELEVANT_ROWS_STANDARD`, unless ``judged_only`` (which ranks the judged rows
    again).
    """
    if "judged_only" in measure.SUPPORTED_PARAMS and bool(measure["judged_only"]):
        return False
    if is_engine_measure(measure):
        return bool(getattr(measure, "RELEVANT_ROWS_ONLY", False))
    return str(getattr(measure, "NAME", "")) in RELEVANT_ROWS_STANDARD and covers(measure)


class _Labelled(Subrows):
    """Rows of a campaign's members with labels of their own (restricted qrels); S_d and keys the parent's."""

    def __init__(self, parent: Rows, labels: np.ndarray) -> None:
        super().__init__(parent)
        self.row_labels = labels

    def labels(self, rows: Selection) -> np.ndarray:
        """The given labels."""
        return self.row_labels if rows is None else self.row_labels[rows]

    def relevant(self, rel: int) -> np.ndarray:
        """Relevance of the given labels."""
        return is_relevant(self.row_labels, rel)


def _relabelled_values(pool: Pool, encoded: EncodedQrels, labellings: Sequence[np.ndarray], measures: Sequence[Any]
                      ) -> list[dict[Any, np.ndarray]]:
    """Each measure's runs x queries values under each labelling of ``encoded``'s keys, in one pass over the runs.

    For restricted qrels (:func:`pool_qrels`: a label kept or set to 0, the same judged pairs) and measures that
    :func:`read relevant rows only <_reads_relevant_rows_only>`: block by block of the pool's runs, the rows that
    can be relevant under some labelling (relevant under ``encoded`` at the lowest threshold, or judged where a
    threshold is 0 or below) are gathered once with their S_d and their judgment's position; every labelling then
    labels them by that position and scores them. A row left out is relevant under no labelling, so each value
    equals scoring the whole rows against that labelling (:func:`~ir_rarity.scoring.evaluate_campaign`, tested).

    Args:
        pool: The campaign (its runs are scored as members).
        encoded: The full qrels, encoded for ``pool``.
        labellings: Labels of ``encoded.keys``, one array per restricted qrels: each label as in ``encoded`` or 0.
        measures: Measures that read relevant rows only.

    Returns:
        Per labelling, measure -> ``(len(pool), n_queries)`` values.

    """
    rel = min(int(m["rel"]) for m in measures)
    depths = {s_d_depth(m) for m in measures if is_engine_measure(m) and getattr(m, "NEEDS_POOL", True)}
    parts: list[dict[Any, list[np.ndarray]]] = [{m: [] for m in measures} for _ in labellings]
    for block in pool.member_blocks(BLOCK_ROWS):
        rows = pool.member_rows(encoded, block)
        full = rows.labels()
        readable = is_relevant(full, rel) | ((full != UNJUDGED) if rel <= 0 else False)
        held = np.flatnonzero(readable)
        judgment = np.searchsorted(encoded.keys, rows.keys(held))  # every held row is judged
        base = Rows(run=rows.run[held], query=rows.query[held], rank=rows.rank[held], present=rows.present,
                    n_runs=rows.n_runs, qrels=encoded, source=Subrows(rows, held), returned=rows.cell_sizes())
        for depth in depths:
            base.s_d(depth)  # counted once, read by every labelling
        for labels, part in zip(labellings, parts, strict=True):
            relabelled = Rows(run=base.run, query=base.query, rank=base.rank, present=base.present,
                              n_runs=base.n_runs, qrels=replace(encoded, labels=labels),
                              source=_Labelled(base, labels[judgment]), returned=base.returned)
            for m in measures:
                part[m].append(compute(m, relabelled) if is_engine_measure(m) else compute_standard(m, relabelled))
            relabelled.release()
        base.release()
        rows.release()
    return [{m: values[0] if len(values) == 1 else np.vstack(values) for m, values in part.items()}
            for part in parts]


def _restricted_scores(pool: Pool, restrictor: _Restrictor, restricted: Sequence[Judgments],
                       measures: Sequence[Any], index: pd.Index) -> list[dict[str, pd.Series]]:
    """Each run's score under each restricted qrels, per measure name: as ``evaluate_campaign`` gives them.

    The measures that read relevant rows only are scored for every restricted qrels in one pass
    (:func:`_relabelled_values`); any other measure, or qrels not shared with the full encoding, one evaluation per
    restricted qrels.
    """
    together = [m for m in measures if _reads_relevant_rows_only(m)] if restrictor.shared else []
    apart = [m for m in measures if m not in together]
    scores: list[dict[str, pd.Series]] = [{} for _ in restricted]
    if together:
        labellings = [r.encoded_for(pool).labels for r in restricted]
        for score, values in zip(scores, _relabelled_values(pool, restrictor.encoded, labellings, together),
                                 strict=True):
            score.update({str(m): pd.Series(aggregate(m, v), index=index) for m, v in values.items()})
    if apart:
        for score, judgments in zip(scores, restricted, strict=True):
            frame = evaluation_frame(evaluate_campaign(pool, judgments, apart))  # as Pool.evaluate
            score.update({str(m): frame[str(m)] for m in apart})
    return scores


def reusability(sim: Simulation, pool: Pool, qrels: Any, measures: Any, *, depth: int | None = None,
                loto: bool = True, teams: Iterable[str] | None = None, progress: bool = False) -> pd.DataFrame:
    """Rank correlation with the full-qrels ranking and leave-one-team-out rank drops, per strategy and budget.

    Args:
        sim: The simulation (its strategies and budgets).
        pool: The campaign it was run on.
        qrels: The full qrels (the oracle of the simulation).
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
    judgments = Judgments(qrels)
    full = evaluation_frame(evaluate_campaign(pool, judgments, measure_list))
    restrictor = _Restrictor(pool, judgments)
    loto_depth = _depth_of(sim, pool, depth)
    team_list = None if teams is None else list(teams)
    cells = [(s, b) for s in sim.orders for b in sim.budgets]
    judged = [sim.orders[strategy].frame(sim.per_query(budget)) for strategy, budget in cells]
    restricted = [restrictor.restrict(frame) for frame in judged]
    every = _restricted_scores(pool, restrictor, restricted, measure_list, full.index)  # all pools in one pass
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
    everyone = pool.evaluate(frame, measure_list)
    sub = pool.subset(official)
    members = sub.evaluate(frame, measure_list)
    newcomers = sub.evaluate(frame, measure_list, runs={n: pool.run(n) for n in others})
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
