"""Checks every registered measure family passes, driven by the one registry (``ir_rarity.FAMILIES``).

As scikit-learn's ``test_common.py`` does for its metrics: a family added to the registry is checked here with no
test of its own to write. Each family:

* parses its own printed name, under every parameter it supports;
* has an engine kernel;
* at ``alpha=0`` equals its standard counterpart as ir_measures (pytrec_eval) computes it, per run and query,
  under every combination of the parameters both share (cutoff, ``rel``, ``judged_only``) and of the rarity-only
  ones that must not matter at ``alpha=0`` (``depth``, ``bounded``, ``weighting``), with qrels holding negative
  labels too;
* gives the same mean through :func:`ir_rarity.evaluate`, the ir_measures provider and ``ir_rarity.Experiment``;
* refuses a cutoff of 0 and a non-finite float parameter with a :class:`~ir_rarity.ParameterError`, through
  parsing and through the front door.
"""

from __future__ import annotations

import itertools
import math
import re

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import FAMILIES, ParameterError
from ir_rarity.engine.compute import KERNELS
from ir_rarity.measures.parse import parse_measure

RUNS = ["BERT", "BBGhelani1", "CSIROmed_RF", "IRIT_marked_base", "BM25R2", "KU_run1"]

STANDARD = {"P_rare": "P", "AP_rare": "AP", "nDCG_rare": "nDCG", "R_rare": "R"}
"""Rarity family -> the standard measure it equals at alpha=0 (Türkmen, Lease & Kutlu, ECIR 2023, eq. 3)."""

IDS = [str(f.NAME) for f in FAMILIES]


def _cutoff(family: ir_measures.Measure) -> dict[str, object]:
    return {"cutoff": 10} if "cutoff" in family.SUPPORTED_PARAMS else {}


def _variants(family: ir_measures.Measure) -> list[ir_measures.Measure]:
    """One instance per supported parameter value worth printing (every choice, both booleans)."""
    base = _cutoff(family)
    out = [family(**base)]
    for name, info in family.SUPPORTED_PARAMS.items():
        if name in ("cutoff", "pool"):
            continue
        values: list[object]
        if isinstance(info.choices, (list, tuple)):
            values = list(info.choices)
        elif info.dtype is bool:
            values = [True, False]
        elif info.dtype is float:
            values = [0.25, 2.0] if name == "alpha" else [0.01]
        elif info.dtype is int:
            values = [2, 20]
        elif name == "group":
            values = ["g1-10", "g2-2"]
        else:
            continue
        for value in values:
            params = {**base, name: value}
            if name == "bounded" and value:  # the bounded variant takes alpha in [0, 1]
                params["alpha"] = 0.5
            out.append(family(**params))
    return out


@pytest.fixture(scope="module")
def runs(covid_pool: ir_rarity.Pool) -> dict[str, pd.DataFrame]:
    return {name: covid_pool.run(name)[["query_id", "doc_id", "score"]] for name in RUNS}


@pytest.fixture(scope="module")
def qrels_with_negatives(covid_qrels: pd.DataFrame) -> pd.DataFrame:
    """Round-1 qrels with every seventh judgment labelled -1 (judged, never relevant)."""
    qrels = covid_qrels.copy()
    qrels.loc[qrels.index[::7], "relevance"] = -1
    return qrels


# ------------------------------------------------------------------------------------------------ the registry
def test_registry_is_the_package_exports_and_ir_measures_registry() -> None:
    assert len({f.NAME for f in FAMILIES}) == len(FAMILIES)
    for family in FAMILIES:
        assert getattr(ir_rarity, str(family.NAME)) is family
        assert ir_measures.measures.registry[family.NAME] is family


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_traits_are_declared_on_the_measure(family: ir_measures.Measure) -> None:
    # The paper's counterparts (alpha=0 gives them) are what BASE_MEASURE declares; U_novel is read against P.
    assert {**STANDARD, "U_novel": "P", "ASL": None}[str(family.NAME)] == family.BASE_MEASURE
    if family.AFFINE_IN_SD:  # affine families must have alpha, linear weighting, and batch samples
        assert {"alpha", "weighting"} <= set(family.SUPPORTED_PARAMS) and family.BATCHES_SAMPLES
    if family.ALPHA_CURVE:
        assert "alpha" in family.SUPPORTED_PARAMS and family.BASE_MEASURE is not None


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_every_family_has_a_kernel(family: ir_measures.Measure) -> None:
    assert family.NAME in KERNELS


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_parses_its_own_printed_name(family: ir_measures.Measure) -> None:
    for measure in _variants(family):
        text = str(measure)
        parsed = parse_measure(text)
        assert parsed == measure, text
        assert str(parsed) == text
        assert ir_measures.parse_measure(text) == measure, text


# ------------------------------------------------------------------------------------------------ alpha = 0
def _ir_measures_matrix(measure: ir_measures.Measure, qrels: pd.DataFrame, runs: dict[str, pd.DataFrame],
                        query_ids: list[str]) -> np.ndarray:
    """Per-query values of a standard measure by ir_measures itself (pytrec_eval), default for missing queries."""
    out = np.full((len(runs), len(query_ids)), 0.0)
    column = {q: i for i, q in enumerate(query_ids)}
    for r, frame in enumerate(runs.values()):
        for metric in ir_measures.iter_calc([measure], qrels, frame):
            if metric.query_id in column:
                out[r, column[metric.query_id]] = metric.value
    return out


def _standard_pairs(name: str) -> list[tuple[ir_measures.Measure, ir_measures.Measure]]:
    """(rarity at alpha=0, its standard counterpart) over the parameters that must give the standard value."""
    family, standard = ir_measures.measures.registry[name], ir_measures.measures.registry[STANDARD[name]]
    cutoffs: list[int | None] = [5, 100] if name != "AP_rare" else [None, 100]
    pairs = []
    rels = [1, 2] if "rel" in standard.SUPPORTED_PARAMS else [None]  # ir_measures' nDCG has gains, not rel
    for cutoff, rel, judged_only, (bounded, weighting, depth) in itertools.product(
            cutoffs, rels, [False, True], [(False, "linear", None), (True, "log", 20)]):
        shared: dict[str, object] = {"judged_only": judged_only}
        if rel is not None:
            shared["rel"] = rel
        if cutoff is not None:
            shared["cutoff"] = cutoff
        rare = family(alpha=0, bounded=bounded, weighting=weighting, depth=depth, **shared)
        pairs.append((rare, standard(**shared)))
    return pairs


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(STANDARD))
@pytest.mark.parametrize("negatives", [False, True], ids=["round1", "negative labels"])
def test_alpha_zero_equals_the_standard_measure(name: str, negatives: bool, runs: dict[str, pd.DataFrame],
                                                covid_qrels: pd.DataFrame,
                                                qrels_with_negatives: pd.DataFrame) -> None:
    qrels = qrels_with_negatives if negatives else covid_qrels
    pairs = _standard_pairs(name)
    result = ir_rarity.evaluate(runs, qrels, [rare for rare, _ in pairs])
    query_ids = [str(q) for q in result.query_ids]
    for rare, standard in pairs:
        expected = _ir_measures_matrix(standard, qrels, runs, query_ids)
        np.testing.assert_allclose(result.values[rare], expected, rtol=1e-12, atol=1e-12,
                                   err_msg=f"{rare} != {standard}")


# ------------------------------------------------------------------------------------------------ one number
def _example(family: ir_measures.Measure) -> ir_measures.Measure:
    params = _cutoff(family)
    if "alpha" in family.SUPPORTED_PARAMS:
        params["alpha"] = 0.5
    if family.NAME == "ASL":
        return family @ "g1-10"
    return family(**params)


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_one_value_through_every_entry_point(family: ir_measures.Measure, runs: dict[str, pd.DataFrame],
                                             covid_qrels: pd.DataFrame) -> None:
    measure = _example(family)
    front = ir_rarity.evaluate(runs, covid_qrels, [measure]).table()[str(measure)]

    pool = ir_rarity.Pool.from_runs(runs)
    with pool:
        provider = {name: ir_measures.calc_aggregate([measure], covid_qrels, frame)[measure]
                    for name, frame in runs.items()}

    systems = {name: frame.rename(columns={"query_id": "qid", "doc_id": "docno"}) for name, frame in runs.items()}
    topics = pd.DataFrame({"qid": sorted(covid_qrels["query_id"].unique()), "query": "q"})
    pt_qrels = covid_qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    experiment = ir_rarity.Experiment(systems, topics, pt_qrels, [measure]).set_index("name")[str(measure)]

    for name in runs:
        assert provider[name] == front[name], name
        assert experiment[name] == front[name], name


# ------------------------------------------------------------------------------------------------ bad parameters
def _float_params(family: ir_measures.Measure) -> list[str]:
    return [n for n, info in family.SUPPORTED_PARAMS.items() if info.dtype is float]


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_refuses_a_cutoff_of_zero_and_non_finite_parameters(family: ir_measures.Measure,
                                                            runs: dict[str, pd.DataFrame],
                                                            covid_qrels: pd.DataFrame) -> None:
    bad: list[ir_measures.Measure] = []
    if "cutoff" in family.SUPPORTED_PARAMS:
        bad.append(family @ 0)
        with pytest.raises(ParameterError, match="cutoff"):
            parse_measure(f"{family.NAME}@0")
    else:  # ASL: its @ parameter is a group of relevant documents, counted from 1
        bad.append(family @ "g0-3")
    for name in _float_params(family):
        for value in (math.nan, math.inf, -math.inf):
            bad.append(family(**_cutoff(family), **{name: value}))
    assert bad
    for measure in bad:
        with pytest.raises(ParameterError):
            parse_measure(measure)
        with pytest.raises(ParameterError):
            ir_rarity.evaluate(runs, covid_qrels, [measure])


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_huge_float_parameters_give_finite_values_or_a_stated_bound(family: ir_measures.Measure,
                                                                   runs: dict[str, pd.DataFrame],
                                                                   covid_qrels: pd.DataFrame) -> None:
    """Every float parameter (alpha, epsilon, ...) at 1e15, 1e16, 1e300 and the largest float gives finite values
    (NaN only where the default measure has none either) or a ParameterError stating its bound."""
    default = family(**_cutoff(family))
    reference = ir_rarity.evaluate(runs, covid_qrels, [default]).matrix(str(default)).to_numpy()
    for name in _float_params(family):
        for value in (1e15, 1e16, 1e300, float(np.finfo(np.float64).max)):
            measure = family(**_cutoff(family), **{name: value})
            try:
                values = ir_rarity.evaluate(runs, covid_qrels, [measure]).matrix(str(measure)).to_numpy()
            except ParameterError as e:
                assert re.search(rf"{name} must be <= \S+", str(e)), str(e)
                continue
            assert np.array_equal(np.isnan(values), np.isnan(reference)), measure
            assert np.isfinite(values[~np.isnan(values)]).all(), measure
