r"""The pool: every run of a campaign, ordered and encoded once, and the S_d counts drawn from it.

:math:`S` is the number of systems in the pool and :math:`S_d` the number of them that retrieve document
:math:`d` for a query within their top ``depth`` (Türkmen, Lease & Kutlu, ECIR 2023, eq. 2). Counting is a
``GROUP BY (query, doc)`` over integer keys, done once per depth and kept. A :class:`Pool` implements the
engine's :class:`~ir_rarity.engine.contract.MemberCampaign` contract.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ir_rarity.checks import check_depth
from ir_rarity.engine.codes import ScorePrecision, check_precision, sorted_lookup
from ir_rarity.engine.contract import CampaignInfo
from ir_rarity.engine.judgments import Judgments
from ir_rarity.engine.novelty import probability_table
from ir_rarity.engine.pages import without_hugepage_advice
from ir_rarity.engine.qrels import EncodedQrels, encode_qrels, is_relevant
from ir_rarity.engine.result import Evaluation
from ir_rarity.engine.rows import Rows, Selection
from ir_rarity.engine.rule import query_positions
from ir_rarity.engine.runs import Duplicates, RankedRuns, content_hashes, rank_runs, run_fingerprints, string_hashes
from ir_rarity.errors import InputError, ParameterError, deprecated, did_you_mean
from ir_rarity.io.frames import as_qrels_frame, as_run_frame
from ir_rarity.pool.build.encoded import EncodedRuns
from ir_rarity.pool.build.retention import Retention
from ir_rarity.pool.build.runs import encode_runs, key_index, run_taker
from ir_rarity.pool.build.sources import Origin, iter_named_runs, iter_run_tables, origin_of, path_specs, run_files
from ir_rarity.pool.context import pop_pool, push_pool
from ir_rarity.pool.labelled import LabelledRows
from ir_rarity.pool.store.storage import load_runs, save_runs
from ir_rarity.pool.teams import read_teams

if TYPE_CHECKING:
    from ir_rarity.typing import MeasuresLike, QrelsLike, RunsLike

__all__ = ["Pool"]


class Pool:
    """All runs of a campaign, as the context that rarity measures are computed in.

    Build one with :meth:`from_runs` (or :meth:`load`). Then either evaluate runs with :meth:`evaluate`, or make
    it active with ``with pool:`` so that ``ir_measures.calc_aggregate``, ``ir_measures.iter_calc`` and
    ``pt.Experiment`` compute rarity measures against it.

    A run evaluated against the pool is recognised as a member by its content (its ranked lists to the depth
    S_d is counted at), not by its name, and scores exactly its campaign value. Any other run is scored as if it
    alone had joined the pool: :math:`S + 1` systems, and its own documents counted in :math:`S_d`.

    Documents are ordered as trec_eval orders them: score descending, ties by docno descending; the rank column
    of run files is ignored. A run listing a document twice for one query is refused, as trec_eval refuses it,
    unless ``duplicates="first"`` keeps the first occurrence in that order (the highest-scored one).
    """

    def __init__(self, encoded: EncodedRuns, key_codes: tuple[np.ndarray, np.ndarray] | None = None,
                 origin: Origin | None = None, *, judged_depth: float = 0.0) -> None:
        """Use :meth:`from_runs` or :meth:`load`; this wraps already ordered and encoded runs.

        ``key_codes`` is ``(code of each row's pair key, sorted unique pair keys)`` when already known; ``origin``
        the files the pool was read from (None for runs given in memory); ``judged_depth`` the depth down to which
        the rows hold every judged row (``judged_counts`` of :meth:`from_runs`; 0: not asked).
        """
        self.encoded = encoded
        self.origin = origin
        self.judged_depth = judged_depth
        """S_d is counted down to this depth (``math.inf``: whole runs) from rows holding every judged row there:
        exact for the judged pairs only (0: not such a pool; see ``judged_counts`` of :meth:`from_runs`)."""
        self._index = {name: i for i, name in enumerate(encoded.names)}
        # Every (query, doc) pair gets a dense code into the sorted unique keys, so that S_d at any depth is one
        # bincount and per-row lookups are array gathers, not searches.
        self._key_code, self._unique_keys = key_codes if key_codes is not None else key_index(
            encoded.query, encoded.doc, len(encoded.queries), len(encoded.docs))
        self._run_start, self._run_end = encoded.run_bounds()
        # With ``returned`` (runs read for their measures only): each ranking's first row, where its length is kept
        self._firsts = None if encoded.returned is None else np.flatnonzero(encoded.rank == 0)
        self._counts: dict[int | None, np.ndarray] = {}
        self._judgments: _KeyJudgments | None = None
        self._prints: dict[int | None, tuple[np.ndarray, np.ndarray]] = {}
        self._probabilities: dict[int | None, tuple[np.ndarray, np.ndarray]] = {}
        self._row_hash: np.ndarray | None = None

    def _keys(self, rows: np.ndarray | slice | None = None) -> np.ndarray:
        """The (query, document) pair key of the given rows (all by default), from their dense codes."""
        return self._unique_keys[self._key_code if rows is None else self._key_code[rows]]

    # ------------------------------------------------------------------ building
    @classmethod
    @without_hugepage_advice
    def from_runs(
        cls,
        runs: Any,
        *,
        teams: Mapping[str, str] | str | tuple[str, str] | None = None,
        split_by_tag: bool | None = None,
        duplicates: Duplicates = "error",
        progress: bool | None = None,
        keep_depth: int | None = None,
        scores: ScorePrecision = "float32",
        retention: Retention | None = None,
        judged_counts: bool = False,
    ) -> Pool:
        """Build a pool from runs in memory or on disk.

        Args:
            runs: A dict ``name -> run`` (a DataFrame with columns ``query_id, doc_id, score`` or
                ``qid, docno, score``, a dict of dicts, an iterable of ``ir_measures.ScoredDoc``, or a run file
                path); run files (plain or compressed), a directory or a glob of them, or a list of those. A file
                is one run named by its file name (less a compression suffix), whatever its tag column says.
            teams: Optional mapping ``run name -> team``. S then counts teams and S_d the teams that retrieved
                d, so a team's near-identical runs do not make its documents look common. A run not mapped is a
                team of its own (with a :class:`~ir_rarity.errors.TeamNotice`). Also a leaderboard CSV:
                ``(path, team_column)``, ``'path:team_column'`` or ``'path:run_column:team_column'`` (see
                :func:`ir_rarity.pool.teams.read_teams`).
            split_by_tag: True splits every file into one run per tag (a file of several runs); by default a
                file is one run.
            duplicates: ``"error"`` (default, as trec_eval) or ``"first"``.
            progress: Show a progress bar while reading many files.
            keep_depth: Keep only each run's top ``keep_depth`` documents per query, cut while the runs are read
                (memory then stays flat however long the runs are). Measures whose cutoff and S_d depth are at
                most ``keep_depth`` give the same values as on the full runs; others see the cut runs.
            scores: How scores are compared when rankings are ordered: ``"float32"`` (default) as pytrec_eval and
                ir_measures (trec_eval 9), ``"float64"`` as trec_eval 10.0 (see
                :data:`~ir_rarity.engine.codes.ScorePrecision`). Runs evaluated against the pool are ordered alike.
            retention: Keep only the rows some measures read (:class:`~ir_rarity.pool.build.retention.Retention`: the
                rows within a depth, the judged rows, each ranking's length), each with its rank in the whole run:
                those measures give their whole-run values. S_d, fingerprints and reading probabilities are then
                available down to ``retention.depth`` only, and such a pool cannot be saved. Instead of
                ``keep_depth``.
            judged_counts: With a ``retention`` that keeps the judged rows deeper than its ``depth`` (with its
                qrels): S_d is given down to ``retention.judged_depth`` (``math.inf``: whole runs too), counted from
                the rows kept. It is then the campaign's S_d exactly for the pairs those qrels judge (every run that
                retrieved a judged pair within the depth holds that row), and an undercount for any other pair:
                what the rarity measures read (S_d of judged documents; :mod:`ir_rarity.pool.judged`).
                Fingerprints, reading probabilities and the judging pool stay available down to
                ``retention.depth`` only.

        Raises:
            InputError: unreadable input, two runs with the same name, a NaN score, a duplicate document
                (:class:`~ir_rarity.errors.DuplicateDocumentError`).

        """
        team_map = read_teams(teams) if teams is not None else None
        files = run_files(runs) if path_specs(runs) is not None else None  # listed once, here
        if retention is not None and keep_depth is not None:
            raise ParameterError("give keep_depth or retention, not both")
        if judged_counts and (retention is None or retention.judged_depth <= retention.depth or not retention.qrels):
            raise ParameterError("judged_counts needs a retention keeping the judged rows deeper than its depth (with "
                                 f"its qrels), got {'no retention' if retention is None else retention.judged_depth}")
        keep = retention if keep_depth is None else Retention(depth=int(check_depth(keep_depth, "keep_depth") or 0))
        precision = check_precision(scores)
        named = (iter_named_runs(runs, split_by_tag=split_by_tag, progress=progress) if files is None  # files: each
                 else iter_run_tables(files, split_by_tag=split_by_tag, progress=progress,  # run reduced on the
                                      prepare=run_taker(duplicates, keep, precision)))  # thread that read it
        # Frames the caller holds anyway (not files read one by one, nor rows made into new frames here).
        held = isinstance(runs, Mapping) and all(isinstance(run, pd.DataFrame) for run in runs.values())
        encoded, key_codes = encode_runs(named, team_map, duplicates, keep, held=held, scores=precision)
        return cls(encoded, key_codes, origin=None if files is None else origin_of(files, "runs"),
                   judged_depth=retention.judged_depth if judged_counts and retention is not None else 0.0)

    # ------------------------------------------------------------------ description
    @property
    def names(self) -> list[str]:
        """Names of the pool's runs, in the order they were given."""
        return list(self.encoded.names)

    def __len__(self) -> int:
        return len(self.encoded.names)

    def __contains__(self, name: object) -> bool:
        return name in self._index

    @property
    def num_systems(self) -> int:
        """S: the number of systems (runs, or teams when the pool was built with ``teams``)."""
        return self.encoded.num_systems

    @property
    def scores(self) -> ScorePrecision:
        """How scores were compared when the pool's rankings were ordered (``"float32"`` or ``"float64"``)."""
        return self.encoded.scores

    @property
    def teams(self) -> dict[str, str]:
        """Run name -> the system (team) it counts as; each run is its own system unless teams were given."""
        names = self.encoded.system_names
        return {name: names[s] for name, s in zip(self.encoded.names, self.encoded.system, strict=True)}

    @property
    def query_ids(self) -> list[str]:
        """Query ids retrieved by at least one run, sorted."""
        return [str(q) for q in self.encoded.queries]

    def __repr__(self) -> str:
        return (f"Pool({len(self)} runs, S={self.num_systems}, {len(self.encoded.queries)} queries, "
                f"{self.encoded.n_rows} rows)")

    def info(self) -> CampaignInfo:
        """S, what it counts and the number of runs (S_d is available at any depth)."""
        return CampaignInfo(num_systems=self.num_systems, systems="teams" if self.encoded.by_team else "runs",
                            n_runs=len(self), scores=self.scores)

    def run(self, name: str) -> pd.DataFrame:
        """One run of the pool as a DataFrame ``query_id, doc_id, score, rank`` in trec_eval order (rank from 1).

        Raises:
            KeyError: no run of that name.

        """
        if name not in self._index:
            raise KeyError(f"no run named {name!r} in the pool{did_you_mean(name, self.names)}")
        i = self._index[name]
        rows = slice(self._run_start[i], self._run_end[i])
        query, doc = self.encoded.decode(self._keys(rows))
        return pd.DataFrame({"query_id": query, "doc_id": doc, "score": self.encoded.score[rows],
                             "rank": self.encoded.rank[rows] + 1})

    def subset(self, names: Iterable[str]) -> Pool:
        """A pool of some of this pool's runs, as if only they had taken part.

        The stored, already ordered and encoded arrays are sliced run by run (rows are sorted by run, so the
        slices concatenate in order); nothing is re-read or re-sorted. S and S_d of the new pool count only the
        chosen runs (or their teams, for a pool built with ``teams``). The query and document vocabularies are
        kept whole, so qrels encoded on either pool are valid for both; ``query_ids`` of the subset may
        therefore list queries that none of the chosen runs retrieved.

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
            raise KeyError(f"no run named {missing[0]!r} in the pool{did_you_mean(missing[0], self.names)}")
        picked = np.array([self._index[n] for n in names], dtype=np.int64)
        starts, ends = self._run_start[picked], self._run_end[picked]
        lengths = ends - starts
        # Row positions of the chosen runs, run after run: start of each run plus the offset within it.
        offsets = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        rows = np.repeat(starts, lengths) + offsets
        e = self.encoded
        codes, uniques = pd.factorize(e.system[picked])
        returned = None
        if e.returned is not None and self._firsts is not None:  # one length per ranking: its first row's
            returned = e.returned[np.searchsorted(self._firsts, rows[e.rank[rows] == 0])]
        subset = EncodedRuns(names=tuple(names), queries=e.queries, docs=e.docs,
                             run=np.repeat(np.arange(len(names), dtype=e.run.dtype), lengths), query=e.query[rows],
                             doc=e.doc[rows], score=e.score[rows], rank=e.rank[rows], system=codes.astype(np.int64),
                             system_names=tuple(e.system_names[g] for g in uniques), scores=e.scores,
                             returned=returned, kept_depth=e.kept_depth)
        return type(self)(subset, key_codes=(self._key_code[rows], self._unique_keys),
                          judged_depth=self.judged_depth)

    # ------------------------------------------------------------------ files
    def save(self, path: Any) -> None:
        """Write the pool to ``path`` atomically: an ``.npz`` of plain arrays with a checksum, no pickle.

        See :mod:`ir_rarity.pool.store.storage`.

        Raises:
            ParameterError: the pool keeps only the rows some measures read (built with ``retention``).

        """
        if self.encoded.returned is not None:
            raise ParameterError("this pool keeps only the rows its measures read, not whole runs: build it "
                                 "without retention (Pool.from_runs(files)) to save it")
        save_runs(self.encoded, path)

    @classmethod
    def load(cls, path: Any) -> Pool:
        """Read a pool written by :meth:`save`.

        Raises:
            InputError: the file is missing, changed, truncated or not a pool file; the message names it.

        """
        return cls(load_runs(path), origin=origin_of(run_files(path), "pool"))

    # ------------------------------------------------------------------ context
    def __enter__(self) -> Pool:
        push_pool(self)
        return self

    def __exit__(self, *exc: object) -> None:
        pop_pool(self)

    # ------------------------------------------------------------------ S_d
    def _count_table(self, depth: int | None) -> np.ndarray:
        """S_d at ``depth`` of every pair key in :attr:`_unique_keys` (0 for a key no run has within depth)."""
        if depth not in self._counts:
            judged = self.judged_depth  # a judged-rows pool: exact there for the judged pairs
            if not judged or (depth is None and judged != float("inf")) or (depth is not None and depth > judged):
                self._check_kept(depth, "S_d")
            mask = slice(None) if depth is None else self.encoded.rank < depth
            codes = self._key_code[mask]
            n_keys = len(self._unique_keys)
            if not self.encoded.by_team:  # a run lists a document once per query: rows = runs
                counts = np.bincount(codes, minlength=n_keys)
            else:  # count distinct teams per key
                system = self.encoded.system[self.encoded.run[mask]]
                pairs = pd.unique(codes.astype(np.int64) * self.num_systems + system)
                counts = np.bincount(pairs // self.num_systems, minlength=n_keys)
            self._counts[depth] = counts.astype(np.int32)  # S_d <= S: 32 bits, gathered per row as they are
        return self._counts[depth]

    def counts(self, depth: int | None = None) -> pd.DataFrame:
        """The S_d table: one row per (query, document) retrieved by some run within ``depth``.

        Args:
            depth: Count a run as retrieving d when d is in its top ``depth`` (None: anywhere in the run).

        Returns:
            A DataFrame ``query_id, doc_id, S_d``, sorted by query id then docno.

        Raises:
            ParameterError: ``depth`` is not None and not a positive integer.

        """
        depth = check_depth(depth, allow_none=True)
        counts = self._count_table(depth)
        present = counts > 0
        query, doc = self.encoded.decode(self._unique_keys[present])
        return pd.DataFrame({"query_id": query, "doc_id": doc, "S_d": counts[present].astype(np.int64)})

    def pair_counts(self, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
        """The pair keys some run holds within ``depth`` (None: anywhere), sorted, and their S_d.

        :meth:`counts` as arrays: what pass 1 of :mod:`ir_rarity.pool.stream` adds up block by block.
        """
        counts = self._count_table(depth)
        present = np.flatnonzero(counts)
        return self._unique_keys[present], counts[present]

    def judged_keys(self, depth: int) -> tuple[np.ndarray, np.ndarray]:
        """Pair keys in some run's top ``depth`` and how many runs have each there (the depth-k judging pool)."""
        depth_ = check_depth(depth)
        self._check_kept(depth_, "the judging pool")
        return np.unique(self._keys(self.encoded.rank < depth_), return_counts=True)

    # ------------------------------------------------------------------ membership
    def _row_hashes(self) -> np.ndarray:
        if self._row_hash is None:
            e = self.encoded
            self._row_hash = content_hashes(string_hashes(e.queries)[e.query], string_hashes(e.docs)[e.doc], e.rank)
        return self._row_hash

    def fingerprints(self, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Per run: rows within ``depth`` and the wrapping sum of their content hashes (kept per depth)."""
        if depth not in self._prints:
            self._check_kept(depth, "fingerprints")
            self._prints[depth] = run_fingerprints(self.encoded.run, self.encoded.rank, self._row_hashes(), len(self),
                                                   depth)
        return self._prints[depth]

    def _rows_of(self, i: int, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
        key = self._keys(slice(self._run_start[i], self._run_end[i]))
        rank = self.encoded.rank[self._run_start[i]:self._run_end[i]]
        if depth is not None:
            key, rank = key[rank < depth], rank[rank < depth]
        return key, rank

    def find_members(self, runs: RankedRuns, depth: int | None) -> list[str | None]:
        """For each of ``runs``, the pool run with exactly the same ranked lists within ``depth``, or None.

        Candidates are found by content fingerprint and confirmed by comparing the rows themselves.
        """
        sizes, sums = self.fingerprints(depth)
        run_sizes, run_sums = runs.fingerprints(depth)
        found: list[str | None] = []
        for i in range(runs.n_runs):
            match = None
            if run_sizes[i] > 0:
                key, rank = runs.rows_of(i, depth)
                for c in np.flatnonzero((sizes == run_sizes[i]) & (sums == run_sums[i])):
                    pool_key, pool_rank = self._rows_of(int(c), depth)
                    if np.array_equal(pool_key, key) and np.array_equal(pool_rank, rank):
                        match = self.encoded.names[c]
                        break
            found.append(match)
        return found

    def member_of(self, run: Any, depth: int | None = None) -> str | None:
        """Name of the pool run whose ranked lists (to ``depth``) equal ``run``'s, or None.

        Args:
            run: Any run shape accepted by :meth:`from_runs` for a single run.
            depth: Compare each query's top ``depth`` documents (None: whole rankings).

        """
        ranked = rank_runs({"run": as_run_frame(run)}, [self.encoded.queries], [self.encoded.docs],
                           scores=self.scores)
        return self.find_members(ranked, check_depth(depth, allow_none=True))[0]

    def _check_kept(self, depth: int | None, what: str) -> None:
        """Refuse ``what`` at a depth below which a pool built with ``retention`` keeps only some rows."""
        kept = self.encoded.kept_depth
        if self.encoded.returned is not None and (depth is None or kept is None or depth > kept):
            at = "whole runs" if depth is None else f"depth {depth}"
            judged = f" and the judged rows to depth {self.judged_depth:g}" if self.judged_depth else ""
            raise ParameterError(f"{what} at {at}: this pool keeps every row only to depth {kept}{judged} (it was read "
                                 "for other measures); build it from whole runs")

    # ------------------------------------------------------------------ the engine's contract
    def vocabularies(self) -> tuple[pd.Index, pd.Index]:
        """The sorted query-id and docno vocabularies."""
        return self.encoded.queries, self.encoded.docs

    def num_systems_at(self, depth: int | None) -> int:
        """S (the same at every depth)."""
        return self.num_systems

    def count_keys(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        """S_d at ``depth`` of each pair key (0 where no run retrieved it)."""
        return sorted_lookup(self._unique_keys, self._count_table(depth), keys, 0)

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int]:
        """Sorted pair keys, the sum over all runs of P(D=d|S=y) at ``cutoff`` (novelty), and the run count."""
        if cutoff not in self._probabilities:
            self._check_kept(cutoff, "reading probabilities")
            codes, sums = probability_table(self._key_code, self.encoded.rank, self.encoded.run, self.encoded.query,
                                            cutoff, n_keys=len(self._unique_keys))
            self._probabilities[cutoff] = (self._unique_keys[codes], sums)
        return (*self._probabilities[cutoff], len(self))

    def encode_qrels(self, qrels: Any, source: str = "qrels") -> EncodedQrels:
        """Qrels (any accepted shape) encoded against this pool's vocabularies.

        :class:`~ir_rarity.engine.judgments.Judgments` are encoded once per vocabulary: given again (by the
        analyses of one evaluation, ``Evaluation.judgments``), the encoding they hold is returned.
        """
        if isinstance(qrels, Judgments):
            return qrels.encoded_for(self)
        return encode_qrels(as_qrels_frame(qrels, source), self.encoded.queries, self.encoded.docs, source)

    def member_rows(self, qrels: EncodedQrels, runs: slice | None = None) -> Rows:
        """Rows of every pool run within the qrels' queries, scored as members (the engine's own structure).

        With ``runs`` (consecutive positions in :attr:`names`), the rows of those runs only. Analyses read
        :meth:`labelled_rows` instead.
        """
        e = self.encoded
        first, stop, _ = (runs or slice(0, len(self))).indices(len(self))
        lo, hi = (int(self._run_start[first]), int(self._run_end[stop - 1])) if stop > first else (0, 0)
        n_runs = max(stop - first, 0)
        positions = query_positions(len(e.queries), qrels).astype(np.int32)
        keep_rows: np.ndarray | slice = slice(lo, hi)  # usually every query is judged
        if np.array_equal(positions, np.arange(len(positions))):  # the qrels' queries are the pool's: a view
            query = e.query[lo:hi]
        else:
            position = positions[e.query[lo:hi]]
            judged = position >= 0
            query = position
            if not judged.all():
                keep_rows, query = np.flatnonzero(judged) + lo, position[judged]
        run = e.run[keep_rows] - np.int32(first) if first else e.run[keep_rows]
        rank = e.rank[keep_rows]
        present = np.zeros((n_runs, len(qrels.query_ids)), dtype=bool)
        top = rank == 0  # every ranking starts at rank 0: one row per (run, query) it holds
        present[run[top], query[top]] = True
        source = _MemberRows(self, self._key_code[keep_rows], qrels, n_runs, keep_rows)
        return Rows(run=run, query=query, rank=rank, present=present, n_runs=n_runs, qrels=qrels, source=source,
                    returned=self._returned(run, query, top, keep_rows, (n_runs, len(qrels.query_ids))),
                    campaign_values=self._key_judgments(qrels).shared)

    def _returned(self, run: np.ndarray, query: np.ndarray, top: np.ndarray, rows: np.ndarray | slice,
                  n_cells: tuple[int, int]) -> np.ndarray | None:
        """Documents each (run, query) cell of :meth:`member_rows` returned, when not every row is kept.

        ``top`` marks the rankings' first rows among the pool's ``rows``; ``n_cells`` is (runs, qrels queries).
        """
        e = self.encoded
        if e.returned is None or self._firsts is None:
            return None
        n_runs, n_queries = n_cells
        first = np.flatnonzero(top) + rows.start if isinstance(rows, slice) else rows[top]  # the pool's rows
        sizes = np.zeros(n_runs * n_queries, dtype=np.int64)
        sizes[run[top].astype(np.int64) * n_queries + query[top]] = e.returned[np.searchsorted(self._firsts, first)]
        return sizes

    def labelled_rows(self, qrels: Any) -> LabelledRows:
        """Every run's rows within the queries of ``qrels`` (any accepted shape), with their labels.

        What campaign helpers and judging strategies read (:class:`~ir_rarity.pool.labelled.LabelledRows`).
        """
        encoded = qrels if isinstance(qrels, EncodedQrels) else self.encode_qrels(qrels)
        rows = self.member_rows(encoded)
        return LabelledRows(run_names=tuple(self.names), query_ids=encoded.query_ids, run=rows.run,
                            query=rows.query, rank=rows.rank, key=rows.keys(), label=rows.labels(),
                            decode=self.encoded.decode, n_relevant=encoded.n_relevant, lookup=encoded.lookup)

    def _labels_of_keys(self, qrels: EncodedQrels) -> np.ndarray:
        """The label of every pair key in ``qrels``, computed once for the blocks of one evaluation."""
        return self._key_judgments(qrels).labels

    def _relevant_keys(self, qrels: EncodedQrels, rel: int) -> np.ndarray:
        """Whether every pair key is relevant at ``rel`` in ``qrels``, decided once for the blocks of one evaluation."""
        judgments = self._key_judgments(qrels)
        if rel not in judgments.relevant:
            judgments.relevant[rel] = is_relevant(judgments.labels, rel)
        return judgments.relevant[rel]

    def _key_judgments(self, qrels: EncodedQrels) -> _KeyJudgments:
        """What every block of the members' rows scored against ``qrels`` shares (made again for other qrels)."""
        if self._judgments is None or self._judgments.qrels is not qrels:
            self._judgments = _KeyJudgments(qrels, qrels.labels_of_keys(self._unique_keys))
        return self._judgments

    def member_blocks(self, max_rows: int) -> list[slice]:
        """Runs in consecutive blocks of at most ``max_rows`` rows each (a longer run is a block of its own)."""
        sizes = (self._run_end - self._run_start).astype(np.int64)
        blocks, start, held = [], 0, 0
        for i, size in enumerate(sizes.tolist()):
            if i > start and held + size > max_rows:
                blocks.append(slice(start, i))
                start, held = i, 0
            held += size
        blocks.append(slice(start, len(sizes)))
        return blocks

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, qrels: QrelsLike, measures: MeasuresLike, runs: RunsLike | None = None, *,
                 by_query: bool = False, joint: bool = False, duplicates: Duplicates = "error",
                 ci: float | None = None, progress: bool | None = None) -> pd.DataFrame:
        """Deprecated: ``ir_rarity.evaluate(pool, qrels, measures)`` (or ``ir_rarity.evaluate(runs, ..., pool=pool)``).

        The front door returns the :class:`~ir_rarity.Evaluation` with the labels given (``.table()``,
        ``.long()``, ``.matrix(...)``); this method returns its table (or long values), as before, with a
        :class:`DeprecationWarning`.

        Rarity measures and trec_eval's standard measures (``P@10``, ``AP``, ``nDCG@10``..., see
        :mod:`ir_rarity.engine.standard`) are computed by the vectorized engine over all runs together; any
        other measure by ir_measures, run by run. Each run's value is the mean over all
        queries of the qrels; a query the run lacks scores the measure's default (0 for P, AP and the rarity
        measures), as in trec_eval and ir_measures. See :mod:`ir_rarity.engine.rule` for the rule.

        Args:
            qrels: A qrels DataFrame, a TREC qrels path, an ir_measures qrels iterable, or an ir_datasets id.
            measures: Measures, as objects or strings in ir_measures syntax (``'P_rare(alpha=0.5)@100'``).
            runs: Runs to score against the pool (anything :meth:`from_runs` accepts); default the pool's own.
                Each is scored on its own: a run equal to a member scores as that member, any other as if it
                alone had joined.
            by_query: Return per-query values in long format instead of one row per run.
            joint: With ``runs``: score them as joining the pool together (S + k).
            duplicates: With ``runs``: ``"error"`` or ``"first"``.
            ci: Add a confidence interval of each mean at this level (e.g. 0.95): columns ``"<measure> ci low"``
                and ``"<measure> ci high"``, a percentile bootstrap over queries (seed 0; see
                :func:`ir_rarity.compare.intervals.add_intervals`).
            progress: Progress bars (reading, measures through ir_measures); None: on a terminal only.

        Returns:
            One row per run (index ``run``) and one column per measure, named ``str(measure)``; or, with
            ``by_query=True``, a long DataFrame ``run, query_id, measure, value``. ``attrs["pool"]`` says what
            the values were computed against (S, what it counts, depths, runs). For the per-query values as
            matrices, use :func:`ir_rarity.evaluate`, which returns the :class:`~ir_rarity.Evaluation` itself.

        """
        deprecated("Pool.evaluate", "ir_rarity.evaluate(pool, qrels, measures).table()")
        from ir_rarity.compare.intervals import evaluation_frame  # deprecated: the layers above the pool
        from ir_rarity.evaluation import evaluate_campaign

        result = evaluate_campaign(self, qrels, measures, runs, joint=joint, duplicates=duplicates, progress=progress)
        return evaluation_frame(result, by_query=by_query, ci=ci)

    def evaluation(self, qrels: QrelsLike, measures: MeasuresLike, runs: RunsLike | None = None, *, joint: bool = False,
                   duplicates: Duplicates = "error", progress: bool | None = None) -> Evaluation:
        """Deprecated: ``ir_rarity.evaluate(pool, qrels, measures)`` returns this :class:`~ir_rarity.Evaluation`."""
        deprecated("Pool.evaluation", "ir_rarity.evaluate(pool, qrels, measures)")
        from ir_rarity.evaluation import evaluate_campaign  # deprecated: the door above the pool

        return evaluate_campaign(self, qrels, measures, runs, joint=joint, duplicates=duplicates, progress=progress)


@dataclass
class _KeyJudgments:
    """Per pair key of a pool, what one qrels say, and what every block of the members' rows shares.

    The labels, the relevance at each threshold asked for, and :meth:`Rows.per_campaign
    <ir_rarity.engine.rows.Rows.per_campaign>`'s values.
    """

    qrels: EncodedQrels
    labels: np.ndarray
    relevant: dict[int, np.ndarray] = field(default_factory=dict)
    shared: dict[tuple[object, ...], Any] = field(default_factory=dict)


class _MemberRows:
    """The :class:`~ir_rarity.engine.rows.RowSource` of a pool's own runs, all members (S and S_d as counted).

    Rows are labelled, counted and keyed through their dense pair codes (gathers from per-key arrays, no search),
    for the rows a measure reads.
    """

    def __init__(self, pool: Pool, codes: np.ndarray, qrels: EncodedQrels, n_runs: int, rows: np.ndarray | slice
                 ) -> None:
        self.pool, self.codes, self.qrels, self.rows = pool, codes, qrels, rows
        self.key_labels = pool._labels_of_keys(qrels)
        self.num_systems = np.full(n_runs, float(pool.num_systems))
        self.member = np.ones(n_runs, dtype=bool)

    def _codes(self, rows: Selection) -> np.ndarray:
        return self.codes if rows is None else self.codes[rows]

    def s_d(self, depth: int | None, rows: Selection) -> tuple[np.ndarray, np.ndarray]:
        """The pool's S_d (32 bits: half the memory of 64), and S for every run."""
        return self.pool._count_table(depth)[self._codes(rows)], self.num_systems

    def labels(self, rows: Selection) -> np.ndarray:
        """Labels from the per-key labels of the qrels."""
        return self.key_labels[self._codes(rows)]

    def keys(self, rows: Selection) -> np.ndarray:
        """Pair keys from the pool's sorted unique keys."""
        return self.pool._unique_keys[self._codes(rows)]

    def relevant(self, rel: int) -> np.ndarray:
        """Relevance decided once per key for all blocks of an evaluation, then gathered (a byte a row, not 8)."""
        return self.pool._relevant_keys(self.qrels, rel)[self.codes]

    def tie_keys(self) -> tuple[np.ndarray, np.ndarray]:
        """The stored scores and document codes (a sorted vocabulary's: they order like the docnos)."""
        return self.pool.encoded.score[self.rows], self.pool.encoded.doc[self.rows]

    def campaign_s_d(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        """The pool's S_d of any pair keys."""
        return self.pool.count_keys(keys, depth)

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """The pool's summed reading probabilities; every run is a member."""
        return (*self.pool.reading_probabilities(cutoff), self.member)
