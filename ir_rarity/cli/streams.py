"""``ir-rarity eval``'s plain tables in the shape ir_measures' command prints them, so its readers read ours.

The ``ir_measures`` command (ir_measures 0.4, ``ir_measures QRELS RUN MEASURES``) prints no header row and no
comment:

* summary, tsv: ``measure<TAB>value`` a line; jsonl: ``{"measure": ..., "value": ...}``;
* ``-q``, tsv: ``query_id<TAB>measure<TAB>value`` a line, query after query (a query's measures together), then
  ``all<TAB>measure<TAB>mean`` per measure unless ``-n``; jsonl: ``{"query_id": ..., "measure": ..., "value": ...}``.

``ir-rarity eval`` prints the same for one run. For several runs (which ir_measures cannot evaluate in one call),
``-q`` puts the run's name first (``run<TAB>query_id<TAB>measure<TAB>value``, as ``grep`` names the file only when
given several), and the summary is the leaderboard: a header row ``run<TAB>measure...`` and one row a run, best
first. csv, markdown, latex and html, which ir_measures does not write, always name their columns.

Standard output carries the table alone (no provenance: that goes to ``--metadata FILE``, or in-band with
``--provenance``); a file ``--output`` writes in a format of :data:`COMMENTED_FILES` carries it as a comment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ir_rarity.tables import render

if TYPE_CHECKING:
    from ir_rarity.engine.result import Evaluation

__all__ = ["COMMENTED_FILES", "IR_MEASURES_FORMATS", "one_run_summary", "per_query_table"]

COMMENTED_FILES = ("markdown", "html", "latex")
"""Formats whose readers skip a comment (markdown and html renderers an HTML comment, TeX a ``%`` line): a file
``--output`` writes in one carries its provenance there. tsv and csv readers (pandas, ``cut``, ``sort``) and jsonl
readers skip nothing by default, so those files carry the table alone, and the provenance goes to ``--metadata``."""

IR_MEASURES_FORMATS = ("tsv", "jsonl")
"""The formats the ``ir_measures`` command writes: in these, ``eval`` prints exactly its shape."""


def per_query_table(result: Evaluation, summary: bool, fmt: str, places: int, caption: str | None = None) -> str:
    """``-q``: every run's per-query values, then (``summary``) each run's mean per measure as query ``all``.

    One run in tsv or jsonl: ir_measures' lines exactly (no header, no run column). Several runs: the run column
    first, still no header in tsv. csv, markdown, latex, html: with the header ``run, query_id, measure, value``.
    """
    import numpy as np  # here: the command line's parser starts without numpy

    long = result.long()  # measure after measure, each run after run, each query after query
    n_measures, n_runs, n_queries = len(result.measures), len(result.names), len(result.query_ids)
    order = np.arange(len(long)).reshape(n_measures, n_runs, n_queries).transpose(1, 2, 0).ravel()
    long = long.iloc[order]  # run after run, query after query, the measures of a query together (as ir_measures)
    rows = [(str(r), str(q), str(m), float(v)) for r, q, m, v in long.itertuples(index=False, name=None)]
    if summary:
        table = result.table()
        rows += [(str(run), "all", str(column), float(value)) for run, values in table.iterrows()
                 for column, value in values.items()]
    columns = ["run", "query_id", "measure", "value"]
    if fmt in IR_MEASURES_FORMATS and len(result.names) == 1:
        columns, rows = columns[1:], [row[1:] for row in rows]  # type: ignore[misc]
    return render(columns, rows, fmt, places, header=fmt not in IR_MEASURES_FORMATS, caption=caption)


def one_run_summary(result: Evaluation, fmt: str, places: int) -> str | None:
    """The summary of one run in ir_measures' shape (``measure<TAB>mean`` lines), or None when it does not apply.

    It applies to one run in tsv or jsonl; otherwise ``eval`` prints its leaderboard.
    """
    if fmt not in IR_MEASURES_FORMATS or len(result.names) != 1:
        return None
    table = result.table()
    rows = [(str(column), float(value)) for column, value in table.iloc[0].items()]
    return render(["measure", "value"], rows, fmt, places, header=False)
