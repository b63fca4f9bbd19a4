"""Algorithm 1 vectorized over trials: SubsetScorer.batch_scores and kendall_tau_b_rows equal the per-trial path."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ir_rarity import Pool
from ir_rarity.data import covid_round1
from ir_rarity.engine import samples
from ir_rarity.engine.means import exact_means
from ir_rarity.engine.samples import BATCHED_FAMILIES, SubsetScorer
from ir_rarity.errors import ParameterError
from ir_rarity.measures.parse import parse_measure
from ir_rarity.meta.robustness import kendall_tau_b_rows, robustness_tables, system_count_robustness
from ir_rarity.stats import kendall_tau_b

MEASURES = ["P_rare(alpha=1)@100", "AP_rare(alpha=1)@100", "AP_rare(alpha=0.5,depth=10)@50", "AP_rare(alpha=1)",
            "P_rare(alpha=1,depth=50)@5",
            "P_rare(bounded=True)@10", "nDCG_rare(rel=2)@20", "AP_rare(judged_only=True)@100", "ASL",
            "R_rare(alpha=0.5)@100", "AP_rare(alpha=1,weighting='log')@100",
            "P_rare(alpha=1,weighting='log',depth=50)@5", "nDCG_rare(weighting='log')@20"]
"""Batched families (relevant rows only, all rows, judged only, a depth below the cutoff) and one scored per trial.
Linear rarity is scored from miss tables (tests/meta/test_miss_tables.py); log rarity from batches of rows."""


def _draws(n_runs: int, size: int, trials: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.array([rng.choice(n_runs, size=size, replace=False) for _ in range(trials)])


def _assert_batch_equals_per_trial(scorer: SubsetScorer, measure: str, picked: np.ndarray) -> None:
    """Batches of rows give the per-trial values to the last bit; miss tables (test_miss_tables) to 1e-13."""
    m = parse_measure(measure)
    batch = scorer.batch_scores(m, picked)
    per_trial = np.stack([scorer.scores(m, p) for p in picked])
    if scorer._by_misses(m, picked.shape[1]):
        np.testing.assert_allclose(batch, per_trial, rtol=1e-13, atol=0)
    else:
        np.testing.assert_array_equal(batch, per_trial)


@pytest.fixture(scope="module")
def noisy_qrels(covid_qrels: pd.DataFrame) -> pd.DataFrame:
    """Round-1 qrels with a fifth of the judgments dropped (unjudged) and a tenth of the rest labelled -1."""
    rng = np.random.default_rng(11)
    frame = covid_qrels[rng.random(len(covid_qrels)) > 0.2].copy()
    frame.loc[rng.random(len(frame)) < 0.1, "relevance"] = -1
    return frame.reset_index(drop=True)


@pytest.fixture(scope="module")
def team_pool(covid_pool: Pool) -> Pool:
    """Round 1 with runs grouped into 40 teams (S counts teams, S_d the teams that retrieved d)."""
    teams = {name: f"team{i % 40}" for i, name in enumerate(covid_pool.names)}
    return Pool.from_runs(covid_round1.runs, split_by_tag=True, teams=teams)


@pytest.mark.parametrize("measure", MEASURES)
def test_batch_scores_equal_per_trial_scores(covid_pool: Pool, covid_qrels: pd.DataFrame, measure: str) -> None:
    scorer = SubsetScorer(covid_pool, covid_qrels)
    for seed, size, trials in ((0, 2, 7), (1, 5, 4), (2, 17, 3)):
        _assert_batch_equals_per_trial(scorer, measure, _draws(len(covid_pool), size, trials, seed))


@pytest.mark.parametrize("measure", MEASURES)
def test_batch_scores_with_unjudged_and_negative_labels(covid_pool: Pool, noisy_qrels: pd.DataFrame,
                                                        measure: str) -> None:
    scorer = SubsetScorer(covid_pool, noisy_qrels)
    for seed, size in ((3, 3), (4, 11)):
        _assert_batch_equals_per_trial(scorer, measure, _draws(len(covid_pool), size, 4, seed))


@pytest.mark.filterwarnings("ignore::ir_rarity.errors.DegeneratePoolWarning")
@pytest.mark.parametrize("measure", ["P_rare(alpha=1)@100", "AP_rare(alpha=1)@100", "AP_rare(judged_only=True)@10",
                                     "P_rare(bounded=True)@10"])
def test_batch_scores_of_a_team_pool(team_pool: Pool, noisy_qrels: pd.DataFrame, measure: str) -> None:
    scorer = SubsetScorer(team_pool, noisy_qrels)
    for seed, size in ((5, 2), (6, 6), (7, 23)):
        _assert_batch_equals_per_trial(scorer, measure, _draws(len(team_pool), size, 3, seed))


def test_batch_scores_in_small_chunks(covid_pool: Pool, covid_qrels: pd.DataFrame,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of one or a few trials give the same values, and report every trial done once."""
    scorer = SubsetScorer(covid_pool, covid_qrels)
    picked = _draws(len(covid_pool), 8, 9, 8)
    m = parse_measure("AP_rare(alpha=1,weighting='log')@100")  # batches of rows (not affine in S_d)
    whole = scorer.batch_scores(m, picked)
    for budget in (1, 50_000):
        monkeypatch.setattr(samples, "CHUNK_ELEMENTS", budget)
        done: list[int] = []
        np.testing.assert_array_equal(scorer.batch_scores(m, picked, done=done.append), whole)
        assert sum(done) == len(picked) and (len(done) == len(picked)) == (budget == 1)


def test_batch_scores_hand(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    scorer = SubsetScorer(hand_pool, hand_qrels)
    picked = np.array([[0, 1], [2, 0], [1, 2], [2, 1]])
    for measure in ("P_rare(alpha=1)@2", "AP_rare(alpha=0.5)", "nDCG_rare@3"):
        _assert_batch_equals_per_trial(scorer, measure, picked)
    with pytest.raises(ParameterError):
        scorer.batch_scores(parse_measure("P_rare@2"), np.array([0, 1]))


def test_batched_families_are_engine_families() -> None:
    from ir_rarity.engine.families import ENGINE_FAMILIES

    assert BATCHED_FAMILIES <= ENGINE_FAMILIES


def test_tau_rows_equal_kendall_tau_b_ties_included() -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, size=(300, 6)).astype(float) / 3  # many ties, some constant rows
    b = rng.integers(0, 3, size=(300, 6)).astype(float) / 7
    b[::5] = a[::5] + 1e-13  # ties under the tolerance of stats.ties, not equal floats
    a[7] = 0.5
    got = kendall_tau_b_rows(a, b)
    want = np.array([kendall_tau_b(x, y) for x, y in zip(a, b, strict=True)])
    np.testing.assert_array_equal(got, want)
    assert np.isnan(got[7]) and got[5] == 1.0


def _robustness_per_trial(pool: Pool, qrels: pd.DataFrame, measure: str, sizes: tuple[int, ...], trials: int,
                          seed: int) -> list[np.ndarray]:
    """Algorithm 1 trial by trial: SubsetScorer.scores, exact means and kendall_tau_b per trial."""
    rng = np.random.default_rng(seed)
    scorer = SubsetScorer(pool, qrels)
    m = parse_measure(measure)
    full = exact_means(scorer.scores(m, np.arange(len(pool))))
    out = []
    for n in sizes:
        taus = []
        for _ in range(trials):
            picked = rng.choice(len(pool), size=n, replace=False)
            taus.append(kendall_tau_b(exact_means(scorer.scores(m, picked)), full[picked]))
        out.append(np.array(taus))
    return out


@pytest.mark.parametrize("measure", ["P_rare(alpha=1)@100", "AP_rare(alpha=1)@100"])
def test_robustness_equals_per_trial_recomputation(covid_pool: Pool, noisy_qrels: pd.DataFrame,
                                                   measure: str) -> None:
    sizes, trials, seed = (2, 5, 16), 12, 9
    table = system_count_robustness(covid_pool, noisy_qrels, measure, sizes=sizes, trials=trials, seed=seed,
                                    progress=False)
    for row, taus in zip(table.itertuples(), _robustness_per_trial(covid_pool, noisy_qrels, measure, sizes,
                                                                   trials, seed), strict=True):
        defined = taus[~np.isnan(taus)]
        assert row.undefined == trials - len(defined)
        assert len(defined)
        assert row.mean_tau == float(defined.mean()) and row.std == float(defined.std())
        assert [row[6], row[7]] == np.percentile(defined, [2.5, 97.5]).tolist()


@pytest.mark.filterwarnings("ignore::ir_rarity.errors.DegeneratePoolWarning")  # samples of one team
def test_robustness_of_a_team_pool_equals_per_trial(hand_files: dict[str, Path], hand_qrels: pd.DataFrame) -> None:
    pool = Pool.from_runs([hand_files[n] for n in "ABC"], teams={"A": "t1", "B": "t1", "C": "t2"})
    table = system_count_robustness(pool, hand_qrels, "P_rare(alpha=1)@2", sizes=(2, 3), trials=10, seed=1)
    expected = _robustness_per_trial(pool, hand_qrels, "P_rare(alpha=1)@2", (2, 3), 10, 1)
    for row, taus in zip(table.itertuples(), expected, strict=True):
        defined = taus[~np.isnan(taus)]
        assert row.undefined == 10 - len(defined)
        if len(defined):
            assert row.mean_tau == float(defined.mean())


def test_batch_scores_of_several_measures_equal_each_alone(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    """Measures reading the same rows share them; each measure's values are its own batch_scores."""
    scorer = SubsetScorer(covid_pool, covid_qrels)
    measures = [parse_measure(m) for m in ("P_rare(alpha=1)@100", "AP_rare(alpha=1)@100",
                                           "AP_rare(alpha=0.5,depth=10)@100", "P_rare(alpha=1,depth=50)@5", "ASL",
                                           "nDCG_rare(rel=2)@20", "R_rare(alpha=0.5)@100")]
    picked = _draws(len(covid_pool), 6, 5, 9)
    done: list[int] = []
    together = scorer.batch_scores_of(measures, picked, done=done.append)
    for m in measures:
        np.testing.assert_array_equal(together[m], SubsetScorer(covid_pool, covid_qrels).batch_scores(m, picked))
    assert sum(done) == len(picked) * len(measures)


def test_robustness_tables_equal_each_measure_alone(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    measures = ["P_rare(alpha=1)@100", "AP_rare(alpha=1)@100", "AP_rare(alpha=1,depth=20)@50"]
    tables = robustness_tables(covid_pool, covid_qrels, measures, sizes=(2, 5, 13), trials=12, seed=4)
    for measure, table in zip(measures, tables, strict=True):
        alone = system_count_robustness(covid_pool, covid_qrels, measure, sizes=(2, 5, 13), trials=12, seed=4)
        pd.testing.assert_frame_equal(table, alone)
