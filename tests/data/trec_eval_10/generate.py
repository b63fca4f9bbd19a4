"""Regenerate expected.tsv: trec_eval 10.0's per-query values on some TREC-COVID round-1 runs.

Standalone script, not a test (pytest does not collect it and no test imports it). Usage::

    python tests/data/trec_eval_10/generate.py /path/to/trec_eval            # writes expected.tsv
    python tests/data/trec_eval_10/generate.py /path/to/trec_eval --compare /path/to/float/trec_eval

``--compare`` only prints the runs whose ``-q`` output differs between the two binaries (nothing is
written); it is how the differing runs in RUNS were found. See README.md for the binaries used.
"""

from __future__ import annotations

import argparse
import gzip
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[2] / "ir_rarity" / "data" / "trec_covid_round1"
QRELS = DATA / "qrels.txt.gz"
RUNS_FILE = DATA / "runs_top100.trec.gz"

MEASURE_ARGS = ["-m", "P.10,100", "-m", "map", "-m", "ndcg_cut.10,100", "-m", "recall.100", "-m", "recip_rank"]

# Runs whose values differ between the float build (sim read as C float) and 10.0 (sim read as double) ...
DIFFERING = ["BERT", "tm_lda400"]
# ... and controls whose values do not differ. RUIR-doc2vec has one float32 tie (query 9, ranks 82/83) that
# swaps two unjudged documents, so its ranking differs but none of its values do.
CONTROLS = ["run1", "BBGhelani1", "RUIR-doc2vec"]
RUNS = DIFFERING + CONTROLS


def split_runs(directory: Path, wanted: list[str] | None = None) -> dict[str, Path]:
    """Write one file per run tag (column 6) into directory; return tag -> path."""
    lines: dict[str, list[str]] = defaultdict(list)
    with gzip.open(RUNS_FILE, "rt") as f:
        for line in f:
            tag = line.split()[5]
            if wanted is None or tag in wanted:
                lines[tag].append(line)
    paths = {}
    for i, (tag, run_lines) in enumerate(sorted(lines.items())):
        p = directory / f"run{i:03d}.txt"
        p.write_text("".join(run_lines))
        paths[tag] = p
    return paths


def trec_eval(binary: str, qrels: Path, run: Path) -> list[tuple[str, str, str]]:
    """Run ``binary -q -m ... qrels run``; return its (measure, query, value) rows in printed order."""
    out = subprocess.run(
        [binary, "-q", *MEASURE_ARGS, str(qrels), str(run)], check=True, capture_output=True, text=True
    )
    return [tuple(line.split()) for line in out.stdout.splitlines() if line.strip()]


def main() -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trec_eval", help="path to a trec_eval 10.0 binary")
    parser.add_argument("--compare", metavar="OTHER", help="list the runs whose output differs from OTHER's")
    parser.add_argument("-o", "--output", type=Path, default=HERE / "expected.tsv")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        qrels = tmp_path / "qrels.txt"
        qrels.write_bytes(gzip.decompress(QRELS.read_bytes()))
        if args.compare:
            for tag, path in split_runs(tmp_path).items():
                if trec_eval(args.trec_eval, qrels, path) != trec_eval(args.compare, qrels, path):
                    print(tag)
            return 0
        paths = split_runs(tmp_path, RUNS)
        missing = set(RUNS) - set(paths)
        if missing:
            sys.exit(f"runs not found: {sorted(missing)}")
        rows = ["run\tquery\tmeasure\tvalue\n"]
        for tag in RUNS:
            for measure, query, value in trec_eval(args.trec_eval, qrels, paths[tag]):
                if query != "all":
                    rows.append(f"{tag}\t{query}\t{measure}\t{value}\n")
    args.output.write_text("".join(rows))
    print(f"wrote {len(rows) - 1} rows to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
