"""One new run scored against a finished campaign, as fast as a standard measure? (the stock ir_measures command).

Times, side by side (alternating, median of ``--repeat``), in fresh processes:

* ``ir_measures QRELS RUN P@100`` (the standard measure), and
* ``ir_measures QRELS RUN "P_rare(alpha=0.5,pool='RUNS')@100 P@100"`` repeated, with the disk cache of
  :mod:`ir_rarity.pool.store.cache` warm (a temporary cache folder, filled by one call first),

and prints the ratio of the medians against its target (1.5). ``--cache off`` times the uncached call instead
(every call counts the campaign again). Values of both rarity calls are checked equal, and the first call must
say that it is building the cache. A third row, ``floor``, times ``P@100`` in a process that first imports what
the provider's quick way imports (:mod:`ir_rarity.integrations.tuples`: numpy and the engine's one-run path):
no warm rarity call can be faster than that.

Usage::

    python bench/bench_one_run.py [--runs 'DIR/runs/*.gz'] [--qrels QRELS] [--run RUN] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path("/work/shared/data/trec-covid-round1")
TARGET = 1.5


def _timed(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    return _run(command, env)[:2]


def _run(command: list[str], env: dict[str, str]) -> tuple[float, str, str]:
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return time.perf_counter() - start, done.stdout, done.stderr


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print the timings, the ratio and whether it meets the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default=str(DATA / "runs" / "*.gz"), help="the campaign (glob, folder, .npz)")
    parser.add_argument("--qrels", default=str(DATA / "qrels-rnd1.txt.gz"))
    parser.add_argument("--run", default=str(DATA / "runs" / "BBGhelani1.gz"), help="the run scored")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cache", choices=("warm", "off"), default="warm")
    args = parser.parse_args(argv)

    ir_measures = [sys.executable, "-m", "ir_measures", args.qrels, args.run]
    standard = [*ir_measures, "P@100"]
    rarity = [*ir_measures, f"P_rare(alpha=0.5,pool='{args.runs}')@100 P@100"]
    floor = [sys.executable, "-c", "import sys, runpy, ir_rarity.integrations.tuples; "
             f"sys.argv = ['ir_measures', {args.qrels!r}, {args.run!r}, 'P@100']; "
             "runpy.run_module('ir_measures', run_name='__main__')"]
    with tempfile.TemporaryDirectory(prefix="ir_rarity_bench.") as folder:
        env = {**os.environ, "IR_RARITY_CACHE": folder if args.cache == "warm" else "off"}
        _, first, said = _run(rarity, env)  # fills the cache (warm) or warms the file system (off)
        if args.cache == "warm" and "counted S_d" not in said:
            print(f"the first call did not say it was building the cache:\n{said}", file=sys.stderr)
            return 2
        times: dict[str, list[float]] = {"P@100": [], "P_rare": [], "floor": []}
        for _ in range(args.repeat):
            times["P@100"].append(_timed(standard, env)[0])
            seconds, out = _timed(rarity, env)
            times["P_rare"].append(seconds)
            times["floor"].append(_timed(floor, env)[0])
            if out != first:
                print(f"values differ between calls:\n{first}\n{out}", file=sys.stderr)
                return 2
    median = {k: statistics.median(v) for k, v in times.items()}
    ratio = median["P_rare"] / median["P@100"]
    for name, values in times.items():
        print(f"{name:8s} median {median[name]:.3f}s  ({', '.join(f'{v:.3f}' for v in values)})  "
              f"{median[name] / median['P@100']:.2f}x P@100")
    print(f"ratio {ratio:.2f}x (target <= {TARGET}x, cache {args.cache}): {'met' if ratio <= TARGET else 'not met'}")
    print(first.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
