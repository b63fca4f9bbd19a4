"""Random per-query score tables for the meta-evaluation tests (discriminative power, stability)."""

import numpy as np
import pandas as pd


def random_scores(n_runs: int, n_queries: int, seed: int) -> pd.DataFrame:
    """Runs x queries scores in [0, 1]: run effectiveness plus query difficulty plus noise, so that some pairs of
    runs differ and some do not."""
    rng = np.random.default_rng(seed)
    quality = rng.uniform(0.1, 0.6, size=(n_runs, 1))
    difficulty = rng.uniform(-0.2, 0.2, size=(1, n_queries))
    values = np.clip(quality + difficulty + rng.normal(0, 0.15, size=(n_runs, n_queries)), 0, 1)
    return pd.DataFrame(
        values, index=[f"run{i:03d}" for i in range(n_runs)], columns=[f"q{j}" for j in range(n_queries)]
    )
