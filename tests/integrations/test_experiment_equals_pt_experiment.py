"""ir_rarity.Experiment gives pt.Experiment's frames exactly (values, columns, order, dtypes) on standard measures.

Six TREC-COVID round-1 runs as result DataFrames (one of them in its own query order and missing two queries),
standard measures computed by the engine (P, AP, nDCG, RR, R, num_ret) and through ir_measures (SetP, infAP), the
same arguments to both: every frame must be equal. Means agree within 1e-13 relative, not to the last bit: ours
are exactly rounded sums over the queries (the same values in any order give the same mean), pt.Experiment adds them
left to right; everything else (per-query values, counts, p-values, columns, order, dtypes) is exact.
"""

from __future__ import annotations

import os
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
from pandas.testing import assert_frame_equal
from statsmodels.stats.multitest import multipletests

import ir_rarity
from ir_rarity import Pool
from ir_rarity.errors import ParameterError
from ir_rarity.integrations.pyterrier import ExperimentResults

NAMES = ["BBGhelani1", "BERT", "run1", "sab20.1.meta.docs", "10x10.prf.unipd.it", "BITEM_BL"]
MEASURES: list = [ir_measures.parse_measure(m) for m in ["P@10", "AP", "nDCG@10", "RR", "R@100", "SetP", "infAP"]]
MEASURES += ["P_5", "num_ret"]  # trec_eval names: columns named as given; num_ret is summed, not averaged

MEANS: dict = {"check_exact": False, "rtol": 1e-13, "atol": 0.0}
"""Frame equality with means within 1e-13 relative (exactly rounded sums here, left-to-right sums in pt)."""

# slow: pt.Experiment on round-1 runs, every option; RuntimeWarning: scipy on identical pairs, in both
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::RuntimeWarning")]


@pytest.fixture(scope="module")
def systems(covid_pool: Pool) -> list[pd.DataFrame]:
    frames = [covid_pool.run(n).rename(columns={"query_id": "qid", "doc_id": "docno"}) for n in NAMES]
    last = frames[-1]  # a system in its own query order, missing two queries
    order = [q for q in pd.unique(last["qid"])][::-1][2:]
    frames[-1] = pd.concat([last[last["qid"] == q] for q in order], ignore_index=True)
    return frames


@pytest.fixture(scope="module")
def qrels(covid_qrels: pd.DataFrame) -> pd.DataFrame:
    return covid_qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})


@pytest.fixture(scope="module")
def topics(qrels: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"qid": sorted(qrels["qid"].unique()), "query": "covid"})


def _both(systems, topics, qrels, measures=MEASURES, **kwargs):
    ours = ir_rarity.Experiment(systems, topics, qrels, measures, names=NAMES, **kwargs)
    theirs = pt.Experiment(systems, topics, qrels, measures, names=NAMES, **kwargs)
    return ours, theirs


def _flat(value):
    """A dict of dicts as nested pairs in its order, floats to 13 significant digits (NaN equals NaN)."""
    if isinstance(value, dict):
        return [(k, _flat(v)) for k, v in value.items()]
    return f"{float(value):.13g}"


@pytest.mark.parametrize("kwargs", [
    {},
    {"baseline": 1},
    {"baseline": 2, "test": "wilcoxon"},
    {"baseline": 0, "test": lambda x, y: (0.0, float(np.mean(x - y)))},
    {"baseline": 0, "correction": "holm"},
    {"baseline": 3, "correction": "fdr_bh", "correction_alpha": 0.1},
    {"baseline": 5, "correction": "bonferroni", "round": 3},
    {"round": 3},
    {"round": {"P@10": 2, "P_5": 1}},
    {"perquery": True},
    {"perquery": True, "round": 3},
    {"filter_by_topics": False},
], ids=lambda kwargs: ",".join(f"{k}={v if not callable(v) else 'callable'}" for k, v in kwargs.items()) or "means")
def test_frames_equal(systems, topics, qrels, kwargs) -> None:
    ours, theirs = _both(systems, topics, qrels, **kwargs)
    assert_frame_equal(ours, theirs, **MEANS, check_dtype=True)


def test_mrt_of_result_frames(systems, topics, qrels) -> None:
    ours, theirs = _both(systems, topics, qrels, [*MEASURES, "mrt"], baseline=1)
    assert_frame_equal(ours, theirs, **MEANS)
    assert list(ours.columns[: len(MEASURES) + 2])[-1] == "mrt" and (ours["mrt"] == 0.0).all()


@pytest.mark.filterwarnings("ignore:.*not found in qrels")
def test_perquery_both_with_topics_without_qrels(systems, topics, qrels) -> None:
    extra = pd.concat([topics, pd.DataFrame({"qid": ["999", "1000"], "query": "x"})], ignore_index=True)
    for kwargs in ({"perquery": "both"}, {"perquery": "both", "filter_by_qrels": True}):
        ours, theirs = _both(systems, extra, qrels, **kwargs)
        assert isinstance(ours, ExperimentResults) and ours._fields == theirs._fields == ("averages", "perquery")
        assert_frame_equal(ours.averages, theirs.averages, **MEANS)
        assert_frame_equal(ours.perquery, theirs.perquery, **MEANS)
    with pytest.warns(UserWarning, match="2 topic\\(s\\) not found in qrels"):
        ir_rarity.Experiment(systems, extra, qrels, ["P@10"], names=NAMES, perquery=True)


def test_perquery_both_is_a_pair_that_unpacks_and_shows_as_pt_experiments(systems, topics, qrels) -> None:
    """Our own pair type (no PyTerrier private module): unpacks, indexes and renders in a notebook as pt's."""
    ours, theirs = _both(systems, topics, qrels, perquery="both", round=4)
    averages, perquery = ours
    assert averages is ours.averages is ours[0] and perquery is ours.perquery is ours[1] and len(ours) == 2
    their_averages, their_perquery = theirs
    assert_frame_equal(averages, their_averages, check_exact=True)  # rounded to 4 digits: the same numbers
    assert_frame_equal(perquery, their_perquery, check_exact=True)
    assert ours._repr_html_() == theirs._repr_html_()
    assert ours._repr_html_() == averages._repr_html_() + perquery._repr_html_()
    assert "<table" in ours._repr_html_() and "sab20.1.meta.docs" in ours._repr_html_()


def test_dicts_equal(systems, topics, qrels) -> None:
    for kwargs in ({"dataframe": False}, {"dataframe": False, "perquery": True},
                   {"dataframe": False, "perquery": "both"}):
        ours, theirs = _both(systems, topics, qrels, **kwargs)
        assert _flat(ours) == _flat(theirs) if isinstance(ours, dict) else all(
            _flat(a) == _flat(b) for a, b in zip(ours, theirs, strict=True))


def test_highlight(systems, topics, qrels) -> None:
    for how in ("bold", "color"):
        ours, theirs = _both(systems, topics, qrels, baseline=0, highlight=how)
        assert ours.to_html() == theirs.to_html().replace(theirs.uuid, ours.uuid)


class _Given(pt.Transformer):
    """A transformer returning the given results for the topics' queries; counts its runs on topics."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self.calls = 0

    def transform(self, topics: pd.DataFrame) -> pd.DataFrame:
        self.calls += len(topics) > 0  # pt.Experiment's validation calls it on no topics
        return self.frame[self.frame["qid"].isin(set(topics["qid"]))].reset_index(drop=True)


def _files(directory: Path) -> list[str]:
    return sorted(os.listdir(directory))


def test_save_dir_with_transformers(systems, topics, qrels, tmp_path: Path) -> None:
    ours_dir, theirs_dir = tmp_path / "ours", tmp_path / "theirs"
    ours_dir.mkdir()
    theirs_dir.mkdir()
    ours_systems, theirs_systems = [_Given(f) for f in systems], [_Given(f) for f in systems]
    for mode in ("warn", "reuse"):  # the second call reads the saved results and runs nothing
        ours = ir_rarity.Experiment(ours_systems, topics, qrels, MEASURES, names=NAMES, baseline=1,
                                    save_dir=str(ours_dir), save_mode=mode)
        theirs = pt.Experiment(theirs_systems, topics, qrels, MEASURES, names=NAMES, baseline=1,
                               save_dir=str(theirs_dir), save_mode=mode)
        assert_frame_equal(ours, theirs, **MEANS)
        assert [s.calls for s in ours_systems] == [s.calls for s in theirs_systems] == [1] * len(NAMES)
    assert _files(ours_dir) == _files(theirs_dir) == sorted(
        [f"{n}.res.gz" for n in NAMES] + ["aggregated.csv", "perquery.csv"])
    for name in NAMES:
        assert_frame_equal(pt.io.read_results(str(ours_dir / f"{name}.res.gz")),
                           pt.io.read_results(str(theirs_dir / f"{name}.res.gz")))
    for name in ("aggregated.csv", "perquery.csv"):
        assert_frame_equal(pd.read_csv(ours_dir / name), pd.read_csv(theirs_dir / name), **MEANS)
    with pytest.raises(ParameterError, match="already exists"):
        ir_rarity.Experiment(ours_systems, topics, qrels, MEASURES, names=NAMES, save_dir=str(ours_dir),
                             save_mode="error")


def test_batches_of_topics(systems, topics, qrels) -> None:
    transformers, names = [_Given(f) for f in systems[:-1]], NAMES[:-1]  # every system retrieves for every query
    for kwargs in ({"batch_size": 7}, {"batch_size": 9, "perquery": True}, {"batch_size": 4, "baseline": 1}):
        ours = ir_rarity.Experiment(transformers, topics, qrels, MEASURES, names=names, **kwargs)
        theirs = pt.Experiment(transformers, topics, qrels, MEASURES, names=names, **kwargs)
        assert_frame_equal(ours, theirs, **MEANS)
    extra = pd.concat([topics.iloc[:3], pd.DataFrame({"qid": ["999"], "query": "x"}), topics.iloc[3:15],
                       pd.DataFrame({"qid": ["1000"], "query": "x"}), topics.iloc[15:]], ignore_index=True)
    with pytest.warns(UserWarning, match="not found in qrels"):  # topics without qrels: NaN rows, batch by batch
        ours = ir_rarity.Experiment(transformers, extra, qrels, MEASURES, names=names, batch_size=7, perquery=True)
        theirs = pt.Experiment(transformers, extra, qrels, MEASURES, names=names, batch_size=7, perquery=True)
    assert_frame_equal(ours, theirs, **MEANS)
    with pytest.raises(ValueError, match="no results received in batch"):  # as pt.Experiment
        ir_rarity.Experiment([_Given(systems[-1])], topics, qrels, MEASURES, names=["x"], batch_size=2)


def test_several_baselines(systems, topics, qrels) -> None:
    baselines = [1, "sab20.1.meta.docs"]
    table = ir_rarity.Experiment(systems, topics, qrels, MEASURES, names=NAMES, baseline=baselines,
                                 correction="holm")
    columns = [str(m) if not isinstance(m, str) else m for m in MEASURES]
    blocks = {}
    for b in (1, 3):
        single = pt.Experiment(systems, topics, qrels, MEASURES, names=NAMES, baseline=b)
        suffix = f"({NAMES[b]})"
        block = [c for c in table.columns if c.endswith(suffix) and "reject" not in c and "corrected" not in c]
        mine = table[block].rename(columns=lambda c, s=suffix: c[: -len(s)])
        assert_frame_equal(mine, single[mine.columns], **MEANS)
        assert_frame_equal(table.iloc[:, : len(columns) + 1], single.iloc[:, : len(columns) + 1], **MEANS)
        blocks[b] = suffix
    for c in columns:  # corrected over both baselines' p-values together
        pvalues = [table[f"{c} p-value{s}"].drop(index=b).to_numpy() for b, s in blocks.items()]
        reject, corrected, _, _ = multipletests(np.concatenate(pvalues), method="holm")
        n = len(NAMES) - 1
        for i, (b, s) in enumerate(blocks.items()):
            part = slice(i * n, (i + 1) * n)
            np.testing.assert_array_equal(table[f"{c} p-value corrected{s}"].drop(index=b), corrected[part])
            np.testing.assert_array_equal(table[f"{c} reject{s}"].drop(index=b), reject[part])
            assert np.isnan(table.loc[b, f"{c} p-value corrected{s}"]) and not table.loc[b, f"{c} reject{s}"]


@pytest.mark.parametrize("baseline", [6, -1, "nope", 1.5, (0, 1), [], [0, 0], [0, 9], [0, None], True])
def test_bad_baselines(systems, topics, qrels, baseline) -> None:
    with pytest.raises(ParameterError) as error:
        ir_rarity.Experiment(systems, topics, qrels, ["P@10"], names=NAMES, baseline=baseline)
    assert "\n" not in str(error.value) and "baseline" in str(error.value)


def test_other_bad_arguments(systems, topics, qrels) -> None:
    for kwargs, match in (({"correction": "holm"}, "no baseline"), ({"baseline": 0, "test": "z"}, "unknown test"),
                          ({"baseline": 0, "correction": "nope"}, "unknown correction"),
                          ({"round": -1}, "round"), ({"round": {"P@10": 2}, "perquery": True}, "rounding"),
                          ({"plan": "tree"}, "plan='tree'"), ({"perquery": "yes"}, "perquery")):
        with pytest.raises(ParameterError, match=match):
            ir_rarity.Experiment(systems, topics, qrels, ["P@10"], names=NAMES, **kwargs)


def test_rarity_measures_equal_evaluate(systems, topics, qrels) -> None:
    measures = ["P_rare(alpha=0.5)@100", "AP_rare", "nDCG_rare@10", "ASL@g1-10"]
    table = ir_rarity.Experiment(systems, topics, qrels, measures, names=NAMES).set_index("name")
    expected = ir_rarity.evaluate(dict(zip(NAMES, systems, strict=True)), qrels, measures).table()
    for m in measures:
        np.testing.assert_array_equal(table.loc[NAMES, m].to_numpy(), expected.loc[NAMES, m].to_numpy())



class _Uninspectable(pt.Transformer):
    """The given results for the topics' queries, but an error on no topics: its outputs cannot be inferred."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame

    def transform(self, topics: pd.DataFrame) -> pd.DataFrame:
        if len(topics) == 0:
            raise RuntimeError("needs topics")
        return self.frame[self.frame["qid"].isin(set(topics["qid"]))].reset_index(drop=True)


class _NeedsVectors(pt.Transformer):
    """A transformer whose input validation refuses topics without ``query_vec``: an invalid pipeline."""

    def transform(self, topics: pd.DataFrame) -> pd.DataFrame:
        pt.validate.query_frame(topics, ["query_vec"])
        return topics


def _report(experiment, *args, **kwargs) -> tuple[list[str], str | None]:
    """The validation warnings an experiment gives, and the report it raises (None: no error)."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            experiment(*args, **kwargs)
            error = None
        except Exception as e:  # after a warning, a frame without scores fails in each its own way
            error = str(e) if isinstance(e, ValueError) and "Validation Report" in str(e) else "failed later"
    return [str(w.message) for w in caught if "Validation Report" in str(w.message)], error


@pytest.mark.parametrize("validate", ["warn", "error", "ignore"])
def test_validation_reports_as_pt_experiment(systems, topics, qrels, validate) -> None:
    """validate= on PyTerrier's public API gives pt.Experiment's report, word for word, warned or raised alike."""
    no_score = systems[0].drop(columns="score")
    cases = {
        "a frame without score": [no_score, *systems[1:]],
        "an uninspectable transformer": [_Uninspectable(systems[0]), *systems[1:]],
        "an invalid pipeline": [_NeedsVectors(), *systems[1:]],
    }
    for case, given in cases.items():
        ours = _report(ir_rarity.Experiment, given, topics, qrels, MEASURES, names=NAMES, validate=validate)
        theirs = _report(pt.Experiment, given, topics, qrels, MEASURES, names=NAMES, validate=validate)
        assert ours == theirs, case
        expected = {"a frame without score": "do not produce the required outputs",
                    "an uninspectable transformer": "could not be validated",
                    "an invalid pipeline": "failed validation"}[case]
        warned, raised = ours
        if validate == "warn":
            assert len(warned) == 1 and expected in warned[0], case
            assert warned[0].startswith("Experiment Pipeline Validation Report\n\n")
        elif validate == "error" and case != "an uninspectable transformer":
            assert warned == [] and raised is not None and expected in raised, case
        else:  # ignored, or (as pt.Experiment) only outputs that cannot be inferred: no report, no error
            assert warned == [] and (raised is None or "Validation Report" not in raised), case
    if validate == "warn":  # the frame's own columns and the columns measures need, named in the report
        warned, _ = _report(ir_rarity.Experiment, cases["a frame without score"], topics, qrels, MEASURES,
                            names=NAMES, validate="warn")
        assert f"DataFrame #0: {no_score.columns.tolist()}. Produces {no_score.columns.tolist()}" in warned[0]
        assert "'score'" in warned[0] and "'qid'" in warned[0] and "'docno'" in warned[0]


def test_an_unknown_validate_is_refused_in_one_line(systems, topics, qrels) -> None:
    with pytest.raises(ParameterError) as raised:
        ir_rarity.Experiment(systems, topics, qrels, MEASURES, names=NAMES, validate="warning")
    assert str(raised.value) == "validate must be 'warn', 'error' or 'ignore', not 'warning'"
