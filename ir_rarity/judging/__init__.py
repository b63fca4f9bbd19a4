"""Pooling for campaign organisers: judging strategies, budget simulation, reusability, incomplete judgments.

Türkmen, Lease & Kutlu (ECIR 2023, sections 5.1 and 5.4) and the pooling literature it builds on (depth-k pooling
and its bias; Zobel, SIGIR 1998):

- :mod:`~ir_rarity.pooling.candidates`: what strategies choose from (the runs' documents per query, the oracle);
- :mod:`~ir_rarity.pooling.strategies`: depth-k, RBP, RRF, move-to-front, MM-NS bandit, rarity-aware;
- :mod:`~ir_rarity.pooling.simulation`: relevant documents found per strategy and budget;
- :mod:`~ir_rarity.pooling.reuse`: rank correlations and leave-one-team-out per simulated pool; S_d from
  official runs only;
- :mod:`~ir_rarity.pooling.incomplete`: judged-only values, Judged@k and per-run readings of unjudged documents;
- :mod:`~ir_rarity.pooling.report`: tables, curves, markdown; :mod:`~ir_rarity.cli.pooling`: ``ir-rarity
  pooling``.
"""

from typing import TYPE_CHECKING

from ir_rarity.lazy import lazy_exports

if TYPE_CHECKING:
    from ir_rarity.pooling.candidates import Candidates
    from ir_rarity.pooling.incomplete import incomplete_judgments, judged_only
    from ir_rarity.pooling.report import found_table, plot_budget_curves, plot_reusability, write_report
    from ir_rarity.pooling.reuse import contributing_runs, official_vs_all, pool_qrels, reusability
    from ir_rarity.pooling.simulation import Simulation, query_budgets, simulate
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
    "query_budgets",
    "reusability",
    "simulate",
    "write_report",
]

__getattr__, __dir__ = lazy_exports(__name__, {
    "Candidates": "ir_rarity.pooling.candidates",
    "incomplete_judgments": "ir_rarity.pooling.incomplete",
    "judged_only": "ir_rarity.pooling.incomplete",
    "found_table": "ir_rarity.pooling.report",
    "plot_budget_curves": "ir_rarity.pooling.report",
    "plot_reusability": "ir_rarity.pooling.report",
    "write_report": "ir_rarity.pooling.report",
    "contributing_runs": "ir_rarity.pooling.reuse",
    "official_vs_all": "ir_rarity.pooling.reuse",
    "pool_qrels": "ir_rarity.pooling.reuse",
    "reusability": "ir_rarity.pooling.reuse",
    "Simulation": "ir_rarity.pooling.simulation",
    "simulate": "ir_rarity.pooling.simulation",
    "query_budgets": "ir_rarity.pooling.simulation",
    "MMNS": "ir_rarity.pooling.strategies",
    "MTF": "ir_rarity.pooling.strategies",
    "RBP": "ir_rarity.pooling.strategies",
    "RRF": "ir_rarity.pooling.strategies",
    "STRATEGIES": "ir_rarity.pooling.strategies",
    "DepthK": "ir_rarity.pooling.strategies",
    "JudgingOrder": "ir_rarity.pooling.strategies",
    "RarityRBP": "ir_rarity.pooling.strategies",
    "Strategy": "ir_rarity.pooling.strategies",
    "parse_strategy": "ir_rarity.pooling.strategies",
}, globals())
