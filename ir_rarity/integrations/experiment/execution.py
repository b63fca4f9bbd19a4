"""Running the systems of :func:`ir_rarity.Experiment`: each once, as ``pt.Experiment``'s linear plan does.

:func:`run_systems` runs every transformer (a DataFrame is its own results), on batches of topics with
``batch_size``, timing it for ``mrt``; each :class:`Run` keeps the order its queries came in, which the means and
tests follow. :class:`Saving` is ``save_dir``'s cache of each system's results (``save_mode``, ``save_format``).
"""

from __future__ import annotations

import os
import types
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from timeit import default_timer as timer
from typing import Any

import pandas as pd

from ir_rarity.errors import InputError, ParameterError
from ir_rarity.integrations.experiment.inputs import as_results
from ir_rarity.progress import progress

__all__ = ["Run", "Saving", "check_save_dir", "run_systems"]


# ---------------------------------------------------------------------------------------------------- running
@dataclass
class Saving:
    """``save_dir``, ``save_mode`` and ``save_format``: results of each system cached in ``save_dir``.

    Attributes:
        directory: ``save_dir``.
        mode: ``save_mode``: ``"warn"``, ``"error"``, ``"reuse"`` or ``"overwrite"`` for a file already there.
        format: ``save_format``: ``"trec"``, a module with ``dump``/``load`` or a pair ``(read, write)``.
    """

    directory: str
    mode: str
    format: Any

    def file(self, name: str) -> str:
        """The file a system named ``name`` is cached in (``<name>.res.gz`` for ``"trec"``).

        Raises:
            ParameterError: an unrecognised ``save_format``.
        """
        if isinstance(self.format, str) and self.format == "trec":
            ext = "res.gz"
        elif isinstance(self.format, types.ModuleType):
            ext = "mod"
        elif isinstance(self.format, tuple):
            ext = "custom"
        else:
            raise ParameterError(f"Unrecognised save_format {self.format}")
        return os.path.join(self.directory, f"{name}.{ext}")

    def existing(self, system: Any, file: str) -> Any:
        """The system to run: the saved results (``save_mode='reuse'``), or ``system`` as ``save_mode`` says."""
        if not os.path.exists(file):
            return system
        advice = (f"save_dir is set, but the file '{file}' already exists. If you are aware of are happy to reuse "
                  "this file to speed up evaluation, set save_mode='reuse'; if you want to overwrite it, set "
                  "save_mode='overwrite'.")
        if self.mode == "reuse":
            return as_results(self.read(file))
        if self.mode == "overwrite":
            os.remove(file)
        elif self.mode == "warn":
            warnings.warn(advice + " To make this condition an error, use save_mode='error'.", stacklevel=4)
        elif self.mode == "error":
            raise ParameterError(advice + " To make this condition a warning, use save_mode='warn'.")
        else:
            raise ParameterError(f"Unknown save_mode argument '{self.mode}', valid options are 'error', 'warn', "
                                 "'reuse' or 'overwrite'.")
        return system

    def read(self, file: str) -> pd.DataFrame:
        """The results cached in ``file``, read in ``save_format``."""
        import pyterrier as pt

        if isinstance(self.format, str):
            return pt.io.read_results(file)
        with pt.io.autoopen(file, "rb") as stream:
            return self.format.load(stream) if isinstance(self.format, types.ModuleType) else self.format[0](stream)

    def write(self, results: pd.DataFrame, file: str, append: bool = False) -> None:
        """Cache ``results`` in ``file`` in ``save_format`` (``append``: add a batch to it).

        Raises:
            InputError: ``"trec"`` results without ``qid, docno, score, rank``.
        """
        import pyterrier as pt

        if isinstance(self.format, str):
            missing = [c for c in ["qid", "docno", "score", "rank"] if c not in results.columns]
            if missing:
                raise InputError(f"save_dir was set, but results dont look like R (missing {missing}). You probably "
                                 "need to set save_format kwarg, e.g. save_format=pickle")
            pt.io.write_results(results, file, append=append)
            return
        with pt.io.autoopen(file, "wb") as stream:
            if isinstance(self.format, types.ModuleType):
                self.format.dump(results, stream)
            else:
                self.format[1](results, stream)


def check_save_dir(save_dir: str, names: Sequence[str]) -> None:
    """Check, before anything runs, that ``save_dir`` is a folder and every name makes a file name there.

    Args:
        save_dir: The folder results are cached in.
        names: The systems' names.

    Raises:
        ParameterError: ``save_dir`` missing or not a folder, or a name with characters a file name cannot hold.
    """
    import pyterrier as pt

    if not os.path.exists(save_dir):
        raise ParameterError(f"save_dir {save_dir} does not exist")
    if not os.path.isdir(save_dir):
        raise ParameterError(f"save_dir {save_dir} is not a directory")
    for name in names:
        if not pt.io.ok_filename(name):
            raise ParameterError(f"Name contains bad characters and save_dir is set, name is {name}")


@dataclass
class Run:
    """A system's results, its running time (ms), and its queries as ``pt.Experiment`` meets them.

    Attributes:
        frame: The results (PyTerrier's columns).
        ms: The time the system took, in milliseconds (0 for a DataFrame).
        segments: Per batch of topics (one segment without ``batch_size``), the queries of its results in order
            of first appearance, and the batch's topics (None: all queries).
    """

    frame: pd.DataFrame
    ms: float
    segments: list[tuple[list[str], list[str] | None]]


def _first_seen(frame: pd.DataFrame) -> list[str]:
    return [str(q) for q in pd.unique(frame["qid"])] if "qid" in frame.columns else []


def run_systems(systems: Sequence[Any], names: Sequence[str], topics: pd.DataFrame, batch_size: int | None,
                saving: Saving | None, verbose: bool) -> list[Run]:
    """Run every system once (a DataFrame is its own results), as ``pt.Experiment``'s linear plan does.

    Args:
        systems: Transformers or result frames.
        names: Their names.
        topics: The topics to run them on.
        batch_size: Run on batches of this many topics (None: all at once).
        saving: ``save_dir``'s cache, or None.
        verbose: Show progress.

    Returns:
        One :class:`Run` per system, in order.

    Raises:
        InputError: a system that gives no results.
        ParameterError: a bad ``batch_size``, ``save_mode`` or ``save_format``.
    """
    runs = []
    for system, name in progress(list(zip(systems, names, strict=True)), desc="systems", unit="system",
                                 enabled=verbose):
        file = None
        if saving is not None:
            file = saving.file(name)
            system = saving.existing(system, file)
        runs.append(_run_one(system, name, topics, batch_size, saving, file))
    return runs


def _run_one(system: Any, name: str, topics: pd.DataFrame, batch_size: int | None, saving: Saving | None,
             file: str | None) -> Run:
    if isinstance(system, pd.DataFrame):
        if len(system) == 0:
            raise InputError(f"{len(topics)} topics, but no results in dataframe", name)
        return Run(system, 0.0, [(_first_seen(system), None)])
    if batch_size is not None:
        return _run_batches(system, name, topics, batch_size, saving, file)
    start = timer()
    results = system.transform(topics)
    ms = (timer() - start) * 1000.0
    if saving is not None and file is not None:
        saving.write(results, file)
    results = as_results(results)
    if len(results) == 0:
        raise InputError(f"{len(topics)} topics, but no results received from {system}", name)
    return Run(results, ms, [(_first_seen(results), None)])


def _run_batches(system: Any, name: str, topics: pd.DataFrame, batch_size: int, saving: Saving | None,
                 file: str | None) -> Run:
    if batch_size <= 0:
        raise ParameterError(f"batch_size must be a positive integer, not {batch_size}")
    if saving is not None and not (isinstance(saving.format, str) and saving.format == "trec"):
        raise ParameterError("save_format must be 'trec' when save_dir is enabled and batch_size is not None")
    parts: list[pd.DataFrame] = []
    segments: list[tuple[list[str], list[str] | None]] = []
    ms = 0.0
    start = timer()
    try:
        for i, (results, batch) in enumerate(system.transform_gen(topics, batch_size=batch_size, output_topics=True)):
            if len(results) == 0:
                raise InputError(f"batch of {len(batch)} topics, but no results received in batch {i} from {system}",
                                 name)
            ms += (timer() - start) * 1000.0
            if saving is not None and file is not None:
                saving.write(results, file, append=True)
            results = as_results(results)
            parts.append(results)
            segments.append((_first_seen(results), [str(q) for q in batch["qid"]]))
            start = timer()
    except BaseException:
        if file is not None and os.path.exists(file):
            os.remove(file)  # as pt.Experiment: no half-written results file
        raise
    return Run(pd.concat(parts, ignore_index=True), ms, segments)
