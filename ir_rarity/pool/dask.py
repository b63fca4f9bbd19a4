"""Campaigns larger than one machine's memory, on Dask (``pip install "ir_rarity[dask]"``).

Every measure of ir_rarity is a mean of per-query values, and a query's values need only that query's rows:
S_d of a document of query q counts the runs that retrieved it *for q*. So a campaign can be split by query.
:func:`evaluate_with_dask` reads the run files with ``dask.dataframe``, shuffles the rows so that each
partition holds every row of some queries, evaluates each partition with ir_rarity's engine (a
:class:`~ir_rarity.pool.pool.Pool` of all runs restricted to those queries, S the number of runs of the whole
campaign, S_d counted within the partition) and concatenates the per-query values. The means are then taken
as :meth:`Pool.evaluate <ir_rarity.pool.pool.Pool.evaluate>` takes them (same query order, same sums), so the
table equals the one computed in memory.

Runs are named by their file (``run_name_from_path``) or, with ``name_by="tag"``, by the tag column (files
holding several runs). Queries of the qrels that no run retrieved hold each measure's value for an empty
ranking, computed on the client.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from ir_rarity.errors import InputError, ParameterError

__all__ = ["evaluate_with_dask", "read_runs_dask"]

_COLUMNS = ["query_id", "q0", "doc_id", "rank", "score", "tag"]


def read_runs_dask(runs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
                   name_by: Literal["file", "tag"] = "file") -> Any:
    """The rows of TREC run files as a ``dask.dataframe``: ``run, query_id, doc_id, score`` (one file a partition).

    Args:
        runs: Run files, folders or globs (as :func:`~ir_rarity.pool.sources.expand_run_paths` reads them).
        name_by: ``"file"``: each file is one run named by the file; ``"tag"``: runs named by the tag column.

    Raises:
        InputError: no run file found.

    """
    import dask.dataframe as dd

    from ir_rarity.pool.sources import expand_run_paths, run_name_from_path

    specs = [runs] if isinstance(runs, str | os.PathLike) else list(runs)
    files = [p for spec in specs for p in expand_run_paths(spec)]
    if not files:
        raise InputError("no run files to read")
    names = {str(p): run_name_from_path(Path(p)) for p in files}
    frame = dd.read_csv([str(p) for p in files], sep=r"\s+", header=None, names=_COLUMNS, blocksize=None,
                        dtype={"query_id": str, "q0": str, "doc_id": str, "rank": "int64", "score": "float64",
                               "tag": str}, include_path_column="path", compression="infer")

    def name_rows(part: pd.DataFrame) -> pd.DataFrame:
        run = part["tag"].astype(str) if name_by == "tag" else part["path"].astype(str).map(names)
        return pd.DataFrame({"run": run.to_numpy(dtype=object), "query_id": part["query_id"].to_numpy(dtype=object),
                             "doc_id": part["doc_id"].to_numpy(dtype=object), "score": part["score"].to_numpy()})

    meta = pd.DataFrame({"run": pd.Series(dtype=object), "query_id": pd.Series(dtype=object),
                         "doc_id": pd.Series(dtype=object), "score": pd.Series(dtype="float64")})
    return frame.map_partitions(name_rows, meta=meta)


def _evaluate_part(part: pd.DataFrame, names: list[str], qrels: pd.DataFrame, measures: list[str]
                   ) -> pd.DataFrame:
    """Per-query values of every run for the queries of one partition (S = all runs, S_d within the part)."""
    from ir_rarity.pool.pool import Pool

    empty = pd.DataFrame({"run": pd.Series(dtype=object), "query_id": pd.Series(dtype=object),
                          "measure": pd.Series(dtype=object), "value": pd.Series(dtype="float64")})
    queries = set(part["query_id"].unique()) & set(qrels["query_id"])
    if not queries:
        return empty
    part = part[part["query_id"].isin(queries)]
    groups = dict(tuple(part.groupby("run", sort=False)))
    frames = {n: groups[n][["query_id", "doc_id", "score"]] if n in groups else part.iloc[:0][
        ["query_id", "doc_id", "score"]] for n in names}
    local_qrels = qrels[qrels["query_id"].isin(queries)]
    return Pool.from_runs(frames).evaluate(local_qrels, measures, by_query=True, progress=False)


def evaluate_with_dask(
    runs: Any,
    qrels: Any,
    measures: Any,
    *,
    name_by: Literal["file", "tag"] = "file",
    npartitions: int | None = None,
    by_query: bool = False,
) -> pd.DataFrame:
    """Evaluate a campaign's runs against itself on Dask, one partition of queries at a time.

    Uses the active ``dask.distributed`` client if there is one (e.g. a ``LocalCluster`` or a cluster of
    several machines), else Dask's default scheduler. Each worker holds the rows of its partition's queries
    only: a campaign larger than one worker's memory is evaluated as long as one partition fits.

    Args:
        runs: Run files, folders or globs; a ``dask.dataframe`` from :func:`read_runs_dask` also works.
        qrels: Qrels in any shape :meth:`Pool.evaluate <ir_rarity.pool.pool.Pool.evaluate>` accepts.
        measures: Measures (objects or ir_measures strings), ir_rarity's and standard ones.
        name_by: How runs are named (see :func:`read_runs_dask`).
        npartitions: Partitions of queries (default: the number of input partitions, at least 2).
        by_query: Return the long per-query table (``run, query_id, measure, value``) instead of one row per run.

    Returns:
        As :meth:`Pool.evaluate <ir_rarity.pool.pool.Pool.evaluate>`: one row per run (index ``run``, sorted by
        name) and one column per measure, or the long per-query table.

    Raises:
        ParameterError: ``npartitions`` below 1.

    """
    from ir_rarity.engine.aggregate import aggregate
    from ir_rarity.io.frames import as_qrels_frame
    from ir_rarity.measures.parse import parse_measures

    measure_list = parse_measures(measures)
    texts = [str(m) for m in measure_list]
    qrels_frame = as_qrels_frame(qrels)
    frame = runs if hasattr(runs, "map_partitions") else read_runs_dask(runs, name_by=name_by)
    if hasattr(runs, "map_partitions") or name_by == "tag":
        names = sorted(str(n) for n in frame["run"].unique().compute())  # one pass over the rows for the names
    else:
        names = sorted(_file_run_names(runs))
    parts = npartitions if npartitions is not None else max(2, frame.npartitions)
    if parts < 1:
        raise ParameterError(f"npartitions must be >= 1, got {parts}")
    by_query_frame = frame.shuffle("query_id", npartitions=parts)
    meta = pd.DataFrame({"run": pd.Series(dtype=object), "query_id": pd.Series(dtype=object),
                         "measure": pd.Series(dtype=object), "value": pd.Series(dtype="float64")})
    long = by_query_frame.map_partitions(_evaluate_part, names, qrels_frame, texts, meta=meta).compute()
    query_ids = pd.Index(pd.unique(qrels_frame["query_id"].to_numpy())).sort_values()
    missing = query_ids.difference(pd.Index(long["query_id"].unique()))
    if len(missing):  # qrels queries no run retrieved: the value of an empty ranking, as the engine gives it
        long = pd.concat([long, _empty_values(names, missing, qrels_frame, texts)], ignore_index=True)
    if by_query:
        order = {t: i for i, t in enumerate(texts)}
        long = long.assign(_m=long["measure"].map(order)).sort_values(["_m", "run", "query_id"], kind="mergesort")
        return long.drop(columns="_m").reset_index(drop=True)
    table = {}
    for m, text in zip(measure_list, texts, strict=True):
        wide = long[long["measure"] == text].pivot(index="run", columns="query_id", values="value")
        wide = wide.reindex(index=names, columns=query_ids)
        table[text] = aggregate(m, wide.to_numpy(dtype=np.float64))
    return pd.DataFrame(table, index=pd.Index(names, name="run"))


def _file_run_names(runs: Any) -> list[str]:
    """Run names of run files named by file (no pass over their rows)."""
    from ir_rarity.pool.sources import expand_run_paths, run_name_from_path

    specs = [runs] if isinstance(runs, str | os.PathLike) else list(runs)
    return [run_name_from_path(Path(p)) for spec in specs for p in expand_run_paths(spec)]


def _empty_values(names: list[str], queries: pd.Index, qrels: pd.DataFrame, measures: list[str]) -> pd.DataFrame:
    """Values of every run for ``queries`` that no run retrieved: each measure's value for an empty ranking."""
    from ir_rarity.pool.pool import Pool

    judged = qrels[qrels["query_id"].isin(queries)]
    anchor = pd.DataFrame({"query_id": [str(queries[0])], "doc_id": ["\x00ir_rarity-empty"], "score": [0.0]})
    frames = {n: anchor.iloc[:0] for n in names}
    frames["\x00ir_rarity-anchor"] = anchor  # a pool needs one row; this run's values are dropped
    long = Pool.from_runs(frames).evaluate(judged, measures, by_query=True, progress=False)
    return long[long["run"].isin(names)]
