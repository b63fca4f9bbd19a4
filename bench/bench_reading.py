"""Reading TREC runs against a floor: pyarrow parsing the same files and nothing else (run by hand, not in CI).

    python bench/bench_reading.py [--synthetic DIR] [--repeat N] [--skip-eval] [--parse-only FILE ...]

Campaigns: TREC-COVID round 1 (../shared/data/trec-covid-round1/runs/*.gz, 143 gzipped runs) and a gzipped
synthetic campaign: ``--synthetic DIR`` names a folder made by ``bench/make_synthetic.py`` (126 runs x 50 queries
x 1,000 documents; its runs are gzipped into ``DIR/runs-gz`` once if they are not), or, without it, one is made in
a temporary folder.

The floor (``--parse-only``, also run as a script of its own): ``pyarrow.csv.read_csv`` over every file, gzip
decompressed by pyarrow, column names given, the delimiter (tab or space) taken from the file's first line;
nothing else is done with the tables.

Rows, each a median of ``--repeat`` runs, ours and the floor taken in turn:

read  every file read as ``ir-rarity eval`` reads it (``iter_named_runs``: ``read_trec_run`` on two threads) / the
      floor, both in this process.
eval  ``ir-rarity eval QRELS RUNS... -m P@10 P_rare@100`` / the floor as a script, both fresh processes (start-up
      and imports included on both sides).

Target: 1.3 for every row.
"""

from __future__ import annotations

import argparse
import glob
import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROUND1 = HERE.parent.parent / "shared" / "data" / "trec-covid-round1"
MEASURES = ["P@10", "P_rare@100"]
TARGET = 1.3
NAMES = ["query_id", "q0", "doc_id", "rank", "score", "tag"]


def parse_only(files: list[str]) -> int:
    """The floor: every file parsed by pyarrow's CSV reader (gzip decompressed by pyarrow), nothing else."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    rows = 0
    for path in files:
        with pa.input_stream(path) as stream:  # compression from the name, as read_csv takes it
            first = stream.read(1 << 16).split(b"\n", 1)[0]
        delimiter = "\t" if b"\t" in first else " "
        table = pcsv.read_csv(path, read_options=pcsv.ReadOptions(column_names=NAMES),
                              parse_options=pcsv.ParseOptions(delimiter=delimiter))
        rows += table.num_rows
    return rows


def ours_read(files: list[str]) -> int:
    """Every file read as the command line reads a campaign's runs."""
    from ir_rarity.pool.build.sources import iter_named_runs

    return sum(len(frame) for _, frame in iter_named_runs(files, progress=False))


def synthetic_campaign(folder: str | None, scratch: str) -> tuple[str, str]:
    """The synthetic campaign's gzipped runs (a glob) and qrels, made or gzipped when needed."""
    if folder is None:
        folder = os.path.join(scratch, "synthetic")
        subprocess.run([sys.executable, str(HERE / "make_synthetic.py"), folder], check=True,
                       stdout=subprocess.DEVNULL)
    runs = sorted(glob.glob(os.path.join(folder, "runs", "*")))
    if runs and not all(r.endswith(".gz") for r in runs):
        packed = os.path.join(folder, "runs-gz")
        os.makedirs(packed, exist_ok=True)
        for run in runs:
            target = os.path.join(packed, os.path.basename(run) + ".gz")
            if not os.path.exists(target):
                with open(run, "rb") as src, gzip.open(target + ".part", "wb", compresslevel=6) as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
                os.replace(target + ".part", target)
        return os.path.join(packed, "*.gz"), os.path.join(folder, "qrels.txt")
    return os.path.join(folder, "runs", "*"), os.path.join(folder, "qrels.txt")


def timed(fn: object) -> float:
    assert callable(fn)
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def medians(pair: dict[str, object], repeat: int) -> dict[str, float]:
    """Median seconds of each callable, the callables run in turn ``repeat`` times (noise falls on both)."""
    times: dict[str, list[float]] = {k: [] for k in pair}
    for _ in range(repeat):
        for key, fn in pair.items():
            times[key].append(timed(fn))
    return {k: statistics.median(v) for k, v in times.items()}


def quietly(command: list[str], cwd: str) -> None:
    """Run ``command`` in ``cwd`` (not the checkout: ``PYTHONPATH`` picks the ir_rarity measured), output kept."""
    subprocess.run(command, check=True, cwd=cwd, capture_output=True)


def row(what: str, campaign: str, ours: float, floor: float) -> None:
    ratio = ours / floor
    print(f"{what:5} {campaign:22} {ours:7.2f} s {floor:7.2f} s {ratio:6.2f} {TARGET:6.1f}  "
          f"{'ok' if ratio <= TARGET else 'MISSED'}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--synthetic", help="folder made by make_synthetic.py (runs gzipped into DIR/runs-gz)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-eval", action="store_true", help="only the in-process read rows")
    parser.add_argument("--parse-only", nargs="+", metavar="FILE", help="run the floor over FILEs and exit")
    args = parser.parse_args()
    if args.parse_only:
        print(parse_only(args.parse_only))
        return
    with tempfile.TemporaryDirectory() as scratch:
        synthetic = synthetic_campaign(args.synthetic, scratch)
        campaigns = [("TREC-COVID round 1", str(ROUND1 / "runs" / "*.gz"), str(ROUND1 / "qrels-rnd1.txt.gz")),
                     ("synthetic 126 (gzip)", *synthetic)]
        print(f"{'row':5} {'campaign':22} {'ours':>9} {'floor':>9} {'ratio':>6} {'target':>6}")
        for label, runs_glob, qrels in campaigns:
            files = sorted(glob.glob(runs_glob))
            ours_read(files[:2]), parse_only(files[:2])  # warm: imports and the page cache
            t = medians({"ours": lambda f=files: ours_read(f), "floor": lambda f=files: parse_only(f)}, args.repeat)
            row("read", f"{label} ({len(files)})", t["ours"], t["floor"])
            if args.skip_eval:
                continue
            cli = [sys.executable, "-m", "ir_rarity", "eval", qrels, *files, "-m", *MEASURES]
            floor = [sys.executable, str(Path(__file__).resolve()), "--parse-only", *files]
            t = medians({"ours": lambda c=cli: quietly(c, scratch), "floor": lambda c=floor: quietly(c, scratch)},
                        args.repeat)
            row("eval", f"{label} ({len(files)})", t["ours"], t["floor"])


if __name__ == "__main__":
    main()
