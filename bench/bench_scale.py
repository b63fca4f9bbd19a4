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

    python bench/bench_scale.py --scale [--runs 126 1000 4000] [--data /work/bench_data] [--memory 4G]
                                [--msmarco 7000 1000 100] [--dask DIR] [--plot FILE.png] [--results FILE]

The scale rows: whole-ranking measures (P@10 AP RR nDCG@10 P_rare@100 AP_rare) on synthetic campaigns of 1,000
documents a ranking (bench/make_synthetic.py, gzipped, made under --data when absent), each measured in fresh
processes (medians): the path ``memory_limit=`` chooses, the other path forced, and pass 1 alone.
S<n>  time, peak RSS, time and bytes a row.          P<n>  pass 1 alone.
T1  peak RSS at the most runs / the fewest.                                                         target <= 1.3
T2  peak RSS a row at the most runs.                                                                target <= 16 bytes
T3  time a row at the most runs / the fewest.                                                       target <= 1.2
T4  the fewest runs under the budget take today's path (in memory).
D1  (--dask DIR) Dask's two passes on 2 local workers / in process (bench/bench_dask.py --two-passes). target <= 2x
MS  (--msmarco) an MS MARCO-shaped campaign, peak RSS a row.                                        target <= 16 bytes
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import ir_measures
import numpy as np
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
    _print_table(["what", "ours", "reference", "ratio", "target", "met"], rows)


def _print_table(header: list[str], rows: list[tuple[str, ...]]) -> None:
    """The rows as a markdown table under ``header`` (what the closing notes and docs/performance.md carry)."""
    print("| | " + " | ".join(header) + " |")
    print("|---" * (len(header) + 1) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


# ---------------------------------------------------------------------------------------------- scale rows
SCALE_MEASURES = ["P@10", "AP", "RR", "nDCG@10", "P_rare@100", "AP_rare"]
"""Whole-ranking measures: AP, RR and AP_rare read every row of every run (S_d of AP_rare over whole runs)."""
SCALE_TARGETS = {"rss": 1.3, "bytes": 16.0, "time": 1.2, "table": 1.0, "dask": 2.0}

CHILD = """
import json, resource, sys, time
start = time.perf_counter()
from ir_rarity.engine import tune_allocator
tune_allocator()  # as the command line sets the allocator
import ir_rarity
args = json.loads(sys.argv[1])
if args["pass1"]:  # pass 1 as evaluate runs it: counts, and the rows pass 2 reads written to the spill
    from ir_rarity.engine import Judgments
    from ir_rarity.measures.parse import measure_labels
    from ir_rarity.pool.stream import block_rows, pass_two_rows, stream_campaign
    measures = list(measure_labels(args["measures"]))
    stream_campaign(args["runs"], measures, pass_two_rows(measures, Judgments(args["qrels"])),
                    rows=block_rows(args["memory"]))
    mode = "pass 1"
else:
    result = ir_rarity.evaluate(args["runs"], args["qrels"], args["measures"], memory_limit=args["memory"],
                                stream=args["stream"], progress=False)
    mode = type(result.campaign).__name__
print(json.dumps({"seconds": time.perf_counter() - start, "mode": mode,
                  "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""
"""One measured evaluation in a fresh process: its wall time (imports included) and its peak RSS (bytes)."""


_DONE: dict[str, dict[str, Any]] = {}
"""Measurements already taken (``--reuse``: read from the results file), by their arguments."""


def _measure(runs: str, qrels: str, memory: str | None, stream: bool | None = None, pass1: bool = False,
             repeat: int = 1) -> dict[str, Any]:
    """Median time and median peak RSS of ``repeat`` fresh processes evaluating SCALE_MEASURES."""
    args = json.dumps({"runs": runs, "qrels": qrels, "measures": SCALE_MEASURES, "memory": memory,
                       "stream": stream, "pass1": pass1})
    if args in _DONE:
        return _DONE[args]
    outs = []
    for _ in range(repeat):
        done = subprocess.run([sys.executable, "-c", CHILD, args], capture_output=True, text=True, check=True)
        outs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    _DONE[args] = {"seconds": statistics.median(o["seconds"] for o in outs),
                   "peak": statistics.median(o["peak"] for o in outs), "mode": outs[0]["mode"],
                   "all_seconds": [round(o["seconds"], 2) for o in outs]}
    if _SAVED:
        _SAVED[0].write_text(json.dumps(_DONE, indent=1))
    return _DONE[args]


_SAVED: list[Path] = []
"""Where every measurement is written as soon as it is taken (``--measurements``)."""


def _remember(path: Path | None, reuse: bool) -> None:
    """Write measurements to ``path`` as they are taken; with ``reuse``, take those already there as measured."""
    _DONE.clear()
    _SAVED.clear()
    if path is not None:
        _SAVED.append(path)
        if reuse and path.exists():
            _DONE.update(json.loads(path.read_text()))


def _synthetic(data: Path, runs: int, queries: int, docs: int) -> Path:
    """The gzipped campaign of ``runs`` runs under ``data`` (made by bench/make_synthetic.py if absent)."""
    folder = data / (f"syn{runs}" if (queries, docs) == (50, 1000) else f"syn{runs}_{queries}x{docs}")
    if not (folder / "qrels.txt").exists() or len(list((folder / "runs").glob("*.gz"))) < runs:
        subprocess.run([sys.executable, str(HERE / "make_synthetic.py"), str(folder), "--runs", str(runs),
                        "--queries", str(queries), "--docs", str(docs), "--seed", str(runs), "--gzip"], check=True)
    return folder


def _msmarco(data: Path, runs: int, queries: int, docs: int, seed: int = 0) -> Path:
    """An MS MARCO-shaped campaign: many queries (7,000), 1,000 passages a ranking, gzipped, written by Arrow.

    Each query has a universe of 5,000 passages (docnos of seven digits, as MS MARCO's) with Zipf-like popularity;
    each run draws its ranking by popularity and its own taste, scores with three decimals (ties). The qrels judge
    one or two passages a query (MS MARCO's sparse judgments), drawn from the popular ones.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    folder = data / f"msmarco_{queries}x{docs}x{runs}"
    if (folder / "qrels.txt").exists() and len(list((folder / "runs").glob("*.gz"))) >= runs:
        return folder
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    universe = max(5_000, 2 * docs)
    base = rng.permutation(8_841_823)[: queries * universe // 4].astype(np.int64)  # passage ids, shared across queries
    # each query's universe: a window of the shuffled ids (distinct within the query, shared across queries)
    pid = base[(rng.integers(0, len(base), size=queries)[:, None] + np.arange(universe)) % len(base)]
    log_weight = -1.1 * np.log(np.arange(1, universe + 1))
    qids = np.array([str(1_000_000 + q) for q in range(queries)], dtype=object)
    for r in range(runs):
        chunks = []
        for lo in range(0, queries, 500):
            hi = min(queries, lo + 500)
            keys = log_weight + rng.normal(scale=2.0, size=(hi - lo, universe)) + rng.gumbel(size=(hi - lo, universe))
            picked = np.argpartition(-keys, docs - 1, axis=1)[:, :docs]
            picked = np.take_along_axis(picked, np.argsort(-np.take_along_axis(keys, picked, axis=1), axis=1), axis=1)
            passages = np.take_along_axis(pid[lo:hi], picked, axis=1).reshape(-1)
            score = np.round(np.sort(rng.exponential(size=(hi - lo, docs)), axis=1)[:, ::-1] * 10, 3).reshape(-1)
            chunks.append(pa.table({"q": pa.array(np.repeat(qids[lo:hi], docs)),
                                    "q0": pa.array(["Q0"] * len(score)), "doc": pa.array(passages.astype(str)),
                                    "rank": np.tile(np.arange(1, docs + 1), hi - lo), "score": score,
                                    "tag": pa.array([f"run_{r:03d}"] * len(score))}))
        with pa.CompressedOutputStream(str(folder / "runs" / f"run_{r:03d}.gz"), "gzip") as out:
            for chunk in chunks:
                pacsv.write_csv(chunk, out, pacsv.WriteOptions(include_header=False, delimiter=" ",
                                                               quoting_style="none"))
    judged = [f"{qids[q]} 0 {pid[q, j]} 1\n" for q in range(queries) for j in
              rng.choice(300, size=int(rng.integers(1, 3)), replace=False)]
    (folder / "qrels.txt").write_text("".join(judged))
    return folder


def _plot(points: list[dict[str, Any]], path: Path) -> None:
    """Time and peak RSS against the number of runs (matplotlib's object API, no pyplot state)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 3.2))
    FigureCanvasAgg(fig)
    time_ax, rss_ax = fig.subplots(1, 2)
    for mode, marker in (("two passes", "o"), ("in memory", "s")):
        shown = sorted((p for p in points if p["mode"] == mode), key=lambda p: p["runs"])
        if not shown:
            continue
        x = [p["runs"] for p in shown]
        time_ax.plot(x, [p["seconds"] / p["rows"] * 1e9 for p in shown], marker=marker, label=mode)
        rss_ax.plot(x, [p["peak"] / 2**20 for p in shown], marker=marker, label=mode)
    time_ax.set(xscale="log", xlabel="runs (50 queries x 1,000 documents each)", ylabel="ns a row",
                title="time per row")
    rss_ax.set(xscale="log", xlabel="runs (50 queries x 1,000 documents each)", ylabel="MB", title="peak RSS")
    rss_ax.legend()
    ticks = sorted({p["runs"] for p in points if p["mode"] != "msmarco"})
    for ax in (time_ax, rss_ax):
        ax.set_ylim(bottom=0)
        ax.set_xticks(ticks, [f"{t:,}" for t in ticks])
        ax.minorticks_off()
    time_ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def _target_rows(points: list[dict[str, Any]], memory: str, row: Any) -> None:
    """The rows T1-T4 and D1 from the measured points."""
    streamed = {p["runs"]: p for p in points if p["mode"] == "two passes"}
    in_memory = {p["runs"]: p for p in points if p["mode"] == "in memory"}
    if not streamed:
        return
    small, large = min(streamed), max(streamed)
    a, b = streamed[small], streamed[large]
    ratio = b["peak"] / a["peak"]
    row("T1", f"peak RSS, two passes, {large:,} runs / {small:,} runs", f"{ratio:.2f}x", f"<= {SCALE_TARGETS['rss']}",
        ratio <= SCALE_TARGETS["rss"])
    if small in in_memory:
        ratio = b["peak"] / in_memory[small]["peak"]
        row("T1", f"peak RSS, {large:,} runs in two passes / {small:,} runs in memory", f"{ratio:.2f}x",
            f"<= {SCALE_TARGETS['rss']}", ratio <= SCALE_TARGETS["rss"])
    per_row = b["peak"] / b["rows"]
    row("T2", f"peak RSS a row, {large:,} runs ({b['rows']:,} rows)", f"{per_row:.2f} bytes",
        f"<= {SCALE_TARGETS['bytes']:g}", per_row <= SCALE_TARGETS["bytes"])
    ratio = (b["seconds"] / b["rows"]) / (a["seconds"] / a["rows"])
    row("T3", f"time a row, two passes, {large:,} runs / {small:,} runs", f"{ratio:.2f}x",
        f"<= {SCALE_TARGETS['time']}", ratio <= SCALE_TARGETS["time"])
    if small in in_memory:
        ratio = (b["seconds"] / b["rows"]) / (in_memory[small]["seconds"] / in_memory[small]["rows"])
        row("T3", f"time a row, {large:,} runs in two passes / {small:,} runs in memory", f"{ratio:.2f}x",
            f"<= {SCALE_TARGETS['time']}", ratio <= SCALE_TARGETS["time"])
    chosen = next(p["mode"] for p in points if p["runs"] == small and p["chosen"])
    row("T4", f"{small:,} runs with --memory {memory}: the path of today (in memory; bench_campaign.py's peer "
        "row times it against pytrec_eval)", chosen, "in memory", chosen == "in memory")


def _dask_row(args: argparse.Namespace, row: Any) -> None:
    """D1: bench/bench_dask.py --two-passes on ``args.dask``, when given."""
    if not args.dask:
        return
    done = subprocess.run([sys.executable, str(HERE / "bench_dask.py"), str(args.dask), "--two-passes",
                           "--repeat", str(args.repeat)], capture_output=True, text=True)
    if done.returncode:
        error = (done.stderr.strip().splitlines() or ["?"])[-1]
        row("D1", f"Dask two passes (bench/bench_dask.py {args.dask} --two-passes)", f"failed: {error[:200]}",
            f"<= {SCALE_TARGETS['dask']:g}x", False)
        return
    lines = {line.split()[0] + (" " + line.split()[1] if line.startswith("dask") else ""): line
             for line in done.stdout.splitlines() if line.strip()}
    ratio = float(lines["ratio"].split()[1].rstrip("x"))
    row("D1", f"Dask two passes on 2 local workers / in process (bench/bench_dask.py {args.dask} --two-passes): "
        f"{lines['dask 2-pass'].split(None, 2)[2]}; {lines['in-process'].split(None, 1)[1]}; "
        f"{lines['equal'].strip()}", f"{ratio:.2f}x", f"<= {SCALE_TARGETS['dask']:g}x",
        ratio <= SCALE_TARGETS["dask"])


def _msmarco_row(args: argparse.Namespace, row: Any, points: list[dict[str, Any]]) -> None:
    """MS: the MS MARCO-shaped campaign, when asked."""
    if not args.msmarco:
        return
    queries, docs, n = args.msmarco
    folder = _msmarco(args.data, n, queries, docs)
    n_rows = queries * docs * n
    # the path the budget chooses (100 runs: 700 M rows, 39 GB held at once: two passes)
    got = _measure(str(folder / "runs"), str(folder / "qrels.txt"), args.memory, repeat=1)
    row("MS", f"MS MARCO-shaped: {queries:,} queries x {docs:,} documents x {n} runs, {n_rows:,} rows, "
        f"{'two passes' if got['mode'] == 'StreamedCampaign' else 'in memory'} (times {got['all_seconds']} s)",
        f"{got['seconds']:.0f} s, {got['peak'] / 2**20:.0f} MB, {got['peak'] / n_rows:.2f} bytes a row",
        f"<= {SCALE_TARGETS['bytes']:g} bytes a row", got["peak"] / n_rows <= SCALE_TARGETS["bytes"])
    points.append({**got, "runs": n, "rows": n_rows, "mode": "msmarco", "chosen": True})


def scale_main(argv: list[str] | None = None) -> None:
    """The scale rows: whole-ranking measures at 126 to 4,000 synthetic runs and an MS MARCO-shaped campaign."""
    parser = argparse.ArgumentParser(description="scale rows of bench_scale.py")
    parser.add_argument("--scale", action="store_true")
    parser.add_argument("--data", type=Path, default=Path("/work/bench_data"), help="where campaigns are made")
    parser.add_argument("--runs", type=int, nargs="*", default=[126, 1000, 4000])
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--memory", default="4G", help="the budget evaluate() is given (memory_limit=)")
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes a campaign (medians reported)")
    parser.add_argument("--repeat-large", type=int, default=1, help="fresh processes for campaigns above 1e8 rows")
    parser.add_argument("--msmarco", type=int, nargs=3, metavar=("QUERIES", "DOCS", "RUNS"),
                        help="also an MS MARCO-shaped campaign (e.g. 7000 1000 100)")
    parser.add_argument("--dask", type=Path, help="also the D1 row on this campaign (bench/bench_dask.py)")
    parser.add_argument("--plot", type=Path, help="write the scaling curve (PNG) here")
    parser.add_argument("--results", type=Path, help="also write the measurements as JSON here")
    parser.add_argument("--measurements", type=Path,
                        help="a JSON file each measurement is written to when taken; with --reuse, those already "
                             "there are not taken again")
    parser.add_argument("--reuse", action="store_true")
    args = parser.parse_args(argv)
    _remember(args.measurements, args.reuse)
    rows: list[tuple[str, ...]] = []
    points: list[dict[str, Any]] = []

    def row(label: str, what: str, value: str, target: str, met: bool | None) -> None:
        rows.append((label, what, value, target, "" if met is None else ("yes" if met else "NO")))

    for n in args.runs:
        folder = _synthetic(args.data, n, args.queries, args.docs)
        n_rows = n * args.queries * args.docs
        runs, qrels = str(folder / "runs"), str(folder / "qrels.txt")
        repeat = args.repeat if n_rows < 10**8 else args.repeat_large
        budget = _measure(runs, qrels, args.memory, repeat=repeat)
        two = (budget if budget["mode"] == "StreamedCampaign"  # forced: blocks sized by the same budget
               else _measure(runs, qrels, args.memory, True, repeat=repeat))
        points.append({**two, "runs": n, "rows": n_rows, "mode": "two passes", "chosen": two is budget})
        if n_rows < 10**8 or budget["mode"] != "StreamedCampaign":
            memory = (budget if budget["mode"] != "StreamedCampaign"
                      else _measure(runs, qrels, None, False, repeat=repeat))
            points.append({**memory, "runs": n, "rows": n_rows, "mode": "in memory", "chosen": memory is budget})
        first = _measure(runs, qrels, args.memory, pass1=True, repeat=repeat)
        for p in points:
            if p["runs"] != n:
                continue
            how = f"--memory {args.memory} chooses it" if p["chosen"] else "forced"
            row(f"S{n}", f"{n:,} runs, {n_rows:,} rows: {p['mode']} ({how}; times {p['all_seconds']} s)",
                f"{p['seconds']:.1f} s, {p['peak'] / 2**20:.0f} MB; {p['seconds'] / n_rows * 1e9:.0f} ns and "
                f"{p['peak'] / n_rows:.1f} bytes a row", "", None)
        row(f"P{n}", "pass 1 alone: reads every row once, keeps those within the deepest S_d depth (whole runs for "
            "AP_rare), counts S_d, spills the rows pass 2 reads", f"{first['seconds']:.1f} s, "
            f"{first['peak'] / 2**20:.0f} MB "
            f"({first['seconds'] / two['seconds']:.0%} of two passes)", "", None)

    _target_rows(points, args.memory, row)

    _dask_row(args, row)
    _msmarco_row(args, row, points)

    print(f"measures {' '.join(SCALE_MEASURES)}; {platform.processor() or platform.machine()}, {os.cpu_count()} "
          f"cores, Python {platform.python_version()}; medians of {args.repeat} fresh processes "
          f"({args.repeat_large} above 1e8 rows), imports included")
    _print_table(["what", "measured", "target", "met"], rows)
    if args.results:
        args.results.write_text(json.dumps(points, indent=1))
    if args.plot:
        _plot(points, args.plot)


if __name__ == "__main__":
    scale_main() if "--scale" in sys.argv else main()
