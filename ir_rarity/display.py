"""What a notebook shows of a table of runs: the best run first, and no more rows than pandas would show.

An :class:`~ir_rarity.Evaluation` of a whole campaign has a row per run (143 for TREC-COVID round 1). The command
line prints them best first by the first measure; a notebook showed them A to Z, all of them. Here both orders are
one rule (:func:`best_first`: the first measure's direction, ties by run name), and a long table is cut as pandas
cuts a DataFrame (:func:`shown_rows`, from ``pd.options.display.max_rows`` and ``display.min_rows``), so a user's
display options apply to ir_rarity's tables too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["best_first", "shown_rows"]


def best_first(table: pd.DataFrame, column: str, higher_is_better: bool = True) -> pd.DataFrame:
    """The rows of ``table`` best first by ``column`` in its direction; ties (and missing values, last) by name."""
    table = table.sort_index(kind="mergesort")
    return table.sort_values(column, ascending=not higher_is_better, kind="mergesort", na_position="last")


def shown_rows(n_rows: int) -> tuple[int, int] | None:
    """How many rows of ``n_rows`` pandas shows, first and last, under its display options; None: all of them.

    pandas' rule (``DataFrameFormatter``): a frame longer than ``display.max_rows`` is cut to ``display.min_rows``
    rows (or ``max_rows`` when ``min_rows`` is unset or larger), half from its top and half from its bottom; when
    that half is 0 the first ``max_rows`` rows are shown. ``max_rows`` None or 0 shows every row.
    """
    import pandas as pd

    max_rows = pd.get_option("display.max_rows")
    min_rows = pd.get_option("display.min_rows")
    if not max_rows or n_rows <= max_rows:
        return None
    fitted = min(min_rows, max_rows) if min_rows else max_rows
    half = fitted // 2
    return (half, half) if half >= 1 else (int(max_rows), 0)
