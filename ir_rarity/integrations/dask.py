"""Campaigns larger than one machine's memory, on Dask (``pip install "ir_rarity[dask]"``).

Every measure of ir_rarity is a mean of per-query values, and a query's values need only that query's rows:
S_d of a document of query q counts the runs that retrieved it *for q*. So a campaign can be split by query.
:func:`evaluate_with_dask` reads the run files with ir_rarity's reader, a batch of files a task (a plain file
larger than a block: in blocks of lines, each parsed by the same reader, :func:`~ir_rarity.io.trec.read_trec_run_block`,
so every path reads a file as :func:`ir_rarity.evaluate` reads it), cuts each run to the depth the measures read (as
:func:`ir_rarity.evaluate` does), keeps only what the engine needs (run and query as int32 codes, Arrow document
ids, the score), moves the rows with Dask's shuffle so that
each partition holds every row of a range of queries (on a distributed cluster Dask's P2P shuffle, which
stages the rows on disk), evaluates each partition with ir_rarity's engine (a
:class:`~ir_rarity.pool.pool.Pool` of all runs restricted to those queries, S the number of runs of the whole
campaign, S_d counted within the partition) and concatenates the per-query values. The means are then taken
as :func:`ir_rarity.evaluate` takes them (same query order, same sums), so the
table equals the one computed in memory.

What a worker holds at a time is one input block, the shuffle's buffers and one partition of queries, not the
campaign: a campaign larger than every worker's memory limit is evaluated as long as one partition (by default
one query of the qrels, when there are as many input blocks) fits.

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

from ir_rarity.engine import CampaignInfo, Evaluation, is_engine_measure, s_d_depth
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.io.frames import as_qrels_frame
from ir_rarity.io.raw import is_plain_file
from ir_rarity.io.trec import read_trec_run, read_trec_run_block, read_trec_run_table
from ir_rarity.measures.parse import measure_labels
from ir_rarity.pool import expand_run_paths, required_depth, run_name_from_path, top_k
from ir_rarity.pool.pool import Pool

__all__ = ["evaluate_with_dask", "read_runs_dask"]

_COMPRESSED = (".gz", ".bz2", ".xz", ".zip", ".zst")


def read_runs_dask(runs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
                   name_by: Literal["file", "tag"] = "file", blocksize: str | int | None = "64MB") -> Any:
    """The rows of TREC run files as a ``dask.dataframe``: ``run, query_id, doc_id, score``.

    Strings are Arrow-backed (pandas ``str``), never Python objects; the ``Q0`` and rank fields are not kept
    (trec_eval orders by score, as the engine does), nor the tag when runs are named by file. Every file is read by
    ir_rarity's reader (:mod:`ir_rarity.io.trec`: trec_eval's tokenizing, checks and messages, the same values as
    :func:`ir_rarity.evaluate` reads), a plain file larger than ``blocksize`` in blocks of whole lines
    (:func:`~ir_rarity.io.trec.read_trec_run_block`, errors naming the line in the file).

    Args:
        runs: Run files, folders or globs (as :func:`~ir_rarity.pool.build.sources.expand_run_paths` reads them).
        name_by: ``"file"``: each file is one run named by the file; ``"tag"``: runs named by the tag column.
        blocksize: Bytes of a plain file read by one task, so one task never holds a whole large file; compressed
            files are read whole. ``None``: one file a partition.

    Raises:
        InputError: no run file found; as :func:`~ir_rarity.io.trec.read_trec_run` when the rows are computed.

    """
    import dask.dataframe as dd  # an optional dependency (ir_rarity[dask]): imported when first used

    files = _run_files(runs)
    if name_by == "file":
        _file_names(files)  # two files of one name would be one run: refuse them before reading
    meta = pd.DataFrame({"run": pd.Series(dtype="str"), "query_id": pd.Series(dtype="str"),
                         "doc_id": pd.Series(dtype="str"), "score": pd.Series(dtype="float64")})
    return dd.from_map(_read_block, _blocks(files, blocksize), name_by=name_by, meta=meta, enforce_metadata=False)


def _blocks(files: list[Path], blocksize: str | int | None) -> list[tuple[str, int, int | None]]:
    """``(path, start, end)`` of each task of :func:`read_runs_dask`.

    Byte ranges of a plain file larger than ``blocksize``; ``(path, 0, None)`` for a file read whole (it fits, or it
    is compressed or not a regular file).
    """
    from dask.utils import parse_bytes  # an optional dependency (ir_rarity[dask]): imported when first used

    limit = None if blocksize is None else max(1, parse_bytes(blocksize))
    blocks: list[tuple[str, int, int | None]] = []
    for p in files:
        size = p.stat().st_size
        if limit is None or size <= limit or not is_plain_file(p):
            blocks.append((str(p), 0, None))
        else:
            blocks.extend((str(p), start, min(start + limit, size)) for start in range(0, size, limit))
    return blocks


def _read_block(block: tuple[str, int, int | None], name_by: Literal["file", "tag"]) -> pd.DataFrame:
    """The rows of one task of :func:`read_runs_dask` (``run, query_id, doc_id, score``), read by ir_rarity's reader."""
    path, start, end = block
    table = read_trec_run_table(path) if end is None else read_trec_run_block(path, start, end)
    frame = table.to_pandas()
    run = frame["tag"].array if name_by == "tag" else pd.array([run_name_from_path(Path(path))] * len(frame),
                                                                 dtype="str")
    return pd.DataFrame({"run": run, "query_id": frame["query_id"].array, "doc_id": frame["doc_id"].array,
                         "score": frame["score"].to_numpy()}, copy=False)


def _encode_part(part: pd.DataFrame, names: pd.Index, queries: pd.Index) -> pd.DataFrame:
    """Rows of the qrels' queries with the run and query as int32 codes (positions in ``names``/``queries``)."""
    query = queries.get_indexer(pd.Index(part["query_id"]))
    keep = query >= 0  # a query the qrels do not judge has no value: its rows are dropped before the shuffle
    return pd.DataFrame({"query": query[keep].astype(np.int32),
                         "run": names.get_indexer(pd.Index(part["run"][keep])).astype(np.int32),
                         "doc_id": part["doc_id"].array[keep], "score": part["score"].to_numpy()[keep]}, copy=False)


def _codes(values: Any, index: pd.Index) -> np.ndarray:
    """Positions in ``index`` of every value (-1: not in it), looked up once per distinct value."""
    codes, uniques = pd.factorize(values)
    return index.get_indexer(pd.Index(uniques, dtype="str"))[codes] if len(uniques) else codes


def _read_file(paths: list[str], name_by: Literal["file", "tag"], names: pd.Index, queries: pd.Index,
               keep_depth: int | None) -> pd.DataFrame:
    """Run files read by ir_rarity's reader and encoded as :func:`_encode_part` encodes a block.

    With ``keep_depth``, each run is first cut to its top ``keep_depth`` documents per query in trec_eval order
    (:func:`~ir_rarity.pool.build.top_k`, the cut a pool makes while reading; duplicates checked before it), so
    the shuffle moves only the rows the measures read.
    """
    parts = [_read_one(path, name_by, names, queries, keep_depth) for path in paths]
    return parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)


def _read_one(path: str, name_by: Literal["file", "tag"], names: pd.Index, queries: pd.Index,
              keep_depth: int | None) -> pd.DataFrame:
    """One run file of :func:`_read_file`."""
    frame = read_trec_run(path)
    if name_by == "file":
        runs = [(run_name_from_path(Path(path)), frame)]
    else:
        runs = [(str(tag), part) for tag, part in frame.groupby("tag", sort=False)]
    del frame
    if keep_depth is not None:
        runs = [(name, top_k(run, keep_depth, name, "error")) for name, run in runs]
    parts = []
    for name, run in runs:
        query = _codes(run["query_id"].array, queries)
        keep = query >= 0  # a query the qrels do not judge has no value: its rows are dropped before the shuffle
        parts.append(pd.DataFrame({"query": query[keep].astype(np.int32),
                                   "run": np.full(int(keep.sum()), names.get_loc(name), dtype=np.int32),
                                   "doc_id": run["doc_id"].array[keep], "score": run["score"].to_numpy()[keep]},
                                  copy=False))
    return parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)


def _tags(path: str) -> pd.DataFrame:
    """The distinct tags of one run file (run names with ``name_by="tag"``)."""
    return pd.DataFrame({"run": pd.unique(read_trec_run(path)["tag"].array)})


def _evaluate_part(part: pd.DataFrame, names: list[str], queries: pd.Index, qrels: pd.DataFrame,
                   measures: dict[Any, str]) -> pd.DataFrame:
    """Per-query values of every run for the queries of one partition (S = all runs, S_d within the part).

    ``part`` is indexed by query code and holds columns ``run`` (code), ``doc_id``, ``score``. The rows are put
    in run order once; each run's frame is then a slice of that one frame (no copy per run).
    """
    if not len(part):
        return _long_meta()
    run = part["run"].to_numpy()
    order = np.argsort(run, kind="stable")
    bounds = np.searchsorted(run[order], np.arange(len(names) + 1))
    codes = part.index.to_numpy()[order]
    rows = pd.DataFrame({"query_id": pd.Series(queries.array).take(codes).array,
                         "doc_id": part["doc_id"].array.take(order), "score": part["score"].to_numpy()[order]},
                        copy=False)
    del part, run, order
    frames = {name: rows.iloc[bounds[i]:bounds[i + 1]] for i, name in enumerate(names)}
    local = queries[np.unique(codes)]
    pool = Pool.from_runs(frames)
    del frames, rows
    return evaluate_campaign(pool, qrels[qrels["query_id"].isin(local)], measures, progress=False).long()


def _encoded_meta() -> pd.DataFrame:
    return pd.DataFrame({"query": pd.Series(dtype=np.int32), "run": pd.Series(dtype=np.int32),
                         "doc_id": pd.Series(dtype="str"), "score": pd.Series(dtype="float64")})


def _long_meta() -> pd.DataFrame:
    return pd.DataFrame({"run": pd.Series(dtype=object), "query_id": pd.Series(dtype=object),
                         "measure": pd.Series(dtype=object), "value": pd.Series(dtype="float64")})


def evaluate_with_dask(
    runs: Any,
    qrels: Any,
    measures: Any,
    *,
    name_by: Literal["file", "tag"] = "file",
    npartitions: int | None = None,
    shuffle_method: str | None = None,
    blocksize: str | int | None = "64MB",
) -> Evaluation:
    """Evaluate a campaign's runs against itself on Dask, one partition of queries at a time.

    Uses the active ``dask.distributed`` client if there is one (e.g. a ``LocalCluster`` or a cluster of
    several machines), else Dask's default scheduler. The rows are read in blocks, reduced to what the engine
    needs (run and query as int32 codes, document ids as Arrow strings, the score; rows of queries the qrels do
    not judge dropped) and moved so that partition k holds every row of the k-th range of the qrels' sorted
    queries (``set_index`` on the query code with fixed divisions: a shuffle, by default Dask's disk-backed
    P2P one on a distributed cluster). Each partition is then evaluated by the engine. A worker holds the rows
    of one partition at a time, so a campaign larger than one worker's memory is evaluated as long as one
    partition fits.

    Args:
        runs: Run files, folders or globs; a ``dask.dataframe`` from :func:`read_runs_dask` also works.
        qrels: Qrels in any shape :func:`ir_rarity.evaluate` accepts.
        measures: Measures (objects or ir_measures strings), ir_rarity's and standard ones.
        name_by: How runs are named (see :func:`read_runs_dask`).
        npartitions: Partitions of queries (default: one per judged query, at most one per run file or input
            partition, and at least 2); at most the number of judged queries.
        shuffle_method: Dask's shuffle (``"p2p"``, ``"tasks"``, ``"disk"``; default: Dask's configuration).
        blocksize: Bytes of uncompressed run files read by one task: files that all fit are read whole by
            ir_rarity's reader, a quarter block of files a task (a compressed file alone), and each run cut to
            the deepest rank the measures read (none when one needs whole runs); otherwise as
            :func:`read_runs_dask` reads them, in blocks.

    Returns:
        As :func:`ir_rarity.evaluate`, the :class:`~ir_rarity.Evaluation`: ``table()`` (one row per run, sorted by
        name; one column per measure, named as given), ``long()`` (the per-query values), ``matrix(measure)``,
        and what the values were computed against (S = the campaign's runs, the depths S_d was counted at).

    Raises:
        ParameterError: ``npartitions`` below 1.

    """
    labels = measure_labels(measures)  # each measure under the name the user gave it, as every other door names it
    measure_list, texts = list(labels), list(labels.values())
    qrels_frame = as_qrels_frame(qrels)
    if npartitions is not None and npartitions < 1:
        raise ParameterError(f"npartitions must be >= 1, got {npartitions}")
    query_ids = pd.Index(pd.unique(qrels_frame["query_id"].to_numpy())).sort_values()
    queries = pd.Index(query_ids, dtype="str")
    files = None if hasattr(runs, "map_partitions") else _run_files(runs)
    if files is not None and _whole_files(files, blocksize):
        encoded, names = _read_files(files, name_by, queries, required_depth(measure_list), blocksize)
    else:  # a Dask frame, or files larger than a block: dask.dataframe reads them in blocks
        frame = runs if files is None else read_runs_dask(files, name_by=name_by, blocksize=blocksize)
        if files is None or name_by == "tag":
            names = sorted(str(n) for n in frame["run"].unique().compute())  # one pass over the rows for the names
        else:
            names = sorted(_file_names(files))
        encoded = frame.map_partitions(_encode_part, pd.Index(names, dtype="str"), queries, meta=_encoded_meta())
    inputs = encoded.npartitions if files is None else max(len(files), encoded.npartitions)
    parts = min(len(query_ids), npartitions if npartitions is not None else max(2, inputs))
    # partition k holds query codes [divisions[k], divisions[k + 1]) (the last one closed): balanced, contiguous
    divisions = [k * len(query_ids) // parts for k in range(parts)] + [len(query_ids) - 1]
    by_query_frame = encoded.set_index("query", divisions=divisions, shuffle_method=shuffle_method)
    long = by_query_frame.map_partitions(_evaluate_part, names, queries, qrels_frame, labels,
                                         meta=_long_meta()).compute()
    missing = query_ids.difference(pd.Index(long["query_id"].unique()))
    if len(missing):  # qrels queries no run retrieved: the value of an empty ranking, as the engine gives it
        long = pd.concat([long, _empty_values(names, missing, qrels_frame, labels)], ignore_index=True)
    values = {}
    for m, text in zip(measure_list, texts, strict=True):
        wide = long[long["measure"] == text].pivot(index="run", columns="query_id", values="value")
        values[m] = wide.reindex(index=names, columns=query_ids).to_numpy(dtype=np.float64)
    depths = list(dict.fromkeys(s_d_depth(m) for m in measure_list
                                if is_engine_measure(m) and getattr(m, "NEEDS_POOL", True)))
    info = CampaignInfo(num_systems=len(names), systems="runs", n_runs=len(names), source="pool (on Dask)")
    return Evaluation(names=list(names), query_ids=query_ids, measures=measure_list, values=values, info=info,
                      depths=depths, qrels=qrels_frame, labels=dict(labels))


def _whole_files(files: list[Path], blocksize: str | int | None) -> bool:
    """Whether every file fits in one block (compressed files are read whole anyway): then one task reads a file."""
    if blocksize is None:
        return True
    from dask.utils import parse_bytes  # an optional dependency (ir_rarity[dask]): imported when first used

    limit = parse_bytes(blocksize)
    return all(p.stat().st_size <= limit or not is_plain_file(p) for p in files)


def _batches(files: list[Path], blocksize: str | int | None) -> list[list[str]]:
    """Consecutive files grouped so that one task reads at most a quarter of ``blocksize`` (a compressed file alone).

    Fewer, larger input partitions: the shuffle's cost grows with input x output partitions, not only with bytes.
    A quarter: a task's rows are held while read, concatenated and handed to the shuffle (a block of several
    files whole was too much for a worker of the D1 benchmark).
    """
    from dask.utils import parse_bytes  # an optional dependency (ir_rarity[dask]): imported when first used

    limit = 0 if blocksize is None else parse_bytes(blocksize) // 4
    batches: list[list[str]] = []
    size = limit + 1
    for p in files:
        bytes_ = p.stat().st_size
        if p.suffix in _COMPRESSED or size + bytes_ > limit:
            batches.append([])
            size = limit + 1 if p.suffix in _COMPRESSED else 0
        batches[-1].append(str(p))
        size += bytes_
    return batches


def _read_files(files: list[Path], name_by: Literal["file", "tag"], queries: pd.Index, keep_depth: int | None,
                blocksize: str | int | None) -> tuple[Any, list[str]]:
    """The encoded rows of ``files``, one task a batch of files (:func:`_read_file`), and the sorted run names."""
    import dask.dataframe as dd  # an optional dependency (ir_rarity[dask]): imported when first used

    paths = [str(p) for p in files]
    if name_by == "file":
        names = sorted(_file_names(files))
    else:  # one pass over the files for the tags
        tags = dd.from_map(_tags, paths, meta=pd.DataFrame({"run": pd.Series(dtype="str")})).compute()
        names = sorted(str(n) for n in pd.unique(tags["run"].array))
    encoded = dd.from_map(_read_file, _batches(files, blocksize), name_by=name_by, names=pd.Index(names, dtype="str"),
                          queries=queries, keep_depth=keep_depth, meta=_encoded_meta(), enforce_metadata=False)
    return encoded, names


def _run_files(runs: Any) -> list[Path]:
    """The run files named by ``runs`` (files, folders, globs or a list of them)."""
    specs = [runs] if isinstance(runs, str | os.PathLike) else list(runs)
    files = [p for spec in specs for p in expand_run_paths(spec)]
    if not files:
        raise InputError("no run files to read")
    return files


def _file_names(files: list[Path]) -> list[str]:
    """Run names of files named by file (the naming rule of :mod:`~ir_rarity.pool.build.sources`), each once."""
    names = [run_name_from_path(p) for p in files]
    if len(set(names)) < len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise InputError(f"two runs are named {twice!r}; run names must be unique")
    return names


def _empty_values(names: list[str], queries: pd.Index, qrels: pd.DataFrame, measures: dict[Any, str]
                  ) -> pd.DataFrame:
    """Values of every run for ``queries`` that no run retrieved: each measure's value for an empty ranking."""
    judged = qrels[qrels["query_id"].isin(queries)]
    anchor = pd.DataFrame({"query_id": [str(queries[0])], "doc_id": ["\x00ir_rarity-empty"], "score": [0.0]})
    frames = {n: anchor.iloc[:0] for n in names}
    frames["\x00ir_rarity-anchor"] = anchor  # a pool needs one row; this run's values are dropped
    long = evaluate_campaign(Pool.from_runs(frames), judged, measures, progress=False).long()
    return long[long["run"].isin(names)]
