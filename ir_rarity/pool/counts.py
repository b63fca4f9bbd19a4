r"""S_d count tables: exported from a pool, counted elsewhere (DuckDB, Spark), and evaluated against.

S_d is a ``GROUP BY (query, doc)`` count, so a campaign too large for one machine can be counted by a SQL
engine over its run files and still be evaluated with ir_rarity: load the table as a :class:`CountTable` and
use it where a :class:`~ir_rarity.Pool` goes (``with table:`` or :meth:`CountTable.evaluate`).

Parquet schema (``COUNTS_FORMAT``):

=============  ==========  ==============================================================================
column         type        meaning
=============  ==========  ==============================================================================
``query_id``   string      query id
``doc_id``     string      docno
``S_d``        int64       systems (runs, or teams) that retrieve the document for the query within depth
=============  ==========  ==============================================================================

File metadata (parquet key-value, UTF-8): ``ir_rarity.format`` = ``counts/1``; ``ir_rarity.num_systems`` = S;
``ir_rarity.depth`` = the depth counted at (empty: whole runs); ``ir_rarity.systems`` = ``runs`` or ``teams``.
Only rows with S_d >= 1 are stored.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.engine.evaluate import EncodedQrels, Rows, compute, encode_qrels, supported_names
from ir_rarity.engine.ranking import pair_keys, sorted_lookup
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.io.files import write_with
from ir_rarity.io.frames import as_qrels_frame, as_run_frame
from ir_rarity.pool.context import pop_pool, push_pool

__all__ = ["COUNTS_FORMAT", "CountTable", "duckdb_counts_sql"]

COUNTS_FORMAT = "counts/1"
_META = "ir_rarity."


class CountTable:
    """S_d counts of a campaign without its runs, as an evaluation context.

    Evaluated runs are taken to be among the systems that were counted (``assume_members=True``, the usual case:
    count the campaign once, then score each of its runs), so S and S_d are used as they are. With
    ``assume_members=False`` every evaluated run is a newcomer: S + 1, and its own documents added to S_d.
    Membership cannot be checked by content here, as :class:`~ir_rarity.Pool` does, since the runs are not kept.

    Only measures that need S_d at the depth the table was counted at can be computed (P_rare, AP_rare and the
    measures that need no pool); others raise :class:`~ir_rarity.ParameterError`.

    Args:
        frame: ``query_id, doc_id, S_d``.
        num_systems: S.
        depth: The depth S_d was counted at (None: whole runs).
        systems: ``"runs"`` or ``"teams"``: what S counts.
        assume_members: See above.
    """

    def __init__(self, frame: pd.DataFrame, num_systems: int, depth: int | None, systems: str = "runs",
                 assume_members: bool = True) -> None:
        missing = {"query_id", "doc_id", "S_d"} - set(frame.columns)
        if missing:
            raise InputError(f"a count table needs the columns query_id, doc_id, S_d; missing {sorted(missing)}")
        if num_systems < 1:
            raise InputError(f"num_systems must be >= 1, got {num_systems}")
        counts = pd.to_numeric(frame["S_d"], errors="coerce")
        if counts.isna().any() or (counts < 0).any() or (counts > num_systems).any():
            raise InputError(f"S_d must be integers in [0, {num_systems}]")
        query, self._queries = pd.factorize(frame["query_id"].astype(str), sort=True)
        doc, self._docs = pd.factorize(frame["doc_id"].astype(str), sort=True)
        self._queries, self._docs = pd.Index(self._queries), pd.Index(self._docs)
        keys = pair_keys(query, doc)
        order = np.argsort(keys, kind="stable")
        self._keys = keys[order]
        if len(self._keys) > 1 and (self._keys[1:] == self._keys[:-1]).any():
            raise InputError("a count table lists the same (query_id, doc_id) twice")
        self._counts = counts.to_numpy(np.int64)[order]
        self.num_systems = int(num_systems)
        self.depth = depth
        self.systems = systems
        self.assume_members = assume_members

    # ------------------------------------------------------------------ files
    @classmethod
    def from_pool(cls, pool: Any, depth: int | None = None) -> CountTable:
        """The count table of a :class:`~ir_rarity.Pool` at ``depth``."""
        systems = "runs" if pool.num_systems == len(pool) else "teams"
        return cls(pool.counts(depth), pool.num_systems, depth, systems)

    def to_frame(self) -> pd.DataFrame:
        """The table as ``query_id, doc_id, S_d`` (sorted by query id, then docno)."""
        return pd.DataFrame({"query_id": self._queries.take(self._keys >> 32).astype(str),
                             "doc_id": self._docs.take(self._keys & 0xFFFFFFFF).astype(str),
                             "S_d": self._counts})

    def to_parquet(self, path: str | os.PathLike[str]) -> None:
        """Write the table as parquet with the documented schema and metadata, atomically."""
        pa, pq = _pyarrow()
        table = pa.Table.from_pandas(self.to_frame(), preserve_index=False, schema=pa.schema(
            [("query_id", pa.string()), ("doc_id", pa.string()), ("S_d", pa.int64())]))
        meta = {f"{_META}format": COUNTS_FORMAT, f"{_META}num_systems": str(self.num_systems),
                f"{_META}depth": "" if self.depth is None else str(self.depth), f"{_META}systems": self.systems}
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **{k.encode(): v.encode()
                                                                                  for k, v in meta.items()}})
        write_with(path, lambda tmp: pq.write_table(table, tmp))

    @classmethod
    def read_parquet(cls, path: str | os.PathLike[str], assume_members: bool = True) -> CountTable:
        """Load a table written by :meth:`to_parquet` (or by any tool following the schema).

        Raises:
            InputError: not a parquet file, or not of the documented schema and metadata.
        """
        pa, pq = _pyarrow()
        source = os.fspath(path)
        try:
            table = pq.read_table(source)
        except (OSError, pa.ArrowException) as e:
            raise InputError(f"cannot be read as parquet ({e})", source) from None
        meta = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
        if meta.get(f"{_META}format") != COUNTS_FORMAT:
            raise InputError(f"not an ir_rarity count table (metadata {_META}format != {COUNTS_FORMAT!r})", source)
        try:
            num_systems = int(meta[f"{_META}num_systems"])
            depth_text = meta.get(f"{_META}depth", "")
            depth = int(depth_text) if depth_text else None
        except (KeyError, ValueError):
            raise InputError("bad ir_rarity.num_systems / ir_rarity.depth metadata", source) from None
        return cls(table.to_pandas(), num_systems, depth, meta.get(f"{_META}systems", "runs"), assume_members)

    # ------------------------------------------------------------------ evaluation context
    def __repr__(self) -> str:
        return (f"CountTable(S={self.num_systems}, depth={self.depth}, {len(self._keys)} pairs, "
                f"{'members' if self.assume_members else 'newcomers'})")

    def __enter__(self) -> CountTable:
        push_pool(self)  # type: ignore[arg-type]
        return self

    def __exit__(self, *exc: object) -> None:
        pop_pool(self)  # type: ignore[arg-type]

    def encode_qrels(self, qrels: Any, source: str = "qrels") -> EncodedQrels:
        """Qrels (any accepted shape) encoded against the table's vocabularies."""
        return encode_qrels(as_qrels_frame(qrels, source), self._queries, self._docs, source)

    def _lookup(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        if depth != self.depth:
            raise ParameterError(f"this count table holds S_d counted at depth {self.depth}; a measure asks for "
                                 f"depth {depth} (set the measure's cutoff/depth to match, or count again)")
        return sorted_lookup(self._keys, self._counts, keys, 0).astype(np.float64)

    def run_rows(self, frame: pd.DataFrame, qrels: EncodedQrels, source: str = "run",
                 duplicates: str = "error") -> Rows:
        """Rows of one run, scored with the table's S_d (members) or as a newcomer."""
        from ir_rarity.pool.pool import _RankedRun, rows_within_qrels

        ranked = _RankedRun.build(frame, self, qrels, source, duplicates)  # type: ignore[arg-type]
        query, rank, key, present = rows_within_qrels(ranked, len(self._queries), qrels)

        def counts_at(depth: int | None) -> tuple[np.ndarray, float]:
            s_d = self._lookup(key, depth)
            if self.assume_members:
                return s_d, float(self.num_systems)
            own = np.ones(len(key)) if depth is None else (rank < depth).astype(np.float64)
            return s_d + own, float(self.num_systems + 1)

        def probabilities_at(cutoff: int | None) -> Any:
            raise ParameterError("a count table holds S_d only; the novelty utility needs the runs themselves")

        return Rows(run=np.zeros(len(key), dtype=np.int64), query=query, rank=rank, key=key,
                    label=qrels.lookup(key), present=present, n_runs=1, qrels=qrels, counts_at=counts_at,
                    probabilities_at=probabilities_at)

    def evaluate(self, qrels: Any, runs: Mapping[str, Any], measures: Iterable[Any]) -> pd.DataFrame:
        """Evaluate each run of ``runs`` (name -> any run shape) on the engine's measures.

        Returns:
            One row per run (index ``run``), one column per measure (mean over the qrels' queries).
        """
        import ir_measures

        from ir_rarity.pool.pool import _aggregate

        parsed = [ir_measures.parse_measure(m) if isinstance(m, str) else m for m in measures]
        unsupported = [str(m) for m in parsed if m.NAME not in supported_names()]
        if unsupported:
            raise ParameterError(f"a count table computes ir_rarity's measures only, not {unsupported}")
        encoded = self.encode_qrels(qrels)
        out: dict[str, dict[str, float]] = {}
        for name, run in runs.items():
            rows = self.run_rows(as_run_frame(run, str(name)), encoded, str(name))
            out[str(name)] = {str(m): float(_aggregate(m, compute(m, rows))[0]) for m in parsed}
        return pd.DataFrame.from_dict(out, orient="index").rename_axis("run")


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
