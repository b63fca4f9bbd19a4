"""Small campaigns of run files with ties, odd docnos and unanswered queries, and their qrels, written for tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def write_campaign(folder: Path, n_runs: int = 7, seed: int = 5) -> tuple[list[Path], Path]:
    """Run files of random rankings over a small universe (runs share documents; one-decimal scores tie often)."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    queries = [f"q{i}" for i in range(5)]
    universe = [f"d{i:02d}" for i in range(50)] + ['"quoted"', "é-doc", "0042"]
    files = []
    for r in range(n_runs):
        lines = []
        for q in queries:
            if rng.random() < 0.15:  # this run does not answer this query
                continue
            n = int(rng.integers(4, 40))
            picked = rng.choice(len(universe), size=n, replace=False)
            scores = np.round(rng.random(n) * 3, 1)
            lines += [f"{q} Q0 {universe[i]} {k + 1} {s} run{r}\n"
                      for k, (i, s) in enumerate(zip(picked, scores, strict=True))]
        path = folder / f"run{r}"
        path.write_text("".join(lines), encoding="utf-8")
        files.append(path)
    qrels = folder / "qrels.txt"
    judged = [f"{q} 0 {d} {int(rng.integers(0, 3))}\n" for q in [*queries, "q-unretrieved"]
              for d in rng.choice(universe, size=25, replace=False)]
    qrels.write_text("".join(judged), encoding="utf-8")
    return files, qrels
