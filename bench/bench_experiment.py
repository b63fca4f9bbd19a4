"""Benchmark of ``ir_rarity.Experiment`` against the engine call it is built on (run by hand, not in CI).

    python bench/bench_experiment.py [--systems 126] [--queries 50] [--depth 1000] [--judged 300] [--seed 0]
                                     [--repeat 3]

A synthetic campaign is made in memory with numpy: for each query a collection of documents whose popularity
follows a Zipf-like law (the same for every system); each system retrieves ``depth`` documents per query, drawn
without replacement in proportion to popularity (Gumbel top-k, so its ranking is the drawn order), and ``judged``
documents per query are judged 0, 1 or 2 (the popular ones more often relevant). Ten measures (standard and
rarity) are computed for all systems at once by

* ``ir_rarity.evaluate(results, qrels, measures)``, and
* ``ir_rarity.Experiment(results, topics, qrels, measures)`` (the same values, then pt.Experiment's table),

each the best of ``repeat`` calls. The target: Experiment takes at most 1.5 times evaluate.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from timing import best  # bench/timing.py: the bench scripts' one timing rule

MEASURES = ["P@10", "P@100", "AP", "nDCG@10", "RR", "R@1000", "P_rare(alpha=0.5)@100", "AP_rare", "nDCG_rare@10",
            "ASL"]
TARGET = 1.5


def campaign(systems: int, queries: int, depth: int, judged: int, seed: int
             ) -> tuple[dict[str, pd.DataFrame], pd.DataFrame, pd.DataFrame]:
    """Results (PyTerrier columns ``qid, docno, score, rank``), qrels (``qid, docno, label``) and topics."""
    rng = np.random.default_rng(seed)
    collection = max(10 * depth, 2 * judged)
    log_popularity = -1.1 * np.log(np.arange(1, collection + 1))  # Zipf-like, exponent 1.1
    qids = [str(q) for q in range(1, queries + 1)]
    columns: dict[str, list[np.ndarray]] = {"system": [], "qid": [], "docno": [], "score": [], "rank": []}
    qrels = []
    for qid in qids:
        docnos = np.char.add(f"q{qid}-d", np.arange(collection).astype(str)).astype(object)
        keys = log_popularity + rng.gumbel(size=(systems, collection))  # Gumbel top-k: weighted, no replacement
        top = np.argpartition(-keys, depth - 1, axis=1)[:, :depth]
        top_keys = np.take_along_axis(keys, top, axis=1)
        ranked = np.take_along_axis(top, np.argsort(-top_keys, axis=1), axis=1)
        columns["system"].append(np.repeat(np.arange(systems), depth))
        columns["qid"].append(np.full(systems * depth, qid, dtype=object))
        columns["docno"].append(docnos[ranked.reshape(-1)])
        columns["score"].append(-np.sort(-top_keys, axis=1).reshape(-1))
        columns["rank"].append(np.tile(np.arange(depth), systems))
        judged_docs = rng.choice(collection, size=judged, replace=False, p=_softmax(log_popularity))
        chance = np.exp(log_popularity[judged_docs] - log_popularity[judged_docs].max()) ** 0.3
        labels = (rng.random(judged) < chance).astype(int) + (rng.random(judged) < chance / 3).astype(int)
        qrels.append(pd.DataFrame({"qid": qid, "docno": docnos[judged_docs], "label": labels}))
    frame = pd.DataFrame({k: np.concatenate(v) for k, v in columns.items()})
    results = {f"sys{s:03d}": part.drop(columns="system").reset_index(drop=True)
               for s, part in frame.groupby("system", sort=True)}
    topics = pd.DataFrame({"qid": qids, "query": "synthetic"})
    return results, pd.concat(qrels, ignore_index=True), topics


def _softmax(log_weights: np.ndarray) -> np.ndarray:
    weights = np.exp(log_weights - log_weights.max())
    return weights / weights.sum()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", type=int, default=126)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import ir_rarity

    start = time.perf_counter()
    results, qrels, topics = campaign(args.systems, args.queries, args.depth, args.judged, args.seed)
    print(f"campaign: {args.systems} systems x {args.queries} queries x {args.depth} documents, {len(qrels)} "
          f"judgments (seed {args.seed}), made in {time.perf_counter() - start:.1f} s; {len(MEASURES)} measures")
    engine, evaluation = best(lambda: ir_rarity.evaluate(results, qrels, MEASURES, progress=False), args.repeat)
    print(f"ir_rarity.evaluate:   {engine:.3f} s (best of {args.repeat})")
    experiment, table = best(lambda: ir_rarity.Experiment(results, topics, qrels, MEASURES), args.repeat)
    print(f"ir_rarity.Experiment: {experiment:.3f} s (best of {args.repeat})")
    same = np.allclose(table.set_index("name").loc[evaluation.names, [str(m) for m in evaluation.measures]],
                       evaluation.table().to_numpy(), rtol=0, atol=1e-12, equal_nan=True)
    print(f"same means as evaluate().table(): {same}")
    ratio = experiment / engine
    print(f"Experiment / evaluate = {ratio:.2f}x (target <= {TARGET}x): {'met' if ratio <= TARGET else 'NOT met'}")


if __name__ == "__main__":
    main()
