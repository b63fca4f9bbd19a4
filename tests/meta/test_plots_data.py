"""The meta-evaluation figures draw what their tables hold, and every interval lies inside the measure's range.

The drawn data are read back from the returned Figure's artists and checked against values computed here, with
numpy, from the table the figure was drawn from.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from ir_rarity import Pool
from ir_rarity.meta import (
    plot_robustness,
    plot_synthetic,
    plot_tau_alpha,
    synthetic_rank_curve,
    system_count_robustness,
    tau_alpha_curve,
)
from ir_rarity.meta.robustness import BAND_COLUMNS

MEASURE = "P_rare(alpha=1)@10"


@pytest.fixture(scope="module")
def robust(covid_pool: Pool, covid_qrels: pd.DataFrame) -> pd.DataFrame:
    return system_count_robustness(covid_pool, covid_qrels, MEASURE, sizes=(2, 4, 8), trials=40, seed=3,
                                   progress=False)


def _taus(pool: Pool, qrels: pd.DataFrame, size: int, trials: int, seed: int) -> np.ndarray:
    """The defined taus of Algorithm 1 at one size, recomputed the way the function draws them."""
    from ir_rarity.engine.samples import SubsetScorer
    from ir_rarity.stats import kendall_tau_b

    rng = np.random.default_rng(seed)
    sampler = SubsetScorer(pool, qrels)
    from ir_rarity.measures.parse import parse_measure

    m = parse_measure(MEASURE)
    full = sampler.scores(m, np.arange(len(pool))).mean(axis=1)
    taus = []
    for _ in range(trials):
        picked = rng.choice(len(pool), size=size, replace=False)
        taus.append(kendall_tau_b(sampler.scores(m, picked).mean(axis=1), full[picked]))
    values = np.asarray(taus, dtype=float)
    return values[~np.isnan(values)]


def test_robustness_table_has_percentile_band(robust: pd.DataFrame, covid_pool: Pool,
                                              covid_qrels: pd.DataFrame) -> None:
    low, high = BAND_COLUMNS
    assert (low, high) == ("p2.5", "p97.5")
    assert robust[low].between(-1, 1).all() and robust[high].between(-1, 1).all()
    assert (robust[low] <= robust[high]).all()
    # size 2 trials are as drawn first from the seeded generator: recompute them independently
    taus = _taus(covid_pool, covid_qrels, 2, 40, 3)
    assert len(taus) == 40 - robust["undefined"].iloc[0]
    np.testing.assert_allclose(robust.loc[0, [low, high]].to_numpy(dtype=float), np.percentile(taus, [2.5, 97.5]))
    assert robust.loc[0, "mean_tau"] == pytest.approx(taus.mean())


def _bars(fig) -> list[np.ndarray]:  # type: ignore[no-untyped-def]
    """Per drawn bar collection: an array (bars, 2) of the bottom and top of each vertical bar."""
    out = []
    for coll in fig.axes[0].collections:
        segs = coll.get_segments()
        for seg in segs:
            assert seg[0][0] == seg[1][0]  # vertical
        out.append(np.array([[seg[0][1], seg[1][1]] for seg in segs]))
    return out


def test_robustness_plot_draws_the_percentile_band(robust: pd.DataFrame, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    fig = plot_robustness(robust)
    assert list(tmp_path.rglob("*")) == []  # no path: nothing written
    ax = fig.axes[0]
    (bars,) = _bars(fig)
    expected = robust[list(BAND_COLUMNS)].to_numpy(dtype=float)
    np.testing.assert_allclose(bars, expected)
    assert ((bars >= -1) & (bars <= 1)).all()
    (line,) = ax.lines
    np.testing.assert_allclose(line.get_xdata(), robust["size"])
    np.testing.assert_allclose(line.get_ydata(), robust["mean_tau"])
    # no error bars of mean +- sd anywhere
    assert not ax.containers
    top = max(y for artist in ax.lines for y in np.asarray(artist.get_ydata(), dtype=float))
    assert top <= 1


def test_robustness_plot_band_from_numpy_one_per_measure() -> None:
    rng = np.random.default_rng(0)
    rows = []
    samples = {}
    for measure in ("P_rare@10", "AP_rare@10"):
        for size in (2, 4, 8):
            taus = np.clip(rng.normal(0.7, 0.5, size=200), -1, 1)  # spread wide: mean + sd would exceed 1
            samples[measure, size] = taus
            low, high = np.percentile(taus, [2.5, 97.5])
            rows.append({"measure": measure, "size": size, "mean_tau": taus.mean(), "std": taus.std(),
                         "p2.5": low, "p97.5": high})
    table = pd.DataFrame(rows)
    assert (table["mean_tau"] + table["std"] > 1).any()
    fig = plot_robustness(table)
    bars = _bars(fig)
    assert len(bars) == 2
    for drawn, measure in zip(bars, ("P_rare@10", "AP_rare@10"), strict=True):
        expected = np.array([np.percentile(samples[measure, size], [2.5, 97.5]) for size in (2, 4, 8)])
        np.testing.assert_allclose(drawn, expected)
        assert ((drawn >= -1) & (drawn <= 1)).all()
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "P_rare@10" in labels and "AP_rare@10" in labels


def test_robustness_plot_without_band_draws_no_interval() -> None:
    table = pd.DataFrame({"size": [2, 4], "mean_tau": [0.9, 0.95], "std": [0.4, 0.3]})
    fig = plot_robustness(table)
    assert len(fig.axes[0].collections) == 0 and not fig.axes[0].containers


def test_robustness_plot_skips_undefined_sizes() -> None:
    table = pd.DataFrame({"size": [2, 4], "mean_tau": [np.nan, 0.5], "std": [np.nan, 0.1],
                          "p2.5": [np.nan, 0.2], "p97.5": [np.nan, 0.8]})
    (bars,) = _bars(plot_robustness(table))
    np.testing.assert_allclose(bars, [[0.2, 0.8]])


def test_tau_alpha_plot_draws_the_table_and_no_interval(hand_pool: Pool, hand_qrels: pd.DataFrame,
                                                        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    curve = tau_alpha_curve(hand_pool, hand_qrels, alphas=(0, 0.5, 1), cutoff=2)
    before = sorted(tmp_path.rglob("*"))
    fig = plot_tau_alpha(curve)
    assert sorted(tmp_path.rglob("*")) == before  # no path: nothing written
    ax = fig.axes[0]
    assert len(ax.collections) == 0 and not ax.containers  # no interval drawn
    for line in ax.lines:
        y = np.asarray(line.get_ydata(), dtype=float)
        assert ((y >= -1) & (y <= 1)).all()
    drawn = {line.get_label(): np.asarray(line.get_ydata(), dtype=float) for line in ax.lines}
    for pair, group in curve.groupby("pair"):
        group = group.sort_values("alpha")
        np.testing.assert_allclose(drawn[f"{pair} (Kendall tau)"], group["tau"])
        np.testing.assert_allclose(drawn[f"{pair} (tau_AP)"], group["tau_ap"])


def test_synthetic_plot_draws_ranks_in_range_and_no_interval(hand_pool: Pool, hand_qrels: pd.DataFrame,
                                                             tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    query = str(hand_qrels.loc[hand_qrels["relevance"] >= 1, "query_id"].iloc[0])
    curve = synthetic_rank_curve(hand_pool, hand_qrels, query, measure_cutoff=2)
    before = sorted(tmp_path.rglob("*"))
    fig = plot_synthetic(curve)
    assert sorted(tmp_path.rglob("*")) == before  # no path: nothing written
    num_systems = int(curve["num_systems"].iloc[0])
    systems = list(dict.fromkeys(curve["system"]))
    assert len(fig.axes) == len(systems)
    for ax, system in zip(fig.axes, systems, strict=True):
        assert len(ax.collections) == 0 and not ax.containers
        part = curve[curve["system"] == system]
        for line, (alpha, group) in zip(ax.lines, part.groupby("alpha"), strict=True):
            assert line.get_label() == f"alpha={alpha:g}"
            y = np.asarray(line.get_ydata(), dtype=float)
            np.testing.assert_array_equal(y, group["rank"])
            assert ((y >= 1) & (y <= num_systems)).all()
