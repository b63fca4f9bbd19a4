"""Benchmark of ir_rarity.complementarity on the embedded TREC-COVID round 1 (run by hand, not in CI).

    python bench/bench_complementarity.py [--samples N] [--coalitions N]

Rows (seconds, best of 3 where cheap):

ranked    the 143 runs as whole arrays (``ranked_campaign``).
sim       Jaccard and RBO_ext of the 10,153 pairs of runs at k = 100 (``run_similarity``).
parts     each team's part of RRF, CombSUM and CombMNZ (``fusion_parts``).
fuse      RRF of N random coalitions of the 56 teams (``fuse``: one matrix product and a partial sort per query),
          and the same coalitions fused by a pandas groupby over the rows of each coalition's runs (the obvious
          way): their ratio.
game      the N fused runs evaluated by ``ir_rarity.evaluate`` against the campaign (nDCG@10, P_rare@10).
whole     ``complementarity`` with the default measures and ``--samples`` orders.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from timing import best  # bench/timing.py: the bench scripts' one timing rule

from ir_rarity import Pool, covid_round1
from ir_rarity.complementarity import (
    CoalitionGame,
    complementarity,
    fuse,
    fusion_parts,
    ranked_campaign,
    run_similarity,
)


def naive_rrf(pool_runs: pd.DataFrame, teams: list[str], coalition: np.ndarray) -> pd.DataFrame:
    rows = pool_runs[pool_runs["team"].isin([t for t, keep in zip(teams, coalition, strict=True) if keep])]
    fused = rows.assign(w=1.0 / (60 + rows["rank"])).groupby(["query_id", "doc_id"], as_index=False)["w"].sum()
    fused = fused.sort_values(["query_id", "w", "doc_id"], ascending=[True, False, False])
    return fused.groupby("query_id").head(100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--coalitions", type=int, default=500)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    qrels = pd.read_csv(covid_round1.qrels, sep=r"\s+", header=None, names=["query_id", "it", "doc_id", "relevance"],
                        dtype={"query_id": str, "doc_id": str})
    pool = Pool.from_runs(covid_round1.runs, split_by_tag=True, teams=f"{covid_round1.leaderboard}:run:team")
    t, ranked = best(lambda: ranked_campaign(pool))
    print(f"ranked  {t:8.3f} s  ({len(ranked.run):,} rows, {ranked.n_keys:,} (query, document) pairs)")
    t, _ = best(lambda: run_similarity(ranked))
    print(f"sim     {t:8.3f} s")
    t, parts = best(lambda: fusion_parts(ranked))
    print(f"parts   {t:8.3f} s")
    rng = np.random.default_rng(0)
    coalitions = rng.random((args.coalitions, len(ranked.team_names))) < 0.5
    t_fast, _ = best(lambda: fuse(parts, coalitions, "rrf", 100), repeat=1)
    long = pd.concat([pool.run(n).assign(team=pool.teams[n]) for n in pool.names], ignore_index=True)
    some = coalitions[: max(1, args.coalitions // 10)]
    t_naive, _ = best(lambda: [naive_rrf(long, list(ranked.team_names), c) for c in some], repeat=1)
    t_naive *= len(coalitions) / len(some)
    print(f"fuse    {t_fast:8.3f} s for {len(coalitions)} coalitions; pandas groupby per coalition "
          f"{t_naive:8.3f} s (extrapolated from {len(some)}); ratio {t_naive / t_fast:.1f}")
    game = CoalitionGame(parts, pool, qrels, ["nDCG@10", "P_rare(alpha=0.5)@10"])
    t, _ = best(lambda: game.values(coalitions), repeat=1)
    print(f"game    {t:8.3f} s for {game.evaluated} fused runs evaluated")
    t, result = best(lambda: complementarity(qrels, pool, samples=args.samples), repeat=1)
    print(f"whole   {t:8.3f} s ({result.settings['fused_runs_evaluated']:,} fused runs, {args.samples} orders)")


if __name__ == "__main__":
    main()
