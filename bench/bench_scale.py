"""Performance ratios at scale (run by hand, not in CI), each taken within this one process.

    python bench/bench_scale.py [RUN_GLOB] [QRELS]

Defaults: ../shared/data/trec-covid-round1/runs/*.gz (143 runs, 3.5 M rows) and the embedded round-1 qrels.

R1  pool.evaluate of P_rare@100, AP_rare@100, ASL, ASL@g1-10 (and U_novel@100 when registered) for all runs,
    runs in memory, pool building included / ir_measures (pytrec_eval) computing only P@100 and AP.  target <= 0.1
R2  end to end from the files (read, pool, the same measures) / pandas alone reading the files.      target <= 1.5
R3  one run: calc_aggregate([P_rare@100]) inside `with pool:` / calc_aggregate([P@100]).            target <= 1.0
R4  stability (1000 trials) and all-pairs discriminative power (t-tests; equal counts to the paper's
    per-pair HSD) over all runs, in seconds.                                                        target <= 2 s
M1  peak memory of `ir-rarity eval` over all run files / over 20 of them.                            target <= 2
"""

from __future__ import annotations

import glob
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import ir_measures
import pandas as pd

import ir_rarity
from ir_rarity import Pool
from ir_rarity.meta import discriminative_power, per_query_matrix, stability
from ir_rarity.pool.build.sources import iter_named_runs

warnings.simplefilter("ignore", ir_rarity.MemberNotice)  # R3 evaluates campaign runs: each is its member

HERE = Path(__file__).resolve().parent
DEFAULT_RUNS = str(HERE.parent.parent / "shared" / "data" / "trec-covid-round1" / "runs" / "*.gz")


def _measures() -> list[str]:
    names = ["P_rare@100", "AP_rare@100", "ASL", "ASL@g1-10"]
    if "U_novel" in ir_measures.measures.registry:
        names.append("U_novel@100")
    return names


def _timed(fn, repeat: int = 1) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def _peak_rss_mb(args: list[str]) -> float:
    """Peak resident memory (MB) of one command, measured by a wrapper process around it."""
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
            "stdout=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 1024.0


def main() -> None:
    runs_glob = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_RUNS
    qrels_path = sys.argv[2] if len(sys.argv) > 2 else str(ir_rarity.covid_round1.qrels)
    files = sorted(glob.glob(runs_glob))
    if not files:
        sys.exit(f"no run files match {runs_glob}")
    qrels = ir_rarity.read_trec_qrels(qrels_path)
    measures = _measures()
    rows: list[tuple[str, ...]] = []

    def add(label: str, what: str, ours: str, reference: str, value: float, target: float, ratio: bool = True) -> None:
        shown = (f"{value:.3f}" if value < 0.2 else f"{value:.2f}") if ratio else ""
        limit = f"{target:g}" if ratio else f"{target:g} s"
        rows.append((label, what, ours, reference, shown, limit, "yes" if value <= target else "NO"))

    runs = dict(iter_named_runs(runs_glob))
    n_rows = sum(len(r) for r in runs.values())
    t_ours, _ = _timed(lambda: Pool.from_runs(runs).evaluate(qrels, measures), repeat=3)
    evaluator = ir_measures.evaluator([ir_measures.P @ 100, ir_measures.AP], qrels)
    t_ref, _ = _timed(lambda: [evaluator.calc_aggregate(r) for r in runs.values()], repeat=2)
    add("R1", f"pool + {', '.join(measures)}, runs in memory / pytrec_eval P@100 + AP", f"{t_ours:.2f} s",
        f"{t_ref:.2f} s", t_ours / t_ref, 0.1)

    # R2: best of three for each side; the first pandas read also brings the files into the page cache.
    t_pandas, _ = _timed(lambda: [pd.read_csv(f, sep=r"\s+", header=None) for f in files], repeat=3)
    t_e2e, _ = _timed(lambda: Pool.from_runs(runs_glob).evaluate(qrels, measures), repeat=3)
    add("R2", "read + pool + the same measures / pandas reading the files", f"{t_e2e:.2f} s", f"{t_pandas:.2f} s",
        t_e2e / t_pandas, 1.5)

    pool = Pool.from_runs(runs)
    sample = list(runs)[:: max(1, len(runs) // 10)][:10]
    p_rare, p = ir_measures.parse_measure("P_rare@100"), ir_measures.P @ 100
    with pool:
        ratios = []
        for name in sample:
            t_a, _ = _timed(lambda name=name: ir_measures.calc_aggregate([p_rare], qrels, runs[name]), repeat=3)
            t_b, _ = _timed(lambda name=name: ir_measures.calc_aggregate([p], qrels, runs[name]), repeat=3)
            ratios.append((t_a, t_b))
    t_a, t_b = statistics.median(a for a, _ in ratios), statistics.median(b for _, b in ratios)
    add("R3", "one run: calc_aggregate P_rare@100 in `with pool:` / P@100 (median of 10 runs)",
        f"{t_a * 1000:.1f} ms", f"{t_b * 1000:.1f} ms", t_a / t_b, 1.0)

    scores = per_query_matrix(pool, qrels, "P_rare@100")
    t_stab, _ = _timed(lambda: stability(scores, trials=1000, seed=0), repeat=2)
    t_disc, result = _timed(lambda: discriminative_power(scores, method="ttest_ind"), repeat=2)
    t_rel, _ = _timed(lambda: discriminative_power(scores, method="ttest_rel"), repeat=2)
    add("R4", f"stability, 1000 trials, {len(runs)} runs", f"{t_stab:.3f} s", "", t_stab, 2.0, ratio=False)
    add("R4", f"discriminative power, {result.total_pairs} pairs, pooled t (paired t: {t_rel:.3f} s)",
        f"{t_disc:.3f} s", "", max(t_disc, t_rel), 2.0, ratio=False)

    cli = [sys.executable, "-m", "ir_rarity", "eval", qrels_path]
    eval_measures = ["-m", "P_rare@100", "AP_rare@100", "P@10"]
    m_20 = _peak_rss_mb([*cli, *files[:20], *eval_measures])
    m_all = _peak_rss_mb([*cli, *files, *eval_measures])
    add("M1", f"peak RSS of ir-rarity eval, {len(files)} files / 20 files", f"{m_all:.0f} MB", f"{m_20:.0f} MB",
        m_all / m_20, 2.0)

    print(f"{len(runs)} runs, {n_rows:,} rows; {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}, numpy / pandas "
          f"{__import__('numpy').__version__} / {pd.__version__}")
    print("| | what | ours | reference | ratio | target | met |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
