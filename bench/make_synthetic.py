"""Generate a synthetic TREC campaign for the benchmarks: run files and qrels.

    python bench/make_synthetic.py OUT_DIR [--runs 126] [--queries 50] [--docs 1000] [--seed 0] [--gzip]
                                   [--pool-depth K]

Writes ``OUT_DIR/runs/run_XXXX`` (``run_XXXX.gz`` with ``--gzip``; one TREC run file per run, ``docs`` documents per
query) and ``OUT_DIR/qrels.txt``. Each query has a universe of 20,000 documents with Zipf-like popularity; every run
draws its documents by popularity (so runs overlap as real ones do, and many documents are rare), scores them with
four decimals (so scores tie), and ranks them by score. The qrels judge the 300 most popular documents and 200
others per query, with labels 0, 1 and 2 (popular documents more often relevant). With ``--pool-depth K`` the qrels
judge instead what a depth-K pool judges: every document in some run's top K, labelled by the same law.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

UNIVERSE = 20_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--runs", type=int, default=126)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gzip", action="store_true", help="write run_XXXX.gz (gzip level 6)")
    parser.add_argument("--pool-depth", type=int, help="judge every document in some run's top K (a depth-K pool)")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    (args.out / "runs").mkdir(parents=True, exist_ok=True)
    log_weight = -1.1 * np.log(np.arange(1, UNIVERSE + 1))  # Zipf-like popularity, rank 1 most popular
    doc_ids = np.array([f"doc{i:06d}" for i in range(UNIVERSE * args.queries)], dtype=object)
    query_ids = np.repeat(np.array([str(301 + q) for q in range(args.queries)], dtype=object), args.docs)
    pooled: list[set[int]] = [set() for _ in range(args.queries)]
    for r in range(args.runs):
        taste = rng.normal(scale=2.0, size=(args.queries, UNIVERSE))  # each run prefers other documents
        keys = log_weight + taste + rng.gumbel(size=(args.queries, UNIVERSE))
        picked = np.argpartition(-keys, args.docs, axis=1)[:, : args.docs]
        order = np.argsort(-np.take_along_axis(keys, picked, axis=1), axis=1, kind="stable")
        picked = np.take_along_axis(picked, order, axis=1)
        if args.pool_depth:
            for q in range(args.queries):
                pooled[q].update(picked[q, : args.pool_depth].tolist())
        score = np.round(np.sort(rng.exponential(size=(args.queries, args.docs)), axis=1)[:, ::-1] * 10, 4)
        docs = doc_ids[(picked + UNIVERSE * np.arange(args.queries)[:, None]).reshape(-1)]
        frame = pd.DataFrame({"q": query_ids, "q0": "Q0", "doc": docs,
                              "rank": np.tile(np.arange(1, args.docs + 1), args.queries),
                              "score": score.reshape(-1), "tag": f"run_{r:04d}"})
        name = f"run_{r:04d}.gz" if args.gzip else f"run_{r:04d}"
        frame.to_csv(args.out / "runs" / name, sep=" ", header=False, index=False,
                     compression={"method": "gzip", "compresslevel": 6} if args.gzip else None)
    judged = []
    for q in range(args.queries):
        if args.pool_depth:
            ids = np.array(sorted(pooled[q]), dtype=np.int64)
        else:
            popular = np.arange(300)
            others = rng.choice(np.arange(300, UNIVERSE), size=200, replace=False)
            ids = np.concatenate([popular, others])
        p_rel = np.where(ids < 300, 0.4, 0.1)
        label = (rng.random(len(ids)) < p_rel).astype(int) + (rng.random(len(ids)) < p_rel / 2).astype(int)
        judged.append(pd.DataFrame({"q": str(301 + q), "iter": 0, "doc": doc_ids[ids + UNIVERSE * q],
                                    "label": label}))
    pd.concat(judged).to_csv(args.out / "qrels.txt", sep=" ", header=False, index=False)
    print(f"{args.runs} runs x {args.queries} queries x {args.docs} documents -> {args.out}")


if __name__ == "__main__":
    main()
