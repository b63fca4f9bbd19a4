"""Samples scored from a table of misses per pair of runs (ir_rarity.engine.overlaps, ir_rarity.engine.affine).

Checked against values worked by hand, against the same samples scored row by row (the engine's kernels on each
sample's rows, SubsetScorer.scores) and against Pool.subset scored by evaluate_campaign.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ir_rarity import Pool
from ir_rarity.engine import overlaps
from ir_rarity.engine.affine import is_affine
from ir_rarity.engine.overlaps import MissTable
from ir_rarity.engine.samples import SubsetScorer
from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.measures.parse import parse_measure
from ir_rarity.meta.robustness import system_count_robustness

AFFINE = ["P_rare(alpha=1)@100", "P_rare(alpha=0.5,depth=50)@5", "P_rare(alpha=2,depth=3)@20",
          "P_rare(bounded=True,alpha=0.7)@10", "P_rare(gain='graded',alpha=1)@10", "P_rare(alpha_per_topic=True)@30",
          "AP_rare(alpha=1)@100", "AP_rare(alpha=1)", "AP_rare(alpha=0.5,depth=10)@50", "AP_rare(rel=2,alpha=3)@100",
          "AP_rare(bounded=True,alpha=0.4,depth=200)@100", "AP_rare(gain='graded',alpha_per_topic=True)@40",
          "nDCG_rare(rel=2)@20", "nDCG_rare(gain='graded',alpha=1)@10", "P_rare(alpha=1e15)@10"]
"""Measures scored from miss tables: linear rarity, binary and graded gains, bounded, per-topic alpha, S_d counted
deeper and shallower than the cutoff, whole rankings, a huge alpha."""


def _draws(n_runs: int, size: int, trials: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.array([rng.choice(n_runs, size=size, replace=False) for _ in range(trials)])


def _row_by_row(scorer: SubsetScorer, measure: str, picked: np.ndarray) -> np.ndarray:
    m = parse_measure(measure)
    return np.stack([scorer.scores(m, p) for p in picked])


@pytest.fixture(scope="module")
def scorer(covid_pool: Pool, covid_qrels: pd.DataFrame) -> SubsetScorer:
    return SubsetScorer(covid_pool, covid_qrels)


@pytest.mark.parametrize("measure", AFFINE)
def test_miss_tables_equal_row_by_row_scores(scorer: SubsetScorer, measure: str) -> None:
    m = parse_measure(measure)
    assert is_affine(m, 2) and scorer._by_misses(m, 2)
    for seed, size, trials in ((0, 2, 6), (1, 7, 4), (2, 31, 2)):
        picked = _draws(len(scorer.pool), size, trials, seed)
        got = scorer.batch_scores(m, picked)
        want = _row_by_row(scorer, measure, picked)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
        assert np.array_equal(got == 0, want == 0)


def test_miss_tables_equal_scoring_the_subset_pool(covid_pool: Pool, covid_qrels: pd.DataFrame,
                                                   scorer: SubsetScorer) -> None:
    measures = [parse_measure(m) for m in ("P_rare(alpha=1)@100", "AP_rare(alpha=1)@100",
                                           "nDCG_rare(alpha=0.5)@10")]
    for p in _draws(len(covid_pool), 9, 2, 5):
        values = evaluate_campaign(covid_pool.subset([covid_pool.names[i] for i in p]), covid_qrels, measures).values
        for m in measures:
            np.testing.assert_allclose(scorer.batch_scores(m, p[None])[0], values[m], rtol=1e-13, atol=0)


def test_hand_worked_samples(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    """Runs A, B, C of the hand campaign (conftest), queries q1, q2; N_R(q1) = 3 (d1, d2, d5), N_R(q2) = 1.

    {A, B}, S_d within 3: d1 2, d2 2. AP_rare(alpha=1)@3: A q1 (1/3)(1 + 2/2) = 2/3, A q2 d1 retrieved by A
    alone, g = 1.5: 1.5; B q1 d2 at 1, d1 at 3: (1/3)(1 + 2/3) = 5/9; B has no q2: 0.
    {A, C} (C ranks d3, d2, d6: the tie of d2 and d3 broken by docno, descending): S_d within 3 d1 1, d2 2.
    A q1: g(d1) = 1.5, g(d2) = 1: (1/3)(1.5 + 2.5/2) = 11/12; C q1 d2 at 2: (1/3)(1/2) = 1/6; C q2 (x unjudged):
    0. P_rare(alpha=1)@2, S_d within 2: A q1 (1.5 + 1)/2 = 1.25, A q2 1.5/2 = 0.75, C q1 1/2.
    """
    scorer = SubsetScorer(hand_pool, hand_qrels)
    ap = parse_measure("AP_rare(alpha=1)@3")
    got = scorer.batch_scores(ap, np.array([[0, 1], [2, 0]]))
    np.testing.assert_allclose(got[0], [[2 / 3, 1.5], [5 / 9, 0.0]], rtol=1e-15)
    np.testing.assert_allclose(got[1], [[1 / 6, 0.0], [11 / 12, 1.5]], rtol=1e-15)
    p = scorer.batch_scores(parse_measure("P_rare(alpha=1)@2"), np.array([[0, 2]]))
    np.testing.assert_allclose(p[0], [[1.25, 0.75], [0.5, 0.0]], rtol=1e-15)
    assert scorer._by_misses(ap, 2)


def test_a_sample_s_scores_do_not_depend_on_the_order_it_was_drawn(scorer: SubsetScorer) -> None:
    picked = _draws(len(scorer.pool), 12, 5, 6)
    order = np.random.default_rng(7).permuted(np.tile(np.arange(12), (5, 1)), axis=1)
    shuffled = np.take_along_axis(picked, order, axis=1)
    for measure in ("AP_rare(alpha=1)@100", "nDCG_rare(gain='graded')@10"):
        m = parse_measure(measure)
        a, b = scorer.batch_scores(m, picked), scorer.batch_scores(m, shuffled)
        assert np.array_equal(np.take_along_axis(a, order[:, :, None], axis=1), b)  # to the last bit


def test_chunks_of_trials_give_the_same_values(scorer: SubsetScorer, monkeypatch: pytest.MonkeyPatch) -> None:
    picked = _draws(len(scorer.pool), 8, 9, 8)
    m = parse_measure("AP_rare(alpha=1)@100")
    whole = scorer.batch_scores(m, picked)
    for budget in (1, 10_000):
        monkeypatch.setattr(overlaps, "GATHER_ELEMENTS", budget)
        done: list[int] = []
        fresh = SubsetScorer(scorer.pool, scorer.qrels)  # the table is also built in blocks of pairs
        got = fresh.batch_scores(m, picked, done=done.append)
        np.testing.assert_allclose(got, whole, rtol=1e-15, atol=0)
        assert sum(done) == len(picked) and (len(done) == len(picked)) == (budget == 1)


@pytest.mark.parametrize("measure", ["P_rare(weighting='log')@10", "AP_rare(judged_only=True)@100",
                                     "AP_rare(bounded=True,depth=5)@10", "ASL",
                                     "R_rare(alpha=0.5)@100"])
def test_measures_not_affine_in_s_d_are_scored_row_by_row(scorer: SubsetScorer, measure: str) -> None:
    m = parse_measure(measure)
    assert not scorer._by_misses(m, 4)
    picked = _draws(len(scorer.pool), 4, 3, 9)
    np.testing.assert_array_equal(scorer.batch_scores(m, picked), _row_by_row(scorer, measure, picked))


def test_parameters_out_of_range_are_refused_as_on_the_rows_way(scorer: SubsetScorer) -> None:
    from ir_rarity.errors import ParameterError
    from ir_rarity.measures import AP_rare, P_rare

    picked = _draws(len(scorer.pool), 3, 2, 11)
    for measure in (P_rare(alpha=-1) @ 10, AP_rare(alpha=1e16) @ 10):  # built unchecked
        assert scorer._by_misses(measure, 3)
        with pytest.raises(ParameterError, match="alpha"):
            scorer.batch_scores(measure, picked)


def test_bounded_needs_two_systems() -> None:
    m = parse_measure("P_rare(bounded=True)@10")
    assert is_affine(m, 2) and not is_affine(m, 1)


def test_campaigns_too_large_for_a_table_are_scored_row_by_row(scorer: SubsetScorer,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    m = parse_measure("AP_rare(alpha=1)@100")
    picked = _draws(len(scorer.pool), 5, 3, 10)
    by_table = scorer.batch_scores(m, picked)
    monkeypatch.setattr(overlaps, "TABLE_ELEMENTS", len(scorer.pool) ** 2 * scorer.full.n_queries - 1)
    assert not MissTable.fits(len(scorer.pool), scorer.full.n_queries)
    by_rows = scorer.batch_scores(m, picked)
    np.testing.assert_array_equal(by_rows, _row_by_row(scorer, "AP_rare(alpha=1)@100", picked))
    np.testing.assert_allclose(by_table, by_rows, rtol=1e-13, atol=0)


def test_robustness_is_the_same_by_tables_and_row_by_row(covid_pool: Pool, covid_qrels: pd.DataFrame,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Scores a few units in the last place apart rank the samples alike: every tau, mean and band is equal."""
    kwargs = {"sizes": (2, 4, 16, 64), "trials": 40, "seed": 3, "progress": False}
    for measure in ("P_rare(alpha=1)@100", "AP_rare(alpha=1)@100"):
        by_tables = system_count_robustness(covid_pool, covid_qrels, measure, **kwargs)
        monkeypatch.setattr(overlaps, "TABLE_ELEMENTS", 0)
        by_rows = system_count_robustness(covid_pool, covid_qrels, measure, **kwargs)
        monkeypatch.undo()
        pd.testing.assert_frame_equal(by_tables, by_rows, check_exact=True)
