"""Dask against in-process evaluation of one synthetic campaign (run by hand, not in CI).

    python bench/make_synthetic.py --runs 500 /tmp/syn500
    python bench/bench_dask.py /tmp/syn500 [--repeat 2] [--two-passes]

Prints the in-process time (``ir_rarity.evaluate(Pool.from_runs(runs), qrels, measures)``, best of ``--repeat``),
the time of
``evaluate_with_dask`` on a LocalCluster set up as the D1 row of ``bench/bench_campaign.py`` (2 worker processes,
1 thread each, memory limit below the campaign's in-memory size, P2P shuffle; best of ``--repeat`` calls on one
cluster, and the first call with the cluster's start-up), their ratio against the target of 4, and whether the
values are equal. With ``--two-passes``, the Dask side is ``evaluate_two_passes_with_dask`` (S_d counted by tasks and
merged, each block of runs scored where it is read; target 2) and the measures the scale rows' whole-ranking ones.
"""

from __future__ import annotations

import argparse
import os
import time

from ir_rarity.engine.pages import allocator_environ

TARGET = 4.0
TWO_PASSES_TARGET = 2.0
MEASURES = ["P_rare@100", "AP_rare@100", "P@10", "nDCG@10"]  # those of bench_campaign.dask_row
WHOLE = ["P@10", "AP", "RR", "nDCG@10", "P_rare@100", "AP_rare"]  # those of bench_scale.py's scale rows
# as bench_campaign.dask_row: P2P shuffle, spill early, never pause, Arrow's system allocator in the workers; and
# glibc keeping 16 MiB of freed heap in the workers, as the command line keeps it (ir_rarity.engine.allocator_environ)
SETTINGS = {"distributed.worker.memory.target": 0.5, "distributed.worker.memory.spill": 0.6,
            "distributed.worker.memory.pause": False, "dataframe.shuffle.method": "p2p",
            **{f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in allocator_environ().items()}}


def main() -> None:
    """Time both paths and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("campaign", help="folder made by bench/make_synthetic.py")
    parser.add_argument("--repeat", type=int, default=2, help="timings of each path (best is kept)")
    parser.add_argument("--two-passes", action="store_true", help="time evaluate_two_passes_with_dask instead")
    args = parser.parse_args()
    target, measures = (TWO_PASSES_TARGET, WHOLE) if args.two_passes else (TARGET, MEASURES)

    import dask
    import distributed

    import ir_rarity
    from ir_rarity import Pool
    from ir_rarity.integrations.dask import evaluate_with_dask
    from ir_rarity.integrations.dask_stream import evaluate_two_passes_with_dask
    from ir_rarity.pool.build.sources import iter_named_runs

    runs_glob = os.path.join(args.campaign, "runs", "*")
    qrels = ir_rarity.read_trec_qrels(os.path.join(args.campaign, "qrels.txt"))
    in_memory = sum(int(f.memory_usage(deep=True).sum()) for _, f in iter_named_runs(runs_glob, progress=False))
    limit = max(in_memory * 3 // 4, 320 * 2**20)  # as dask_row: below the campaign, above a bare worker
    if args.two_passes:  # a worker holds the counts (merged two at a time) and one block of runs, not a partition
        limit = max(limit, 1536 * 2**20)

    local = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        expected = ir_rarity.evaluate(Pool.from_runs(runs_glob), qrels, measures).table()
        local.append(time.perf_counter() - start)
    expected = expected.sort_index()

    remote = []
    start = time.perf_counter()
    with dask.config.set(SETTINGS), distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, memory_limit=limit, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        pids = client.run(os.getpid)
        up = time.perf_counter() - start
        equal = True
        for _ in range(args.repeat):
            call = time.perf_counter()
            got = (evaluate_two_passes_with_dask(runs_glob, qrels, measures) if args.two_passes
                   else evaluate_with_dask(runs_glob, qrels, measures)).table().sort_index()
            remote.append(time.perf_counter() - call)
            equal = equal and bool(got[expected.columns].equals(expected))
        restarted = client.run(os.getpid) != pids

    best_local, best_remote = min(local), min(remote)
    print(f"campaign {runs_glob}: {in_memory / 2**20:.0f} MB in memory; workers 2 x {limit / 2**20:.0f} MB")
    print(f"in-process  {', '.join(f'{t:.1f}' for t in local)} s  best {best_local:.1f} s")
    side = "dask 2-pass" if args.two_passes else "dask       "
    print(f"{side} {', '.join(f'{t:.1f}' for t in remote)} s  best {best_remote:.1f} s "
          f"(cluster start-up {up:.1f} s)")
    print(f"ratio       {best_remote / best_local:.2f}x (target <= {target:g}x: "
          f"{'met' if best_remote / best_local <= target else 'NOT met'}); first call with start-up "
          f"{(remote[0] + up) / best_local:.2f}x")
    print(f"equal to Pool.evaluate: {equal}; a worker restarted: {restarted}")


if __name__ == "__main__":
    main()
