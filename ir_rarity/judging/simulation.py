r"""Budget simulation on a finished campaign: how many relevant documents each strategy finds for a budget.

The campaign's qrels are the oracle: a document the strategy asks for is relevant when the qrels say so
(label >= ``rel``); a document outside the qrels counts as non-relevant, and the table reports how many such
documents each strategy asked for (judgments the real campaign never made, so an optimistic strategy is not
credited with relevance nobody assessed).

Budgets are judgments per query, or a total: a total budget B is shared equally among the T queries (``B // T``
each, the first ``B mod T`` queries in query-id order one more); a query with fewer candidates than its share
leaves the rest unused, for every strategy alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.errors import ParameterError
from ir_rarity.judging.candidates import Candidates
from ir_rarity.judging.strategies import JudgingOrder, Strategy, parse_strategy
from ir_rarity.pool.pool import Pool
from ir_rarity.progress import progress as progress_bar

__all__ = ["Simulation", "check_budgets", "query_budgets", "simulate"]


def check_budgets(budgets: Iterable[Any]) -> list[int]:
    """Budgets as sorted distinct positive integers.

    Raises:
        ParameterError: no budget, or one that is not a positive integer.

    """
    out = []
    for b in budgets:
        if isinstance(b, bool) or not isinstance(b, (int, np.integer, str)):
            raise ParameterError(f"a budget must be a positive integer, got {b!r}")
        try:
            value = int(b)
        except ValueError:
            raise ParameterError(f"a budget must be a positive integer, got {b!r}") from None
        if value < 1:
            raise ParameterError(f"a budget must be a positive integer, got {b!r}")
        out.append(value)
    if not out:
        raise ParameterError("give at least one budget")
    return sorted(set(out))


def query_budgets(budget: int, n_queries: int, total: bool) -> np.ndarray:
    """Judgments per query for ``budget``: the same for every query, or a total shared equally (see module)."""
    if not total:
        return np.full(n_queries, budget, dtype=np.int64)
    share = np.full(n_queries, budget // n_queries, dtype=np.int64)
    share[: budget % n_queries] += 1
    return share


@dataclass
class Simulation:
    """The judging orders of several strategies on one campaign, and the budgets to read them at.

    Attributes:
        candidates: What the strategies ordered (with the oracle).
        orders: Strategy name -> its judging order.
        budgets: The budgets (per query, or totals when ``total``).
        total: Whether budgets are totals over all queries.
        seed: Seed of the adaptive strategies' tie-breaking.

    """

    candidates: Candidates
    orders: dict[str, JudgingOrder]
    budgets: list[int]
    total: bool = False
    seed: int = 0
    _tables: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)

    def per_query(self, budget: int) -> np.ndarray:
        """Judgments per query at ``budget``."""
        return query_budgets(budget, self.candidates.n_queries, self.total)

    def judged(self, strategy: str, budget: int) -> np.ndarray:
        """Documents (indices into the candidates) ``strategy`` judged at ``budget``."""
        return self.orders[strategy].judged(self.per_query(budget))

    def table(self) -> pd.DataFrame:
        """Relevant documents found per strategy and budget.

        Returns:
            One row per (strategy, budget): ``strategy, budget`` (per query, or total), ``judged`` (documents
            judged over all queries), ``relevant`` (of them relevant by the qrels), ``outside_qrels`` (judged
            documents the qrels lack, counted non-relevant), ``recall`` (``relevant`` over the qrels' relevant
            documents of these queries) and ``relevant_per_judgment``.

        """
        if "table" not in self._tables:
            cands = self.candidates
            relevant, outside = cands.doc_relevant(), cands.doc_outside_qrels()
            n_rel = int(cands.n_relevant.sum())
            rows = []
            for name, order in self.orders.items():
                for budget in self.budgets:
                    docs = order.judged(self.per_query(budget))
                    found = int(relevant[docs].sum())
                    rows.append((name, budget, len(docs), found, int(outside[docs].sum()),
                                 found / n_rel if n_rel else 0.0, found / len(docs) if len(docs) else 0.0))
            table = pd.DataFrame(rows, columns=["strategy", "budget", "judged", "relevant", "outside_qrels",
                                                "recall", "relevant_per_judgment"])
            table.attrs["pool"] = self.describe()
            self._tables["table"] = table
        return self._tables["table"]

    def best(self) -> pd.DataFrame:
        """Per budget, the strategy that found most relevant documents (ties: every such strategy, joined)."""
        table = self.table()
        top = table.groupby("budget")["relevant"].transform("max")
        winners = table[table["relevant"] == top].groupby("budget", sort=True).agg(
            strategy=("strategy", " = ".join), relevant=("relevant", "first"))
        return winners.reset_index()

    def describe(self) -> str:
        """What the simulation ran on."""
        cands = self.candidates
        unit = "judgments in total" if self.total else "judgments per query"
        return (f"{cands.n_runs} runs, {cands.n_queries} queries, {cands.n_docs} candidate documents, "
                f"{int(cands.n_relevant.sum())} relevant in the qrels (rel >= {cands.rel}); budgets in {unit}; "
                f"seed {self.seed}")


def simulate(pool: Pool, qrels: Any, strategies: Sequence[str | Strategy], budgets: Iterable[int], *,
             total: bool = False, depth: int | None = None, rel: int = 1, seed: int = 0,
             progress: bool = False) -> Simulation:
    """Simulate judging the campaign ``pool`` with each strategy, with ``qrels`` as the oracle.

    Args:
        pool: The campaign's runs.
        qrels: Its judgments: the oracle (outside them, a document counts as non-relevant).
        strategies: Strategies, as objects or specs (``'rbp(p=0.8)'``, see
            :func:`~ir_rarity.judging.strategies.parse_strategy`).
        budgets: Budgets, judgments per query (or totals with ``total=True``).
        total: Budgets are totals, shared equally among queries.
        depth: Only the runs' top ``depth`` documents are candidates (None: whole runs).
        rel: Minimum label counted as relevant.
        seed: Seed of the adaptive strategies' tie-breaking; the same seed gives the same orders.
        progress: Show a progress bar (tqdm, stderr) over the strategies.

    Returns:
        A :class:`Simulation`; ``.table()`` holds the relevant documents found.

    Raises:
        ParameterError: an unknown strategy, a bad budget or depth, or two strategies of the same name.

    """
    parsed = [parse_strategy(s) for s in strategies]
    if not parsed:
        raise ParameterError("give at least one pooling strategy")
    names = [str(s) for s in parsed]
    if len(set(names)) != len(names):
        raise ParameterError(f"a pooling strategy is given twice: {names}")
    budget_list = check_budgets(budgets)
    candidates = Candidates.from_pool(pool, qrels, depth=depth, rel=rel)
    limit = int(query_budgets(budget_list[-1], candidates.n_queries, total).max())
    orders: dict[str, JudgingOrder] = {}
    for strategy in progress_bar(parsed, desc="strategies", unit="strategy", enabled=progress):
        orders[str(strategy)] = strategy.order(candidates, seed=seed, limit=limit)
    return Simulation(candidates, orders, budget_list, total=total, seed=seed)
