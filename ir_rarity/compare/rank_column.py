"""Runs whose rank column contradicts their score order, and what each measure gives under both orders.

trec_eval reads past a run file's rank column and orders each ranking by score (descending), ties by docno
(descending): that order stays every value's. A run that gives many documents one score and puts its intended
order in the rank column is then scored on an order it did not mean. :func:`rank_column_check` finds such runs
among the files of an evaluation (the rank column read by :func:`~ir_rarity.io.trec.read_trec_run_ranks`), scores
each also in its rank-column order (scores replaced by the negated rank, scored against the same campaign by the
one rule: a run in score order is the member it equals, the reordered one a run joining alone) and gives one
:class:`RankColumnWarning` naming them with the first measure's value under both orders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ir_rarity.errors import RarityWarning, warn
from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.io.trec import read_trec_run_ranks
from ir_rarity.pool import expand_run_paths, run_name_from_path

if TYPE_CHECKING:
    from ir_rarity.engine.result import Evaluation

__all__ = ["RankColumnWarning", "contradicted_queries", "rank_column_check"]

SHOWN = 5
"""Runs named in the warning (all are in the table :func:`rank_column_check` returns)."""


class RankColumnWarning(RarityWarning):
    """A run's rank column orders some rankings otherwise than its scores (trec_eval's order) do."""


def contradicted_queries(frame: pd.DataFrame, precision: str = "float32") -> list[str]:
    """Queries of a run (``query_id, doc_id, rank, score``) whose rank column is not ascending in trec_eval's order.

    trec_eval's order: score descending (compared at ``precision``), then docno descending. A query with a rank that
    is not a number is not checked.
    """
    score = frame["score"].to_numpy(np.float32 if precision == "float32" else np.float64)
    ordered = frame.assign(score=score).sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False],
                                                    kind="mergesort")
    query, rank = ordered["query_id"].to_numpy(dtype=object), ordered["rank"].to_numpy(np.float64)
    same = query[1:] == query[:-1]
    against = same & (rank[1:] < rank[:-1])
    unreadable = set(query[np.isnan(rank)])
    return sorted({str(q) for q in query[1:][against]} - unreadable)


_COLUMNS = {"qid": "query_id", "docno": "doc_id"}
"""PyTerrier's and TREC's column names of a run frame, to the canonical ones."""


def _named_frames(spec: Any, split_by_tag: bool | None) -> list[tuple[str, pd.DataFrame]]:
    if isinstance(spec, Mapping):  # name -> DataFrame: those that have a rank column (PyTerrier's results do)
        frames = ((str(n), f.rename(columns=_COLUMNS)) for n, f in spec.items() if isinstance(f, pd.DataFrame))
        return [(n, f.assign(query_id=f["query_id"].astype(str), doc_id=f["doc_id"].astype(str),
                             rank=pd.to_numeric(f["rank"], errors="coerce"))[["query_id", "doc_id", "rank", "score"]])
                for n, f in frames if {"query_id", "doc_id", "rank", "score"} <= set(f.columns)]
    out: list[tuple[str, pd.DataFrame]] = []
    for path in expand_run_paths(spec):
        frame = read_trec_run_ranks(path)
        if split_by_tag:
            out.extend((str(tag), part.drop(columns="tag")) for tag, part in frame.groupby("tag", sort=False))
        else:
            out.append((run_name_from_path(Path(path)), frame.drop(columns="tag")))
    return out


def rank_column_check(evaluation: Evaluation, runs: Sequence[Any] | Any, split_by_tag: bool | None = None
                      ) -> pd.DataFrame:
    """The evaluated runs of the files ``runs`` whose rank column contradicts their score order.

    Args:
        evaluation: The evaluation of those runs (its campaign, judgments and measures are used again).
        runs: Run files, folders or globs (as given to the evaluation), or a mapping ``name -> DataFrame`` whose
            frames have a ``rank`` column (PyTerrier's results; ``qid``/``docno`` or ``query_id``/``doc_id``).
        split_by_tag: As given to the evaluation: one run per tag.

    Returns:
        One row per such run (index ``run``): ``queries`` (how many rankings the rank column orders otherwise), and
        per measure ``"<M> score order"`` (the value) and ``"<M> rank order"``. Empty when there is none; one
        :class:`RankColumnWarning` names them otherwise.

    """
    specs = runs if isinstance(runs, (list, tuple)) and not isinstance(runs, Mapping) else [runs]
    precision = evaluation.campaign.scores if evaluation.campaign is not None else "float32"
    wanted = set(evaluation.names)
    found: dict[str, tuple[int, pd.DataFrame]] = {}
    for spec in specs:
        for name, frame in _named_frames(spec, split_by_tag):
            if name in wanted and (queries := contradicted_queries(frame, precision)):
                found[name] = (len(queries), frame)
    columns = ["queries", *(f"{evaluation.label(m)} {o}" for m in evaluation.measures for o in
                            ("score order", "rank order"))]
    judgments = evaluation.judgments if evaluation.judgments is not None else evaluation.qrels
    if not found or evaluation.campaign is None or judgments is None:
        return pd.DataFrame(columns=columns, index=pd.Index([], name="run"))
    reordered = {f"{name} (rank column)": frame.assign(score=-frame["rank"].to_numpy(np.float64))
                 [["query_id", "doc_id", "score"]] for name, (_, frame) in found.items()}
    again = evaluate_campaign(evaluation.campaign, judgments, evaluation.labels,
                              reordered, progress=False).table()
    scored = evaluation.table()
    table = pd.DataFrame(index=pd.Index(list(found), name="run"))
    table["queries"] = [n for n, _ in found.values()]
    for m in evaluation.measures:
        label = evaluation.label(m)
        table[f"{label} score order"] = scored.loc[list(found), label].to_numpy()
        table[f"{label} rank order"] = again[label].to_numpy()
    first = evaluation.label(evaluation.measures[0])
    named = ", ".join(f"{run} ({first} {row[f'{first} score order']:.4f} by score, "
                      f"{row[f'{first} rank order']:.4f} by rank column; {int(row['queries'])} "
                      f"{'query' if int(row['queries']) == 1 else 'queries'})"
                      for run, row in table.head(SHOWN).iterrows())
    more = f" and {len(table) - SHOWN} more" if len(table) > SHOWN else ""
    warn(f"{len(table)} run(s) order documents in their rank column otherwise than by score, the order trec_eval "
         f"and ir_rarity score (score descending, then docno descending): {named}{more}", RankColumnWarning)
    return table
