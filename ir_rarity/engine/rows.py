"""The value type every kernel reads: the rows of the evaluated runs, with labels and a way to get S_d.

A *cell* is one (run, query) pair: the ranking one run returned for one query. Rows are sorted by cell and,
within a cell, in trec_eval order, so that ``rank`` runs 0, 1, 2, ... from each cell's first row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ir_rarity.engine import asl as asl_kernel
from ir_rarity.engine.qrels import EncodedQrels, is_relevant

__all__ = ["CountsAt", "KeyCounts", "ProbabilitiesAt", "Rows"]

CountsAt = Callable[[int | None], tuple[np.ndarray, np.ndarray]]
"""For a depth (None: whole rankings): ``(S_d of every row, S of every evaluated run)``."""

KeyCounts = Callable[[np.ndarray, int | None], np.ndarray]
"""For pair keys and a depth: S_d of each key in the campaign the runs are scored against, before any
evaluated newcomer's own retrieval is added (0 for a key no system retrieved)."""

ProbabilitiesAt = Callable[[int | None], tuple[np.ndarray, np.ndarray, int, np.ndarray]]
"""For a cutoff (novelty): ``(sorted pair keys, sum over the campaign's runs of P(D=d|S=y) of each, number of
campaign runs, whether each evaluated run is one of them)``."""


@dataclass
class Rows:
    """Rows of the evaluated runs within the qrels' queries, sorted by (run, query, rank).

    Attributes:
        run: Index of the evaluated run (0 .. n_runs-1) of each row.
        query: Position of each row's query in ``qrels.query_ids``.
        rank: 0-based rank of each row in its ranking (trec_eval order).
        pair_keys: (query, document) pair key of each row in the campaign's codes, or a function giving the keys
            of the rows it is given (an index or a slice): then keys are made only for the rows a measure reads
            (:meth:`keys_at`), or once for all when it reads :attr:`key`.
        labels: Relevance label of each row (:data:`~ir_rarity.engine.qrels.UNJUDGED` if not judged), or a function
            giving the labels of the rows it is given (an index or a slice): then labels are gathered only for the
            rows a measure reads (:meth:`labels_at`), or once for all when it reads :attr:`label`.
        present: ``present[r, q]`` is True when run r retrieved anything for query q.
        n_runs: Number of evaluated runs.
        qrels: The encoded qrels.
        counts_at: See :data:`CountsAt`.
        key_counts: See :data:`KeyCounts` (needed by measures that weigh unretrieved documents, ``R_rare``).
        probabilities_at: See :data:`ProbabilitiesAt` (needed by ``U_novel``).
        relevant_at: Optional: for a threshold, whether each row is relevant, made without every row's label
            (equal to :func:`~ir_rarity.engine.qrels.is_relevant` of :attr:`label`).
        counts_for: Optional: for a depth and row numbers, ``(S_d of those rows, S per run)``, without S_d of every
            row (equal to ``counts_at`` at those rows).

    """

    run: np.ndarray
    query: np.ndarray
    rank: np.ndarray
    pair_keys: np.ndarray | Callable[[np.ndarray | slice], np.ndarray]
    labels: np.ndarray | Callable[[np.ndarray | slice], np.ndarray]
    present: np.ndarray
    n_runs: int
    qrels: EncodedQrels
    counts_at: CountsAt
    key_counts: KeyCounts | None = None
    probabilities_at: ProbabilitiesAt | None = None
    relevant_at: Callable[[int], np.ndarray] | None = None
    counts_for: Callable[[int | None, np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None
    _cache: dict[tuple[object, ...], Any] = field(default_factory=dict, repr=False)

    @property
    def key(self) -> np.ndarray:
        """(query, document) pair key of each row (see ``pair_keys``)."""
        if callable(self.pair_keys):
            self.pair_keys = self.pair_keys(slice(None))
        return self.pair_keys

    @property
    def label(self) -> np.ndarray:
        """Relevance label of each row (see ``labels``)."""
        if callable(self.labels):
            self.labels = self.labels(slice(None))
        return self.labels

    def labels_at(self, rows: np.ndarray) -> np.ndarray:
        """Labels of the given rows (row numbers or a mask), without gathering every row's label."""
        return self.labels(rows) if callable(self.labels) else self.labels[rows]

    def counts_of(self, depth: int | None, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(S_d of the given rows, S per run)`` at ``depth``, without S_d of every row where rows can tell."""
        if self.counts_for is None or ("counts", depth) in self._cache:
            s_d, num_systems = self.counts(depth)
            return s_d[rows], num_systems
        return self.counts_for(depth, rows)

    def keys_at(self, rows: np.ndarray) -> np.ndarray:
        """Pair keys of the given rows (row numbers or a mask), without making every row's key."""
        return self.pair_keys(rows) if callable(self.pair_keys) else self.pair_keys[rows]

    @property
    def n_queries(self) -> int:
        """Number of qrels queries (columns of every result matrix)."""
        return len(self.qrels.query_ids)

    @property
    def n_cells(self) -> int:
        """Number of (run, query) cells: ``n_runs * n_queries``."""
        return self.n_runs * self.n_queries

    def _cached(self, key: tuple[object, ...], make: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def shared(self, key: tuple[object, ...], make: Callable[[], Any]) -> Any:
        """``make()``, computed once per ``key`` for these rows: what several measures' kernels share."""
        return self._cached(("shared", *key), make)

    def release(self) -> None:
        """Drop everything computed and shared for these rows.

        Shared values may refer back to the rows (a cycle only the garbage collector would break); a caller done
        with a block of rows releases it, so its memory is freed at once.
        """
        self._cache.clear()

    def counts(self, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
        """``(S_d per row, S per run)`` at ``depth``, computed once per depth."""
        return self._cached(("counts", depth), lambda: self.counts_at(depth))

    def cell(self) -> np.ndarray:
        """Cell number ``run * n_queries + query`` of each row (computed once)."""
        return self._cached(("cell",), self._make_cell)

    def _make_cell(self) -> np.ndarray:
        kind = np.int32 if self.n_cells < 2**31 else np.int64  # narrow where it fits: less memory to touch
        cell = np.multiply(self.run, self.n_queries, dtype=kind)
        cell += self.query
        return cell

    def relevant(self, rel: int) -> np.ndarray:
        """Whether each row is relevant at threshold ``rel`` (:func:`~ir_rarity.engine.qrels.is_relevant`)."""
        relevant_at = self.relevant_at
        return self._cached(("relevant", rel), lambda: relevant_at(rel) if relevant_at is not None
                            else is_relevant(self.label, rel))

    def relevant_positions(self, rel: int) -> tuple[np.ndarray, np.ndarray]:
        """Row numbers of the relevant rows at ``rel``, and each one's 1-based position in its cell among them.

        Shared by the ASL family.
        """
        return self._cached(("positions", rel), lambda: asl_kernel.relevant_positions(
            self.relevant(rel), self.cell()))

    def cell_sizes(self) -> np.ndarray:
        """Number of rows of each cell (computed once; rows are sorted by cell: a binary search per cell)."""
        return self._cached(("cell sizes",), lambda: np.diff(np.searchsorted(
            self.cell(), np.arange(self.n_cells + 1, dtype=self.cell().dtype))))

    def judged_only(self) -> Rows:
        """These rows without the unjudged ones, re-ranked 0, 1, 2, ... within each cell (computed once).

        What a ``judged_only=True`` measure scores: the ranking with every document the qrels do not judge removed
        (as trec_eval's ``-J`` and ir_measures' ``judged_only``). S_d of each kept row stays as counted in the
        campaign (the filter changes what is scored, not who retrieved what); ``present`` is unchanged, so a
        ranking of unjudged documents only scores 0, not the measure's default for a missing query.
        """
        return self._cached(("judged_only",), self._make_judged_only)

    def _make_judged_only(self) -> Rows:
        keep = self.label >= 0  # judged, and not a negative label: trec_eval -J (and the standard kernels) drop those
        cell = self.cell()[keep]
        start = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]]) if len(cell) else np.zeros(0, dtype=np.int64)
        rank = np.arange(len(cell), dtype=np.int64) - np.repeat(start, np.diff(np.r_[start, len(cell)]))
        counts_at = self.counts_at

        def kept_counts(depth: int | None) -> tuple[np.ndarray, np.ndarray]:
            s_d, num_systems = counts_at(depth)
            return s_d[keep], num_systems

        return Rows(run=self.run[keep], query=self.query[keep], rank=rank.astype(self.rank.dtype),
                    pair_keys=self.key[keep], labels=self.label[keep], present=self.present, n_runs=self.n_runs,
                    qrels=self.qrels, counts_at=kept_counts, key_counts=self.key_counts,
                    probabilities_at=self.probabilities_at)
