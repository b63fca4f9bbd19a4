"""Rendering for :func:`ir_rarity.Experiment`: what ``pt.Experiment`` returns, from the scores.

:func:`render` builds the table of means with its baseline blocks (:func:`_render_table`, rounded as Python's
:func:`round`), confidence intervals (``ci``: an :class:`Interval` saying what it covers), the per-query frame,
``pt.Experiment``'s dicts (``dataframe=False``), the highlighted Styler, and the ``aggregated.csv``/``perquery.csv``
summaries of ``save_dir``. A table with its per-query frame (``perquery="both"``) is an :class:`ExperimentResults` pair.
"""

from __future__ import annotations

import builtins
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ir_rarity.engine import COVERS
from ir_rarity.integrations.experiment.inputs import Options
from ir_rarity.integrations.experiment.scores import Block, Scores, correct, means_of, significance
from ir_rarity.stats import ties

__all__ = ["ExperimentResults", "Interval", "render"]


class ExperimentResults(NamedTuple):
    """The means and the per-query frame of :func:`ir_rarity.Experiment` with ``perquery="both"``.

    A pair, as PyTerrier's ``pt.Experiment`` returns it: ``averages, perquery = ir_rarity.Experiment(...,
    perquery="both")`` unpacks it, and a notebook shows both tables, one after the other.

    Attributes:
        averages: The table of means (a :class:`pandas.io.formats.style.Styler` with ``highlight``).
        perquery: The per-query frame (``name, qid, measure, value``).
    """

    averages: Any
    perquery: Any

    def _repr_html_(self) -> str:
        """Both tables' HTML, the means first, as ``pt.Experiment``'s pair shows them."""
        return f"{self.averages._repr_html_()}{self.perquery._repr_html_()}"


# ---------------------------------------------------------------------------------------------------- rendering
def _rounded(column: str, value: float, digits: int | dict[str, int] | None) -> float:
    """``pt.Experiment``'s rounding: Python's :func:`round` of the value (correctly rounded, unlike numpy's)."""
    if isinstance(digits, int):
        return builtins.round(value, digits)
    if isinstance(digits, dict) and column in digits:
        return builtins.round(value, digits[column])
    return value


def _render_table(scores: Scores, means: np.ndarray, options: Options, blocks: list[Block], mrt: bool
                  ) -> pd.DataFrame:
    """The table of means (one row per system), with ``mrt`` and the baseline blocks, as ``pt.Experiment``'s."""
    columns = scores.measures.columns
    head = ["name", *columns] + (["mrt"] if mrt else [])
    for block in blocks:
        head += [block.column(c, what) for c in columns for what in ("+", "-", "p-value")]
    rows = []
    for s, name in enumerate(scores.names):
        row: list[Any] = [name] + [_rounded(c, float(means[s, k]), options.round) for k, c in enumerate(columns)]
        if mrt:
            row.append(_rounded("mrt", float(scores.mrt[s]), options.round))
        for block in blocks:
            row += block.rows[s]
        rows.append(row)
    table = pd.DataFrame(rows, columns=head)
    if blocks and options.correction is not None:
        correct(table, blocks, columns, options)
    return table


@dataclass(frozen=True)
class Interval:
    """The intervals of the means asked for: ``level`` (``ci=``), what they cover, the draws and the seed.

    ``covers="topics"`` is the percentile bootstrap over queries (:func:`~ir_rarity.compare.intervals.add_intervals`);
    ``"unjudged"``, ``"ties"`` and ``"all"`` are ``Evaluation.interval(covers=...)``
    (:func:`~ir_rarity.compare.intervals.add_covered_intervals`, as :func:`~ir_rarity.compare.table.campaign_table`).
    """

    level: float
    covers: str = "topics"
    draws: int = 1000
    seed: int | None = 0


def _with_intervals(table: pd.DataFrame, scores: Scores, interval: Interval) -> pd.DataFrame:
    from ir_rarity.compare.intervals import add_covered_intervals, add_intervals

    measures = scores.measures.measures
    if interval.covers != "topics":
        assert scores.evaluation is not None  # score() keeps it
        return add_covered_intervals(table, scores.evaluation, interval.level, interval.covers, draws=interval.draws,
                                     seed=interval.seed, measures=measures, columns=scores.measures.columns)
    values = {m: scores.values[k, :, :scores.n_qrels] for k, m in enumerate(measures)}
    out = add_intervals(table, values, measures, interval.level, seed=interval.seed,
                        query_ids=scores.qids[:scores.n_qrels], columns=scores.measures.columns)
    out.attrs["interval"] = {**out.attrs["interval"], "covers": "topics", "what": COVERS["topics"]}
    return out


def _perquery_frame(scores: Scores, digits: int | dict[str, int] | None) -> pd.DataFrame:
    """``name, qid, measure, value``: pt.Experiment's rows (system, its queries, their measures), sorted alike."""
    n_systems, n_queries = scores.order.shape
    n_measures = len(scores.measures.columns)
    status = np.take_along_axis(scores.status, scores.order, axis=1)
    measure = scores.measures.sequences[status].reshape(-1)  # (system, query, measure) flattened
    query = np.repeat(scores.order.reshape(-1), n_measures)
    system = np.repeat(np.arange(n_systems), n_queries * n_measures)
    value = scores.values[measure, system, query]
    columns = np.array(scores.measures.columns, dtype=object)
    if digits is not None:
        value = np.array([_rounded(c, v, digits) for c, v in zip(columns[measure].tolist(), value.tolist(),
                                                                  strict=True)], dtype=np.float64)
    frame = pd.DataFrame({"name": np.array(scores.names, dtype=object)[system], "qid": scores.qids[query],
                          "measure": columns[measure], "value": value}).sort_values(["name", "qid"])
    if isinstance(digits, int):
        frame["value"] = frame["value"].round(digits)
    return frame


def _perquery_dict(scores: Scores) -> dict[int, dict[str, dict[str, float]]]:
    """``pt.Experiment``'s per-query dict: system index -> qid -> measure -> value."""
    out: dict[int, dict[str, dict[str, float]]] = {}
    columns = scores.measures.columns
    for s in range(len(scores.names)):
        out[s] = {}
        for q in scores.order[s].tolist():
            sequence = scores.measures.sequences[scores.status[s, q]].tolist()
            out[s][str(scores.qids[q])] = {columns[k]: float(scores.values[k, s, q]) for k in sequence}
    return out


def _averages_dict(scores: Scores, means: np.ndarray, mrt: bool) -> dict[str, dict[str, float]]:
    """``pt.Experiment``'s ``dataframe=False`` means: name -> measure -> mean (unrounded, as pt gives them)."""
    out = {}
    for s, name in enumerate(scores.names):
        row = {c: float(means[s, k]) for k, c in enumerate(scores.measures.columns)}
        if mrt:
            row["mrt"] = float(scores.mrt[s])
        out[name] = row
    return out


def _styled(table: pd.DataFrame, scores: Scores, blocks: list[Block], how: str) -> Any:
    """``pt.Experiment``'s highlight: the best value of each measure and count column (lowest where lower is better)."""
    best: dict[str, str] = {c: "+" if higher else "-"
                            for c, higher in zip(scores.measures.columns, scores.measures.higher, strict=True)}
    best["mrt"] = "-"
    for block in blocks:
        for c in scores.measures.columns:
            best[block.column(c, "+")], best[block.column(c, "-")] = "+", "-"
    return table.style.apply(_mark, axis=0, best=best, how=how)


def _mark(data: pd.Series, best: Mapping[str, str], how: str) -> list[str]:
    if data.name not in best:
        return [""] * len(data)
    style, last = ("font-weight: bold",) * 2 if how == "bold" else (
        "background-color: antiquewhite", "background-color: lightgreen")
    target = data.max() if best[str(data.name)] == "+" else data.min()
    tied = ties.tie(data.to_numpy(dtype=np.float64), target)  # the one tie rule (ir_rarity.stats.ties)
    marks = [style if hit else "" for hit in tied]
    if tied.any():
        marks[int(np.flatnonzero(tied)[-1])] = last
    return marks


def _save_summaries(save_dir: str, table: pd.DataFrame, per_query: pd.DataFrame, names: Sequence[str]) -> None:
    """``aggregated.csv`` and ``perquery.csv`` in ``save_dir``, keeping other systems' rows, as ``pt.Experiment``."""
    for frame, file in ((table, "aggregated.csv"), (per_query, "perquery.csv")):
        path = os.path.join(save_dir, file)
        if os.path.exists(path):
            old = pd.read_csv(path)
            if file == "aggregated.csv" and set(old.columns) != set(frame.columns):
                warnings.warn(f"Evaluation measures differ between the existing '{path}' (columns: "
                              f"{', '.join(sorted(old.columns))}) and the current run (columns: "
                              f"{', '.join(sorted(frame.columns))}). Missing values will be filled with NaN.",
                              stacklevel=4)
            old = old[~old["name"].isin(set(names))]
            if not old.empty:
                frame = pd.concat([frame, old], ignore_index=True)
        frame.to_csv(path, index=False)


def render(scores: Scores, options: Options, perquery: bool | str, dataframe: bool, highlight: str | None,
           ci: Interval | None, save_dir: str | None) -> Any:
    """What ``pt.Experiment`` returns for ``perquery``, ``dataframe`` and ``highlight`` (and ``save_dir``'s files).

    Args:
        scores: The per-query values (:func:`~.scores.score`), with the measures and their columns.
        options: The checked options (baselines, test, correction, rounding).
        perquery: False (the means), True (the per-query frame) or ``"both"`` (an :class:`ExperimentResults`).
        dataframe: DataFrames (True) or ``pt.Experiment``'s dicts (False).
        highlight: ``"bold"``, ``"color"``/``"colour"`` (a Styler marking the best values) or None.
        ci: The intervals of the means (:class:`Interval`: level, what they cover, draws, seed), or None.
        save_dir: A folder for ``aggregated.csv`` and ``perquery.csv``, or None.

    Returns:
        The means table, the per-query frame, an :class:`ExperimentResults` pair, or ``pt.Experiment``'s dicts.
    """
    means = means_of(scores)
    blocks = significance(scores, options) if options.baselines else []
    table = _render_table(scores, means, options, blocks, scores.measures.mrt)
    if ci is not None:
        table = _with_intervals(table, scores, ci)
    if scores.rests is not None:  # each measure's unjudged share, bounds and tie range, after the columns
        attrs = table.attrs
        table = table.merge(scores.rests, left_on="name", right_index=True, how="left")
        table.attrs = attrs
    per_query = _perquery_frame(scores, options.round) if save_dir is not None or (perquery and dataframe) else None
    if save_dir is not None and per_query is not None:
        _save_summaries(save_dir, table, per_query, scores.names)
    mrt = scores.measures.mrt and perquery is False  # as pt.Experiment: perquery="both" gives means without mrt
    if mrt != scores.measures.mrt:
        table = table.drop(columns="mrt")
    if not dataframe:
        averages: Any = _averages_dict(scores, means, mrt)
    else:
        averages = _styled(table, scores, blocks, highlight) if highlight in ("bold", "color", "colour") else table
    if perquery is False:
        return averages
    detail = per_query if dataframe else _perquery_dict(scores)
    return detail if perquery is True else (ExperimentResults(averages, detail) if dataframe else (averages, detail))
