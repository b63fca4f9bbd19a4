"""Cold start: the first evaluation in a fresh process against the same call repeated.

    python bench/cold_start.py [RUN_GLOB] [QRELS]

Runs are read into memory first (reading is not part of the evaluation); then the same
``Pool.from_runs(runs).evaluate(qrels, measures)`` is timed three times. Prints the first time, the best
repeated time and their ratio (target <= 1.3). ``--profile`` prints where the first call spends its time.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_RUNS = str(HERE.parent.parent / "shared" / "data" / "trec-covid-round1" / "runs" / "*.gz")
MEASURES = ["P_rare@100", "AP_rare@100", "ASL", "ASL@g1-10", "U_novel@100", "P@100", "AP"]


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    runs_glob = args[0] if args else DEFAULT_RUNS
    start = time.perf_counter()
    import ir_rarity
    from ir_rarity import Pool
    from ir_rarity.pool.build.sources import iter_named_runs

    imported = time.perf_counter() - start
    qrels = ir_rarity.read_trec_qrels(args[1] if len(args) > 1 else str(ir_rarity.covid_round1.qrels))
    runs = dict(iter_named_runs(runs_glob, progress=False))
    times = []
    for k in range(3):
        start = time.perf_counter()
        if k == 0 and "--profile" in sys.argv:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.runcall(lambda: Pool.from_runs(runs).evaluate(qrels, MEASURES))
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
        else:
            Pool.from_runs(runs).evaluate(qrels, MEASURES)
        times.append(time.perf_counter() - start)
    first, repeated = times[0], min(times[1:])
    print(f"import {imported:.2f} s; first {first:.3f} s; repeated {repeated:.3f} s; ratio {first / repeated:.2f} "
          "(target <= 1.3)")


if __name__ == "__main__":
    main()
