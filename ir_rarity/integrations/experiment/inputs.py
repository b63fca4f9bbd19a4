"""What :func:`ir_rarity.Experiment` is given, converted and checked before anything runs.

Qrels in PyTerrier's columns, ``filter_by_qrels``/``filter_by_topics``, results frames renamed, the systems and
their names, the checked options that shape the table (:class:`Options`: baselines, test, correction, rounding),
``validate=`` (:func:`validate_systems`, on PyTerrier's public inspection API), the topics without qrels
(``perquery``), and the measures, parsed once, with the column names and per-query order ``pt.Experiment`` gives
them (:class:`Measures`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import ir_measures
import numpy as np
import pandas as pd

from ir_rarity.engine import skips_undefined
from ir_rarity.errors import ParameterError, did_you_mean
from ir_rarity.io.frames import as_qrels_frame
from ir_rarity.measures.base import RarityMeasure
from ir_rarity.measures.parse import higher_is_better, measure_label, measure_labels, parse_measure

__all__ = [
    "BACKFILLED",
    "NOT_RETRIEVED",
    "RETRIEVED",
    "Measures",
    "Options",
    "as_results",
    "backfill_topics",
    "checked_options",
    "convert_measures",
    "filtered",
    "is_ours",
    "qrels_for_pyterrier",
    "systems_and_names",
    "validate_systems",
]

RETRIEVED, NOT_RETRIEVED, BACKFILLED = 0, 1, 2
"""What a query is for a system: in its results, in the qrels only, or a topic without qrels (``perquery``)."""

BACKFILL_WARNING = ("{} topic(s) not found in qrels. Scores for these topics are given as NaN and should not "
                    "contribute to averages.")


# ---------------------------------------------------------------------------------------------------- inputs
def qrels_for_pyterrier(qrels: Any) -> pd.DataFrame:
    """Qrels in PyTerrier's columns (``qid, docno, label``) from anything :func:`ir_rarity.io.as_qrels_frame` reads.

    Args:
        qrels: A qrels DataFrame (PyTerrier or ir_measures columns), a qrels file, or an ir_datasets dataset or id.

    Returns:
        The qrels with columns ``qid``, ``docno`` and ``label``.

    Raises:
        InputError: qrels that cannot be read.
    """
    frame = as_qrels_frame(qrels)
    return frame.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})


def filtered(topics: pd.DataFrame, qrels: pd.DataFrame, by_qrels: bool, by_topics: bool
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``pt.Experiment``'s ``filter_by_qrels`` (topics without qrels dropped) and ``filter_by_topics``.

    Args:
        topics: Topics (``qid, query``).
        qrels: Qrels in PyTerrier's columns.
        by_qrels: Drop the topics without qrels.
        by_topics: Drop the qrels of queries not in the topics.

    Returns:
        The topics and the qrels, filtered.

    Raises:
        ParameterError: no query left after filtering.
    """
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


def as_results(frame: pd.DataFrame) -> pd.DataFrame:
    """Results with PyTerrier's columns (``qid, docno, score``), renaming ir_measures' columns.

    Args:
        frame: Results with PyTerrier's or ir_measures' columns (``query_id, doc_id, score``).

    Returns:
        ``frame`` itself, or a renamed copy when it had ir_measures' columns only.
    """
    if {"query_id", "doc_id"} <= set(frame.columns) and not {"qid", "docno"} & set(frame.columns):
        return frame.rename(columns={"query_id": "qid", "doc_id": "docno"})
    return frame


# ---------------------------------------------------------------------------------------------------- arguments
@dataclass
class Options:
    """The checked arguments that shape the table.

    Attributes:
        baselines: Indices of the baseline systems (none: no significance columns).
        suffixed: Several baselines (a list): each block's columns end with ``"(<baseline name>)"``.
        test: The paired test, ``(system, baseline) -> (statistic, p-value)``.
        correction: A :func:`statsmodels.stats.multitest.multipletests` method, or None.
        alpha: The correction's family-wise error rate or false discovery rate.
        round: Digits to round the means to (an int, or a dict ``column -> digits``), or None.
    """

    baselines: list[int]
    suffixed: bool  # several baselines (a list): each block's columns end with "(<baseline name>)"
    test: Callable[..., Any]
    correction: str | None
    alpha: float
    round: int | dict[str, int] | None


def systems_and_names(retr_systems: Any, names: Sequence[Any] | None) -> tuple[list[Any], list[str]]:
    """The systems (result frames renamed by :func:`as_results`) and their names, as ``pt.Experiment`` takes them.

    Args:
        retr_systems: Transformers or result DataFrames, as a list or a dict ``name -> system``.
        names: The systems' names (default ``str(system)``); ignored for a dict, whose keys are the names.

    Returns:
        The systems and their names, in order.

    Raises:
        ParameterError: not a list or dict, names of another length or twice, or a system that is neither a
            transformer nor a DataFrame.
    """
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
    return [as_results(s) if isinstance(s, pd.DataFrame) else s for s in systems], names


def _baseline_index(baseline: Any, names: Sequence[str]) -> int:
    if isinstance(baseline, str):
        if baseline not in names:
            shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
            raise ParameterError(f"unknown baseline {baseline!r}" + did_you_mean(baseline, names,
                                                                                  f": the systems are {shown}"))
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


def checked_options(names: Sequence[str], baseline: Any, test: Any, correction: str | None, alpha: float,
                    round_: Any, perquery: Any, plan: str, precompute_prefix: bool) -> Options:
    """The arguments of :func:`ir_rarity.Experiment` that shape the table, checked before anything runs.

    Args:
        names: The systems' names (a baseline may be one).
        baseline: An index or name of a system, a list of them, or None.
        test: ``"t"``, ``"wilcoxon"`` or a function ``(system, baseline) -> (statistic, p-value)``.
        correction: A :func:`statsmodels.stats.multitest.multipletests` method, or None.
        alpha: The correction's alpha.
        round_: Digits to round the means to (an int, a dict ``column -> digits``), or None.
        perquery: False, True or ``"both"``.
        plan: ``"linear"`` only.
        precompute_prefix: False only.

    Returns:
        The checked :class:`Options`.

    Raises:
        ParameterError: an argument out of its range, or one ``ir_rarity.Experiment`` cannot reproduce.
    """
    if perquery not in (False, True, "both"):
        raise ParameterError(f"perquery must be False, True or 'both', not {perquery!r}")
    if plan == "tree" or precompute_prefix:
        raise ParameterError("plan='tree' and precompute_prefix=True (pipeline prefixes shared between systems) are "
                             "not supported by ir_rarity.Experiment: each system runs on its own (plan='linear')")
    baselines, suffixed = _baselines(baseline, names)
    _checked_correction(correction, baselines)
    return Options(baselines, suffixed, _test_function(test), correction, float(alpha),
                    _checked_round(round_, perquery))


# ---------------------------------------------------------------------------------------------------- measures
@dataclass
class Measures:
    """The measures, parsed once, under their ``pt.Experiment`` column names, and its order of them for one query.

    Attributes:
        labels: Measure -> its column, in the order ``pt.Experiment`` lists the columns: built once by
            :func:`convert_measures`, passed to :func:`ir_rarity.evaluate` (which names its columns by it) and read
            by the scoring and the rendering, so no layer parses a measure again.
        higher: Per measure (in that order), whether larger values are better.
        mrt: Whether ``'mrt'`` (mean response time) was asked for.
        sequences: ``(3, n_measures)``: the measures' positions in the order ``pt.Experiment`` lists them for a
            RETRIEVED, a NOT_RETRIEVED and a BACKFILLED query.
        measures: The measures (``labels``' keys).
        columns: Their columns (``labels``' values).
    """

    labels: dict[ir_measures.Measure, str]
    higher: list[bool]
    mrt: bool
    sequences: np.ndarray
    measures: list[ir_measures.Measure] = field(init=False)
    columns: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.measures = list(self.labels)
        self.columns = list(self.labels.values())


def _parsed(item: Any) -> tuple[list[tuple[ir_measures.Measure, str | None]], bool]:
    """An item's measures with the column each names (None: ``str(measure)``), and whether it is one trec_eval name.

    A string is read as a trec_eval name first (as ``pt.Experiment``): one measure names its column as given, a
    family nickname (``'P'``, ``'official'``) gives each measure under its own name. Any other string is read in
    ir_measures syntax (:func:`~ir_rarity.measures.parse.parse_measure`) and names its column as given
    (whitespace outside quotes dropped, :func:`~ir_rarity.measures.parse.measure_label`), which ``pt.Experiment``
    refuses:
    ``'P_rare(alpha=0)@100'``, not ``str(measure)``. A trec_eval name's measures are checked when the mapping is
    built (:func:`convert_measures`).
    """
    if not isinstance(item, str):
        return [(parse_measure(item), None)], False
    try:
        found = ir_measures.parse_trec_measure(item)
    except (ValueError, KeyError, NameError, SyntaxError):
        found = []
    if len(found) == 1:
        return [(found[0], item)], True
    if found:  # a family nickname: each measure under its own name
        return [(m, None) for m in found], False
    return [(parse_measure(item), measure_label(item))], False


def convert_measures(eval_metrics: Any) -> Measures:
    """The measures of :func:`ir_rarity.Experiment`, parsed once, named and ordered as ``pt.Experiment`` does.

    Each distinct string is parsed once (a trec_eval name first, else ir_measures syntax); a measure named twice
    keeps one column, named by the last trec_eval name naming it (as ``pt.Experiment``), else by the first string,
    else ``str(measure)``. The columns come in the order ``pt.Experiment`` lists them (:func:`_sequences`). The
    ``{measure: column}`` mapping is built once, by :func:`~ir_rarity.measures.parse.measure_labels`.

    Args:
        eval_metrics: A measure or a list of them (objects or strings), and ``'mrt'``.

    Returns:
        The :class:`Measures`: the ``{measure: column}`` mapping every later layer reads.

    Raises:
        ParameterError: a bad measure, or no measure at all.
    """
    items = [eval_metrics] if isinstance(eval_metrics, (str, ir_measures.Measure)) else list(eval_metrics)
    mrt = any(isinstance(m, str) and m == "mrt" for m in items)
    named: dict[ir_measures.Measure, str | None] = {}
    strings: dict[str, tuple[list[tuple[ir_measures.Measure, str | None]], bool]] = {}
    for item in items:
        if isinstance(item, str) and item == "mrt":
            continue
        if isinstance(item, str):
            found, trec = strings[item] if item in strings else strings.setdefault(item, _parsed(item))
        else:
            found, trec = _parsed(item)
        for measure, name in found:
            if measure not in named or (name is not None and trec):
                named[measure] = name  # as pt.Experiment: the last trec_eval name names its column
            elif named[measure] is None:
                named[measure] = name  # else the first string naming it
    if not named:
        raise ParameterError(f"No measures were found in {eval_metrics}")
    sequences = _sequences(list(named))
    measures = [list(named)[i] for i in sequences[RETRIEVED]]  # columns in the order pt.Experiment lists them
    renumbered = np.argsort(sequences[RETRIEVED])[sequences]
    labels = measure_labels({m: named[m] or str(m) for m in measures})
    return Measures(labels, [higher_is_better(m) for m in labels], mrt, renumbered)


def _sequences(measures: list[ir_measures.Measure]) -> np.ndarray:
    """The order ``pt.Experiment`` lists the measures in for one query, learned from ir_measures itself.

    ir_measures yields each provider's measures in its own order (trec_eval's, for pytrec_eval), and fills the
    queries a run lacks by measure name; ``pt.Experiment``'s columns follow it. A one-query probe tells both
    orders. ir_rarity's measures come last (its provider is the last of ir_measures' pipeline), as asked.
    """
    position = {m: i for i, m in enumerate(measures)}
    standard = [m for m in measures if not is_ours(m)]
    ours = [position[m] for m in measures if is_ours(m)]
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


def is_ours(measure: ir_measures.Measure) -> bool:
    """Whether ``measure`` is ir_rarity's (averaged by its own aggregator, as :func:`ir_rarity.evaluate`'s table).

    Args:
        measure: A parsed measure.

    Returns:
        True for a rarity measure or one that skips undefined queries (ASL).
    """
    return isinstance(measure, RarityMeasure) or skips_undefined(measure)


# ---------------------------------------------------------------------------------------------------- checks
def validate_systems(systems: Sequence[Any], topics: pd.DataFrame, measures: Measures, names: Sequence[str],
                     validate: Any) -> None:
    """``pt.Experiment``'s ``validate=``: whether each system gives the columns the measures need.

    The columns needed are ir_measures' run inputs of the measures (:func:`ir_measures.run_inputs`) in PyTerrier's
    names (:func:`pyterrier.model.from_ir_measures`). A DataFrame gives its columns; a transformer the columns
    :func:`pyterrier.inspect.transformer_outputs` infers for the topics' columns. A transformer whose input
    validation refuses the topics (:class:`pyterrier.validate.InputValidationError`) is invalid; one whose outputs
    cannot be inferred (:class:`pyterrier.inspect.InspectError`) cannot be validated. The report is
    ``pt.Experiment``'s, word for word ("Experiment Pipeline Validation Report"), built on PyTerrier's public API.

    Args:
        systems: The systems (transformers or result frames).
        topics: The topics the transformers will run on.
        measures: The measures to compute.
        names: The systems' names.
        validate: ``"warn"`` (warn with the report), ``"error"`` (raise it when a pipeline is invalid or lacks a
            needed column; only warn-free when the outputs merely cannot be inferred, as ``pt.Experiment``) or
            ``"ignore"``.

    Raises:
        ValueError: ``validate="error"`` and a pipeline is invalid or does not give a needed column.
        ParameterError: ``validate`` is not ``"warn"``, ``"error"`` or ``"ignore"``.
    """
    if validate not in ("warn", "error", "ignore"):
        raise ParameterError(f"validate must be 'warn', 'error' or 'ignore', not {validate!r}")
    if validate == "ignore":
        return
    import pyterrier as pt

    required = set(pt.model.from_ir_measures(set(ir_measures.run_inputs(measures.measures))))
    found: dict[str, list[str]] = {"unknown": [], "invalid": [], "wrong": []}
    for i, (name, system) in enumerate(zip(names, systems, strict=True)):
        label = f"Pipeline #{i}: {name} ({system})" if name != str(system) else f"Pipeline #{i}: {system}"
        outcome: list[str] | str
        if isinstance(system, pd.DataFrame):
            label, outcome = f"DataFrame #{i}: {system.columns.tolist()}", system.columns.tolist()
        else:
            outcome = _outputs(system, topics.columns.tolist())
        if isinstance(outcome, str):
            found[outcome].append(label)
        elif required.difference(outcome):
            found["wrong"].append(f"{label}. Produces {outcome}")
    unknown, invalid, wrong = found["unknown"], found["invalid"], found["wrong"]
    if not (unknown or invalid or wrong):
        return
    report = _validation_report(required, invalid, wrong, unknown)
    if validate == "error" and (invalid or wrong):
        raise ValueError(report)
    if validate == "warn":
        warnings.warn(report, stacklevel=3)


def _outputs(transformer: Any, columns: list[str]) -> list[str] | str:
    """The columns a transformer gives for input ``columns``, or ``"unknown"`` / ``"invalid"`` (it refuses them)."""
    import pyterrier as pt

    try:
        return pt.inspect.transformer_outputs(transformer, input_columns=columns) or []
    except pt.inspect.InspectError:
        return "unknown"
    except pt.validate.InputValidationError:
        return "invalid"


_INSPECTION_HELP = "https://pyterrier.readthedocs.io/en/latest/troubleshooting/inspection.html"


def _validation_report(required: set[str], invalid: list[str], wrong: list[str], unknown: list[str]) -> str:
    """``pt.Experiment``'s "Experiment Pipeline Validation Report", section by section."""
    sections = [
        (invalid, "The following pipelines failed validation (i.e., they are incompatible with one another or the "
                  "provided topics):", "\n\n"),
        (wrong, f"The following pipelines do not produce the required outputs for evaluation ({required}):", "\n\n"),
        (unknown, "The following pipelines could not be validated (i.e., it is unclear what outputs they produce):",
         "\nIf these pipelines work, set validate='ignore' to remove this warning, or make them inspectable to "
         "clarify how they work.\n\n"),
    ]
    report = "Experiment Pipeline Validation Report\n\n"
    for pipelines, heading, end in sections:
        if pipelines:
            report += heading + "".join(f"\n - {p}" for p in pipelines) + end
    return report + f"See {_INSPECTION_HELP} for more information."


def backfill_topics(topics: pd.DataFrame, qrels: pd.DataFrame) -> list[str]:
    """Topics without qrels, in topic order: ``pt.Experiment``'s per-query rows give them NaN (with a warning).

    Args:
        topics: The topics (``qid``).
        qrels: The qrels in PyTerrier's columns (``qid``).

    Returns:
        The topics' qids that have no qrels, each once.
    """
    judged = set(qrels["qid"])
    backfill = [q for q in dict.fromkeys(str(q) for q in topics["qid"]) if q not in judged]
    if backfill:
        warnings.warn(BACKFILL_WARNING.format(len(backfill)), stacklevel=3)
    return backfill
