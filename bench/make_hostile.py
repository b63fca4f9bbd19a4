"""Hostile inputs for memory and time checks (run by hand, not in CI; the tests write small versions).

    python bench/make_hostile.py OUT_DIR [--parquet-rows N] [--queries N] [--tags N]

Writes into ``OUT_DIR``:

* ``hostile.parquet``: a count table (valid schema and metadata) whose footer declares ``--parquet-rows``
  (default 100 M) rows in a file of about 1 MB: every row is the same, so dictionary and run-length encoding
  store it in almost nothing. ir_rarity must refuse it before reading.
* ``many_queries.run.gz``: one run of ``--queries`` (default 600 K) queries of one line each (about 1.4 MB
  gzipped), and ``many_queries.qrels`` judging every tenth query's document relevant.
* ``many_tags.run.gz``: ``--tags`` (default 200 K) distinct tags (runs) of one line each, over 100 queries,
  and ``many_tags.qrels``.

Profile, for instance::

    /usr/bin/time -v ir-rarity eval OUT/many_queries.qrels OUT/many_queries.run.gz -m P@10 P_rare@10
    /usr/bin/time -v python -c "import ir_rarity; ir_rarity.evaluate({'r': 'OUT/many_queries.run.gz'},
        'OUT/many_queries.qrels', ['P@10', 'P_rare@10'])"
    /usr/bin/time -v ir-rarity eval OUT/many_queries.qrels OUT/many_queries.run.gz --pool OUT/hostile.parquet \\
        -m P_rare@10
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path

import numpy as np


def write_hostile_parquet(path: Path, rows: int) -> None:
    """A count table of ``rows`` identical rows in row groups of 1 M rows (100 M rows: about 1 MB, zstd)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    group = min(rows, 1 << 20)
    dictionary = pa.array(["q"])
    chunk = pa.table({
        "query_id": pa.DictionaryArray.from_arrays(pa.array(np.zeros(group, dtype=np.int32)), dictionary),
        "doc_id": pa.DictionaryArray.from_arrays(pa.array(np.zeros(group, dtype=np.int32)), pa.array(["d"])),
        "S_d": pa.array(np.ones(group, dtype=np.int64)),
    })
    meta = {b"ir_rarity.format": b"counts/1", b"ir_rarity.num_systems": b"1", b"ir_rarity.depth": b"10",
            b"ir_rarity.systems": b"runs"}
    chunk = chunk.replace_schema_metadata(meta)
    with pq.ParquetWriter(path, chunk.schema, compression="zstd") as writer:
        written = 0
        while written < rows:
            n = min(group, rows - written)
            writer.write_table(chunk.slice(0, n), row_group_size=group)
            written += n


def write_many_queries(run: Path, qrels: Path, n_queries: int) -> None:
    """One run of ``n_queries`` one-line queries (``<i> Q0 d 1 1 r``); every tenth query's document relevant."""
    with gzip.open(run, "wt", compresslevel=9) as f:
        f.writelines(f"{i} Q0 d 1 1 r\n" for i in range(n_queries))
    qrels.write_text("".join(f"{i} 0 d 1\n" for i in range(0, n_queries, 10)))


def write_many_tags(run: Path, qrels: Path, n_tags: int, n_queries: int = 100) -> None:
    """``n_tags`` runs (tags) of one line each: tag t retrieves document d<t> for query q<t % n_queries>; every
    seventh tag's document is relevant."""
    with gzip.open(run, "wt", compresslevel=9) as f:
        f.writelines(f"q{t % n_queries} Q0 d{t} 1 1 t{t}\n" for t in range(n_tags))
    qrels.write_text("".join(f"q{t % n_queries} 0 d{t} 1\n" for t in range(0, n_tags, 7)))


def main() -> None:
    """Write the hostile inputs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--parquet-rows", type=int, default=100_000_000)
    parser.add_argument("--queries", type=int, default=600_000)
    parser.add_argument("--tags", type=int, default=200_000)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    write_hostile_parquet(args.out / "hostile.parquet", args.parquet_rows)
    write_many_queries(args.out / "many_queries.run.gz", args.out / "many_queries.qrels", args.queries)
    write_many_tags(args.out / "many_tags.run.gz", args.out / "many_tags.qrels", args.tags)
    for p in sorted(args.out.iterdir()):
        print(f"{p}: {p.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
