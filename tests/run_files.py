"""Small campaigns of run files with ties, odd docnos and unanswered queries, and their qrels, written for tests."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np


def write_campaign(folder: Path, n_runs: int = 7, seed: int = 5, gz: bool = False) -> tuple[list[Path], Path]:
    """Run files of random rankings over a small universe (so runs share documents), with ties and odd docnos.

    Docnos grow longer in later runs (a later block brings longer strings), include quotes, non-ASCII letters
    and a leading zero; some runs skip queries, and rankings differ in length.
    """
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    queries = [f"q{i}" for i in range(6)]
    universe = [f"d{i}" for i in range(60)] + ['"quoted"', "é-doc", "0042", "d'x", "LONGER-DOCNO-" + "x" * 30]
    files = []
    for r in range(n_runs):
        lines = []
        for q in queries:
            if rng.random() < 0.15:  # this run does not answer this query
                continue
            docs = list(universe[:60 + min(5, r)])
            n = int(rng.integers(5, 45))
            picked = rng.choice(len(docs), size=n, replace=False)
            scores = np.round(rng.random(n) * 3, 1)  # one decimal: many ties, broken by docno
            lines += [f"{q} Q0 {docs[i]} {k + 1} {s} run{r}\n"
                      for k, (i, s) in enumerate(zip(picked, scores, strict=True))]
        path = folder / (f"run{r}.gz" if gz else f"run{r}")
        text = "".join(lines)
        if gz:
            path.write_bytes(gzip.compress(text.encode()))
        else:
            path.write_text(text, encoding="utf-8")
        files.append(path)
    qrels = folder / "qrels.txt"
    judged = [f"{q} 0 {d} {int(rng.integers(0, 3))}\n" for q in [*queries, "q-unretrieved"]
              for d in rng.choice(universe, size=30, replace=False)]
    qrels.write_text("".join(judged), encoding="utf-8")
    return files, qrels
