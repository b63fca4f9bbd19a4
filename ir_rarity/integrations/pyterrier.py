"""``ir_rarity.Experiment``: ``pt.Experiment``'s tables, computed from one :func:`ir_rarity.evaluate` call.

PyTerrier evaluates each system on its own; rarity measures need the other systems. :func:`Experiment` runs every
system once, scores all the results in one :func:`ir_rarity.evaluate` call (rarity and standard measures in the
vectorized engine, any other measure through ir_measures once per system), and builds ``pt.Experiment``'s tables
from those per-query matrices: means, baseline counts, significance tests (scipy) and multiple-testing corrections
(statsmodels), in ``pt.Experiment``'s columns, order, dtypes and formats.

The module computes apart from rendering: :func:`_run_systems` runs the systems, :func:`_score` evaluates them,
:func:`_means` and :func:`_significance` compute, and :func:`_render_table`, :func:`_perquery_frame` and
:func:`_styled` render.
"""

from __future__ import annotations

import builtins
import os
import types
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from timeit import default_timer as timer
from typing import Any

import ir_measures
import numpy as np
import pandas as pd

from ir_rarity.engine.aggregate import aggregate, skips_undefined
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.evaluation import evaluate
from ir_rarity.io.frames import as_qrels_frame
from ir_rarity.measures.base import RarityMeasure
from ir_rarity.measures.parse import higher_is_better, parse_measure
from ir_rarity.progress import progress

__all__ = ["Experiment", "as_topics_frame"]

MeasureLike = ir_measures.Measure | str

NOT_AVERAGED = frozenset({"num_q", "num_rel", "num_ret", "num_rel_ret", "NumQ", "NumRel", "NumRet", "NumRelRet"})
"""Columns ``pt.Experiment`` sums over queries instead of averaging."""

RETRIEVED, NOT_RETRIEVED, BACKFILLED = 0, 1, 2
"""What a query is for a system: in its results, in the qrels only, or a topic without qrels (``perquery``)."""

BACKFILL_WARNING = ("{} topic(s) not found in qrels. Scores for these topics are given as NaN and should not "
                    "contribute to averages.")


# ---------------------------------------------------------------------------------------------------- inputs
def as_topics_frame(topics: Any) -> pd.DataFrame:
    """Topics as a PyTerrier frame (``qid, query``) from a DataFrame, a topics file, or an ir_datasets dataset/id.

    For an ir_datasets dataset the query text is ``query.default_text()`` (the title for TREC topics).
    """
    if isinstance(topics, pd.DataFrame):
        return topics
    if isinstance(topics, str):
        if os.path.isfile(topics):
            import pyterrier as pt

            return pt.io.read_topics(topics)
        from ir_rarity.io.datasets import fetch

        return fetch(topics, "topics", _topics_of)
    if hasattr(topics, "queries_iter"):
        return _topics_of(topics)
    raise InputError(f"unsupported topics type {type(topics).__name__}: give a DataFrame, a topics file or an "
                     "ir_datasets dataset or id")


def _topics_of(dataset: Any) -> pd.DataFrame:
    rows = [(q.query_id, q.default_text()) for q in dataset.queries_iter()]
    return pd.DataFrame(rows, columns=["qid", "query"])


def _qrels_for_pyterrier(qrels: Any) -> pd.DataFrame:
    frame = as_qrels_frame(qrels)
    return frame.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})


def _filtered(topics: pd.DataFrame, qrels: pd.DataFrame, by_qrels: bool, by_topics: bool
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``pt.Experiment``'s ``filter_by_qrels`` (topics without qrels dropped) and ``filter_by_topics``."""
    message = ("There is no overlap between the qids found in the topics and qrels. If this is intentional, set "
               "filter_by_topics=False and filter_by_qrels=False.")
    if by_qrels:
        topics = topics[topics["qid"].astype(str).isin(set(qrels["qid"]))].reset_index(drop=True)
        if len(topics) == 0:
            raise ParameterError(message)
    if by_topics:
        qrels = qrels[qrels["qid"].isin(set(topics["qid"].astype(str)))].reset_index(drop=True)
        if len(qrels) == 0:
            raise ParameterError(message)
    return topics, qrels


def _as_results(frame: pd.DataFrame) -> pd.DataFrame:
    """Results with PyTerrier's columns (``qid, docno, score``), renaming ir_measures' columns."""
    if {"query_id", "doc_id"} <= set(frame.columns) and not {"qid", "docno"} & set(frame.columns):
        return frame.rename(columns={"query_id": "qid", "doc_id": "docno"})
    return frame


# ---------------------------------------------------------------------------------------------------- arguments
@dataclass
class _Options:
    """The checked arguments that shape the table."""

    baselines: list[int]
    suffixed: bool  # several baselines (a list): each block's columns end with "(<baseline name>)"
    test: Callable[..., Any]
    correction: str | None
    alpha: float
    round: int | dict[str, int] | None


def _systems_and_names(retr_systems: Any, names: Sequence[Any] | None) -> tuple[list[Any], list[str]]:
    if isinstance(retr_systems, Mapping):
        names = list(retr_systems.keys())  # as pt.Experiment: names= is ignored for a dict
        retr_systems = list(retr_systems.values())
    elif isinstance(retr_systems, (pd.DataFrame, str)) or not isinstance(retr_systems, Sequence):
        raise ParameterError("Expected list or dict of transformers for retr_systems, instead received "
                             f"{type(retr_systems)}")
    systems = list(retr_systems)
    names = [str(s) for s in systems] if names is None else [str(n) for n in names]
    if len(names) != len(systems):
        raise ParameterError("names should be the same length as retr_systems")
    if len(set(names)) != len(names):
        raise ParameterError(f"system names must be unique (give names=), got {names}")
    for i, system in enumerate(systems):
        if not isinstance(system, pd.DataFrame) and not hasattr(system, "transform"):
            raise ParameterError(f"Expected a list of Transformers or DataFrames, but received unexpected type "
                                 f"{type(system)} for retrieval system at position {i}")
    return [_as_results(s) if isinstance(s, pd.DataFrame) else s for s in systems], names


def _baseline_index(baseline: Any, names: Sequence[str]) -> int:
    if isinstance(baseline, str):
        if baseline not in names:
            shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
            raise ParameterError(f"unknown baseline {baseline!r}: the systems are {shown}")
        return list(names).index(baseline)
    if isinstance(baseline, bool) or not isinstance(baseline, (int, np.integer)):
        raise ParameterError(f"baseline must be a system's index (int), its name (str) or a list of them, not "
                             f"{type(baseline).__name__}")
    if not 0 <= int(baseline) < len(names):
        raise ParameterError(f"baseline index {baseline} is out of range: there are {len(names)} systems, "
                             f"0 to {len(names) - 1}")
    return int(baseline)


def _baselines(baseline: Any, names: Sequence[str]) -> tuple[list[int], bool]:
    """Baseline indices, and whether they were given as a list (one block of columns each, suffixed)."""
    if baseline is None:
        return [], False
    if not isinstance(baseline, list):
        return [_baseline_index(baseline, names)], False
    indices = [_baseline_index(b, names) for b in baseline]
    if not indices or len(set(indices)) != len(indices):
        raise ParameterError(f"baseline=[...] must name one or more distinct systems, got {baseline}")
    return indices, True


def _test_function(test: Any) -> Callable[..., Any]:
    from scipy import stats

    if isinstance(test, str) and test == "t":
        return stats.ttest_rel
    if isinstance(test, str) and test == "wilcoxon":
        return stats.wilcoxon
    if isinstance(test, str) or not callable(test):
        raise ParameterError(f"unknown test {test!r}: give 't', 'wilcoxon' or a function (x, y) -> (statistic, "
                             "p-value), as scipy.stats.ttest_rel")
    return test


def _checked_round(round_: Any, perquery: Any) -> int | dict[str, int] | None:
    if round_ is None:
        return None
    if isinstance(round_, int):
        if round_ < 0:
            raise ParameterError(f"round argument should be integer >= 0, not {round_}")
        return round_
    if not isinstance(round_, Mapping):
        raise ParameterError("Argument round should be an integer or a dictionary")
    if perquery:
        raise ParameterError("per-measure rounding (round= a dict) is only supported when reporting means")
    for measure, digits in round_.items():
        if not isinstance(digits, int) or digits < 0:
            raise ParameterError(f"rounding number for measure {measure} should be integer >= 0, not {digits}")
    return dict(round_)


def _checked_correction(correction: str | None, baselines: list[int]) -> None:
    if correction is None:
        return
    if not baselines:
        raise ParameterError("Requested multiple testing correction, but no baseline was specified.")
    from statsmodels.stats.multitest import multipletests

    try:
        multipletests([0.5], method=correction)
    except ValueError:
        raise ParameterError(f"unknown correction {correction!r}: give a method of "
                             "statsmodels.stats.multitest.multipletests, e.g. 'holm', 'bonferroni', 'fdr_bh'") from None


def _options(names: Sequence[str], baseline: Any, test: Any, correction: str | None, alpha: float, round_: Any,
             perquery: Any, plan: str, precompute_prefix: bool) -> _Options:
    if perquery not in (False, True, "both"):
        raise ParameterError(f"perquery must be False, True or 'both', not {perquery!r}")
    if plan == "tree" or precompute_prefix:
        raise ParameterError("plan='tree' and precompute_prefix=True (pipeline prefixes shared between systems) are "
                             "not supported by ir_rarity.Experiment: each system runs on its own (plan='linear')")
    baselines, suffixed = _baselines(baseline, names)
    _checked_correction(correction, baselines)
    return _Options(baselines, suffixed, _test_function(test), correction, float(alpha),
                    _checked_round(round_, perquery))


# ---------------------------------------------------------------------------------------------------- measures
@dataclass
class _Measures:
    """The measures, their ``pt.Experiment`` column names, and the order it lists them in for one query."""

    measures: list[ir_measures.Measure]
    columns: list[str]
    mrt: bool
    sequences: np.ndarray  # (3, n_measures): measure positions for a RETRIEVED, NOT_RETRIEVED, BACKFILLED query


def _parsed(item: Any) -> list[tuple[ir_measures.Measure, str | None]]:
    """Measures and the column a string names: a trec_eval name first (as ``pt.Experiment``), else ir_measures'."""
    if isinstance(item, str):
        try:
            found = ir_measures.parse_trec_measure(item)
        except (ValueError, KeyError, NameError, SyntaxError):
            found = []
        if len(found) == 1:
            return [(found[0], item)]
        if found:  # a family nickname ('official', 'P'): each measure under its own name
            return [(m, None) for m in found]
    return [(parse_measure(item), None)]


def _convert_measures(eval_metrics: Any) -> _Measures:
    items = [eval_metrics] if isinstance(eval_metrics, (str, ir_measures.Measure)) else list(eval_metrics)
    mrt = any(isinstance(m, str) and m == "mrt" for m in items)
    named: dict[ir_measures.Measure, str | None] = {}
    for item in items:
        if isinstance(item, str) and item == "mrt":
            continue
        for measure, name in _parsed(item):
            if name is not None or measure not in named:
                named[measure] = name  # as pt.Experiment: the last string naming a measure names its column
    if not named:
        raise ParameterError(f"No measures were found in {eval_metrics}")
    sequences = _sequences(list(named))
    measures = [list(named)[i] for i in sequences[RETRIEVED]]  # columns in the order pt.Experiment lists them
    renumbered = np.argsort(sequences[RETRIEVED])[sequences]
    return _Measures(measures, [named[m] or str(m) for m in measures], mrt, renumbered)


def _sequences(measures: list[ir_measures.Measure]) -> np.ndarray:
    """The order ``pt.Experiment`` lists the measures in for one query, learned from ir_measures itself.

    ir_measures yields each provider's measures in its own order (trec_eval's, for pytrec_eval), and fills the
    queries a run lacks by measure name; ``pt.Experiment``'s columns follow it. A one-query probe tells both
    orders. ir_rarity's measures come last (its provider is the last of ir_measures' pipeline), as asked.
    """
    position = {m: i for i, m in enumerate(measures)}
    standard = [m for m in measures if not _is_ours(m)]
    ours = [position[m] for m in measures if _is_ours(m)]
    seen: dict[str, list[int]] = {"a": [], "b": []}
    if standard:
        qrels = pd.DataFrame({"query_id": ["a", "b"], "doc_id": ["d", "d"], "relevance": [1, 1]})
        run = pd.DataFrame({"query_id": ["a"], "doc_id": ["d"], "score": [1.0]})
        try:
            for metric in ir_measures.iter_calc(standard, qrels, run):
                if position[metric.measure] not in seen[metric.query_id]:
                    seen[metric.query_id].append(position[metric.measure])
        except Exception:  # a provider that cannot score the probe: the order asked
            seen = {"a": [], "b": []}
    asked = [position[m] for m in standard]
    retrieved = seen["a"] + [i for i in asked if i not in seen["a"]] + ours
    missing = seen["b"] + [i for i in asked if i not in seen["b"]] + ours
    return np.array([retrieved, missing, list(range(len(measures)))], dtype=np.int64)


def _is_ours(measure: ir_measures.Measure) -> bool:
    """ir_rarity's measures (averaged by their own aggregator, as :func:`ir_rarity.evaluate`'s table)."""
    return isinstance(measure, RarityMeasure) or skips_undefined(measure)


# ---------------------------------------------------------------------------------------------------- running
@dataclass
class _Saving:
    """``save_dir``, ``save_mode`` and ``save_format``: results of each system cached in ``save_dir``."""

    directory: str
    mode: str
    format: Any

    def file(self, name: str) -> str:
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
            return _as_results(self.read(file))
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
        import pyterrier as pt

        if isinstance(self.format, str):
            return pt.io.read_results(file)
        with pt.io.autoopen(file, "rb") as stream:
            return self.format.load(stream) if isinstance(self.format, types.ModuleType) else self.format[0](stream)

    def write(self, results: pd.DataFrame, file: str, append: bool = False) -> None:
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


def _check_save_dir(save_dir: str, names: Sequence[str]) -> None:
    import pyterrier as pt

    if not os.path.exists(save_dir):
        raise ParameterError(f"save_dir {save_dir} does not exist")
    if not os.path.isdir(save_dir):
        raise ParameterError(f"save_dir {save_dir} is not a directory")
    for name in names:
        if not pt.io.ok_filename(name):
            raise ParameterError(f"Name contains bad characters and save_dir is set, name is {name}")


@dataclass
class _Run:
    """A system's results, its running time (ms), and its queries as ``pt.Experiment`` meets them.

    ``segments``: per batch of topics (one segment without ``batch_size``), the queries of its results in
    order of first appearance, and the batch's topics (None: all queries).
    """

    frame: pd.DataFrame
    ms: float
    segments: list[tuple[list[str], list[str] | None]]


def _first_seen(frame: pd.DataFrame) -> list[str]:
    return [str(q) for q in pd.unique(frame["qid"])] if "qid" in frame.columns else []


def _run_systems(systems: Sequence[Any], names: Sequence[str], topics: pd.DataFrame, batch_size: int | None,
                 saving: _Saving | None, verbose: bool) -> list[_Run]:
    """Run every system once (a DataFrame is its own results), as ``pt.Experiment``'s linear plan does."""
    runs = []
    for system, name in progress(list(zip(systems, names, strict=True)), desc="systems", unit="system",
                                 enabled=verbose):
        file = None
        if saving is not None:
            file = saving.file(name)
            system = saving.existing(system, file)
        runs.append(_run_one(system, name, topics, batch_size, saving, file))
    return runs


def _run_one(system: Any, name: str, topics: pd.DataFrame, batch_size: int | None, saving: _Saving | None,
             file: str | None) -> _Run:
    if isinstance(system, pd.DataFrame):
        if len(system) == 0:
            raise InputError(f"{len(topics)} topics, but no results in dataframe", name)
        return _Run(system, 0.0, [(_first_seen(system), None)])
    if batch_size is not None:
        return _run_batches(system, name, topics, batch_size, saving, file)
    start = timer()
    results = system.transform(topics)
    ms = (timer() - start) * 1000.0
    if saving is not None and file is not None:
        saving.write(results, file)
    results = _as_results(results)
    if len(results) == 0:
        raise InputError(f"{len(topics)} topics, but no results received from {system}", name)
    return _Run(results, ms, [(_first_seen(results), None)])


def _run_batches(system: Any, name: str, topics: pd.DataFrame, batch_size: int, saving: _Saving | None,
                 file: str | None) -> _Run:
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
            results = _as_results(results)
            parts.append(results)
            segments.append((_first_seen(results), [str(q) for q in batch["qid"]]))
            start = timer()
    except BaseException:
        if file is not None and os.path.exists(file):
            os.remove(file)  # as pt.Experiment: no half-written results file
        raise
    return _Run(pd.concat(parts, ignore_index=True), ms, segments)


# ---------------------------------------------------------------------------------------------------- scoring
@dataclass
class _Scores:
    """Per-query values of every system (from one :func:`ir_rarity.evaluate` call) and how pt.Experiment orders them.

    ``values[k, s, q]``: measure ``k``, system ``s``, query ``qids[q]`` (the qrels' queries, sorted, then topics
    without qrels, NaN). ``order[s]``: system ``s``'s queries in the order ``pt.Experiment`` meets them (the order
    its sums and tests add them up in); ``status[s, q]``: RETRIEVED, NOT_RETRIEVED or BACKFILLED.
    """

    names: list[str]
    measures: _Measures
    qids: np.ndarray
    n_qrels: int
    values: np.ndarray
    order: np.ndarray
    status: np.ndarray
    mrt: np.ndarray


def _score(runs: list[_Run], names: list[str], qrels: pd.DataFrame, measures: _Measures, backfill: list[str],
           evaluate_options: dict[str, Any]) -> _Scores:
    evaluation = evaluate(dict(zip(names, (r.frame for r in runs), strict=True)), qrels, measures.measures,
                          **evaluate_options)
    if list(evaluation.names) != names:
        evaluation = evaluation.select(names)
    qrels_qids = [str(q) for q in evaluation.query_ids]
    if not qrels_qids:
        raise InputError("No measures received - perhaps qrels and topics had no results in common")
    qids = np.array(qrels_qids + backfill, dtype=object)
    values = np.full((len(measures.measures), len(names), len(qids)), np.nan)
    for k, measure in enumerate(measures.measures):
        values[k, :, :len(qrels_qids)] = evaluation.values[evaluation.measure(measure)]
    ordered = any(not _is_ours(m) for m in measures.measures)
    order, status = _query_orders(runs, qrels_qids, backfill, ordered)
    mrt = np.array([r.ms / len(qrels_qids) for r in runs], dtype=np.float64)
    return _Scores(names, measures, qids, len(qrels_qids), values, order, status, mrt)


def _query_orders(runs: list[_Run], qrels_qids: list[str], backfill: list[str], ordered: bool
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


def _order_of(run: _Run, position: Mapping[str, int], extra: Mapping[str, int], status: np.ndarray) -> list[int]:
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
def _means(scores: _Scores) -> np.ndarray:
    """``(n_systems, n_measures)`` means, as ``pt.Experiment`` computes them.

    A measure ir_measures computes is added up query after query in the order pt.Experiment meets the queries
    and divided by the number of queries (summed, for the counts of :data:`NOT_AVERAGED`); ir_rarity's measures are
    averaged by their own aggregator (skipping undefined queries, e.g. ASL), as :func:`ir_rarity.evaluate`'s table.
    """
    out = np.empty((len(scores.names), len(scores.measures.measures)))
    for k, (measure, column) in enumerate(zip(scores.measures.measures, scores.measures.columns, strict=True)):
        if _is_ours(measure):
            out[:, k] = aggregate(measure, scores.values[k])
            continue
        ordered = np.take_along_axis(scores.values[k], scores.order, axis=1)
        total = np.add.accumulate(ordered, axis=1)[:, -1]
        out[:, k] = total if column in NOT_AVERAGED else total / ordered.shape[1]
    return out


@dataclass
class _Block:
    """One baseline's columns (``"<m> +"``, ``"<m> -"``, ``"<m> p-value"`` per measure) and each system's values."""

    baseline: int
    suffix: str
    rows: list[list[Any]]

    def column(self, column: str, what: str) -> str:
        return f"{column} {what}{self.suffix}"


def _significance(scores: _Scores, options: _Options) -> list[_Block]:
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
                                                              options.test)
        blocks.append(_Block(b, suffix, rows))
    return blocks


def _compare(system: np.ndarray, base: np.ndarray, measure: ir_measures.Measure, test: Callable[..., Any]
             ) -> list[Any]:
    if skips_undefined(measure):
        keep = ~(np.isnan(system) | np.isnan(base))
        system, base = system[keep], base[keep]
    better, worse = int((system > base).sum()), int((system < base).sum())
    if not higher_is_better(measure):
        better, worse = worse, better
    return [better, worse, test(system, base)[1]]


def _correct(table: pd.DataFrame, blocks: list[_Block], columns: list[str], options: _Options) -> None:
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


# ---------------------------------------------------------------------------------------------------- rendering
def _rounded(column: str, value: float, digits: int | dict[str, int] | None) -> float:
    """``pt.Experiment``'s rounding: Python's :func:`round` of the value (correctly rounded, unlike numpy's)."""
    if isinstance(digits, int):
        return builtins.round(value, digits)
    if isinstance(digits, dict) and column in digits:
        return builtins.round(value, digits[column])
    return value


def _render_table(scores: _Scores, means: np.ndarray, options: _Options, blocks: list[_Block], mrt: bool
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
        _correct(table, blocks, columns, options)
    return table


class _Column:
    """A measure under its column name, for :func:`ir_rarity.compare.intervals.add_intervals`."""

    def __init__(self, column: str, measure: ir_measures.Measure) -> None:
        self.column = column
        self.SKIPS_UNDEFINED = skips_undefined(measure)

    def __str__(self) -> str:
        return self.column


def _with_intervals(table: pd.DataFrame, scores: _Scores, level: float) -> pd.DataFrame:
    from ir_rarity.compare.intervals import add_intervals

    named = [_Column(c, m) for c, m in zip(scores.measures.columns, scores.measures.measures, strict=True)]
    values = {n: scores.values[k, :, :scores.n_qrels] for k, n in enumerate(named)}
    return add_intervals(table, values, named, level)


def _perquery_frame(scores: _Scores, digits: int | dict[str, int] | None) -> pd.DataFrame:
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


def _perquery_dict(scores: _Scores) -> dict[int, dict[str, dict[str, float]]]:
    """``pt.Experiment``'s per-query dict: system index -> qid -> measure -> value."""
    out: dict[int, dict[str, dict[str, float]]] = {}
    columns = scores.measures.columns
    for s in range(len(scores.names)):
        out[s] = {}
        for q in scores.order[s].tolist():
            sequence = scores.measures.sequences[scores.status[s, q]].tolist()
            out[s][str(scores.qids[q])] = {columns[k]: float(scores.values[k, s, q]) for k in sequence}
    return out


def _averages_dict(scores: _Scores, means: np.ndarray, mrt: bool) -> dict[str, dict[str, float]]:
    """``pt.Experiment``'s ``dataframe=False`` means: name -> measure -> mean (unrounded, as pt gives them)."""
    out = {}
    for s, name in enumerate(scores.names):
        row = {c: float(means[s, k]) for k, c in enumerate(scores.measures.columns)}
        if mrt:
            row["mrt"] = float(scores.mrt[s])
        out[name] = row
    return out


def _styled(table: pd.DataFrame, scores: _Scores, blocks: list[_Block], how: str) -> Any:
    """``pt.Experiment``'s highlight: the best value of each measure and count column (lowest where lower is better)."""
    best: dict[str, str] = {c: "+" if higher_is_better(m) else "-"
                            for c, m in zip(scores.measures.columns, scores.measures.measures, strict=True)}
    best["mrt"] = "-"
    for block in blocks:
        for c in scores.measures.columns:
            best[block.column(c, "+")], best[block.column(c, "-")] = "+", "-"
    return table.style.apply(_mark, axis=0, best=best, how=how)


def _mark(data: pd.Series, best: Mapping[str, str], how: str) -> list[str]:
    if data.name not in best:
        return [""] * len(data)
    tie, last = ("font-weight: bold",) * 2 if how == "bold" else (
        "background-color: antiquewhite", "background-color: lightgreen")
    target = data.max() if best[str(data.name)] == "+" else data.min()
    values = data.tolist()
    marks = [tie if v == target else "" for v in values]
    if target in values:
        marks[len(values) - values[::-1].index(target) - 1] = last
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


def _pair(averages: Any, per_query: Any) -> Any:
    try:
        from pyterrier._evaluation._rendering import EvaluationDataTuple
    except ImportError:  # another PyTerrier: a plain pair
        return averages, per_query
    return EvaluationDataTuple(averages, per_query)


def _render(scores: _Scores, options: _Options, perquery: bool | str, dataframe: bool, highlight: str | None,
            ci: float | None, save_dir: str | None) -> Any:
    """What ``pt.Experiment`` returns for ``perquery``, ``dataframe`` and ``highlight`` (and ``save_dir``'s files)."""
    means = _means(scores)
    blocks = _significance(scores, options) if options.baselines else []
    table = _render_table(scores, means, options, blocks, scores.measures.mrt)
    if ci is not None:
        table = _with_intervals(table, scores, ci)
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
    return detail if perquery is True else (_pair(averages, detail) if dataframe else (averages, detail))


def _validate(systems: Sequence[Any], topics: pd.DataFrame, measures: _Measures, names: Sequence[str],
              validate: Any) -> None:
    """``pt.Experiment``'s check that each system gives the columns the measures need (``validate=``)."""
    if validate == "ignore":
        return
    try:
        from pyterrier._evaluation._validation import _validate as validate_systems
    except ImportError:  # another PyTerrier: no check
        return
    validate_systems(list(systems), topics, measures.measures, list(names), validate)


# ---------------------------------------------------------------------------------------------------- the entry point
def Experiment(
    retr_systems: Sequence[Any] | Mapping[str, Any],
    topics: Any,
    qrels: Any,
    eval_metrics: Sequence[MeasureLike] | MeasureLike,
    names: Sequence[str] | None = None,
    perquery: bool | str = False,
    dataframe: bool = True,
    batch_size: int | None = None,
    filter_by_qrels: bool = False,
    filter_by_topics: bool = True,
    baseline: int | str | list[int | str] | None = None,
    test: str | Callable[..., Any] = "t",
    correction: str | None = None,
    correction_alpha: float = 0.05,
    highlight: str | None = None,
    round: int | Mapping[str, int] | None = None,
    verbose: bool | str = "auto",
    validate: str = "warn",
    save_dir: str | None = None,
    save_mode: str = "warn",
    save_format: Any = "trec",
    precompute_prefix: bool = False,
    plan: str = "linear",
    *,
    pool: Any = None,
    joint: bool = False,
    teams: Mapping[str, str] | str | tuple[str, str] | None = None,
    ci: float | None = None,
) -> Any:
    r"""Compare systems as ``pt.Experiment`` does, with rarity measures computed against all of them.

    Rarity measures weigh each relevant document :math:`d` by how few of the campaign's :math:`S` systems
    retrieved it, :math:`w(d) = 1 + \alpha\,(1 - S_d/S)` (Türkmen, Lease & Kutlu, ECIR 2023). Each system (a
    transformer, or a DataFrame of results) is run once on ``topics``; then one :func:`ir_rarity.evaluate` call gives
    every per-query value, by the one evaluation rule: without ``pool``, the systems compared are the campaign;
    with ``pool`` (an existing campaign: a :class:`~ir_rarity.Pool`, a :class:`~ir_rarity.CountTable`, run files, a
    folder, a glob, a saved ``.npz`` or a ``.parquet`` count table), each system is scored against it on its own
    (as the member it equals, or as if it alone had joined, :math:`S + 1`), or, with ``joint=True``, as joining it
    together (:math:`S + k`).

    From those values the tables are ``pt.Experiment``'s (PyTerrier 1.1), column for column, with its dtypes and
    row order: a measure ir_measures computes is added up query after query in the order ``pt.Experiment`` meets
    the queries (so the means equal its to the last digit); counts (``NumRet``, ``num_rel``...) are summed;
    ``round`` rounds as Python's :func:`round`; per-query rows come in its order; string measures are read as
    trec_eval names first (``"map"``, ``"ndcg_cut_10"``, column named as given), else in ir_measures syntax
    (``"P_rare(alpha=0.5)@100"``, ``"ASL@g1-10"``, column ``str(measure)``). ir_rarity's measures are averaged by
    their own aggregator, as :func:`ir_rarity.evaluate`'s table: measures that skip undefined queries (ASL) average
    over the queries with a value and are tested on the queries defined for both systems. For lower-is-better
    measures (ASL), ``"<m> +"`` counts the queries where a system is better (lower) than the baseline, and
    ``highlight`` marks the lowest value. ``'mrt'`` is the mean response time, ms per qrels query (0 for DataFrames);
    as ``pt.Experiment``, ``perquery="both"`` leaves it out of the means.

    Beyond ``pt.Experiment``: ``baseline`` may be a name for a list of systems too, and a list of baselines
    (PyTerrier's proposal, terrier-org/pyterrier#597) gives one block of columns per baseline, each equal to
    ``pt.Experiment``'s block for that baseline, with the baseline's name appended to every column
    (``"P@10 +(BM25)"``, ``"P@10 p-value(BM25)"``, ``"P@10 p-value corrected(BM25)"``); ``correction`` then runs once
    per measure over all the blocks' p-values together. ``baseline`` with ``perquery="both"`` is allowed.

    Args:
        retr_systems: Transformers or result DataFrames (PyTerrier or ir_measures columns), as a list or a dict
            ``name -> system``.
        topics: A DataFrame ``qid, query``, a topics file, or an ir_datasets dataset or id.
        qrels: A DataFrame (PyTerrier or ir_measures columns), a qrels file, or an ir_datasets dataset or id.
        eval_metrics: The measures (objects or strings), and ``'mrt'``.
        names: System names (default: ``str(system)``); ignored for a dict, whose keys are the names.
        perquery: False (means), True (per-query frame ``name, qid, measure, value``) or ``"both"``.
        dataframe: DataFrames (True) or ``pt.Experiment``'s dicts (False).
        batch_size: Run transformers on batches of this many topics.
        filter_by_qrels: Drop topics without qrels.
        filter_by_topics: Drop qrels of queries not in the topics.
        baseline: Index or name of the baseline system, or a list of them.
        test: ``"t"`` (:func:`scipy.stats.ttest_rel`), ``"wilcoxon"`` (:func:`scipy.stats.wilcoxon`) or a function
            ``(system, baseline) -> (statistic, p-value)``.
        correction: A :func:`statsmodels.stats.multitest.multipletests` method (``"holm"``, ``"fdr_bh"``...): adds
            ``"<m> reject"`` and ``"<m> p-value corrected"``.
        correction_alpha: The family-wise error rate or false discovery rate of ``correction``.
        highlight: ``"bold"`` or ``"color"``/``"colour"``: a Styler marking the best value of each column.
        round: Digits to round the means to (an int, or a dict ``column -> digits``).
        verbose: Show progress while systems run (``"auto"``: no).
        validate: ``"warn"``, ``"error"`` or ``"ignore"``: check that transformers give the columns measures need.
        save_dir: Cache each transformer's results in this directory (``<name>.res.gz``) and write
            ``aggregated.csv`` and ``perquery.csv`` there, as ``pt.Experiment``.
        save_mode: For a results file already there: ``"warn"``, ``"error"``, ``"reuse"`` or ``"overwrite"``.
        save_format: ``"trec"``, a module with ``dump``/``load`` (``pickle``) or a pair ``(read, write)``.
        precompute_prefix: Only False (each system runs on its own).
        plan: Only ``"linear"``.
        pool: An existing campaign to score the systems against.
        joint: With ``pool``: the systems join it together instead of each on its own.
        teams: S counts teams, not systems: a mapping ``name -> team`` or a leaderboard CSV (as in
            :func:`ir_rarity.evaluate`).
        ci: Add a confidence interval of each mean at this level (e.g. 0.95): columns ``"<m> ci low"`` and
            ``"<m> ci high"`` after each measure, a percentile bootstrap over queries (seed 0,
            :func:`ir_rarity.compare.intervals.add_intervals`).

    Returns:
        What ``pt.Experiment`` returns: the means table (a Styler with ``highlight``), the per-query frame, or both
        (``EvaluationDataTuple``); dicts with ``dataframe=False``.

    Raises:
        ParameterError: an argument ``pt.Experiment`` refuses or that cannot be reproduced (``plan="tree"``), an
            unknown, out-of-range or badly typed ``baseline``, a bad measure.
        InputError: unreadable systems, topics or qrels, or a system without results.

    Example:
        >>> import pandas as pd, ir_rarity
        >>> from ir_rarity import covid_round1
        >>> pool = ir_rarity.Pool.from_runs(covid_round1.runs)
        >>> systems = {n: pool.run(n).rename(columns={"query_id": "qid", "doc_id": "docno"}) for n in ["BERT", "run1"]}
        >>> qrels = ir_rarity.read_trec_qrels(covid_round1.qrels)
        >>> topics = pd.DataFrame({"qid": sorted(qrels["query_id"].unique()), "query": ""})
        >>> table = ir_rarity.Experiment(systems, topics, qrels, ["P@10", "AP_rare"], baseline="BERT")
        >>> list(table.columns)
        ['name', 'P@10', 'AP_rare', 'P@10 +', 'P@10 -', 'P@10 p-value', 'AP_rare +', 'AP_rare -', 'AP_rare p-value']

    .. versionadded:: 0.1.0
    """
    systems, names = _systems_and_names(retr_systems, names)
    options = _options(names, baseline, test, correction, correction_alpha, round, perquery, plan, precompute_prefix)
    if save_dir is not None:
        _check_save_dir(save_dir, names)
    measures = _convert_measures(eval_metrics)
    topics_frame, qrels_frame = _filtered(as_topics_frame(topics), _qrels_for_pyterrier(qrels), filter_by_qrels,
                                          filter_by_topics)
    _validate(systems, topics_frame, measures, names, validate)
    saving = None if save_dir is None else _Saving(save_dir, save_mode, save_format)
    runs = _run_systems(systems, names, topics_frame, batch_size, saving, verbose is True)
    backfill = [] if perquery is False else _backfill(topics_frame, qrels_frame)
    scores = _score(runs, names, qrels_frame, measures, backfill,
                    {"pool": pool, "joint": joint, "teams": teams, "progress": verbose is True})
    return _render(scores, options, perquery, dataframe, highlight, ci, save_dir)


def _backfill(topics: pd.DataFrame, qrels: pd.DataFrame) -> list[str]:
    """Topics without qrels, in topic order: ``pt.Experiment``'s per-query rows give them NaN (with a warning)."""
    judged = set(qrels["qid"])
    backfill = [q for q in dict.fromkeys(str(q) for q in topics["qid"]) if q not in judged]
    if backfill:
        warnings.warn(BACKFILL_WARNING.format(len(backfill)), stacklevel=3)
    return backfill
