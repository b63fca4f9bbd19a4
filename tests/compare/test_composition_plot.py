"""The composition plot names every run it draws and draws the composition table's rank ranges, inside [1, runs]."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from matplotlib.figure import Figure

from ir_rarity import Pool
from ir_rarity.compare import composition
from ir_rarity.compare.plots import plot_composition

M = "P_rare(alpha=0.5)@10"


@pytest.fixture(scope="module")
def covid_table(covid_pool: Pool, covid_qrels: pd.DataFrame) -> pd.DataFrame:
    return composition(covid_pool, covid_qrels, [M], resamples=20, seed=2)


def _ranges(fig: Figure) -> list[np.ndarray]:
    """Per bar collection: an array (runs, 3) of the row, left and right end of each horizontal bar."""
    out = []
    for coll in fig.axes[0].collections:
        segs = coll.get_segments()
        for seg in segs:
            assert seg[0][1] == seg[1][1]  # horizontal
        out.append(np.array([[seg[0][1], seg[0][0], seg[1][0]] for seg in segs]))
    return out


def _check(fig: Figure, table: pd.DataFrame, shown: pd.DataFrame) -> None:
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [str(run) for run in shown.index]  # every run named, best first
    np.testing.assert_array_equal(ax.get_yticks(), np.arange(len(shown)))
    boot, loto = _ranges(fig)
    np.testing.assert_array_equal(boot[:, 0], np.arange(len(shown)))
    np.testing.assert_array_equal(boot[:, 1:], shown[[f"{M} boot rank low", f"{M} boot rank high"]].to_numpy(float))
    np.testing.assert_array_equal(loto[:, 1:], shown[[f"{M} loto rank best", f"{M} loto rank worst"]].to_numpy(float))
    for bars in (boot, loto):
        assert ((bars[:, 1:] >= 1) & (bars[:, 1:] <= len(table))).all()
        assert (bars[:, 1] <= bars[:, 2]).all()
    (dots,) = ax.lines
    np.testing.assert_array_equal(dots.get_xdata(), shown[f"{M} rank"].to_numpy(float))
    assert ax.yaxis_inverted()  # best at the top


def test_every_run_is_labelled(hand_pool: Pool, hand_qrels: pd.DataFrame, tmp_path: Path) -> None:
    table = composition(hand_pool, hand_qrels, [M], resamples=10, seed=0)
    before = sorted(tmp_path.rglob("*"))
    fig = plot_composition(table, M)
    assert isinstance(fig, Figure)
    assert sorted(tmp_path.rglob("*")) == before  # no path: nothing written
    shown = table.sort_values([f"{M} rank", M], ascending=[True, False], kind="mergesort")
    _check(fig, table, shown)
    assert set(hand_pool.names) == {t.get_text() for t in fig.axes[0].get_yticklabels()}


def test_top_runs_are_labelled_and_keep_their_ranks(covid_table: pd.DataFrame, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    fig = plot_composition(covid_table, M, top=15)
    assert list(tmp_path.rglob("*")) == []
    shown = covid_table.sort_values([f"{M} rank", M], ascending=[True, False], kind="mergesort").head(15)
    assert len(shown) == 15
    _check(fig, covid_table, shown)
    # readable: labels horizontal, one row per run
    assert all(t.get_rotation() == 0 for t in fig.axes[0].get_yticklabels())


def test_all_runs_of_a_campaign_are_labelled(covid_table: pd.DataFrame) -> None:
    fig = plot_composition(covid_table, M)
    labels = {t.get_text() for t in fig.axes[0].get_yticklabels()}
    assert labels == {str(run) for run in covid_table.index}
    assert len(labels) == len(covid_table)


def test_writes_only_when_given_a_path(hand_pool: Pool, hand_qrels: pd.DataFrame, tmp_path: Path) -> None:
    table = composition(hand_pool, hand_qrels, [M], resamples=5, seed=0)
    out = tmp_path / "out" / "composition.png"
    out.parent.mkdir()
    fig = plot_composition(table, M, out)
    assert isinstance(fig, Figure)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in out.parent.iterdir()] == ["composition.png"]


def test_unknown_measure() -> None:
    with pytest.raises(KeyError):
        plot_composition(pd.DataFrame({"x": [1]}), "AP_rare@10")
