"""Pooling for campaign organisers: judging strategies, budget simulation, reusability, incomplete judgments.

Seed 000 (Türkmen, Lease & Kutlu, ECIR 2023, sections 5.1 and 5.4) and seed 003 (pooling and its bias):

- :mod:`~ir_rarity.pooling.candidates`: what strategies choose from (the runs' documents per topic, the oracle);
- :mod:`~ir_rarity.pooling.strategies`: depth-k, RBP, RRF, move-to-front, MM-NS bandit, rarity-aware;
- :mod:`~ir_rarity.pooling.simulate`: relevant documents found per strategy and budget;
- :mod:`~ir_rarity.pooling.reusability`: rank correlations and leave-one-team-out per simulated pool; S_d from
  official runs only;
- :mod:`~ir_rarity.pooling.incomplete`: judged-only values, Judged@k and per-run readings of unjudged documents;
- :mod:`~ir_rarity.pooling.report`: tables, curves, markdown; :mod:`~ir_rarity.pooling.command`: ``ir-rarity
  pooling``.
"""

from ir_rarity.pooling.candidates import Candidates
from ir_rarity.pooling.incomplete import incomplete_judgments, judged_only
from ir_rarity.pooling.report import found_table, plot_budget_curves, plot_reusability, write_report
from ir_rarity.pooling.reusability import contributing_runs, official_vs_all, pool_qrels, reusability
from ir_rarity.pooling.simulate import Simulation, simulate, topic_budgets
from ir_rarity.pooling.strategies import (
    MMNS,
    MTF,
    RBP,
    RRF,
    STRATEGIES,
    DepthK,
    JudgingOrder,
    RarityRBP,
    Strategy,
    parse_strategy,
)

__all__ = [
    "MMNS",
    "MTF",
    "RBP",
    "RRF",
    "STRATEGIES",
    "Candidates",
    "DepthK",
    "JudgingOrder",
    "RarityRBP",
    "Simulation",
    "Strategy",
    "contributing_runs",
    "found_table",
    "incomplete_judgments",
    "judged_only",
    "official_vs_all",
    "parse_strategy",
    "plot_budget_curves",
    "plot_reusability",
    "pool_qrels",
    "reusability",
    "simulate",
    "topic_budgets",
    "write_report",
]
