"""Two passes on Dask: counts reduced across workers, each block of runs scored where it is read.

The in-process two passes (:mod:`ir_rarity.pool.stream`) distributed. Pass 1: each task counts S_d of a block of
run files (:func:`~ir_rarity.pool.stream.count_files`, the runs cut while read at the deepest depth S_d is counted
at); the blocks' counts are merged pairwise in a tree of tasks (:meth:`Counts.merge <ir_rarity.pool.stream.Counts>`)
into the campaign's, and each task writes its blocks' pass-2 rows to a spill on its worker
(:mod:`ir_rarity.pool.spill`), its result kept there. Pass 2: the campaign (its counts) is sent once to every
worker, and each task, run where its spill lies, reads its blocks' rows from it (from the files on another machine)
and scores them through the door (:func:`ir_rarity.evaluation.evaluate_campaign` on
:meth:`StreamedCampaign.part <ir_rarity.pool.stream.StreamedCampaign.part>`): with the whole campaign's S and S_d,
the values of :func:`ir_rarity.evaluate` on the same files, to the last bit. Only the values (runs x queries per
measure) come back; no row moves between workers.

What a worker holds is the counts (distinct (query, document) pairs within the depths) and two blocks of runs.
Start the workers with :func:`ir_rarity.engine.allocator_environ` in their environment (glibc keeping freed heap
for the next file's buffers, as the command line sets it): pass 1 is about a third faster with it.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.engine import Duplicates, Evaluation, Judgments, ScorePrecision
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.measures.parse import measure_labels
from ir_rarity.pool import (
    Counts,
    Retention,
    Spill,
    StreamedCampaign,
    block_rows,
    count_depths,
    count_files,
    expand_run_paths,
    file_blocks,
    pass_two_rows,
    streamable,
)

__all__ = ["evaluate_two_passes_with_dask"]


def _counted(files: list[Path], depths: list[int | None], blocks: list[tuple[int, int]], keep: Retention | None,
             options: dict[str, Any], caller: int = -1) -> tuple[Counts, Spill | None]:
    """Pass 1 of a run of blocks: their counts, and the rows pass 2 reads, written on this worker's disk.

    The spill is removed by the task of pass 2 that reads it (or :func:`_discard`, when pass 2 does not run). In
    the process of the caller (its id ``caller``: Dask's default threads), it is also removed when dropped, so a
    failed task elsewhere leaves none behind.
    """
    spill = Spill(owned=os.getpid() == caller) if keep is not None else None
    return count_files(files, depths, blocks=blocks, keep=keep, spill=spill, **options), spill


def _counts(counted: tuple[Counts, Spill | None]) -> Counts:
    return counted[0]


def _discarded(counted: tuple[Counts, Spill | None]) -> None:
    """Remove the spill of a task of pass 1 whose task of pass 2 will not run (on the machine that wrote it)."""
    spill = counted[1]
    if spill is not None and spill.host == socket.gethostname():
        spill.close()


def _discard(persisted: list[Any]) -> None:
    """:func:`_discarded` of every result of pass 1: those computed here at once, those persisted where they lie."""
    from dask.delayed import Delayed, delayed

    on_workers = [delayed(_discarded)(c) for c in persisted if isinstance(c, Delayed)]
    for c in persisted:
        if not isinstance(c, Delayed):
            _discarded(c)
    if on_workers:
        from distributed import get_client

        client: Any = get_client()
        client.gather(client.compute(on_workers), errors="skip")  # a failed task's: nothing to remove


def _merged(a: Counts, b: Counts) -> Counts:
    """Counts of consecutive files, merged (one task of the tree)."""
    return a.merge(b)


def _scored(campaign: StreamedCampaign, first: int, stop: int, counted: tuple[Counts, Spill | None],
            qrels: pd.DataFrame, texts: list[str]) -> tuple[list[str], dict[str, np.ndarray], dict[str, int]]:
    """One run of blocks scored through the door: its names, each measure's values, run lengths.

    Its rows are those pass 1 wrote, where this task runs on the machine that wrote them (Dask runs it where its
    pass-1 result lies); elsewhere they are read again from the files.
    """
    try:
        result = evaluate_campaign(campaign.part(first, stop, counted[1]), qrels, texts, progress=False)
    finally:
        _discarded(counted)  # read: it goes
    return result.names, {result.label(m): v for m, v in result.values.items()}, dict(result.run_lengths)


def evaluate_two_passes_with_dask(runs: Any, qrels: Any, measures: Any, *, duplicates: Duplicates = "error",
                                  split_by_tag: bool | None = None, scores: ScorePrecision | None = None,
                                  tasks: int | None = None) -> Evaluation:
    """Evaluate a campaign of run files against itself in two passes on Dask (see the module).

    Uses the active ``dask.distributed`` client if there is one, else Dask's default scheduler.

    Args:
        runs: Run files, folders or globs.
        qrels: Qrels in any shape :func:`ir_rarity.evaluate` accepts.
        measures: Measures (objects or ir_measures strings) that a campaign read in two passes computes (not
            ``U_novel``).
        duplicates: ``"error"`` or ``"first"``.
        split_by_tag: True: one run per tag of each file.
        scores: ``"float32"`` (None) or ``"float64"``.
        tasks: Tasks of each pass, each a run of consecutive blocks of files (None: one per worker of the active
            client, or per core without one). What a task costs besides its rows (its counts sent on and merged,
            the qrels encoded against the campaign's vocabularies) is then paid once a worker, not once a block, and
            within a task a block is counted while the next is read. A block's rows follow the workers' memory
            limit (:func:`~ir_rarity.pool.stream.block_rows`).

    Returns:
        The :class:`~ir_rarity.Evaluation` of :func:`ir_rarity.evaluate` on the same files (runs in file order).

    Raises:
        ParameterError: a measure two passes cannot compute.
        InputError: no run files, unreadable runs, two runs of one name.

    """
    from dask.base import compute  # an optional dependency (ir_rarity[dask]): imported when first used
    from dask.delayed import delayed

    labels = measure_labels(measures)
    measure_list = list(labels)
    reason = streamable(measure_list, None, runs)
    if reason is not None:
        raise ParameterError(f"cannot evaluate the campaign in two passes: {reason}")
    specs = [runs] if isinstance(runs, str | os.PathLike) else list(runs)
    files = [p for spec in specs for p in expand_run_paths(spec)]
    if not files:
        raise InputError("no run files to read")
    judgments = Judgments(qrels)
    precision: ScorePrecision = scores or "float32"
    blocks = file_blocks(files, split_by_tag, block_rows(_worker_memory()))
    groups = _groups(blocks, tasks if tasks is not None else _workers())
    depths = count_depths(measure_list)
    options = {"duplicates": duplicates, "split_by_tag": split_by_tag, "scores": precision}
    retention = pass_two_rows(measure_list, judgments)
    counted = [delayed(_counted)(files[a:b], depths, [(x - a, y - a) for x, y in blocks if a <= x < b], retention,
                                 options, os.getpid()) for a, b in groups]
    persisted = _persist(counted)  # kept where each was computed, for the task of pass 2 that reads its spill
    try:
        level = [delayed(_counts)(c) for c in persisted]
        while len(level) > 1:  # a tree: every merge adds the counts of the files after it
            level = [delayed(_merged)(level[i], level[i + 1]) if i + 1 < len(level) else level[i]
                     for i in range(0, len(level), 2)]
        (counts,) = compute(level[0])
        campaign = StreamedCampaign(files, counts, retention, duplicates=duplicates, split_by_tag=split_by_tag,
                                    scores=precision, blocks=blocks)
        texts = list(labels.values())
        shared = _shared(campaign)
        parts = compute(*[delayed(_scored)(shared, a, b, c, judgments.frame, texts)
                          for (a, b), c in zip(groups, persisted, strict=True)])
    except BaseException:  # pass 2 will not read the spills (a task failed): they go now
        _discard(persisted)
        raise
    names = [n for part in parts for n in part[0]]
    measure_of = {text: m for m, text in labels.items()}  # the values in the order the engine gives them
    values = {measure_of[text]: np.vstack([part[1][text] for part in parts]) for text in parts[0][1]}
    lengths = {n: v for part in parts for n, v in part[2].items()}
    encoded = judgments.encoded_for(campaign)
    return Evaluation(names=names, query_ids=encoded.query_ids, measures=measure_list, values=values,
                      info=campaign.info(), depths=depths, campaign=campaign, qrels=judgments.frame,
                      judgments=judgments, run_lengths=lengths, labels=dict(labels))


def _groups(blocks: list[tuple[int, int]], tasks: int) -> list[tuple[int, int]]:
    """Consecutive blocks in at most ``tasks`` groups of about equal numbers of blocks: ``(first file, stop)``."""
    tasks = max(1, min(tasks, len(blocks)))
    edges = [round(i * len(blocks) / tasks) for i in range(tasks + 1)]
    return [(blocks[edges[i]][0], blocks[edges[i + 1] - 1][1]) for i in range(tasks) if edges[i + 1] > edges[i]]


def _workers() -> int:
    """Workers of the active distributed client, or the cores of this machine without one."""
    try:
        from distributed import get_client

        client: Any = get_client()
    except (ImportError, ValueError):
        return os.cpu_count() or 1
    return max(1, len(client.scheduler_info().get("workers", {})))


def _worker_memory() -> int | None:
    """The smallest memory limit of the active client's workers (bytes), None without a client or a limit."""
    try:
        from distributed import get_client

        client: Any = get_client()
    except (ImportError, ValueError):
        return None
    limits = [w.get("memory_limit") or 0 for w in client.scheduler_info().get("workers", {}).values()]
    return min(limits) if limits and min(limits) > 0 else None


def _persist(tasks: list[Any]) -> list[Any]:
    """The tasks computed and kept on the workers that computed them (distributed), or computed here without."""
    try:
        from distributed import get_client

        client: Any = get_client()
    except (ImportError, ValueError):
        from dask.base import compute

        return list(compute(*tasks))
    return list(client.persist(tasks))


def _shared(campaign: StreamedCampaign) -> Any:
    """The campaign sent once to every worker (a scattered future), or as it is without a distributed client."""
    try:
        from distributed import get_client

        client: Any = get_client()
    except (ImportError, ValueError):
        return campaign
    return client.scatter(campaign, broadcast=True, hash=False)
