"""Speed of the pooling strategies on a synthetic campaign (run by hand, not in CI).

    python bench/bench_pooling.py [--runs 143] [--depth 1000] [--topics 1] [--budget 1000] [--seed 0]

The campaign is generated here: a collection of 20 x depth documents per topic whose popularity follows a
Zipf-like law; each run ranks `depth` of them, drawn by popularity with its own noise, so runs overlap as real
ones do; a document is relevant with a probability that falls with its popularity rank (the qrels judge every
document of the collection, so the oracle never answers "outside the qrels"). Reported: the time to build the
candidates, and for each strategy the time to order every topic up to the budget (adaptive strategies loop
once per judgment; the target is under one second per topic of 143 runs x 1000 documents at budget 1000).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from ir_rarity import Pool
from ir_rarity.judging import MMNS, MTF, RBP, RRF, Candidates, DepthK, RarityRBP


def synthetic_campaign(n_runs: int, depth: int, n_topics: int, seed: int) -> tuple[dict[str, pd.DataFrame],
                                                                                    pd.DataFrame]:
    """Runs (name -> frame) and qrels of a synthetic campaign (see the module)."""
    rng = np.random.default_rng(seed)
    n_docs = 20 * depth
    popularity = 1.0 / np.arange(1, n_docs + 1) ** 0.8
    runs: dict[str, list[pd.DataFrame]] = {f"run{r:03d}": [] for r in range(n_runs)}
    qrels = []
    for t in range(n_topics):
        relevant = rng.random(n_docs) < 0.3 / np.sqrt(np.arange(1, n_docs + 1) / 50 + 1)
        for name in runs:
            noisy = np.log(popularity) + rng.gumbel(size=n_docs) * 1.5  # Gumbel top-k: sampling by popularity
            picked = np.argsort(-noisy)[:depth]
            runs[name].append(pd.DataFrame({"query_id": f"t{t}", "doc_id": [f"d{d}" for d in picked],
                                            "score": np.arange(depth, 0, -1, dtype=np.float64)}))
        qrels.append(pd.DataFrame({"query_id": f"t{t}", "doc_id": [f"d{d}" for d in range(n_docs)],
                                   "relevance": relevant.astype(int)}))
    return {n: pd.concat(parts, ignore_index=True) for n, parts in runs.items()}, pd.concat(qrels, ignore_index=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=143)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--topics", type=int, default=1)
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    start = time.perf_counter()
    runs, qrels = synthetic_campaign(args.runs, args.depth, args.topics, args.seed)
    generated = time.perf_counter() - start
    start = time.perf_counter()
    pool = Pool.from_runs(runs)
    cands = Candidates.from_pool(pool, qrels)
    built = time.perf_counter() - start
    print(f"synthetic campaign: {args.runs} runs x {args.depth} documents x {args.topics} topic(s), "
          f"{cands.n_docs} distinct documents, {int(cands.doc_relevant().sum())} of them relevant "
          f"(generated in {generated:.1f} s; pool and candidates in {built:.2f} s)")
    print(f"{'strategy':<24} {'seconds':>8} {'per topic':>10} {'relevant found':>15}")
    relevant = cands.doc_relevant()
    for strategy in (DepthK(), RBP(), RRF(), RarityRBP(), MTF(), MMNS()):
        start = time.perf_counter()
        order = strategy.order(cands, seed=args.seed, limit=args.budget)
        seconds = time.perf_counter() - start
        found = int(relevant[order.judged(args.budget)].sum())
        print(f"{strategy!s:<24} {seconds:8.3f} {seconds / args.topics:10.3f} {found:15d}")


if __name__ == "__main__":
    main()
