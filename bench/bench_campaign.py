"""Benchmarks of reading and building a campaign (run by hand, not in CI).

Each ratio is taken within one process, each time a best-of-N.

    python bench/bench_campaign.py [--synthetic DIR] [--big DIR] [--dask DIR] [--skip ROW ...]

Campaigns: TREC-COVID round 1 (../shared/data/trec-covid-round1/runs/*.gz, 143 runs) and, with ``--synthetic``,
a campaign made by ``bench/make_synthetic.py`` (126 runs x 50 queries x 1,000 documents). ``--big`` names the
1,000-run synthetic campaign for M2.

R5  pool + P@10, P@100, R@1000, AP, nDCG@10, RR, Judged@10, P_rare@100, AP_rare@100, ASL@g1-10 for all runs,
    runs in memory / ir_measures (pytrec_eval; Judged: its judged provider) computing the seven standard ones.
R1  pool + P_rare@100, AP_rare@100, ASL, ASL@g1-10, U_novel@100, first call in a fresh process / pytrec_eval
    P@100 + AP.
C1  that first call in a fresh process / the same call repeated (cold start).
R4  discriminative power over all pairs, method="paper" and method="tukey_hsd", in seconds.
R6  ir-rarity meta (all analyses, 1000 trials), in seconds.
M2  peak RSS of ir-rarity eval / rows read: P_rare@100, AP_rare@100, P@10 (runs cut at 100 while read),
    and P_rare@100, AP_rare, P@10 (whole runs).
startup  ``ir-rarity --help``, median of 7 runs, in ms; and what the start-up hook adds to ``python -c pass``
    (median of 7 with it / with ``IR_RARITY_NO_HOOK=1``), in ms.
D1  (``--dask DIR``) evaluate_with_dask on a LocalCluster of 2 worker processes whose memory limit is below
    the campaign's in-memory size: completes, and equals Pool.evaluate.
D2  (``--dask DIR``) that call's time / the in-process time (``bench/bench_dask.py``), target 4.
read, eval  reading every run file as ``ir-rarity eval`` does / a script that only parses them with pyarrow, and the
    whole ``ir-rarity eval -m P@10 P_rare@100`` / that script, fresh processes (``bench/bench_reading.py``),
    target 1.3; on round 1 and, with ``--synthetic``, its gzipped runs.
one run  ``ir_measures QRELS RUN "P_rare(alpha=0.5,pool='runs/*.gz')@100 P@100"`` repeated (cache warm) /
    ``ir_measures QRELS RUN P@100`` (``bench/bench_one_run.py``), target 1.5.
M3  (``--synthetic DIR``) peak RSS of ir-rarity eval with the R5 measures on the 126-run gzipped campaign, in MB,
    target 250.
M4  (``--huge DIR``, ``make_synthetic.py --runs 2000``) peak RSS / rows of that eval, target 15 bytes a row.

R6's target is 8 s (meta in seconds); the rows of earlier rounds keep theirs.
"""

from __future__ import annotations

import argparse
import glob
import gzip
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from timing import best  # bench/timing.py: the bench scripts' one timing rule

HERE = Path(__file__).resolve().parent
ROUND1 = HERE.parent.parent / "shared" / "data" / "trec-covid-round1"
R5_MEASURES = ["P@10", "P@100", "R@1000", "AP", "nDCG@10", "RR", "Judged@10", "P_rare@100", "AP_rare@100",
               "ASL@g1-10"]
R1_MEASURES = ["P_rare@100", "AP_rare@100", "ASL", "ASL@g1-10", "U_novel@100"]

FIRST_CALL = """
import sys, time
import ir_rarity
from ir_rarity import Pool, read_trec_qrels
from ir_rarity.pool.build.sources import iter_named_runs
runs = dict(iter_named_runs(sys.argv[1], progress=False))
qrels = read_trec_qrels(sys.argv[2])
measures = sys.argv[3].split(",")
times = []
for _ in range(3):
    start = time.perf_counter()
    ir_rarity.evaluate(Pool.from_runs(runs), qrels, measures).table()
    times.append(time.perf_counter() - start)
print(times[0], min(times[1:]))
"""


def peak_rss_mb(args: list[str]) -> float:
    """Peak resident memory (MB) of one command (ru_maxrss of the waited-for child)."""
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 1024.0


class Table:
    def __init__(self) -> None:
        self.rows: list[tuple[str, ...]] = []

    def add(self, row: str, campaign: str, what: str, ours: str, reference: str, value: float, target: float,
            unit: str = "") -> None:
        shown = f"{value:.3f}{unit}" if value < 10 else f"{value:.1f}{unit}"
        self.rows.append((row, campaign, what, ours, reference, shown, f"<= {target:g}{unit}",
                          "yes" if value <= target else "NO"))
        print(" | ".join(self.rows[-1]), file=sys.stderr, flush=True)

    def print(self) -> None:
        print("| | campaign | what | ours | reference | value | target | met |")
        print("|---|---|---|---|---|---|---|---|")
        for row in self.rows:
            print("| " + " | ".join(row) + " |")


def campaign_rows(table: Table, label: str, runs_glob: str, qrels_path: str, skip: set[str]) -> None:
    import ir_measures

    import ir_rarity
    from ir_rarity import Pool
    from ir_rarity.meta import discriminative_power, per_query_matrix
    from ir_rarity.pool.build.sources import iter_named_runs

    qrels = ir_rarity.read_trec_qrels(qrels_path)
    runs = dict(iter_named_runs(runs_glob, progress=False))
    n_rows = sum(len(r) for r in runs.values())
    print(f"{label}: {len(runs)} runs, {n_rows:,} rows", file=sys.stderr)

    if "R5" not in skip:
        t_ours, _ = best(lambda: ir_rarity.evaluate(Pool.from_runs(runs), qrels, R5_MEASURES).table(), 3)
        standard = [ir_measures.parse_measure(m) for m in R5_MEASURES[:7]]
        evaluator = ir_measures.evaluator(standard, qrels)
        t_ref, _ = best(lambda: [evaluator.calc_aggregate(r) for r in runs.values()], 2)
        table.add("R5", label, "pool + 7 standard + P_rare@100, AP_rare@100, ASL@g1-10 / ir_measures: the 7 standard",
                  f"{t_ours:.2f} s", f"{t_ref:.2f} s", t_ours / t_ref, 0.1)

    if "R1" not in skip:
        evaluator = ir_measures.evaluator([ir_measures.P @ 100, ir_measures.AP], qrels)
        t_ref, _ = best(lambda: [evaluator.calc_aggregate(r) for r in runs.values()], 2)
        firsts, repeats = [], []
        for _ in range(5):  # best of five fresh processes
            out = subprocess.run([sys.executable, "-c", FIRST_CALL, runs_glob, qrels_path, ",".join(R1_MEASURES)],
                                 capture_output=True, text=True, check=True).stdout.split()
            firsts.append(float(out[0]))
            repeats.append(float(out[1]))
        table.add("R1", label, "pool + rarity, ASL, U_novel, first call in a fresh process / pytrec_eval P@100 + AP",
                  f"{min(firsts):.2f} s", f"{t_ref:.2f} s", min(firsts) / t_ref, 0.05)
        ratio = min(f / r for f, r in zip(firsts, repeats, strict=True))
        table.add("C1", label, "cold start: first call in a fresh process / the same call repeated",
                  f"{min(firsts):.2f} s", f"{min(repeats):.2f} s", ratio, 1.3)

    if "R4" not in skip:
        pool = Pool.from_runs(runs)
        scores = per_query_matrix(pool, qrels, "AP_rare@100")
        t_paper, result = best(lambda: discriminative_power(scores, method="paper"), 3)
        t_tukey, _ = best(lambda: discriminative_power(scores, method="tukey_hsd"), 2)
        table.add("R4", label, f"discriminative power, paper, {result.total_pairs:,} pairs", f"{t_paper:.3f} s", "",
                  t_paper, 1.0, " s")
        table.add("R4", label, f"discriminative power, tukey_hsd, {result.total_pairs:,} pairs", f"{t_tukey:.3f} s",
                  "", t_tukey, 5.0, " s")

    if "R6" not in skip:
        with tempfile.TemporaryDirectory() as out:
            cli = [sys.executable, "-m", "ir_rarity", "meta", qrels_path, *sorted(glob.glob(runs_glob)), "--out",
                   out, "--trials", "1000", "--quiet"]
            t_meta, _ = best(lambda: subprocess.run(cli, check=True, capture_output=True), 1)
        table.add("R6", label, "ir-rarity meta, all analyses, 1000 trials", f"{t_meta:.1f} s", "", t_meta, 8.0,
                  " s")

    if "read" not in skip:
        reading_rows(table, label, runs_glob, qrels_path)



def wall_ms(args: list[str], env: dict[str, str] | None = None) -> float:
    """Wall clock (ms) of one run of a command."""
    start = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, env=env)
    return (time.perf_counter() - start) * 1000


def startup_row(table: Table, repeat: int = 7) -> None:
    """``ir-rarity --help`` (its commands import what they run when they run) and the start-up hook's cost."""
    script = Path(sys.executable).parent / "ir-rarity"
    cli = [str(script)] if script.exists() else [sys.executable, "-m", "ir_rarity"]
    t_help = statistics.median(wall_ms([*cli, "--help"]) for _ in range(repeat))
    table.add("startup", "", f"ir-rarity --help, median of {repeat}", f"{t_help:.0f} ms", "", t_help, 150.0, " ms")
    no_hook = {**os.environ, "IR_RARITY_NO_HOOK": "1"}
    pairs = [(wall_ms([sys.executable, "-c", "pass"]), wall_ms([sys.executable, "-c", "pass"], no_hook))
             for _ in range(repeat)]  # interleaved: a busy machine slows both alike
    t_hook, t_bare = (statistics.median(times) for times in zip(*pairs, strict=True))
    table.add("startup", "", f"python -c pass: added by the start-up hook (median of {repeat} with / without)",
              f"{t_hook:.1f} ms", f"{t_bare:.1f} ms", t_hook - t_bare, 2.0, " ms")


def worker_peak_mb() -> float:
    """Peak resident memory (MB) of this process since its exec (VmHWM; ru_maxrss would count a forking parent)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def dask_row(table: Table, label: str, runs_glob: str, qrels: Any, n_rows: int) -> None:
    import distributed

    import ir_rarity
    from ir_rarity import Pool
    from ir_rarity.integrations.dask import evaluate_with_dask
    from ir_rarity.pool.build.sources import iter_named_runs

    measures = ["P_rare@100", "AP_rare@100", "P@10", "nDCG@10"]
    expected = ir_rarity.evaluate(Pool.from_runs(runs_glob), qrels, measures).table().sort_index()
    # the campaign's in-memory size: every run read into a DataFrame, as Pool.from_runs reads them
    in_memory = sum(int(f.memory_usage(deep=True).sum()) for _, f in iter_named_runs(runs_glob, progress=False))
    limit = max(in_memory * 3 // 4, 320 * 2**20)  # a worker process alone (Python, pandas, dask) takes ~250 MB
    if limit >= in_memory:
        table.add("D1", label, f"campaign of {in_memory / 2**20:.0f} MB in memory: too small for a worker limit "
                  "below it", "", "", 1.0, 0.0)
        return
    import dask

    start = time.perf_counter()
    # Dask's disk-backed P2P shuffle; spill early and never pause (a worker's own imports take most of a small
    # limit); Arrow's system allocator in the workers, which hands freed memory back (its default, jemalloc,
    # keeps it for a while: about 40 MB more at peak here)
    settings = {"distributed.worker.memory.target": 0.5, "distributed.worker.memory.spill": 0.6,
                "distributed.worker.memory.pause": False, "dataframe.shuffle.method": "p2p",
                "distributed.nanny.pre-spawn-environ.ARROW_DEFAULT_MEMORY_POOL": "system"}
    with dask.config.set(settings), distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, memory_limit=limit, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        pids = client.run(os.getpid)
        got = evaluate_with_dask(runs_glob, qrels, measures).table()  # one partition per judged query here
        peaks = client.run(worker_peak_mb)
        restarted = client.run(os.getpid) != pids
    elapsed = time.perf_counter() - start
    equal = got[expected.columns].equals(expected)
    peak = "a worker was restarted" if restarted else f"worker peak RSS {max(peaks.values()):.0f} MB"
    table.add("D1", label, f"Dask, 2 workers x {limit / 2**20:.0f} MB limit, campaign {in_memory / 2**20:.0f} MB in "
              f"memory ({n_rows:,} rows), {peak}: equal to Pool.evaluate = {equal}", f"{elapsed:.1f} s", "",
              0.0 if equal and not restarted else 1.0, 0.0)


def _sibling(name: str) -> Any:
    """A bench script of this folder, as a module (they are scripts, not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reading_rows(table: Table, label: str, runs_glob: str, qrels_path: str, repeat: int = 5) -> None:
    """read and eval: ours / the pyarrow-only floor (``bench_reading.py``), medians of runs taken in turn."""
    reading = _sibling("bench_reading")
    files = sorted(glob.glob(runs_glob))
    reading.ours_read(files[:2]), reading.parse_only(files[:2])  # warm: imports and the page cache
    t = reading.medians({"ours": lambda: reading.ours_read(files), "floor": lambda: reading.parse_only(files)}, repeat)
    table.add("read", label, "every run file read as eval reads them / pyarrow parsing them only",
              f"{t['ours']:.2f} s", f"{t['floor']:.2f} s", t["ours"] / t["floor"], reading.TARGET)
    with tempfile.TemporaryDirectory() as scratch:
        cli = [sys.executable, "-m", "ir_rarity", "eval", qrels_path, *files, "-m", *reading.MEASURES, "--quiet"]
        floor = [sys.executable, str(HERE / "bench_reading.py"), "--parse-only", *files]
        t = reading.medians({"ours": lambda: reading.quietly(cli, scratch),
                             "floor": lambda: reading.quietly(floor, scratch)}, repeat)
    table.add("eval", label, f"ir-rarity eval -m {' '.join(reading.MEASURES)} / the pyarrow-only script",
              f"{t['ours']:.2f} s", f"{t['floor']:.2f} s", t["ours"] / t["floor"], reading.TARGET)


def one_run_row(table: Table) -> None:
    """one run: the stock command with a rarity measure, cache warm / with P@100 only (``bench_one_run.py``)."""
    out = subprocess.run([sys.executable, str(HERE / "bench_one_run.py")], capture_output=True, text=True, check=True)
    medians = dict(line.split()[:3:2] for line in out.stdout.splitlines() if " median " in line)
    standard, rarity = float(medians["P@100"].rstrip("s")), float(medians["P_rare"].rstrip("s"))
    table.add("one run", "round 1", "ir_measures QRELS RUN P_rare(pool=runs)@100 P@100, cache warm / P@100",
              f"{rarity:.2f} s", f"{standard:.2f} s", rarity / standard, 1.5)


def dask_ratio_row(table: Table, folder: str) -> None:
    """D2: evaluate_with_dask / in-process on the same campaign (``bench_dask.py``)."""
    out = subprocess.run([sys.executable, str(HERE / "bench_dask.py"), folder], capture_output=True, text=True,
                         check=True).stdout
    ratio = float(next(line for line in out.splitlines() if line.startswith("ratio")).split()[1].rstrip("x"))
    table.add("D2", f"synthetic {len(glob.glob(os.path.join(folder, 'runs', '*')))} runs",
              "evaluate_with_dask, 2 memory-limited workers / in process", "", "", ratio, 4.0)


def eval_memory_row(table: Table, row: str, folder: str, target: float, per_row: bool) -> None:
    """M3 (MB) and M4 (bytes a row): peak RSS of ir-rarity eval with the R5 measures."""
    runs = os.path.join(folder, "runs-gz" if os.path.isdir(os.path.join(folder, "runs-gz")) else "runs")
    files = sorted(glob.glob(os.path.join(runs, "*")))
    cli = [sys.executable, "-m", "ir_rarity", "eval", os.path.join(folder, "qrels.txt"), runs,
           "-m", *R5_MEASURES, "--quiet"]
    peak = peak_rss_mb(cli)
    rows = sum(Path(f).read_bytes().count(b"\n") for f in files[:3]) / 3 * len(files) if not files[0].endswith(
        ".gz") else sum(len(gzip.decompress(Path(f).read_bytes()).splitlines()) for f in files[:3]) / 3 * len(files)
    if per_row:
        table.add(row, f"synthetic {len(files)} runs", "peak RSS of ir-rarity eval (R5 measures) / rows",
                  f"{peak:.0f} MB", f"{rows:,.0f} rows", peak * 2**20 / rows, target, " B")
    else:
        table.add(row, f"synthetic {len(files)} runs", f"peak RSS of ir-rarity eval (R5 measures), {rows:,.0f} rows",
                  f"{peak:.0f} MB", "", peak, target, " MB")


def memory_row(table: Table, big: str) -> None:
    """M2, twice: measures that stop at rank 100 (runs cut at 100 while read) and one that needs whole runs."""
    files = sorted(glob.glob(os.path.join(big, "runs", "*")))
    rows = sum(Path(f).read_bytes().count(b"\n") for f in files[:3]) / 3 * len(files)
    for label, measures in (("P_rare@100, AP_rare@100, P@10: runs cut at 100", ["P_rare@100", "AP_rare@100", "P@10"]),
                            ("P_rare@100, AP_rare, P@10: whole runs", ["P_rare@100", "AP_rare", "P@10"])):
        cli = [sys.executable, "-m", "ir_rarity", "eval", os.path.join(big, "qrels.txt"), os.path.join(big, "runs"),
               "-m", *measures, "--quiet"]
        peak = peak_rss_mb(cli)
        table.add("M2", f"synthetic {len(files)} runs", f"peak RSS of ir-rarity eval / rows ({label})",
                  f"{peak:.0f} MB", f"{rows:,.0f} rows", peak * 2**20 / rows, 60.0, " B")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--synthetic", help="folder made by make_synthetic.py (126 runs)")
    parser.add_argument("--big", help="folder made by make_synthetic.py --runs 1000 (M2)")
    parser.add_argument("--dask", help="folder made by make_synthetic.py for D1 (e.g. --runs 300: 15 M rows)")
    parser.add_argument("--huge", help="folder made by make_synthetic.py --runs 2000 (M4)")
    parser.add_argument("--skip", nargs="*", default=[])
    args = parser.parse_args()
    skip = set(args.skip)
    table = Table()
    if "startup" not in skip:
        startup_row(table)
    campaign_rows(table, "round 1", str(ROUND1 / "runs" / "*.gz"), str(ROUND1 / "qrels-rnd1.txt.gz"), skip)
    if args.synthetic:  # its gzipped runs (make_synthetic.py --gzip, or bench_reading.py's runs-gz)
        packed = os.path.join(args.synthetic, "runs-gz")
        runs_dir = packed if os.path.isdir(packed) else os.path.join(args.synthetic, "runs")
        campaign_rows(table, "synthetic 126" + (" gz" if glob.glob(os.path.join(runs_dir, "*.gz")) else ""),
                      os.path.join(runs_dir, "*"), os.path.join(args.synthetic, "qrels.txt"), skip)
    if args.big and "M2" not in skip:
        memory_row(table, args.big)
    if args.synthetic and "M3" not in skip:
        eval_memory_row(table, "M3", args.synthetic, 250.0, per_row=False)
    if args.huge and "M4" not in skip:
        eval_memory_row(table, "M4", args.huge, 15.0, per_row=True)
    if "one run" not in skip and "one" not in skip:
        one_run_row(table)
    if args.dask and "D1" not in skip:
        import ir_rarity

        runs_glob = os.path.join(args.dask, "runs", "*")
        qrels = ir_rarity.read_trec_qrels(os.path.join(args.dask, "qrels.txt"))
        dask_row(table, f"synthetic {len(glob.glob(runs_glob))} runs", runs_glob, qrels,
                 sum(Path(f).read_bytes().count(b"\n") for f in glob.glob(runs_glob)))
        if "D2" not in skip:
            dask_ratio_row(table, args.dask)
    import numpy
    import pandas

    memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 2**30
    print(f"{platform.machine()}, {os.cpu_count()} cores (shared), {memory:.0f} GB, "
          f"Python {platform.python_version()}, numpy {numpy.__version__}, pandas {pandas.__version__}; "
          f"bench process peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    table.print()


if __name__ == "__main__":
    main()
