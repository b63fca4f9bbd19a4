"""Plot functions never change matplotlib's backend nor leave pyplot figures open (a notebook stays inline)."""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPT = r"""
import matplotlib
matplotlib.use("pdf")  # stands for a notebook's inline backend: any backend the user chose
import matplotlib.pyplot as plt
import pandas as pd
import ir_rarity
from ir_rarity import Pool, covid_round1
from ir_rarity.analysis import asl_distribution
from ir_rarity.analysis.plots import plot_asl_distribution
from ir_rarity.compare.plots import plot_composition
from ir_rarity.compare.uncertainty import composition
from ir_rarity.meta.plots import plot_tau_alpha
from ir_rarity.judging import simulate
from ir_rarity.judging.summary import plot_budget_curves, plot_reusability

runs = ir_rarity.read_trec_run(covid_round1.runs)
qrels = ir_rarity.read_trec_qrels(covid_round1.qrels)
pool = Pool.from_runs({t: g for t, g in list(runs.groupby("tag"))[:6]})
figures = [
    plot_asl_distribution(asl_distribution(pool.run(pool.names[0]), qrels)),
    plot_composition(composition(pool, qrels, ["P_rare@10"], resamples=5), "P_rare@10"),
    plot_tau_alpha(pd.DataFrame({"alpha": [0, 1], "pair": "P_rare vs P", "tau": [1.0, 0.9]})),
    plot_budget_curves(simulate(pool, qrels, ["depth"], [2, 4], depth=10)),
    plot_reusability(pd.DataFrame({"strategy": "depth", "budget": [2, 4], "measure": "P@10", "tau": [0.5, 0.7]}),
                     "P@10"),
]
from matplotlib.figure import Figure
assert all(isinstance(f, Figure) for f in figures), [type(f) for f in figures]
print(matplotlib.get_backend(), len(plt.get_fignums()))
"""


@pytest.mark.slow
def test_plots_keep_the_backend_and_open_no_pyplot_figure() -> None:
    pytest.importorskip("matplotlib")
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["pdf", "0"]
