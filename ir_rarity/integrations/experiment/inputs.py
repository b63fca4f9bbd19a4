"""What :func:`ir_rarity.Experiment` is given, converted and checked before anything runs.

Qrels in PyTerrier's columns, ``filter_by_qrels``/``filter_by_topics``, results frames renamed, the systems and
their names, the checked options that shape the table (:class:`_Options`: baselines, test, correction, rounding),
``validate=``, the topics without qrels (``perquery``), and the measures with the column names and per-query order
``pt.Experiment`` gives them (:class:`_Measures`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ir_measures
import numpy as np
import pandas as pd

from ir_rarity.engine.aggregate import skips_undefined
from ir_rarity.errors import ParameterError, did_you_mean
from ir_rarity.io.frames import as_qrels_frame
from ir_rarity.measures.base import RarityMeasure
from ir_rarity.measures.parse import measure_label, parse_measure

RETRIEVED, NOT_RETRIEVED, BACKFILLED = 0, 1, 2
"""What a query is for a system: in its results, in the qrels only, or a topic without qrels (``perquery``)."""

BACKFILL_WARNING = ("{} topic(s) not found in qrels. Scores for these topics are given as NaN and should not "
                    "contribute to averages.")


# ---------------------------------------------------------------------------------------------------- inputs
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
    """Measures and the column a string names: a trec_eval name first (as ``pt.Experiment``), else ir_measures'.

    A trec_eval name names its column as given (as ``pt.Experiment``); so does a string in ir_measures syntax
    (whitespace-normalised), which ``pt.Experiment`` refuses: ``'P_rare(alpha=0)@100'``, not ``str(measure)``.
    """
    if isinstance(item, str):
        try:
            found = ir_measures.parse_trec_measure(item)
        except (ValueError, KeyError, NameError, SyntaxError):
            found = []
        if len(found) == 1:
            return [(found[0], item)]
        if found:  # a family nickname ('official', 'P'): each measure under its own name
            return [(m, None) for m in found]
    return [(parse_measure(item), measure_label(item) if isinstance(item, str) else None)]


def _is_trec(item: Any) -> bool:
    try:
        return isinstance(item, str) and len(ir_measures.parse_trec_measure(item)) == 1
    except (ValueError, KeyError, NameError, SyntaxError):
        return False


def _convert_measures(eval_metrics: Any) -> _Measures:
    items = [eval_metrics] if isinstance(eval_metrics, (str, ir_measures.Measure)) else list(eval_metrics)
    mrt = any(isinstance(m, str) and m == "mrt" for m in items)
    named: dict[ir_measures.Measure, str | None] = {}
    for item in items:
        if isinstance(item, str) and item == "mrt":
            continue
        for measure, name in _parsed(item):
            if measure not in named or (name is not None and _is_trec(item)):
                named[measure] = name  # as pt.Experiment: the last trec_eval name names its column
            elif named[measure] is None:
                named[measure] = name  # else the first string naming it
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


# ---------------------------------------------------------------------------------------------------- checks
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


def _backfill(topics: pd.DataFrame, qrels: pd.DataFrame) -> list[str]:
    """Topics without qrels, in topic order: ``pt.Experiment``'s per-query rows give them NaN (with a warning)."""
    judged = set(qrels["qid"])
    backfill = [q for q in dict.fromkeys(str(q) for q in topics["qid"]) if q not in judged]
    if backfill:
        warnings.warn(BACKFILL_WARNING.format(len(backfill)), stacklevel=3)
    return backfill
