"""Meta-evaluation report of P_rare and AP_rare on the TREC-COVID round-1 campaign embedded in ir_rarity.

Reproduces Figures 1-2 and Tables 1-3 of Türkmen, Lease & Kutlu (ECIR 2023) on round 1 (143 runs, top 100,
30 topics) and writes report.md, CSV tables and PNG figures to a folder (default ``meta_report/``):

    python examples/meta_round1.py [OUT_DIR] [--trials N] [--seed S]
"""

from __future__ import annotations

import argparse
import time

from ir_rarity import Pool, covid_round1, read_trec_qrels
from ir_rarity.meta import write_report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default="meta_report", help="output folder (default: meta_report/)")
    parser.add_argument("--trials", type=int, default=1000, help="stability / robustness trials (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = parser.parse_args()

    start = time.perf_counter()
    pool = Pool.from_runs(covid_round1.runs, split_by_tag=True)
    qrels = read_trec_qrels(covid_round1.qrels)
    report = write_report(pool, qrels, args.out_dir, trials=args.trials, seed=args.seed)
    print(f"{pool}: report written to {report} in {time.perf_counter() - start:.1f} s")
    print(report.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
