r"""The pool: every run of a campaign, ordered and encoded once, and the S_d counts drawn from it.

:math:`S` is the number of systems in the pool and :math:`S_d` the number of them that retrieve document
:math:`d` for a query within their top ``depth`` (Türkmen, Lease & Kutlu, ECIR 2023, eq. 2). Counting is a
``GROUP BY (query, doc)`` over integer keys, done once per depth and kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import ir_measures
import numpy as np
import pandas as pd

from ir_rarity.engine.evaluate import EncodedQrels, Rows, compute, encode_qrels, supported_names
from ir_rarity.engine.novelty import probability_table
from ir_rarity.engine.ranking import (
    encode,
    factorize_blocks,
    fingerprint_rows,
    group_starts,
    pair_keys,
    ranks_within_groups,
    sorted_lookup,
    trec_order,
)
from ir_rarity.errors import DuplicateDocumentError, InputError, ParameterError
from ir_rarity.io.frames import as_qrels_frame
from ir_rarity.measures.asl import NanMeanAgg
from ir_rarity.pool.context import pop_pool, push_pool
from ir_rarity.pool.sources import iter_named_runs
from ir_rarity.pool.teams import read_teams

__all__ = ["Pool"]

Duplicates = Literal["error", "first"]
MeasureLike = ir_measures.Measure | str


def _parse_measures(measures: MeasureLike | Iterable[MeasureLike]) -> list[ir_measures.Measure]:
    if isinstance(measures, (str, ir_measures.Measure)):
        measures = [measures]
    return [ir_measures.parse_measure(m) if isinstance(m, str) else m for m in measures]


class Pool:
    """All runs of a campaign, as the context that rarity measures are computed in.

    Build one with :meth:`from_runs`. Then either evaluate all its runs at once with :meth:`evaluate`, or make
    it active with ``with pool:`` so that ``ir_measures.calc_aggregate``, ``ir_measures.iter_calc`` and
    ``pt.Experiment`` compute rarity measures against it.

    A run given for evaluation is recognised as a member of the pool by its content (its ranked lists to the
    depth the measure counts S_d at), not by its name. A member scores exactly its campaign value. Any other run
    is scored as if it had joined the pool: :math:`S + 1` systems, and its own documents counted in
    :math:`S_d`.

    Documents are ordered as trec_eval orders them: score descending, ties by docno descending; the rank column
    of run files is ignored. A run listing a document twice for one query is refused, as trec_eval refuses it,
    unless ``duplicates="first"`` keeps the first occurrence in that order (the highest-scored one).
    """

    def __init__(
        self,
        names: Sequence[str],
        queries: pd.Index,
        docs: pd.Index,
        run: np.ndarray,
        query: np.ndarray,
        doc: np.ndarray,
        score: np.ndarray,
        rank: np.ndarray,
        groups: np.ndarray,
        group_names: Sequence[str],
        key_index: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        """Use :meth:`from_runs`; this stores already ordered and encoded arrays.

        ``key_index`` is ``(code of each row's pair key, sorted unique pair keys)`` when already known.
        """
        self._names = list(names)
        self._index = {name: i for i, name in enumerate(self._names)}
        self._queries = queries
        self._docs = docs
        self._run = run
        self._query = query
        self._doc = doc
        self._score = score
        self._rank = rank
        self._key = pair_keys(query, doc)
        # Every (query, doc) pair gets a dense code into the sorted unique keys, so that S_d at any depth is one
        # bincount and per-row lookups are array gathers, not searches.
        self._key_code, self._unique_keys = key_index if key_index is not None else _key_index(
            query, doc, len(queries), len(docs))
        self._groups = groups
        self._group_names = list(group_names)
        self._run_start = np.searchsorted(run, np.arange(len(self._names)), side="left")
        self._run_end = np.searchsorted(run, np.arange(len(self._names)), side="right")
        self._counts: dict[int | None, tuple[np.ndarray, np.ndarray]] = {}
        self._prints: dict[int | None, tuple[np.ndarray, np.ndarray]] = {}
        self._probabilities: dict[int | None, tuple[np.ndarray, np.ndarray]] = {}

    # ------------------------------------------------------------------ building
    @classmethod
    def from_runs(
        cls,
        runs: Any,
        *,
        teams: Mapping[str, str] | str | tuple[str, str] | None = None,
        split_by_tag: bool | None = None,
        duplicates: Duplicates = "error",
        progress: bool | None = None,
        keep_depth: int | None = None,
    ) -> Pool:
        """Build a pool from runs in memory or on disk.

        Args:
            runs: A dict ``name -> run`` (a DataFrame with columns ``query_id, doc_id, score`` or
                ``qid, docno, score``, a dict of dicts, an iterable of ``ir_measures.ScoredDoc``, or a run file
                path); a list of TREC run files (plain or .gz), each one run named by its file name; a directory
                or glob of such files; or one file holding many runs, split by its tag column.
            teams: Optional mapping ``run name -> team``. S then counts teams and S_d the teams that retrieved
                d, so a team's near-identical runs do not make its documents look common. Every run must be
                mapped. Also a leaderboard CSV with a ``run`` column: ``(path, column)`` or ``'path:column'``
                (see :func:`ir_rarity.pool.teams.read_teams`).
            split_by_tag: Force (True) or forbid (False) splitting files into runs by their tag column.
            duplicates: ``"error"`` (default, as trec_eval) or ``"first"``.
            progress: Show a progress bar while reading many files.
            keep_depth: Keep only each run's top ``keep_depth`` documents per query, cut while the runs are read
                (memory then stays flat however long the runs are). Measures whose cutoff and S_d depth are at
                most ``keep_depth`` give the same values as on the full runs; others see the cut runs.

        Raises:
            InputError: unreadable input, two runs with the same name, a NaN score, a duplicate document
                (:class:`DuplicateDocumentError`), or runs missing from ``teams``.

        """
        teams = read_teams(teams) if teams is not None else None
        named = iter_named_runs(runs, split_by_tag=split_by_tag, progress=progress)
        if keep_depth is not None:
            if keep_depth <= 0:
                raise InputError(f"keep_depth must be a positive integer, got {keep_depth}")
            named = ((name, _top_k(frame, keep_depth, name, duplicates)) for name, frame in named)
        return cls._from_frames(named, teams=teams, duplicates=duplicates)

    @classmethod
    def _from_frames(cls, named: Iterable[tuple[str, pd.DataFrame]], teams: Mapping[str, str] | None,
                     duplicates: Duplicates) -> Pool:
        if duplicates not in ("error", "first"):
            raise InputError(f"duplicates must be 'error' or 'first', got {duplicates!r}")
        names: list[str] = []
        frames: list[pd.DataFrame] = []
        for name, frame in named:
            if name in names:
                raise InputError(f"two runs are named {name!r}; run names must be unique")
            if np.isnan(frame["score"].to_numpy()).any():
                raise InputError(f"run {name!r} has NaN scores, which have no trec_eval order")
            names.append(name)
            frames.append(frame)
        if not names:
            raise InputError("no runs given: a pool needs at least one run")
        lengths = np.array([len(f) for f in frames], dtype=np.int64)
        run = np.repeat(np.arange(len(names), dtype=np.int32), lengths)
        query, queries = factorize_blocks(pd.concat([f["query_id"] for f in frames], ignore_index=True))
        doc, docs = pd.factorize(pd.concat([f["doc_id"] for f in frames], ignore_index=True), sort=True)
        score = np.concatenate([f["score"].to_numpy(np.float64) for f in frames])
        del frames
        order = trec_order(score, doc, run, query)
        run, query, doc, score = run[order], query[order].astype(np.int32), doc[order].astype(np.int32), score[order]
        key_code, unique_keys = _key_index(query, doc, len(queries), len(docs))
        keep = _check_duplicates(run, key_code, duplicates,
                                 lambda i: (names[run[i]], queries[query[i]], docs[doc[i]]))
        if keep is not None:
            run, query, doc, score, key_code = run[keep], query[keep], doc[keep], score[keep], key_code[keep]
        rank = ranks_within_groups(group_starts(run, query))
        groups, group_names = _group_codes(names, teams)
        return cls(names, pd.Index(queries), pd.Index(docs), run, query, doc, score, rank, groups, group_names,
                   key_index=(key_code, unique_keys))

    # ------------------------------------------------------------------ description
    @property
    def names(self) -> list[str]:
        """Names of the pool's runs, in the order they were given."""
        return list(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._index

    @property
    def num_systems(self) -> int:
        """S: the number of systems (runs, or teams when the pool was built with ``teams``)."""
        return len(self._group_names)

    @property
    def teams(self) -> dict[str, str]:
        """Run name -> the system (team) it counts as; each run is its own system unless teams were given."""
        return {name: self._group_names[g] for name, g in zip(self._names, self._groups, strict=False)}

    @property
    def query_ids(self) -> list[str]:
        """Query ids retrieved by at least one run, sorted."""
        return [str(q) for q in self._queries]

    def __repr__(self) -> str:
        return (f"Pool({len(self)} runs, S={self.num_systems}, {len(self._queries)} queries, "
                f"{len(self._run)} rows)")

    def run(self, name: str) -> pd.DataFrame:
        """One run of the pool as a DataFrame ``query_id, doc_id, score, rank`` in trec_eval order (rank from 1).

        Raises:
            KeyError: no run of that name.

        """
        if name not in self._index:
            raise KeyError(f"no run named {name!r} in the pool")
        i = self._index[name]
        sl = slice(self._run_start[i], self._run_end[i])
        return pd.DataFrame({
            "query_id": self._queries.take(self._query[sl]).astype(str),
            "doc_id": self._docs.take(self._doc[sl]).astype(str),
            "score": self._score[sl],
            "rank": self._rank[sl] + 1,
        })

    def subset(self, names: Iterable[str]) -> Pool:
        """A pool of some of this pool's runs, as if only they had taken part.

        The stored, already ordered and encoded arrays are sliced run by run (rows are sorted by run, so the
        slices concatenate in order); nothing is re-read or re-sorted. S and S_d of the new pool count only the
        chosen runs (or their teams, for a pool built with ``teams``). The query and document vocabularies are
        kept whole, so qrels encoded with :meth:`encode_qrels` on either pool are valid for both; ``query_ids``
        of the subset may therefore list queries that none of the chosen runs retrieved.

        Args:
            names: Names of the runs to keep; the new pool orders its runs as given.

        Returns:
            A new :class:`Pool`; this one is unchanged.

        Raises:
            KeyError: a name is not a run of this pool.
            InputError: no names, or a name given twice.

        """
        names = list(names)
        if not names:
            raise InputError("subset needs at least one run name")
        if len(set(names)) != len(names):
            raise InputError("subset got the same run name twice")
        missing = [n for n in names if n not in self._index]
        if missing:
            raise KeyError(f"no run named {missing[0]!r} in the pool")
        picked = np.array([self._index[n] for n in names], dtype=np.int64)
        starts, ends = self._run_start[picked], self._run_end[picked]
        lengths = ends - starts
        # Row positions of the chosen runs, run after run: start of each run plus the offset within it.
        offsets = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        rows = np.repeat(starts, lengths) + offsets
        run = np.repeat(np.arange(len(names), dtype=self._run.dtype), lengths)
        codes, uniques = pd.factorize(self._groups[picked])
        group_names = [self._group_names[g] for g in uniques]
        return type(self)(names, self._queries, self._docs, run, self._query[rows], self._doc[rows],
                          self._score[rows], self._rank[rows], codes.astype(np.int64), group_names,
                          key_index=(self._key_code[rows], self._unique_keys))

    # ------------------------------------------------------------------ files
    def save(self, path: Any) -> None:
        """Write the pool to ``path`` atomically: an ``.npz`` of plain arrays with a checksum, no pickle.

        See :mod:`ir_rarity.pool.storage`.
        """
        from ir_rarity.pool.storage import save_pool

        save_pool(self, path)

    @classmethod
    def load(cls, path: Any) -> Pool:
        """Read a pool written by :meth:`save`.

        Raises:
            InputError: the file is missing, changed, truncated or not a pool file; the message names it.

        """
        from ir_rarity.pool.storage import load_pool

        return load_pool(path, cls)

    # ------------------------------------------------------------------ context
    def __enter__(self) -> Pool:
        push_pool(self)
        return self

    def __exit__(self, *exc: object) -> None:
        pop_pool(self)

    # ------------------------------------------------------------------ S_d
    def _mask(self, depth: int | None) -> np.ndarray | slice:
        return slice(None) if depth is None else self._rank < depth

    def _count_table(self, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
        """S_d at ``depth`` of every pair key in the pool: ``(sorted unique keys, counts)``.

        A key no run has within ``depth`` counts 0.
        """
        if depth not in self._counts:
            mask = self._mask(depth)
            codes = self._key_code[mask]
            n_keys = len(self._unique_keys)
            if self.num_systems == len(self._names):  # a run lists a document once per query: rows = runs
                counts = np.bincount(codes, minlength=n_keys)
            else:  # count distinct teams per key
                pairs = pd.unique(codes.astype(np.int64) * self.num_systems + self._groups[self._run[mask]])
                counts = np.bincount(pairs // self.num_systems, minlength=n_keys)
            self._counts[depth] = (self._unique_keys, counts.astype(np.int64))
        return self._counts[depth]

    def _member_counts(self, keep: np.ndarray | slice, depth: int | None) -> np.ndarray:
        """S_d at ``depth`` of the pool's own rows selected by ``keep`` (a gather, no search)."""
        return self._count_table(depth)[1][self._key_code[keep]].astype(np.float64)

    def _lookup_counts(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        return sorted_lookup(*self._count_table(depth), keys, 0).astype(np.float64)

    def counts(self, depth: int | None = None) -> pd.DataFrame:
        """The S_d table: one row per (query, document) retrieved by some run within ``depth``.

        Args:
            depth: Count a run as retrieving d when d is in its top ``depth`` (None: anywhere in the run).

        Returns:
            A DataFrame ``query_id, doc_id, S_d``, sorted by query id then docno.

        Raises:
            ParameterError: ``depth`` is not None and not a positive integer.

        """
        if depth is not None and not (isinstance(depth, (int, np.integer)) and depth > 0):
            raise ParameterError(f"depth must be a positive integer or None, got {depth!r}")
        keys, counts = self._count_table(depth)
        present = counts > 0
        keys, counts = keys[present], counts[present]
        return pd.DataFrame({
            "query_id": self._queries.take(keys >> 32).astype(str),
            "doc_id": self._docs.take(keys & 0xFFFFFFFF).astype(str),
            "S_d": counts,
        })

    # ------------------------------------------------------------------ membership
    def _fingerprints(self, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Per run: number of rows within ``depth`` and the wrapping sum of their row hashes."""
        if depth not in self._prints:
            mask = self._mask(depth)
            hashes = fingerprint_rows(self._key[mask], self._rank[mask])
            runs = self._run[mask]
            sizes = np.bincount(runs, minlength=len(self._names)).astype(np.int64)
            cum = np.concatenate([[np.uint64(0)], np.cumsum(hashes, dtype=np.uint64)])
            ends = np.cumsum(sizes)
            with np.errstate(over="ignore"):
                sums = cum[ends] - cum[ends - sizes]
            self._prints[depth] = (sizes, sums)
        return self._prints[depth]

    def _find_member(self, key: np.ndarray, rank: np.ndarray, known: np.ndarray, depth: int | None) -> int | None:
        """Index of a pool run with exactly these ranked lists within ``depth``, or None."""
        within = slice(None) if depth is None else rank < depth
        key, rank, known = key[within], rank[within], known[within]
        if len(key) == 0 or not known.all():
            return None
        sizes, sums = self._fingerprints(depth)
        with np.errstate(over="ignore"):
            total = np.sum(fingerprint_rows(key, rank), dtype=np.uint64)
        candidates = np.flatnonzero((sizes == len(key)) & (sums == total))
        order = np.lexsort((rank, key >> 32))
        key, rank = key[order], rank[order]
        for c in candidates:
            pool_key = self._key[self._run_start[c]:self._run_end[c]]
            pool_rank = self._rank[self._run_start[c]:self._run_end[c]]
            if depth is not None:
                pool_key, pool_rank = pool_key[pool_rank < depth], pool_rank[pool_rank < depth]
            if np.array_equal(pool_key, key) and np.array_equal(pool_rank, rank):
                return int(c)
        return None

    def member_of(self, run: Any, depth: int | None = None) -> str | None:
        """Name of the pool run whose ranked lists (to ``depth``) equal ``run``'s, or None.

        Args:
            run: Any run shape accepted by :meth:`from_runs` for a single run.
            depth: Compare each query's top ``depth`` documents (None: whole rankings).

        """
        from ir_rarity.io.frames import as_run_frame

        ranked = _RankedRun.build(as_run_frame(run), self, None, "run", "error")
        found = self._find_member(ranked.key, ranked.rank, ranked.known, depth)
        return None if found is None else self._names[found]

    def _probability_table(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Sorted pair keys and the sum over all runs of P(D=d|S=y) at ``cutoff`` (novelty), kept per cutoff."""
        if cutoff not in self._probabilities:
            self._probabilities[cutoff] = probability_table(self._key, self._rank, self._run, self._query, cutoff)
        return self._probabilities[cutoff]

    # ------------------------------------------------------------------ rows for the engine
    def encode_qrels(self, qrels: Any, source: str = "qrels") -> EncodedQrels:
        """Qrels (any accepted shape) encoded against this pool's vocabularies."""
        return encode_qrels(as_qrels_frame(qrels, source), self._queries, self._docs, source)

    def _query_positions(self, qrels: EncodedQrels) -> np.ndarray:
        """Map from query code (pool vocabulary, then qrels extension) to position in ``qrels.query_ids``."""
        return _query_positions(len(self._queries), qrels)

    def member_rows(self, qrels: EncodedQrels) -> Rows:
        """Rows of every pool run within the qrels' queries, for :func:`ir_rarity.engine.evaluate.compute`."""
        position = self._query_positions(qrels)[self._query]
        keep: np.ndarray | slice = position >= 0
        if keep.all():  # the usual case: every query the runs retrieved is judged; no copies
            keep = slice(None)
        run, query, rank, key = self._run[keep], position[keep], self._rank[keep], self._key[keep]
        present = np.zeros((len(self._names), len(qrels.query_ids)), dtype=bool)
        present[run, query] = True
        n_systems = float(self.num_systems)
        label = qrels.labels_of_keys(self._unique_keys)[self._key_code[keep]]
        return Rows(run=run, query=query, rank=rank, key=key, label=label, present=present,
                    n_runs=len(self._names), qrels=qrels,
                    counts_at=lambda depth: (self._member_counts(keep, depth), n_systems),
                    probabilities_at=lambda cutoff: (*self._probability_table(cutoff), len(self._names), True))

    def run_rows(self, frame: pd.DataFrame, qrels: EncodedQrels, source: str = "run",
                 duplicates: Duplicates = "error") -> Rows:
        """Rows of one run (canonical frame), scored as a member if its content matches one, else as a newcomer."""
        ranked = _RankedRun.build(frame, self, qrels, source, duplicates)
        query, rank, key, present = rows_within_qrels(ranked, len(self._queries), qrels)

        membership: dict[int | None, bool] = {}

        def is_member(depth: int | None) -> bool:  # S_d and novelty at the same depth ask once
            if depth not in membership:
                membership[depth] = self._find_member(ranked.key, ranked.rank, ranked.known, depth) is not None
            return membership[depth]

        def counts_at(depth: int | None) -> tuple[np.ndarray, float]:
            s_d = self._lookup_counts(key, depth)
            if is_member(depth):
                return s_d, float(self.num_systems)
            own = np.ones(len(key)) if depth is None else (rank < depth).astype(np.float64)
            return s_d + own, float(self.num_systems + 1)

        def probabilities_at(cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int, bool]:
            return (*self._probability_table(cutoff), len(self._names), is_member(cutoff))

        return Rows(run=np.zeros(len(key), dtype=np.int64), query=query, rank=rank, key=key,
                    label=qrels.lookup(key), present=present, n_runs=1, qrels=qrels, counts_at=counts_at,
                    probabilities_at=probabilities_at)

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, qrels: Any, measures: MeasureLike | Iterable[MeasureLike], by_query: bool = False
                 ) -> pd.DataFrame:
        """Evaluate every run of the pool at once.

        Rarity measures are computed by the vectorized engine over all runs together; any other measure
        (``P@10``, ``AP``, ``nDCG@10``...) by ir_measures, run by run. Each run's value is the mean over all
        queries of the qrels; a query the run lacks scores the measure's default (0 for P, AP and the rarity
        measures), as in trec_eval and ir_measures.

        Args:
            qrels: A qrels DataFrame, a TREC qrels path, an ir_measures qrels iterable, or an ir_datasets id.
            measures: Measures, as objects or strings in ir_measures syntax (``'P_rare(alpha=0.5)@100'``).
            by_query: Return per-query values in long format instead of one row per run.

        Returns:
            One row per run (index ``run``) and one column per measure, named ``str(measure)``; or, with
            ``by_query=True``, a long DataFrame ``run, query_id, measure, value``.

        """
        measure_list = _parse_measures(measures)
        qrels_frame = as_qrels_frame(qrels)
        encoded = encode_qrels(qrels_frame, self._queries, self._docs)
        per_query: dict[ir_measures.Measure, np.ndarray] = {}
        engine_measures = [m for m in measure_list if m.NAME in supported_names()]
        if engine_measures:
            rows = self.member_rows(encoded)
            for m in engine_measures:
                per_query[m] = compute(m, rows)
        others = [m for m in measure_list if m.NAME not in supported_names()]
        if others:
            per_query.update(self._evaluate_with_ir_measures(others, qrels_frame, encoded))
        if by_query:
            return _long_format(self._names, encoded.query_ids, measure_list, per_query)
        table = pd.DataFrame({str(m): _aggregate(m, per_query[m]) for m in measure_list},
                             index=pd.Index(self._names, name="run"))
        return table

    def _evaluate_with_ir_measures(self, measures: list[ir_measures.Measure], qrels: pd.DataFrame,
                                   encoded: EncodedQrels) -> dict[ir_measures.Measure, np.ndarray]:
        evaluator = ir_measures.evaluator(measures, qrels)
        column = {q: i for i, q in enumerate(encoded.query_ids)}
        out = {m: np.full((len(self._names), len(column)), np.nan) for m in measures}
        for r, name in enumerate(self._names):
            for metric in evaluator.iter_calc(self.run(name)):
                if metric.query_id in column:
                    out[metric.measure][r, column[metric.query_id]] = metric.value
        return out


def _aggregate(measure: ir_measures.Measure, values: np.ndarray) -> np.ndarray:
    """Per-run aggregate of a runs x queries matrix, with the measure's own aggregator semantics."""
    if type(measure.aggregator()) is ir_measures.MeanAgg:
        return values.mean(axis=1)
    if type(measure.aggregator()) is NanMeanAgg:  # ASL: queries without a value (NaN) are left out
        counts = (~np.isnan(values)).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, np.nansum(values, axis=1) / counts, np.nan)
    out = np.empty(values.shape[0])
    for r in range(values.shape[0]):
        agg = measure.aggregator()
        for v in values[r]:
            agg.add(float(v))
        out[r] = agg.result()
    return out


def _long_format(names: list[str], query_ids: pd.Index, measures: list[ir_measures.Measure],
                 per_query: Mapping[ir_measures.Measure, np.ndarray]) -> pd.DataFrame:
    n_runs, n_queries = len(names), len(query_ids)
    parts = [pd.DataFrame({
        "run": np.repeat(np.asarray(names, dtype=object), n_queries),
        "query_id": np.tile(query_ids.to_numpy(dtype=object), n_runs),
        "measure": str(m),
        "value": per_query[m].reshape(-1),
    }) for m in measures]
    return pd.concat(parts, ignore_index=True)


def _query_positions(n_queries: int, qrels: EncodedQrels) -> np.ndarray:
    """Map from query code (a vocabulary of ``n_queries``, then the qrels extension) to qrels position, or -1."""
    position = np.full(n_queries + len(qrels.query_extra), -1, dtype=np.int64)
    position[qrels.query_codes] = np.arange(len(qrels.query_codes))
    return position


def rows_within_qrels(ranked: _RankedRun, n_queries: int, qrels: EncodedQrels
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One ranked run's rows within the qrels' queries, grouped by qrels query in rank order.

    Returns:
        ``(query position, rank, pair key, present)`` where ``present`` is the 1 x n_queries mask of the qrels
        queries the run retrieved anything for.
    """
    positions = _query_positions(n_queries, qrels)  # run queries beyond it are in neither vocabulary nor qrels
    inside = ranked.query < len(positions)
    position = np.where(inside, positions[np.where(inside, ranked.query, 0)], -1)
    keep = np.flatnonzero(position >= 0)
    keep = keep[np.argsort(position[keep], kind="stable")]  # group by qrels query, rank order kept
    present = np.zeros((1, len(qrels.query_ids)), dtype=bool)
    present[0, position[keep]] = True
    return position[keep], ranked.rank[keep], ranked.key[keep], present


def _top_k(frame: pd.DataFrame, k: int, name: str, duplicates: Duplicates) -> pd.DataFrame:
    """One run cut to its top ``k`` documents per query in trec_eval order (duplicates checked first)."""
    score = frame["score"].to_numpy(np.float64)
    if np.isnan(score).any():
        raise InputError(f"run {name!r} has NaN scores, which have no trec_eval order")
    query, _ = pd.factorize(frame["query_id"])
    doc, docs = pd.factorize(frame["doc_id"], sort=True)
    order = trec_order(score, doc, query)
    query, doc = query[order], doc[order]
    keep = _check_duplicates(np.zeros(len(order), dtype=np.int64), pair_keys(query, doc), duplicates,
                             lambda i: (name, frame["query_id"].iloc[order[i]], docs[doc[i]]))
    if keep is not None:
        order, query = order[keep], query[keep]
    rank = ranks_within_groups(group_starts(query))
    return frame.iloc[order[rank < k]].reset_index(drop=True)


def _key_index(query: np.ndarray, doc: np.ndarray, n_queries: int, n_docs: int) -> tuple[np.ndarray, np.ndarray]:
    """Dense codes of the rows' (query, doc) pairs into their sorted unique pair keys.

    Returns ``(code per row, sorted unique pair keys)``. When the grid of all (query, doc) pairs is not much
    larger than the rows (a campaign: tens of queries, tens of thousands of documents), it is marked directly in
    a boolean grid; otherwise the pair keys are hash-factorized and only the unique ones sorted.
    """
    if n_queries * n_docs <= max(4 * len(query), 1 << 22):
        flat = query.astype(np.int64) * n_docs + doc
        seen = np.zeros(n_queries * n_docs, dtype=bool)
        seen[flat] = True
        cells = np.flatnonzero(seen)
        code = np.cumsum(seen, dtype=np.int32)
        code -= 1
        return code[flat], pair_keys(cells // n_docs, cells % n_docs)
    codes, uniques = pd.factorize(pair_keys(query, doc))
    order = np.argsort(uniques)
    remap = np.empty(len(uniques), dtype=np.int32)
    remap[order] = np.arange(len(uniques), dtype=np.int32)
    return remap[codes], np.asarray(uniques)[order]


def _check_duplicates(run: np.ndarray, key: np.ndarray, duplicates: Duplicates, describe: Any) -> np.ndarray | None:
    """Find rows repeating a (run, query, doc); raise, or return the mask keeping first occurrences.

    ``key`` identifies the (query, doc) pair: pair keys, or their dense codes.
    """
    combined = key.astype(np.int64) * (int(run.max()) + 1 if len(run) else 1) + run
    ordered = np.sort(combined)  # a sort beats a hash table of millions of entries
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    dup = pd.Index(combined).duplicated(keep="first")
    if duplicates == "error":
        name, qid, docno = describe(int(np.flatnonzero(dup)[0]))
        raise DuplicateDocumentError(
            f"run {name!r} lists document {docno!r} more than once for query {qid!r} (trec_eval refuses such "
            "runs; pass duplicates='first' to keep the highest-scored occurrence)")
    return ~dup


def _group_codes(names: list[str], teams: Mapping[str, str] | None) -> tuple[np.ndarray, list[str]]:
    if teams is None:
        return np.arange(len(names), dtype=np.int64), list(names)
    missing = [n for n in names if n not in teams]
    if missing:
        raise InputError(f"teams does not map {len(missing)} run(s), e.g. {missing[:3]}")
    codes, uniques = pd.factorize(pd.Series([str(teams[n]) for n in names]))
    return codes.astype(np.int64), [str(u) for u in uniques]


class _RankedRun:
    """One run ordered in trec_eval order and encoded against a pool (and optionally qrels) vocabulary."""

    __slots__ = ("key", "known", "query", "rank")

    def __init__(self, query: np.ndarray, key: np.ndarray, rank: np.ndarray, known: np.ndarray) -> None:
        self.query, self.key, self.rank, self.known = query, key, rank, known

    @classmethod
    def build(cls, frame: pd.DataFrame, pool: Pool, qrels: EncodedQrels | None, source: str,
              duplicates: Duplicates) -> _RankedRun:
        score = frame["score"].to_numpy(np.float64)
        if np.isnan(score).any():
            raise InputError("NaN scores have no trec_eval order", source)
        q_known = [pool._queries] + ([qrels.query_extra] if qrels is not None else [])
        d_known = [pool._docs] + ([qrels.doc_extra] if qrels is not None else [])
        query, _ = encode(frame["query_id"].to_numpy(), q_known)
        doc, _ = encode(frame["doc_id"].to_numpy(), d_known)
        local_doc, _ = pd.factorize(frame["doc_id"].to_numpy(), sort=True)
        order = trec_order(score, local_doc, query)
        query, doc = query[order], doc[order]
        key = pair_keys(query, doc)
        keep = _check_duplicates(np.zeros(len(key), dtype=np.int8), key, duplicates,
                                 lambda i: (source, frame["query_id"].iloc[order[i]], frame["doc_id"].iloc[order[i]]))
        if keep is not None:
            query, doc, key = query[keep], doc[keep], key[keep]
        rank = ranks_within_groups(group_starts(query))
        known = (query < len(pool._queries)) & (doc < len(pool._docs))
        return cls(query, key, rank, known)
