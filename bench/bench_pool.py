"""Benchmark (run by hand, not in CI): rarity evaluation of a whole campaign versus ir_measures' P and AP.

Both sides start from the 143 TREC-COVID round-1 runs in memory. Ours builds the pool (ordering, factorizing,
counting S_d) and computes P_rare@100 and AP_rare@100 for every run; the reference is ir_measures (pytrec_eval)
computing only P@100 and AP@100, run by run. Prints the times and their ratio (lower is better).

    python bench/bench_pool.py [path to the runs: file, folder or glob]
"""

from __future__ import annotations

import sys
import time

import ir_measures

import ir_rarity
from ir_rarity import Pool, covid_round1


def main() -> None:
    source = sys.argv[1] if len(sys.argv) > 1 else covid_round1.runs
    runs = dict(ir_rarity.pool.sources.iter_named_runs(source))
    qrels = ir_rarity.read_trec_qrels(covid_round1.qrels)
    n_rows = sum(len(r) for r in runs.values())

    start = time.perf_counter()
    pool = Pool.from_runs(runs)
    ours = pool.evaluate(qrels, ["P_rare@100", "AP_rare@100"])
    t_ours = time.perf_counter() - start

    start = time.perf_counter()
    evaluator = ir_measures.evaluator([ir_measures.P @ 100, ir_measures.AP @ 100], qrels)
    for run in runs.values():
        evaluator.calc_aggregate(run)
    t_ref = time.perf_counter() - start

    print(f"runs: {len(runs)}, rows: {n_rows:,}, measures of ours: {list(ours.columns)}")
    print(f"ir_rarity  pool + P_rare@100 + AP_rare@100 : {t_ours:8.3f} s")
    print(f"ir_measures P@100 + AP@100 (pytrec_eval)   : {t_ref:8.3f} s")
    print(f"ratio                                      : {t_ours / t_ref:8.3f}")


if __name__ == "__main__":
    main()
