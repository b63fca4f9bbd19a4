"""Per-query tables and the Kendall tau vs. alpha curve (Figure 2): hand-checked cases and TREC-COVID round 1."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ir_rarity import Pool
from ir_rarity.errors import ParameterError
from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.meta import curves, per_query_matrix, stability, system_ranking, tau_alpha_curve


def test_per_query_matrix_hand(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    # Top 2 per run: A q1 d1 d2, q2 d1; B q1 d2 d4; C q1 d3 d2 (tie 9.0 broken by docno desc), q2 x.
    # S = 3; S_d at depth 2 for q1: d1 1, d2 3, d3 1, d4 1; q2: d1 1. Weight of a relevant d: 2 - S_d / 3.
    table = per_query_matrix(hand_pool, hand_qrels, "P_rare(alpha=1)@2")
    assert list(table.index) == ["A", "B", "C"]
    assert list(table.columns) == ["q1", "q2"]
    expected = np.array([[(5 / 3 + 1) / 2, (5 / 3) / 2], [1 / 2, 0.0], [1 / 2, 0.0]])
    np.testing.assert_allclose(table.to_numpy(), expected, rtol=0, atol=1e-12)


def test_per_query_matrix_standard_measure_hand(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    table = per_query_matrix(hand_pool, hand_qrels, "P@2")
    np.testing.assert_allclose(table.to_numpy(), [[1.0, 0.5], [0.5, 0.0], [0.5, 0.0]])
    assert list(table.columns) == ["q1", "q2"]


def test_tau_alpha_curve_hand(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    curve = tau_alpha_curve(hand_pool, hand_qrels, alphas=(0, 1), cutoff=2)
    assert list(curve.columns) == ["alpha", "pair", "measure", "base", "tau", "tau_ap"]
    assert list(curve["pair"]) == ["P_rare vs P", "P_rare vs P", "AP_rare vs AP", "AP_rare vs AP"]
    assert list(curve["base"]) == ["P@2", "P@2", "AP@2", "AP@2"]
    # P@2 means: A 0.75, B = C = 0.25; at alpha 1: A 1.083, B = C = 0.25: the same ranking, tau-b 1.
    assert (curve.loc[curve["alpha"] == 0, "tau"] == 1.0).all()  # exactly, although B and C tie
    assert curve["tau"].to_numpy() == pytest.approx(1.0)


def test_tau_alpha_curve_errors(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    with pytest.raises(ParameterError):
        tau_alpha_curve(hand_pool, hand_qrels, alphas=(-0.5,))
    with pytest.raises(ParameterError):
        tau_alpha_curve(hand_pool, hand_qrels, alphas=())
    with pytest.raises(ParameterError):
        tau_alpha_curve(hand_pool, hand_qrels, cutoff=0)


def test_round1_tau_is_exactly_one_at_alpha_zero(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    curve = tau_alpha_curve(covid_pool, covid_qrels)
    assert sorted(curve["alpha"].unique()) == pytest.approx([0.1 * i for i in range(11)])
    at_zero = curve[curve["alpha"] == 0]
    assert len(at_zero) == 2
    assert (at_zero["tau"] == 1.0).all()
    assert (at_zero["tau_ap"] == 1.0).all()
    assert curve["tau"].between(-1, 1).all() and curve["tau_ap"].between(-1, 1).all()
    # Rarity reorders some systems on round 1, increasingly with alpha.
    for _, group in curve.groupby("pair"):
        assert group.sort_values("alpha")["tau"].iloc[-1] < 1.0


def test_round1_engine_base_equals_ir_measures(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    small = covid_pool.subset(covid_pool.names[:5])  # ir_measures scores run by run: keep it small
    ours = per_query_matrix(small, covid_qrels, "P_rare(alpha=0)@100")
    theirs = per_query_matrix(small, covid_qrels, "P@100")
    pd.testing.assert_frame_equal(ours, theirs, check_exact=False, rtol=0, atol=1e-12)


def test_direction_flows_from_the_measure(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    asl = per_query_matrix(covid_pool, covid_qrels, "ASL@g1-10")
    assert {k: asl.attrs[k] for k in ("measure", "higher_is_better")} == {"measure": "ASL@g1-10",
                                                                         "higher_is_better": False}
    assert asl.attrs["pool"]["scored"] == "members"  # what the values were computed against
    ranks = system_ranking(asl)  # lower ASL is better: rank 1 has the smallest mean
    means = asl.mean(axis=1, skipna=True)
    assert ranks[means.idxmin()] == 1.0 and ranks[means.idxmax()] == len(means)
    assert (ranks == system_ranking(asl, higher_is_better=False)).all()
    assert stability(asl, trials=50, seed=1) == stability(asl, trials=50, seed=1, higher_is_better=False)
    p = per_query_matrix(covid_pool, covid_qrels, "P_rare@100")
    assert p.attrs["higher_is_better"] is True


def test_per_query_matrix_is_the_evaluation_matrix(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    expected = evaluate_campaign(hand_pool, hand_qrels, ["AP_rare(alpha=0.5)@2"]).matrix("AP_rare(alpha=0.5)@2")
    got = per_query_matrix(hand_pool, hand_qrels, "AP_rare(alpha=0.5)@2")
    pd.testing.assert_frame_equal(got, expected)
    assert got.index.name == "run" and got.columns.name == "query_id"


def test_tau_alpha_curve_scores_every_measure_in_one_evaluation(hand_pool: Pool, hand_qrels: pd.DataFrame,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []

    def counting(campaign, qrels, measures, *args, **kwargs):
        calls.append([str(m) for m in measures])
        return evaluate_campaign(campaign, qrels, measures, *args, **kwargs)

    monkeypatch.setattr(curves, "evaluate_campaign", counting)
    curve = tau_alpha_curve(hand_pool, hand_qrels, alphas=(0, 0.5, 1), cutoff=2)
    assert len(calls) == 1
    assert sorted(calls[0]) == sorted(curves.curve_measures((0, 0.5, 1), 2))
    assert len(calls[0]) == 6  # P_rare and AP_rare at alpha 0, 0.5 and 1: alpha 0 once
    # With every matrix given nothing is evaluated, and the curve is the same.
    matrices = {m: per_query_matrix(hand_pool, hand_qrels, m) for m in curves.curve_measures((0, 0.5, 1), 2)}
    calls.clear()
    again = tau_alpha_curve(hand_pool, hand_qrels, alphas=(0, 0.5, 1), cutoff=2, matrices=matrices)
    assert calls == []
    pd.testing.assert_frame_equal(curve, again)
