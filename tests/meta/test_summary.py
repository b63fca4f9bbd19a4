"""The meta-evaluation report: files, PNGs, atomic writes, and its numbers recounted independently."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib import pyplot as plt
from matplotlib.figure import Figure
from scipy import stats as sps
from score_tables import random_scores

from ir_rarity import Pool
from ir_rarity.evaluation import evaluate_campaign
from ir_rarity.meta import (
    MetaReport,
    compute_report,
    curves,
    discriminative_power,
    per_query_matrix,
    plot_robustness,
    plot_synthetic,
    plot_tau_alpha,
    save_report,
    stability,
    summary,
    write_report,
)
from ir_rarity.meta.summary import report_markdown

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
FILES = ["report.md", "tau_alpha.csv", "discriminative_power.csv", "stability.csv", "robustness.csv",
         "synthetic.csv", "tau_alpha.png", "robustness.png", "synthetic.png"]


def _check_folder(out: Path) -> None:
    for name in FILES:
        assert (out / name).is_file(), name
        assert (out / name).stat().st_size > 0, name
    for png in out.glob("*.png"):
        assert png.read_bytes()[:8] == PNG_MAGIC, png
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")], "temporary files left behind"


def test_report_hand(hand_pool: Pool, hand_qrels: pd.DataFrame, tmp_path: Path) -> None:
    out = tmp_path / "nested" / "report"
    path = write_report(hand_pool, hand_qrels, out, alphas=(0, 0.5, 1), trials=5, cutoff=2, sizes=(2, 3, 8))
    assert path == out / "report.md"
    _check_folder(out)
    text = path.read_text(encoding="utf-8")
    for heading in ("Figure 2", "Table 1", "Table 2", "Table 3", "Figure 1"):
        assert heading in text
    power = pd.read_csv(out / "discriminative_power.csv")
    assert list(power["measure"].unique()) == ["P@2", "P_rare(alpha=0.5)@2", "P_rare(alpha=1)@2", "AP@2",
                                               "AP_rare(alpha=0.5)@2", "AP_rare(alpha=1)@2"]
    assert (power["total_pairs"] == 3).all()
    robust = pd.read_csv(out / "robustness.csv")
    assert sorted(robust["size"].unique()) == [2, 3]  # 8 > 3 runs is dropped
    # Written again over an existing report: replaced in place.
    write_report(hand_pool, hand_qrels, out, alphas=(0, 1), trials=3, cutoff=2, sizes=(2,), plots=False)
    assert "tau_alpha.png" not in path.read_text(encoding="utf-8")


@pytest.mark.slow
def test_report_round1(covid_pool: Pool, covid_qrels: pd.DataFrame, tmp_path: Path) -> None:
    write_report(covid_pool, covid_qrels, tmp_path, alphas=(0, 0.5, 1), trials=5, sizes=(2, 8), seed=3)
    _check_folder(tmp_path)
    curve = pd.read_csv(tmp_path / "tau_alpha.csv")
    assert (curve.loc[curve["alpha"] == 0, "tau"] == 1.0).all()
    # Table 1 recounted with scipy's pooled-variance two-sample t-test, pair by pair.
    power = pd.read_csv(tmp_path / "discriminative_power.csv")
    assert (power["total_pairs"] == 143 * 142 // 2).all()
    values = per_query_matrix(covid_pool, covid_qrels, "AP_rare(alpha=0.5)@100").to_numpy()
    i, j = np.triu_indices(len(values), k=1)
    p = sps.ttest_ind(values[i], values[j], axis=1).pvalue
    for confidence, level in (("95%", 0.05), ("99%", 0.01)):
        row = power[(power["measure"] == "AP_rare(alpha=0.5)@100") & (power["confidence"] == confidence)]
        assert int(row["significant_pairs"].iloc[0]) == int(np.sum(np.nan_to_num(p, nan=1.0) < level))
    stab = pd.read_csv(tmp_path / "stability.csv")
    assert stab["stability"].between(0, 1).all()


def test_paper_method_equals_ttest_ind_on_round1(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    pytest.importorskip("statsmodels")
    scores = per_query_matrix(covid_pool, covid_qrels, "P_rare(alpha=1)@100").iloc[::30]  # 5 runs, 10 pairs
    paper = discriminative_power(scores, method="paper", alpha=0.05)
    fast = discriminative_power(scores, method="ttest_ind", alpha=0.05)
    values = scores.to_numpy()
    recount = sum(sps.ttest_ind(values[a], values[b]).pvalue < 0.05
                  for a in range(len(values)) for b in range(a + 1, len(values)))
    assert paper.significant_pairs == fast.significant_pairs == recount
    assert paper.total_pairs == 10


def test_stability_round1_deterministic(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    scores = per_query_matrix(covid_pool, covid_qrels, "P_rare(alpha=0.5)@100")
    first = stability(scores, trials=50, fuzziness=0.05, seed=11)
    assert first == stability(scores, trials=50, fuzziness=0.05, seed=11)
    assert 0.5 <= first <= 1.0


def _plot_inputs() -> list[tuple[object, pd.DataFrame, str]]:
    curve = pd.DataFrame({"alpha": [0, 1, 0, 1], "pair": ["P_rare vs P"] * 2 + ["AP_rare vs AP"] * 2,
                          "tau": [1.0, 0.9, 1.0, 0.95], "tau_ap": [1.0, 0.8, 1.0, 0.9]})
    synthetic = pd.DataFrame({"system": ["rare", "rare", "common", "common"], "alpha": [0, 0, 0, 0],
                              "n_relevant": [1, 2, 1, 2], "rank": [5, 1, 5, 1]})
    robust = pd.DataFrame({"size": [2, 4], "mean_tau": [0.9, 0.95], "std": [0.1, 0.05]})
    return [(plot_tau_alpha, curve, "a.png"), (plot_synthetic, synthetic, "b.png"), (plot_robustness, robust, "c.png")]


def test_plots_write_png(tmp_path: Path) -> None:
    for func, df, name in _plot_inputs():
        fig = func(df, tmp_path / name)
        assert isinstance(fig, Figure)
        assert (tmp_path / name).read_bytes()[:8] == PNG_MAGIC
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.png", "b.png", "c.png"]


def test_plots_without_a_path_write_nothing_and_leave_pyplot_alone(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    before = plt.get_fignums()
    for func, df, _ in _plot_inputs():
        fig = func(df)
        assert isinstance(fig, Figure) and fig.axes
    assert list(tmp_path.iterdir()) == []
    assert plt.get_fignums() == before  # object interface: no figure registered with pyplot


def test_compute_then_save_is_write_report(hand_pool: Pool, hand_qrels: pd.DataFrame, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []

    def counting(campaign, qrels, measures, *args, **kwargs):
        calls.append([str(m) for m in measures])
        return evaluate_campaign(campaign, qrels, measures, *args, **kwargs)

    monkeypatch.setattr(curves, "evaluate_campaign", counting)
    report = compute_report(hand_pool, hand_qrels, alphas=(0, 0.25, 1), trials=4, cutoff=2, sizes=(2, 3, 8), seed=1)
    assert len(calls) == 1  # every measure of the curve and of Tables 1 and 2 in one evaluation
    assert len(calls[0]) == 8  # P_rare and AP_rare at alpha 0, 0.25, 0.5 and 1
    assert isinstance(report, MetaReport)
    assert list(report.tables()) == ["tau_alpha", "discriminative_power", "stability", "robustness", "synthetic"]
    assert (report.cutoff, report.alphas, report.sizes, report.trials, report.seed) == (2, (0.0, 0.25, 1.0), (2, 3),
                                                                                        4, 1)
    assert (report.n_runs, report.num_systems, report.n_queries) == (3, 3, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.cutoff = 3  # type: ignore[misc]
    saved = save_report(report, tmp_path / "a", plots=False)
    written = write_report(hand_pool, hand_qrels, tmp_path / "b", alphas=(0, 0.25, 1), trials=4, cutoff=2,
                           sizes=(2, 3, 8), seed=1, plots=False)
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert saved.read_text(encoding="utf-8") == report_markdown(report, plots=False) == written.read_text("utf-8")


def test_power_table_counts_each_level_as_discriminative_power_does() -> None:
    measures = summary.report_measures(10)[:2]
    scores = {}
    for k, (label, _, _) in enumerate(measures):
        frame = random_scores(12, 8, seed=k).round(1)  # rounded: ties, and pairs of identical runs (p undefined)
        frame.iloc[1] = frame.iloc[0]
        frame.iloc[2, 3] = np.nan
        scores[label] = frame
    table = summary._power_table(scores, measures)
    for label, _, _ in measures:
        for level in summary.LEVELS:
            row = table[(table["measure"] == label) & (table["confidence"] == f"{1 - level:.0%}")]
            expected = discriminative_power(scores[label], method="ttest_ind", alpha=level)
            assert row["significant_pairs"].tolist() == [expected.significant_pairs]
            assert row["total_pairs"].tolist() == [expected.total_pairs]
