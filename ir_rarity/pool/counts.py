r"""S_d count tables: exported from a pool, counted elsewhere (DuckDB, Spark), and evaluated against.

S_d is a ``GROUP BY (query, doc)`` count, so a campaign too large for one machine can be counted by a SQL
engine over its run files and still be evaluated with ir_rarity: load the table as a :class:`CountTable` and
use it where a :class:`~ir_rarity.Pool` goes (``with table:``, :meth:`CountTable.evaluate`, ``--pool`` and
``pool=``). A :class:`CountTable` implements the engine's :class:`~ir_rarity.engine.contract.Campaign` contract.

Parquet schema (``COUNTS_FORMAT``):

=============  ==========  ==============================================================================
column         type        meaning
=============  ==========  ==============================================================================
``query_id``   string      query id
``doc_id``     string      docno
``S_d``        int64       systems (runs, or teams) that retrieve the document for the query within depth
=============  ==========  ==============================================================================

File metadata (parquet key-value, UTF-8): ``ir_rarity.format`` = ``counts/1``; ``ir_rarity.num_systems`` = S;
``ir_rarity.depth`` = the depth counted at (empty: whole runs); ``ir_rarity.systems`` = ``runs`` or ``teams``;
optionally ``ir_rarity.scores`` = ``float64`` when the members' rankings were ordered as trec_eval 10.0 orders
them (comparing scores as doubles; absent: ``float32``, as pytrec_eval); optionally ``ir_rarity.members``, a JSON
list of ``[run name, rows within depth, content hash sum (hex)]``: the
members' fingerprints (:mod:`ir_rarity.engine.runs`), which let an evaluated run be recognised as a member by
its content, as a pool does. Only rows with S_d >= 1 are stored.

A table is checked when made or read, each in one vectorized pass: S_d in [1, S], no (query, doc) listed
twice, S consistent with the runs counted (``n_runs == S`` for runs, ``>= S`` for teams) and, where member
fingerprints are present, with them (one per run; the S_d column sums to their rows within the depth when S
counts runs, to at most that for teams). A failure is one :class:`~ir_rarity.errors.InputError` line naming
the file and the invariant.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ir_rarity.checks import check_depth
from ir_rarity.engine.codes import (
    KEY_SHIFT,
    ScorePrecision,
    check_precision,
    decode_keys,
    pair_keys,
    sorted_lookup,
)
from ir_rarity.engine.contract import ASSUMED_MEMBER, CampaignInfo
from ir_rarity.engine.hashes import match_fingerprints
from ir_rarity.engine.judgments import Judgments
from ir_rarity.engine.qrels import EncodedQrels, encode_qrels
from ir_rarity.engine.result import Evaluation
from ir_rarity.engine.runs import Duplicates, RankedRuns
from ir_rarity.errors import InputError, ParameterError, RarityWarning, deprecated, warn
from ir_rarity.io.files import write_with
from ir_rarity.io.frames import as_id_strings, as_qrels_frame
from ir_rarity.io.raw import EXPANSION_ALLOWANCE, MAX_EXPANSION
from ir_rarity.pool.build.sources import Origin, origin_of
from ir_rarity.pool.context import pop_pool, push_pool

if TYPE_CHECKING:
    from ir_rarity.typing import MeasuresLike, QrelsLike, RunsLike

__all__ = ["COUNTS_FORMAT", "CountTable", "duckdb_counts_sql"]

COUNTS_FORMAT = "counts/1"
_META = "ir_rarity."

Fingerprints = Mapping[str, tuple[int, int]]
"""Run name -> (rows within the depth, wrapping sum of their content hashes)."""


class CountTable:
    """S_d counts of a campaign without its runs, as a campaign to score runs against.

    A run evaluated against the table is recognised as a member by its content when the table carries its
    members' fingerprints (tables made by :meth:`from_pool` or ``ir-rarity pool --out``): it then scores its
    campaign value, and any other run scores as if it alone had joined (S + 1, its own documents added to
    S_d), exactly as against the :class:`~ir_rarity.Pool` it was counted from. A table counted elsewhere (the
    DuckDB recipe) has no fingerprints: ``assume_members=True`` (the default there, with a warning) takes every
    evaluated run to be one of the counted systems; ``False`` scores every run as a newcomer.

    Only measures that need S_d at the depth the table was counted at can be computed (P_rare, AP_rare,
    nDCG_rare, R_rare, and measures that need no pool); others raise :class:`~ir_rarity.ParameterError`.

    Args:
        frame: ``query_id, doc_id, S_d``.
        num_systems: S.
        depth: The depth S_d was counted at (None: whole runs).
        systems: ``"runs"`` or ``"teams"``: what S counts.
        assume_members: None (default): by content where fingerprints are known, else as True. True: every
            evaluated run is a member. False: every evaluated run is a newcomer.
        members: The members' fingerprints at ``depth`` (see :data:`Fingerprints`).
        n_runs: Number of runs counted (when S counts teams).

    """

    def __init__(self, frame: pd.DataFrame, num_systems: int, depth: int | None, systems: str = "runs",
                 assume_members: bool | None = None, members: Fingerprints | None = None,
                 n_runs: int | None = None, origin: Origin | None = None, scores: ScorePrecision = "float32") -> None:
        missing = {"query_id", "doc_id", "S_d"} - set(frame.columns)
        if missing:
            raise InputError(f"a count table needs the columns query_id, doc_id, S_d; missing {sorted(missing)}")
        if isinstance(num_systems, bool) or not isinstance(num_systems, (int, np.integer)) or num_systems < 1:
            raise InputError(f"num_systems must be an integer >= 1, got {num_systems!r}")
        self.depth = check_depth(depth, allow_none=True)
        if systems not in ("runs", "teams"):
            raise InputError(f"systems must be 'runs' or 'teams', got {systems!r}")
        counts = pd.to_numeric(frame["S_d"], errors="coerce")
        bad = counts.isna() | (counts < 1) | (counts > num_systems) | (counts != np.floor(counts))
        if bad.any():  # a listed pair was retrieved by some system: S_d = 0 is never stored
            found = frame["S_d"][bad].iloc[0]
            raise InputError(f"S_d must be whole numbers in [1, S = {num_systems}], found "
                             f"{found.item() if isinstance(found, np.generic) else found!r}")
        query, queries = pd.factorize(as_id_strings(frame["query_id"], "count table", "query_id"), sort=True)
        doc, docs = pd.factorize(as_id_strings(frame["doc_id"], "count table", "doc_id"), sort=True)
        self._queries, self._docs = pd.Index(queries), pd.Index(docs)
        keys = pair_keys(query, doc)
        order = np.argsort(keys, kind="stable")
        self._keys = keys[order]
        if len(self._keys) > 1 and (self._keys[1:] == self._keys[:-1]).any():
            raise InputError("a count table lists the same (query_id, doc_id) twice")
        self._counts = counts.to_numpy(np.int64)[order]
        self.num_systems = int(num_systems)
        self.systems = systems
        self.members = {str(k): (int(v[0]), int(v[1])) for k, v in (members or {}).items()}
        self.assume_members = assume_members
        self.origin = origin
        self.scores: ScorePrecision = check_precision(scores)
        self.n_runs = n_runs if n_runs is not None else (len(self.members) or None)
        self._warned = False
        _check_systems(self.num_systems, systems, self.n_runs, self.members, int(self._counts.sum()))

    # ------------------------------------------------------------------ files
    @classmethod
    def from_pool(cls, pool: Any, depth: int | None = None) -> CountTable:
        """The count table of a :class:`~ir_rarity.Pool` at ``depth``, with its members' fingerprints."""
        depth = check_depth(depth, allow_none=True)
        sizes, sums = pool.fingerprints(depth)
        members = {name: (int(n), int(h)) for name, n, h in zip(pool.names, sizes, sums, strict=True)}
        return cls(pool.counts(depth), pool.num_systems, depth, pool.info().systems, members=members,
                   n_runs=len(pool), scores=pool.scores)

    @classmethod
    def from_codes(cls, queries: pd.Index, docs: pd.Index, keys: np.ndarray, counts: np.ndarray, num_systems: int,
                   depth: int | None, systems: str = "runs", members: Fingerprints | None = None,
                   n_runs: int | None = None, origin: Origin | None = None, scores: ScorePrecision = "float32"
                   ) -> CountTable:
        """A table from counts already encoded (e.g. those a saved pool stores), checked without re-encoding.

        Args:
            queries: The sorted, unique query-id vocabulary.
            docs: The sorted, unique docno vocabulary.
            keys: Pair keys (:func:`~ir_rarity.engine.codes.pair_keys` in these vocabularies), sorted and unique.
            counts: S_d of each key, in [1, S].
            num_systems: S.
            depth: The depth S_d was counted at (None: whole runs).
            systems: ``"runs"`` or ``"teams"``.
            members: The members' fingerprints at ``depth``.
            n_runs: The number of runs counted.
            origin: Where the counts come from.
            scores: How the members' rankings were ordered.

        Raises:
            InputError: an invariant broken (named in the message), as :class:`CountTable` checks its frame.

        """
        if isinstance(num_systems, bool) or not isinstance(num_systems, (int, np.integer)) or num_systems < 1:
            raise InputError(f"num_systems must be an integer >= 1, got {num_systems!r}")
        if systems not in ("runs", "teams"):
            raise InputError(f"systems must be 'runs' or 'teams', got {systems!r}")
        for what, index in (("query ids", queries), ("docnos", docs)):
            if not (index.is_monotonic_increasing and index.is_unique):
                raise InputError(f"the {what} vocabulary is not sorted and unique")
        keys, counts = np.asarray(keys), np.asarray(counts)
        if keys.dtype != np.int64 or counts.dtype.kind not in "iu" or keys.shape != counts.shape or keys.ndim != 1:
            raise InputError("count keys and S_d must be one-dimensional integer arrays of one length")
        if len(keys) and ((np.diff(keys) <= 0).any() or keys[0] < 0
                          or (keys[-1] >> KEY_SHIFT) >= len(queries)
                          or ((keys & ((1 << KEY_SHIFT) - 1)) >= len(docs)).any()):
            raise InputError("count keys are not sorted, unique pairs of the vocabularies")
        if len(counts) and (counts.min() < 1 or counts.max() > num_systems):
            raise InputError(f"S_d must be whole numbers in [1, S = {num_systems}]")
        table = cls.__new__(cls)
        table._queries, table._docs = queries, docs
        table._keys, table._counts = keys, counts.astype(np.int64)
        table.depth = check_depth(depth, allow_none=True)
        table.num_systems, table.systems = int(num_systems), systems
        table.members = {str(k): (int(v[0]), int(v[1])) for k, v in (members or {}).items()}
        table.assume_members, table.origin = None, origin
        table.scores = check_precision(scores)
        table.n_runs = n_runs if n_runs is not None else (len(table.members) or None)
        table._warned = False
        _check_systems(table.num_systems, systems, table.n_runs, table.members, int(table._counts.sum()))
        return table

    def to_frame(self) -> pd.DataFrame:
        """The table as ``query_id, doc_id, S_d`` (sorted by query id, then docno)."""
        query, doc = decode_keys(self._queries, self._docs, self._keys)
        return pd.DataFrame({"query_id": query, "doc_id": doc, "S_d": self._counts})

    def to_parquet(self, path: str | os.PathLike[str], extra: Mapping[str, str] | None = None) -> None:
        """Write the table as parquet with the documented schema and metadata, atomically.

        Args:
            path: The file to write (replaced only once the new one is complete).
            extra: More metadata, stored as ``ir_rarity.<key>`` (e.g. the disk cache's key, checked on load with
                ``expect=`` of :meth:`read_parquet`).

        """
        pa, pq = _pyarrow()
        table = pa.Table.from_pandas(self.to_frame(), preserve_index=False, schema=pa.schema(
            [("query_id", pa.string()), ("doc_id", pa.string()), ("S_d", pa.int64())]))
        meta = {f"{_META}format": COUNTS_FORMAT, f"{_META}num_systems": str(self.num_systems),
                f"{_META}depth": "" if self.depth is None else str(self.depth), f"{_META}systems": self.systems}
        if self.members:
            meta[f"{_META}members"] = json.dumps([[n, s, f"{h:016x}"] for n, (s, h) in self.members.items()])
        if self.n_runs is not None:
            meta[f"{_META}runs"] = str(self.n_runs)
        if self.scores != "float32":
            meta[f"{_META}scores"] = self.scores
        meta.update({f"{_META}{k}": v for k, v in (extra or {}).items()})
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **{k.encode(): v.encode()
                                                                                  for k, v in meta.items()}})
        write_with(path, lambda tmp: pq.write_table(table, tmp))

    @classmethod
    def read_parquet(cls, path: str | os.PathLike[str], assume_members: bool | None = None, *,
                     expect: Mapping[str, str] | None = None, origin: Origin | None = None) -> CountTable:
        """Load a table written by :meth:`to_parquet` (or by any tool following the schema).

        Args:
            path: The parquet file.
            assume_members: See :class:`CountTable`.
            expect: Metadata the file must hold (``ir_rarity.<key>`` = value, as written with ``extra=``), checked
                before the rows are read.
            origin: Where the table's counts come from (default: this file, read as a count table).

        Raises:
            InputError: not a parquet file, not of the documented schema and metadata, or not holding ``expect``.
        """
        pa, pq = _pyarrow()
        source = os.fspath(path)
        try:
            footer = pq.ParquetFile(source).metadata
            _check_declared_size(footer, os.path.getsize(source), source)
            _check_expected(footer.metadata or {}, expect or {}, source)
            table = pq.read_table(source)
        except (OSError, pa.ArrowException) as e:
            raise InputError(f"cannot be read as parquet ({type(e).__name__})", source) from None
        meta = {k.decode("utf-8", "replace"): v.decode("utf-8", "replace")
                for k, v in (table.schema.metadata or {}).items()}
        if meta.get(f"{_META}format") != COUNTS_FORMAT:
            raise InputError(f"not an ir_rarity count table (metadata {_META}format != {COUNTS_FORMAT!r})", source)
        try:
            num_systems = int(meta[f"{_META}num_systems"])
            depth_text = meta.get(f"{_META}depth", "")
            depth = int(depth_text) if depth_text else None
            runs_text = meta.get(f"{_META}runs", "")
            n_runs = int(runs_text) if runs_text else None
            members = {str(n): (int(s), int(h, 16)) for n, s, h in json.loads(meta.get(f"{_META}members", "[]"))}
        except (KeyError, ValueError, TypeError):
            raise InputError("bad ir_rarity metadata (num_systems, depth, runs or members)", source) from None
        try:
            return cls(table.to_pandas(), num_systems, depth, meta.get(f"{_META}systems", "runs"), assume_members,
                       members=members, n_runs=n_runs,
                       origin=origin if origin is not None else origin_of([Path(source)], "counts"),
                       scores=meta.get(f"{_META}scores", "float32"))
        except (InputError, ParameterError) as e:
            raise InputError(str(e), source) from None

    # ------------------------------------------------------------------ context
    def __repr__(self) -> str:
        return f"CountTable(S={self.num_systems}, depth={self.depth}, {len(self._keys)} pairs)"

    def __enter__(self) -> CountTable:
        push_pool(self)
        return self

    def __exit__(self, *exc: object) -> None:
        pop_pool(self)

    # ------------------------------------------------------------------ the engine's contract
    def _check(self, depth: int | None) -> None:
        if depth != self.depth:
            at = "whole runs" if self.depth is None else f"depth {self.depth}"
            raise ParameterError(f"this count table holds S_d counted at {at}; a measure asks for depth {depth} "
                                 "(set the measure's cutoff/depth to match, or count again)")

    def vocabularies(self) -> tuple[pd.Index, pd.Index]:
        """The table's query-id and docno vocabularies."""
        return self._queries, self._docs

    def num_systems_at(self, depth: int | None) -> int:
        """S, at the table's depth."""
        self._check(depth)
        return self.num_systems

    def count_keys(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        """S_d of each pair key at the table's depth (0 where not listed)."""
        self._check(depth)
        return sorted_lookup(self._keys, self._counts, keys, 0)

    def find_members(self, runs: RankedRuns, depth: int | None) -> list[str | None]:
        """Members by fingerprint when the table has them; else as ``assume_members`` says."""
        self._check(depth)
        if self.assume_members is not None or not self.members:
            if self.assume_members is None and not self._warned:
                self._warned = True
                warn("this count table carries no member fingerprints, so runs cannot be recognised by "
                              "content: every evaluated run is taken to be one of its counted systems (pass "
                              "assume_members=False to score them as newcomers)", RarityWarning)
            member = self.assume_members is not False
            return [ASSUMED_MEMBER if member else None for _ in runs.names]
        return match_fingerprints({v: k for k, v in self.members.items()}, *runs.fingerprints(depth))

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int]:
        """Not available: the novelty utility needs the runs themselves."""
        raise ParameterError("a count table holds S_d only; the novelty utility needs the runs themselves (give a "
                             "pool of run files or a saved .npz pool)")

    def info(self) -> CampaignInfo:
        """S, what it counts, the runs counted (when known) and the depth."""
        return CampaignInfo(num_systems=self.num_systems, systems=self.systems, n_runs=self.n_runs,
                            depths=(self.depth,), source="count table", scores=self.scores)

    def encode_qrels(self, qrels: Any, source: str = "qrels") -> EncodedQrels:
        """Qrels (any accepted shape) encoded against the table's vocabularies.

        :class:`~ir_rarity.engine.judgments.Judgments` are encoded once per vocabulary: given again (by the
        analyses of one evaluation, ``Evaluation.judgments``), the encoding they hold is returned.
        """
        if isinstance(qrels, Judgments):
            return qrels.encoded_for(self)
        return encode_qrels(as_qrels_frame(qrels, source), self._queries, self._docs, source)

    def evaluate(self, qrels: QrelsLike, measures: MeasuresLike, runs: RunsLike, *, by_query: bool = False,
                 joint: bool = False, duplicates: Duplicates = "error", ci: float | None = None,
                 progress: bool | None = None) -> pd.DataFrame:
        """Deprecated: ``ir_rarity.evaluate(runs, qrels, measures, pool=table)`` returns the Evaluation.

        The arguments are those of :meth:`Pool.evaluate <ir_rarity.Pool.evaluate>`, in the same order; ``runs``
        is required, since a count table does not keep its runs.

        Returns:
            One row per run (index ``run``), one column per measure (mean over the qrels' queries); or the long
            per-query values with ``by_query=True``.
        """
        deprecated("CountTable.evaluate", "ir_rarity.evaluate(runs, qrels, measures, pool=table).table()")
        from ir_rarity.compare.intervals import evaluation_frame  # deprecated: the layers above the pool

        return evaluation_frame(self._evaluation(qrels, measures, runs, joint=joint, duplicates=duplicates,
                                                 progress=progress), by_query=by_query, ci=ci)

    def evaluation(self, qrels: QrelsLike, measures: MeasuresLike, runs: RunsLike, *, joint: bool = False,
                   duplicates: Duplicates = "error", progress: bool | None = None) -> Evaluation:
        """Deprecated: ``ir_rarity.evaluate(runs, qrels, measures, pool=table)`` returns this Evaluation."""
        deprecated("CountTable.evaluation", "ir_rarity.evaluate(runs, qrels, measures, pool=table)")
        return self._evaluation(qrels, measures, runs, joint=joint, duplicates=duplicates, progress=progress)

    def _evaluation(self, qrels: QrelsLike, measures: MeasuresLike, runs: RunsLike, *, joint: bool = False,
                    duplicates: Duplicates = "error", progress: bool | None = None) -> Evaluation:
        from ir_rarity.evaluation import evaluate_campaign  # deprecated: the door above the pool

        if runs is None:
            raise ParameterError("a count table does not keep its runs: give the runs to evaluate against it")
        return evaluate_campaign(self, qrels, measures, runs, joint=joint, duplicates=duplicates, progress=progress)


MAX_ROWS_PER_BYTE = 1
"""A count table may declare at most this many rows per byte of its file (plus :data:`ROWS_ALLOWANCE`).

Real tables take about 5 bytes a row (dictionary-encoded docnos, run-length query ids, small S_d); a file that
declares more rows than bytes is refused before anything is read, which bounds the memory a small hostile
file can make the reader take (some 150 bytes a row once read)."""

ROWS_ALLOWANCE = 1 << 20
"""Rows a count table may declare beyond :data:`MAX_ROWS_PER_BYTE` times its size (small files)."""


def _check_declared_size(metadata: Any, size: int, source: str) -> None:
    """Refuse a parquet file whose footer declares more rows or bytes than its size can hold, before reading."""
    limit = MAX_ROWS_PER_BYTE * size + ROWS_ALLOWANCE
    groups = [metadata.row_group(i) for i in range(metadata.num_row_groups)]
    rows = max(int(metadata.num_rows), sum(int(g.num_rows) for g in groups))
    if rows > limit:
        raise InputError(f"count table declares {rows:,} rows in {size:,} bytes (at most {limit:,}: more than "
                         f"{MAX_ROWS_PER_BYTE} row per byte of file)", source)
    declared = sum(int(g.total_byte_size) for g in groups)
    if declared > MAX_EXPANSION * size + EXPANSION_ALLOWANCE:
        raise InputError(f"count table declares {declared:,} bytes of data in {size:,} bytes (more than "
                         f"{MAX_EXPANSION} times its size)", source)


def _check_expected(metadata: Mapping[bytes, bytes], expect: Mapping[str, str], source: str) -> None:
    """Refuse a file whose ``ir_rarity.<key>`` metadata differ from ``expect`` (before its rows are read)."""
    for key, value in expect.items():
        found = metadata.get(f"{_META}{key}".encode())
        if found != value.encode():
            raise InputError(f"count table metadata {_META}{key} is not {value!r}", source)


def _check_systems(num_systems: int, systems: str, n_runs: int | None, members: Fingerprints, total: int) -> None:
    """S against the runs counted and the members' fingerprints, where given (each a cheap sum).

    S counts runs (then ``n_runs == S``) or teams of them (``n_runs >= S``). Every member row within the depth
    adds one to the S_d of its (query, document) when S counts runs, at most one when it counts teams: the S_d
    column sums to the members' row counts, or to at most that.
    """
    if n_runs is not None and (n_runs < num_systems or (systems == "runs" and n_runs != num_systems)):
        raise InputError(f"{n_runs} runs counted as S = {num_systems} {systems}")
    if not members:
        return
    if n_runs is not None and len(members) != n_runs:
        raise InputError(f"{len(members)} member fingerprints for {n_runs} runs counted")
    rows = sum(size for size, _ in members.values())
    if total > rows or (systems == "runs" and total != rows):
        relation = "==" if systems == "runs" else "<="
        raise InputError(f"the S_d column sums to {total} but the members hold {rows} rows within the depth "
                         f"(sum of S_d must be {relation} that)")


def duckdb_counts_sql(depth: int | None = 100, run_from: str = "tag") -> str:
    r"""The DuckDB SQL that counts S_d over TREC run files, equal to :meth:`Pool.counts` (tested).

    The query has one parameter, the file path or glob (``?``). Runs are told apart by their tag column
    (``run_from="tag"``, for one file of many runs) or by file name (``"filename"``, a folder of run files).
    Documents are ranked in trec_eval order (single-precision score descending, then docno descending) within
    each run and query, cut at ``depth``, and counted per (query, doc).

    Example::

        import duckdb
        table = duckdb.connect().execute(duckdb_counts_sql(100, "filename"), ["runs/*.gz"]).df()
        counts = CountTable(table, num_systems=n_runs, depth=100)
    """
    if run_from not in ("tag", "filename"):
        raise ParameterError(f"run_from must be 'tag' or 'filename', got {run_from!r}")
    if depth is not None and depth <= 0:
        raise ParameterError(f"depth must be a positive integer, got {depth}")
    run = "f[6]" if run_from == "tag" else "filename"
    cut = "" if depth is None else f"WHERE rank <= {int(depth)}"
    return f"""
WITH lines AS (
  SELECT filename, string_split_regex(trim(line), '\\s+') AS f
  FROM read_csv(?, columns={{'line': 'VARCHAR'}}, header=false, delim='\\x01', quote='', escape='',
                filename=true, auto_detect=false)
  WHERE trim(line) <> ''
), ranked AS (
  SELECT {run} AS run, f[1] AS query_id, f[3] AS doc_id,
         row_number() OVER (PARTITION BY {run}, f[1]
                            ORDER BY CAST(CAST(f[5] AS DOUBLE) AS FLOAT) DESC, f[3] DESC) AS rank
  FROM lines
)
SELECT query_id, doc_id, count(*) AS S_d FROM ranked {cut}
GROUP BY query_id, doc_id ORDER BY query_id, doc_id
"""


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - depends on the environment
        raise InputError('parquet needs pyarrow: pip install "ir_rarity[parquet]"') from None
    return pa, pq
