"""Scoring for :func:`ir_rarity.Experiment`: one :func:`ir_rarity.evaluate` call, then ``pt.Experiment``'s numbers.

:func:`score` evaluates every run at once into per-query matrices (:class:`Scores`) and records the order
``pt.Experiment`` meets each system's queries in; :func:`means_of` averages in that order, :func:`significance`
counts better and worse queries and tests each system against each baseline (:class:`Block`), and
:func:`correct` adds the multiple-testing corrections.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import ir_measures
import numpy as np
import pandas as pd

from ir_rarity.compare.rank_column import rank_column_check
from ir_rarity.compare.rests import rest_frame
from ir_rarity.engine import aggregate, exact_sums, skips_undefined
from ir_rarity.errors import InputError
from ir_rarity.evaluation import evaluate
from ir_rarity.integrations.experiment.execution import Run
from ir_rarity.integrations.experiment.inputs import (
    BACKFILLED,
    NOT_RETRIEVED,
    RETRIEVED,
    Measures,
    Options,
    is_ours,
)
from ir_rarity.stats import ties

if TYPE_CHECKING:
    from ir_rarity.engine.result import Evaluation

__all__ = ["NOT_AVERAGED", "Block", "Scores", "correct", "means_of", "score", "significance"]

NOT_AVERAGED = frozenset({"num_q", "num_rel", "num_ret", "num_rel_ret", "NumQ", "NumRel", "NumRet", "NumRelRet"})
"""Columns ``pt.Experiment`` sums over queries instead of averaging."""


# ---------------------------------------------------------------------------------------------------- scoring
@dataclass
class Scores:
    """Per-query values of every system (from one :func:`ir_rarity.evaluate` call) and how pt.Experiment orders them.

    Attributes:
        names: The systems.
        measures: The measures, parsed once, with their columns (:class:`~.inputs.Measures`).
        qids: The qrels' queries, sorted, then the topics without qrels.
        n_qrels: How many of ``qids`` are the qrels' queries.
        values: ``values[k, s, q]``: measure ``k``, system ``s``, query ``qids[q]`` (NaN for a topic without qrels).
        order: ``order[s]``: system ``s``'s queries in the order ``pt.Experiment`` meets them (the order its sums and
            tests add them up in).
        status: ``status[s, q]``: RETRIEVED, NOT_RETRIEVED or BACKFILLED.
        mrt: Each system's mean response time (ms per qrels query).
        rests: With ``unjudged``/``ties``: per system (index ``name``), each measure's ``"<m> unjudged"``,
            ``"<m> low"``, ``"<m> high"``, ``"<m> ties low"``, ``"<m> ties high"`` (:mod:`ir_rarity.compare.rests`).
        evaluation: The :class:`~ir_rarity.Evaluation` the values come from (its runs in ``names``' order), for the
            intervals that say what they cover (``Evaluation.interval``).
    """

    names: list[str]
    measures: Measures
    qids: np.ndarray
    n_qrels: int
    values: np.ndarray
    order: np.ndarray
    status: np.ndarray
    mrt: np.ndarray
    rests: pd.DataFrame | None = None
    evaluation: Evaluation | None = None


def score(runs: list[Run], names: list[str], qrels: pd.DataFrame, measures: Measures, backfill: list[str],
          evaluate_options: dict[str, Any], shown: tuple[bool, bool] | None = None) -> Scores:
    """Every run scored in one :func:`ir_rarity.evaluate` call, with the order ``pt.Experiment`` meets its queries.

    The measures go to :func:`ir_rarity.evaluate` as parsed, with their columns (``measures.labels``), and their
    values are read back by the same measure objects: nothing is parsed again.

    Args:
        runs: Each system's results and query order (:func:`~.execution.run_systems`).
        names: The systems' names.
        qrels: The qrels (PyTerrier's columns).
        measures: The measures (:func:`~.inputs.convert_measures`).
        backfill: Topics without qrels (NaN rows), or none.
        evaluate_options: ``pool``, ``joint``, ``teams``, ``progress``, ``unjudged`` and ``ties`` for
            :func:`ir_rarity.evaluate` (``unjudged``/``ties``: what the evaluation gathers).
        shown: ``(unjudged, ties)``: which of the gathered values become columns (default: the gathered ones); an
            interval over the unjudged documents or ties gathers them without showing them.

    Returns:
        The per-query :class:`Scores`.

    Raises:
        InputError: no query of the qrels left to score.
    """
    evaluation = evaluate(dict(zip(names, (r.frame for r in runs), strict=True)), qrels, measures.labels,
                          **evaluate_options)
    if list(evaluation.names) != names:
        evaluation = evaluation.select(names)
    qrels_qids = [str(q) for q in evaluation.query_ids]
    if not qrels_qids:
        raise InputError("No measures received - perhaps qrels and topics had no results in common")
    qids = np.array(qrels_qids + backfill, dtype=object)
    values = np.full((len(measures.measures), len(names), len(qids)), np.nan)
    for k, measure in enumerate(measures.measures):
        values[k, :, :len(qrels_qids)] = evaluation.values[measure]
    ordered = any(not is_ours(m) for m in measures.measures)
    order, status = _query_orders(runs, qrels_qids, backfill, ordered)
    mrt = np.array([r.ms / len(qrels_qids) for r in runs], dtype=np.float64)
    gathered_ties = bool(evaluate_options.get("ties"))
    unjudged, ties = shown if shown is not None else (bool(evaluate_options.get("unjudged")), gathered_ties)
    if gathered_ties:  # results whose rank column orders otherwise than their scores: one warning names them
        rank_column_check(evaluation, {n: r.frame for n, r in zip(names, runs, strict=True)})
    rests = pd.concat([rest_frame(evaluation, m, unjudged, ties, key=column) for m, column in
                       zip(measures.measures, measures.columns, strict=True)], axis=1).rename_axis("name") \
        if unjudged or ties else None
    return Scores(names, measures, qids, len(qrels_qids), values, order, status, mrt, rests, evaluation)


def _query_orders(runs: list[Run], qrels_qids: list[str], backfill: list[str], ordered: bool
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Each system's queries in the order ``pt.Experiment`` meets them, and what each query is for the system.

    With only ir_rarity's measures, every query comes in the qrels' (sorted) order, as its provider yields them.
    """
    position = {q: i for i, q in enumerate(qrels_qids)}
    extra = {q: len(qrels_qids) + j for j, q in enumerate(backfill)}
    status = np.full((len(runs), len(qrels_qids) + len(backfill)), NOT_RETRIEVED, dtype=np.int8)
    status[:, len(qrels_qids):] = BACKFILLED
    order = np.empty(status.shape, dtype=np.int64)
    for s, run in enumerate(runs):
        sequence = _order_of(run, position, extra, status[s])
        order[s] = sequence if ordered else np.arange(status.shape[1])
    return order, status


def _order_of(run: Run, position: Mapping[str, int], extra: Mapping[str, int], status: np.ndarray) -> list[int]:
    """One system's queries in ``pt.Experiment``'s order; marks the ones it retrieved in ``status``.

    ir_measures yields the queries of a run in the order they appear in it, then the qrels' queries the run lacks
    (sorted); ``pt.Experiment`` adds topics without qrels after them, batch by batch, and last the qrels' queries
    no batch asked for.
    """
    placed = np.zeros(len(status), dtype=bool)
    sequence: list[int] = []

    def place(items: list[int]) -> None:
        placed[items] = True
        sequence.extend(items)

    for retrieved, batch in run.segments:
        asked = range(len(position)) if batch is None else {position[q] for q in batch if q in position}
        found = [i for i in dict.fromkeys(position.get(q, -1) for q in retrieved) if i in asked and not placed[i]]
        status[found] = RETRIEVED
        place(found)
        place(sorted(i for i in asked if not placed[i]))
        if batch is not None:
            in_batch = set(batch)
            place([i for q, i in extra.items() if q in in_batch and not placed[i]])
    place(np.flatnonzero(~placed[:len(position)]).tolist())
    place([i for i in extra.values() if not placed[i]])
    return sequence


# ---------------------------------------------------------------------------------------------------- computing
def means_of(scores: Scores) -> np.ndarray:
    """``(n_systems, n_measures)`` means, with exactly rounded sums, as :func:`ir_rarity.evaluate`'s table.

    A measure ir_measures computes is summed over the queries (:func:`~ir_rarity.engine.means.exact_sums`) and
    divided by their number (only summed, for the counts of :data:`NOT_AVERAGED`, as ``pt.Experiment``);
    ir_rarity's measures are averaged by their own aggregator (skipping undefined queries, e.g. ASL).
    ``pt.Experiment`` adds the values left to right in the order it meets the queries, which can differ from the
    exactly rounded sum in the last bit; here the same values give the same mean in any order, so runs whose
    means are equal tie exactly (:mod:`ir_rarity.stats.ties`).
    """
    out = np.empty((len(scores.names), len(scores.measures.measures)))
    for k, (measure, column) in enumerate(zip(scores.measures.measures, scores.measures.columns, strict=True)):
        if is_ours(measure):
            out[:, k] = aggregate(measure, scores.values[k])
            continue
        total = exact_sums(scores.values[k])
        out[:, k] = total if column in NOT_AVERAGED else total / scores.values[k].shape[1]
    return out


@dataclass
class Block:
    """One baseline's columns (``"<m> +"``, ``"<m> -"``, ``"<m> p-value"`` per measure) and each system's values.

    Attributes:
        baseline: The baseline system's index.
        suffix: What each column's name ends with (``"(<baseline name>)"`` with several baselines, else empty).
        rows: Per system, the block's values (None for the baseline's own row).
    """

    baseline: int
    suffix: str
    rows: list[list[Any]]

    def column(self, column: str, what: str) -> str:
        """The name of the block's ``what`` column (``"+"``, ``"-"``, ``"p-value"``...) for a measure's ``column``."""
        return f"{column} {what}{self.suffix}"


def significance(scores: Scores, options: Options) -> list[Block]:
    """Per baseline: for each system and measure, queries better, worse, and the test's p-value against it.

    As ``pt.Experiment``: paired over the baseline's queries in its order, ``options.test(system, baseline)[1]``.
    For lower-is-better measures "+" counts the queries where the system is lower (better). Measures that skip
    undefined queries are tested on the queries defined for both.
    """
    blocks = []
    for b in options.baselines:
        suffix = f"({scores.names[b]})" if options.suffixed else ""
        rows: list[list[Any]] = [[] for _ in scores.names]
        for k, measure in enumerate(scores.measures.measures):
            base = scores.values[k, b, scores.order[b]]
            for s in range(len(scores.names)):
                rows[s] += [None] * 3 if s == b else _compare(scores.values[k, s, scores.order[b]], base, measure,
                                                              scores.measures.higher[k], options.test)
        blocks.append(Block(b, suffix, rows))
    return blocks


def _compare(system: np.ndarray, base: np.ndarray, measure: ir_measures.Measure, hib: bool,
             test: Callable[..., Any]) -> list[Any]:
    if skips_undefined(measure):
        keep = ~(np.isnan(system) | np.isnan(base))
        system, base = system[keep], base[keep]
    # a query whose values tie (ir_rarity.stats.ties) is neither better nor worse
    better, worse = int(ties.better(system, base, hib).sum()), int(ties.better(base, system, hib).sum())
    return [better, worse, test(system, base)[1]]


def correct(table: pd.DataFrame, blocks: list[Block], columns: list[str], options: Options) -> None:
    """Add ``"<m> reject"`` and ``"<m> p-value corrected"`` after each p-value column, in place.

    The correction runs once per measure, over the p-values of every baseline's block together (each without
    its baseline's row), by :func:`statsmodels.stats.multitest.multipletests`; with one baseline, as ``pt.Experiment``.
    """
    from statsmodels.stats.multitest import multipletests

    for column in columns:
        parts = [table[block.column(column, "p-value")].drop(table.index[block.baseline]).to_numpy(np.float64)
                 for block in blocks]
        reject, corrected, _, _ = multipletests(np.concatenate(parts), alpha=options.alpha, method=options.correction)
        start = 0
        for block, part in zip(blocks, parts, strict=True):
            stop = start + len(part)
            at = int(table.columns.get_loc(block.column(column, "p-value")))  # type: ignore[arg-type]
            table.insert(at + 1, block.column(column, "reject"), np.insert(reject[start:stop], block.baseline, False))
            table.insert(at + 2, block.column(column, "p-value corrected"),
                         np.insert(corrected[start:stop], block.baseline, np.nan))
            start = stop
