"""Quick start: rarity measures on the TREC-COVID round-1 campaign embedded in ir_rarity.

Builds the pool from all 143 official runs (cut to depth 100), evaluates P@100, P_rare(alpha=0.5)@100, AP and
AP_rare side by side, and lists the runs that rarity moves up the most.

    python examples/quickstart.py
"""

from __future__ import annotations

import ir_measures
import pandas as pd

import ir_rarity
from ir_rarity import Pool, covid_round1


def main() -> None:
    pool = Pool.from_runs(covid_round1.runs, split_by_tag=True)  # one file of 143 runs, split by tag
    print(pool)
    measures = ["P@100", "P_rare(alpha=0.5)@100", "AP@100", "AP_rare@100"]
    table = ir_rarity.evaluate(pool, covid_round1.qrels, measures).table()

    ranks = table.rank(ascending=False, method="min").astype(int)
    table["rank P@100"] = ranks["P@100"]
    table["rank P_rare"] = ranks["P_rare(alpha=0.5)@100"]
    table["gain"] = table["rank P@100"] - table["rank P_rare"]
    with pd.option_context("display.width", 160, "display.max_columns", 10, "display.precision", 4):
        print("\nTop 10 runs by P_rare(alpha=0.5)@100:")
        print(table.sort_values("P_rare(alpha=0.5)@100", ascending=False).head(10))
        print("\nRuns that rarity moves up the most:")
        print(table.sort_values("gain", ascending=False).head(5)[["P@100", "P_rare(alpha=0.5)@100", "gain"]])

    # The same numbers through plain ir_measures, for one run, inside `with pool:`.
    qrels = ir_rarity.read_trec_qrels(covid_round1.qrels)
    with pool:
        one = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in measures], qrels, pool.run("BERT"))
    print("\nBERT via ir_measures.calc_aggregate:", {str(k): round(v, 4) for k, v in one.items()})


if __name__ == "__main__":
    main()
