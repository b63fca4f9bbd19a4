"""Pooling strategies on the embedded TREC-COVID round 1: budget curves, reusability, official runs.

    python examples/pooling_round1.py [OUT_DIR]      (default docs/pooling_round1; under a minute)

Runs are the 143 official round-1 runs (cut at depth 100), grouped into their 56 teams by the leaderboard, so S
counts teams and leave-one-team-out leaves out whole teams. The qrels are the oracle. Writes CSVs, PNG curves and
summary.md into OUT_DIR (atomically) and prints the tables.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import pandas as pd

from ir_rarity import Pool, covid_round1, read_trec_qrels
from ir_rarity.campaign import unique_relevant
from ir_rarity.errors import MemberNotice
from ir_rarity.judging import (
    contributing_runs,
    found_table,
    incomplete_judgments,
    official_vs_all,
    pool_qrels,
    reusability,
    simulate,
    write_report,
)
from ir_rarity.judging.summary import reusability_table
from ir_rarity.tables import render_frame

STRATEGIES = ["depth", "depth(ties=runs)", "rbp(p=0.8)", "rrf(k=60)", "mtf", "mtf(rule=skip)", "mmns(gamma=0.9)",
              "rarity(beta=0.5,p=0.8)", "rarity(beta=1,p=0.8)"]
BUDGETS = [5, 10, 20, 50, 100, 200]  # judgments per topic (the real round 1 judged about 290 per topic)
REUSE_BUDGETS = [10, 50]
MEASURES = ["P@10", "AP", "P_rare(alpha=0.5)@10", "AP_rare(alpha=0.5)"]
LOTO_TEAMS = 5  # the teams with most unique relevant documents (each costs an evaluation per strategy and budget)


def main(out: Path) -> None:
    start = time.perf_counter()
    board = pd.read_csv(covid_round1.leaderboard, dtype=str)
    pool = Pool.from_runs(covid_round1.runs, split_by_tag=True,
                          teams=dict(zip(board["run"], board["team"], strict=True)))
    qrels = read_trec_qrels(covid_round1.qrels)
    print(f"TREC-COVID round 1: {pool!r}; {len(qrels)} judgments, {int((qrels['relevance'] >= 1).sum())} relevant\n")

    sim = simulate(pool, qrels, STRATEGIES, BUDGETS, seed=0)
    print(render_frame(found_table(sim), "markdown", 0, caption=f"Relevant documents found ({sim.describe()})"))
    print(render_frame(found_table(sim, "outside_qrels"), "markdown", 0,
                       caption="Judged documents outside the qrels (counted non-relevant)"))
    print(render_frame(sim.best(), "markdown", 0, caption="Most relevant documents per budget"))

    counts = unique_relevant(pool, qrels, 100, by="team").counts
    teams = sorted(counts.index, key=lambda t: (-int(counts[t]), str(t)))[:LOTO_TEAMS]
    print(f"leave-one-team-out for the teams with most unique relevant documents: {teams}\n")
    reuse_sim = simulate(pool, qrels, STRATEGIES, REUSE_BUDGETS, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemberNotice)
        reuse = reusability(reuse_sim, pool, qrels, MEASURES, depth=100, teams=teams)
        for measure in dict.fromkeys(reuse["measure"]):
            print(render_frame(reusability_table(reuse, measure), "markdown", 3, caption=f"Reusability, {measure}"))

        official = official_vs_all(pool, qrels, MEASURES, contributing_runs(covid_round1.leaderboard))
        print(render_frame(official[1], "markdown", 3,
                           caption="S_d from the 56 contributing runs vs all 143 (every run ranked by each)"))

        shallow = pool_qrels(qrels, sim.orders["rbp(p=0.8)"].frame(10), drop=True)
        incomplete = incomplete_judgments(pool, shallow, ["P_rare(alpha=0.5)@10", "AP_rare(alpha=0.5)"])
    top = incomplete[incomplete["measure"] == "P_rare(alpha=0.5)@10"].sort_values("value", ascending=False)
    print(render_frame(top.head(8), "markdown", 3,
                       caption="Qrels of the rbp(p=0.8) pool at 10 per topic: P_rare(alpha=0.5)@10 of the top runs, "
                               "judged-only, unjudged as relevant, Judged@10"))
    write_report(out, sim, reuse, official, incomplete)
    print(f"written to {out} in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "docs" /
         "pooling_round1")
