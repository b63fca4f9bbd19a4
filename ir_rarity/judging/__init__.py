"""Pooling for campaign organisers: judging strategies, budget simulation, reusability, incomplete judgments.

Türkmen, Lease & Kutlu (ECIR 2023, sections 5.1 and 5.4) and the pooling literature it builds on (depth-k pooling
and its bias; Zobel, SIGIR 1998):

- :mod:`~ir_rarity.judging.candidates`: what strategies choose from (the runs' documents per query, the oracle);
- :mod:`~ir_rarity.judging.strategies`: depth-k, RBP, RRF, move-to-front, MM-NS bandit, rarity-aware;
- :mod:`~ir_rarity.judging.simulation`: relevant documents found per strategy and budget;
- :mod:`~ir_rarity.judging.reuse`: rank correlations and leave-one-team-out per simulated pool; S_d from
  official runs only;
- :mod:`~ir_rarity.judging.incomplete`: judged-only values, Judged@k and per-run readings of unjudged documents;
- :mod:`~ir_rarity.judging.summary`: tables, curves, markdown; :mod:`~ir_rarity.cli.pooling`: ``ir-rarity
  pooling``.
"""

from typing import TYPE_CHECKING

from ir_rarity.lazy import lazy_exports

if TYPE_CHECKING:
    from ir_rarity.judging.candidates import Candidates
    from ir_rarity.judging.incomplete import incomplete_judgments, judged_only
    from ir_rarity.judging.reuse import contributing_runs, official_vs_all, pool_qrels, reusability
    from ir_rarity.judging.simulation import Simulation, query_budgets, simulate
    from ir_rarity.judging.strategies import (
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
    from ir_rarity.judging.summary import found_table, plot_budget_curves, plot_reusability, write_report

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
    "Candidates": "ir_rarity.judging.candidates",
    "incomplete_judgments": "ir_rarity.judging.incomplete",
    "judged_only": "ir_rarity.judging.incomplete",
    "found_table": "ir_rarity.judging.summary",
    "plot_budget_curves": "ir_rarity.judging.summary",
    "plot_reusability": "ir_rarity.judging.summary",
    "write_report": "ir_rarity.judging.summary",
    "contributing_runs": "ir_rarity.judging.reuse",
    "official_vs_all": "ir_rarity.judging.reuse",
    "pool_qrels": "ir_rarity.judging.reuse",
    "reusability": "ir_rarity.judging.reuse",
    "Simulation": "ir_rarity.judging.simulation",
    "simulate": "ir_rarity.judging.simulation",
    "query_budgets": "ir_rarity.judging.simulation",
    "MMNS": "ir_rarity.judging.strategies",
    "MTF": "ir_rarity.judging.strategies",
    "RBP": "ir_rarity.judging.strategies",
    "RRF": "ir_rarity.judging.strategies",
    "STRATEGIES": "ir_rarity.judging.strategies",
    "DepthK": "ir_rarity.judging.strategies",
    "JudgingOrder": "ir_rarity.judging.strategies",
    "RarityRBP": "ir_rarity.judging.strategies",
    "Strategy": "ir_rarity.judging.strategies",
    "parse_strategy": "ir_rarity.judging.strategies",
}, globals())
