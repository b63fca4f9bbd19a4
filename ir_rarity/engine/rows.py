"""The value type every kernel reads: the rows of the evaluated runs, and the source of what is read lazily.

A *cell* is one (run, query) pair: the ranking one run returned for one query. Rows are sorted by cell and,
within a cell, in trec_eval order, so that ``rank`` runs 0, 1, 2, ... from each cell's first row.

:class:`Rows` holds what every kernel reads (run, query, rank, which cells hold a ranking) as plain arrays, and
one :class:`RowSource`: what the rows are counted against. Everything a kernel reads only for some rows (S_d,
labels, pair keys) comes through :meth:`Rows.s_d`, :meth:`Rows.labels` and :meth:`Rows.keys`, which ask the
source for the rows a measure reads, or once for all rows when a measure reads them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ir_rarity.engine import asl as asl_kernel
from ir_rarity.engine.codes import block_starts, ranks_within_blocks
from ir_rarity.engine.kernels import block_rows
from ir_rarity.engine.qrels import EncodedQrels, is_relevant

__all__ = ["Labelled", "RowSource", "Rows", "Selection", "Subrows", "TieOrder"]

Selection = np.ndarray | None
"""The rows asked for: row numbers or a boolean mask over the rows, or None for every row."""


@runtime_checkable
class TieOrder(Protocol):
    """A :class:`RowSource` that can also order its rows as a provider other than trec_eval orders them.

    ir_measures' ``judged`` provider ranks a run by its scores as given (double precision) and breaks ties by
    docno *ascending*, where trec_eval breaks them descending; ``Judged@k`` needs that order. A campaign's
    members (:meth:`ir_rarity.Pool.member_rows`) and runs scored against a campaign implement it.
    """

    def tie_keys(self) -> tuple[np.ndarray, np.ndarray]:
        """``(score, docno order)`` of every row: its score as a double, and a code that orders like its docno."""
        ...


class RowSource(Protocol):
    """What :class:`Rows` are counted against: per-row S_d, labels and keys, and the campaign's S_d and runs.

    A campaign's own members (:meth:`ir_rarity.Pool.member_rows`), runs scored against a campaign by the
    evaluation rule (:func:`ir_rarity.engine.against.rows_against`), a campaign with weighted systems
    (:class:`~ir_rarity.engine.weighted.WeightedCampaign`) and samples of a pool's runs
    (:mod:`ir_rarity.engine.samples`) implement it.
    """

    def s_d(self, depth: int | None, rows: Selection) -> tuple[np.ndarray, np.ndarray]:
        """``(S_d at depth of each row asked for, S of every evaluated run)``; None: whole rankings."""
        ...

    def labels(self, rows: Selection) -> np.ndarray:
        """Relevance label of each row asked for (:data:`~ir_rarity.engine.qrels.UNJUDGED` if not judged)."""
        ...

    def keys(self, rows: Selection) -> np.ndarray:
        """(query, document) pair key of each row asked for, in the campaign's codes."""
        ...

    def relevant(self, rel: int) -> np.ndarray:
        """Whether every row is relevant at ``rel`` (:func:`~ir_rarity.engine.qrels.is_relevant` of its label)."""
        ...

    def campaign_s_d(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        """S_d at ``depth`` of any pair keys in the campaign the rows are scored against.

        The count before any evaluated newcomer's own retrieval is added (0 for a key no system retrieved): what
        ``R_rare`` weighs the relevant documents a run did not retrieve with.
        """
        ...

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        r"""Novelty: the campaign's summed reading probabilities, its run count, and which runs are members.

        Returns ``(sorted pair keys, the sum over the campaign's runs of P(D=d | S=y) of each, the number of
        campaign runs, whether each evaluated run is one of them)``.

        Raises:
            ParameterError: the campaign does not keep its runs.

        """
        ...


@dataclass(frozen=True, eq=False)
class Rows:
    """Rows of the evaluated runs within the qrels' queries, sorted by (run, query, rank).

    Attributes:
        run: Index of the evaluated run (0 .. n_runs-1) of each row.
        query: Position of each row's query in ``qrels.query_ids``.
        rank: 0-based rank of each row in its ranking (trec_eval order).
        present: ``present[r, q]`` is True when run r retrieved anything for query q.
        n_runs: Number of evaluated runs.
        qrels: The encoded qrels.
        source: S_d, labels and keys of the rows, and the campaign they are counted in (:class:`RowSource`).
        returned: Documents each cell's ranking returned, when the rows are not all of it (a campaign read
            keeping only the rows its measures read: ranks then have gaps); None: the rows of each cell.
        campaign_values: Values shared by every block of rows of one campaign and qrels (:meth:`per_campaign`).

    """

    run: np.ndarray
    query: np.ndarray
    rank: np.ndarray
    present: np.ndarray
    n_runs: int
    qrels: EncodedQrels
    source: RowSource
    returned: np.ndarray | None = None
    campaign_values: dict[tuple[object, ...], Any] = field(default_factory=dict, repr=False)
    _cache: dict[tuple[object, ...], Any] = field(default_factory=dict, init=False, repr=False)

    # ------------------------------------------------------------------ what kernels read lazily
    def s_d(self, depth: int | None, rows: Selection = None) -> tuple[np.ndarray, np.ndarray]:
        """``(S_d at depth of the given rows, S per run)``: of every row when ``rows`` is None (kept per depth)."""
        return self._read(("s_d", depth), lambda chosen: self.source.s_d(depth, chosen), rows)

    def labels(self, rows: Selection = None) -> np.ndarray:
        """Relevance labels of the given rows: of every row when ``rows`` is None (gathered once)."""
        return self._read(("labels",), lambda chosen: (self.source.labels(chosen), None), rows)[0]

    def keys(self, rows: Selection = None) -> np.ndarray:
        """(query, document) pair keys of the given rows: of every row when ``rows`` is None (made once)."""
        return self._read(("keys",), lambda chosen: (self.source.keys(chosen), None), rows)[0]

    def _read(self, key: tuple[object, ...], read: Callable[[Selection], tuple[np.ndarray, Any]], rows: Selection
              ) -> tuple[np.ndarray, Any]:
        """``read(rows)``; for every row once, kept; for some rows, taken from the kept values when there are."""
        whole = self._cache.get(key)
        if whole is None:
            if rows is not None:
                return read(rows)
            whole = self._cache[key] = read(None)
        values, extra = whole
        return (values if rows is None else values[rows]), extra

    # ------------------------------------------------------------------ shape
    @property
    def n_queries(self) -> int:
        """Number of qrels queries (columns of every result matrix)."""
        return len(self.qrels.query_ids)

    @property
    def n_cells(self) -> int:
        """Number of (run, query) cells: ``n_runs * n_queries``."""
        return self.n_runs * self.n_queries

    # ------------------------------------------------------------------ computed once per rows
    def _cached(self, key: tuple[object, ...], make: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def shared(self, key: tuple[object, ...], make: Callable[[], Any]) -> Any:
        """``make()``, computed once per ``key`` for these rows: what several measures' kernels share."""
        return self._cached(("shared", *key), make)

    def per_campaign(self, key: tuple[object, ...], make: Callable[[], Any]) -> Any:
        """``make()``, computed once per ``key`` for every block of rows scored against one campaign and qrels.

        For what depends only on the campaign, the qrels and the measure's parameters (e.g. a per-query base over
        the qrels' relevant documents), not on these rows: a source that gives a campaign's rows block by block
        hands every block the same :attr:`campaign_values`; otherwise they are these rows' own.
        """
        if key not in self.campaign_values:
            self.campaign_values[key] = make()
        return self.campaign_values[key]

    def release(self) -> None:
        """Drop everything computed and shared for these rows.

        Shared values may refer back to the rows (a cycle only the garbage collector would break); a caller done
        with a block of rows releases it, so its memory is freed at once.
        """
        self._cache.clear()

    def cell(self) -> np.ndarray:
        """Cell number ``run * n_queries + query`` of each row (computed once)."""
        return self._cached(("cell",), self._make_cell)

    def _make_cell(self) -> np.ndarray:
        kind = np.int32 if self.n_cells < 2**31 else np.int64  # narrow where it fits: less memory to touch
        cell = np.multiply(self.run, self.n_queries, dtype=kind)
        cell += self.query
        return cell

    def positions(self) -> np.ndarray:
        """0-based position of each row among its cell's rows: its rank, unless rows are left out (:attr:`returned`).

        What :func:`~ir_rarity.engine.kernels.segmented_cumsum` takes to find the cells' first rows.
        """
        if self.returned is None:
            return self.rank
        return self._cached(("positions",), lambda: ranks_within_blocks(block_starts(self.cell())))

    def within(self, cutoff: int) -> np.ndarray:
        """Row numbers (increasing) of the rows ranked above ``cutoff`` (rank < cutoff), found once per cutoff.

        Rows are sorted by cell, then rank, so they are a prefix of each cell. Where every cell's rows are its
        ranks 0, 1, 2, ... (its last row's rank is its row count less one), each prefix is the cell's first
        ``min(rows, cutoff)`` rows, found from the cells' sizes without reading every row's rank.
        """
        return self._cached(("within", cutoff), lambda: self._make_within(cutoff))

    def _make_within(self, cutoff: int) -> np.ndarray:
        if self.returned is None and len(self.rank):
            sizes = self.cell_sizes()
            ends = np.cumsum(sizes)
            full = sizes > 0
            if np.array_equal(self.rank[ends[full] - 1], sizes[full] - 1):  # ranks 0 .. size - 1 in every cell
                return block_rows(ends - sizes, np.minimum(sizes, cutoff))
        return np.flatnonzero(self.rank < cutoff)

    def relevant(self, rel: int) -> np.ndarray:
        """Whether each row is relevant at threshold ``rel`` (:func:`~ir_rarity.engine.qrels.is_relevant`)."""
        return self._cached(("relevant", rel), lambda: self.source.relevant(rel))

    def relevant_positions(self, rel: int) -> tuple[np.ndarray, np.ndarray]:
        """Row numbers of the relevant rows at ``rel``, and each one's 1-based position in its cell among them.

        Shared by the ASL family.
        """
        return self._cached(("positions", rel), lambda: asl_kernel.relevant_positions(
            self.relevant(rel), self.cell()))

    def cell_sizes(self) -> np.ndarray:
        """Documents each cell's ranking returned: :attr:`returned`, or the cell's rows.

        Counted once; rows are sorted by cell: a binary search per cell.
        """
        if self.returned is not None:
            return self.returned
        return self._cached(("cell sizes",), lambda: np.diff(np.searchsorted(
            self.cell(), np.arange(self.n_cells + 1, dtype=self.cell().dtype))))

    def judged_only(self) -> Rows:
        """These rows without the unjudged ones, re-ranked 0, 1, 2, ... within each cell (computed once).

        What a ``judged_only=True`` measure scores: the ranking with every document the qrels do not judge, or
        judge with a negative label, removed (as trec_eval's ``-J``, ir_measures' ``judged_only`` and the standard
        kernels). S_d of each kept row stays as counted in the
        campaign (the filter changes what is scored, not who retrieved what); ``present`` is unchanged, so a
        ranking of unjudged documents only scores 0, not the measure's default for a missing query.
        """
        return self._cached(("judged_only",), self._make_judged_only)

    def _make_judged_only(self) -> Rows:
        keep = np.flatnonzero(self.labels() >= 0)  # judged, and not a negative label: trec_eval -J drops those
        cell = self.cell()[keep]
        start = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]]) if len(cell) else np.zeros(0, dtype=np.int64)
        rank = np.arange(len(cell), dtype=np.int64) - np.repeat(start, np.diff(np.r_[start, len(cell)]))
        return self.select(keep, rank.astype(self.rank.dtype))

    def select(self, index: np.ndarray, rank: np.ndarray | None = None) -> Rows:
        """The rows ``index`` (increasing row numbers) of these, each read through these rows (:class:`Subrows`).

        Args:
            index: Row numbers to keep, in increasing order (cells stay sorted).
            rank: Rank of each kept row (default: its rank here).

        """
        return Rows(run=self.run[index], query=self.query[index], rank=self.rank[index] if rank is None else rank,
                    present=self.present, n_runs=self.n_runs, qrels=self.qrels, source=Subrows(self, index),
                    returned=self.returned if rank is None else None)


class Subrows:
    """A :class:`RowSource` reading some rows of other :class:`Rows` (all of them with ``index=None``).

    S_d, labels and keys of row i are those of row ``index[i]`` of ``parent`` (through its accessors, so what the
    parent has read for all its rows is reused), and the campaign is the parent's. Subclasses that count S_d
    otherwise (a sample of the runs, a campaign joined by one more system) override :meth:`s_d` and
    :meth:`campaign_s_d`.
    """

    def __init__(self, parent: Rows, index: np.ndarray | None = None) -> None:
        self.parent = parent
        self.index = index

    def rows_of_parent(self, rows: Selection) -> Selection:
        """Row numbers in ``parent`` of the given rows (None: every row, when ``index`` is None)."""
        if self.index is None:
            return rows
        return self.index if rows is None else self.index[rows]

    def s_d(self, depth: int | None, rows: Selection) -> tuple[np.ndarray, np.ndarray]:
        """S_d as the parent counts it."""
        return self.parent.s_d(depth, self.rows_of_parent(rows))

    def labels(self, rows: Selection) -> np.ndarray:
        """The parent's labels."""
        return self.parent.labels(self.rows_of_parent(rows))

    def keys(self, rows: Selection) -> np.ndarray:
        """The parent's pair keys."""
        return self.parent.keys(self.rows_of_parent(rows))

    def relevant(self, rel: int) -> np.ndarray:
        """The parent's relevance (kept there per threshold)."""
        relevant = self.parent.relevant(rel)
        return relevant if self.index is None else relevant[self.index]

    def campaign_s_d(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        """The parent's campaign."""
        return self.parent.source.campaign_s_d(keys, depth)

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """The parent's campaign."""
        return self.parent.source.reading_probabilities(cutoff)


class Labelled(Subrows):
    """Rows with labels of their own (restricted, relabelled or drawn qrels); S_d and keys the parent's."""

    def __init__(self, parent: Rows, labels: np.ndarray) -> None:
        super().__init__(parent)
        self.row_labels = labels

    def labels(self, rows: Selection) -> np.ndarray:
        """The given labels."""
        return self.row_labels if rows is None else self.row_labels[rows]

    def relevant(self, rel: int) -> np.ndarray:
        """Relevance of the given labels."""
        return is_relevant(self.row_labels, rel)
