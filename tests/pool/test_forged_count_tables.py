"""Count tables whose S_d contradicts S or the members' fingerprints, or that declare more rows than their size
can hold, are refused on load with one line naming the file and the invariant."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scripts import load_script

from ir_rarity import CountTable, InputError, Pool
from ir_rarity.pool.counts import MAX_ROWS_PER_BYTE, ROWS_ALLOWANCE


def _bench() -> ModuleType:
    return load_script("bench/make_hostile.py")


@pytest.fixture
def good(hand_pool: Pool, tmp_path: Path) -> Path:
    path = tmp_path / "good.parquet"
    CountTable.from_pool(hand_pool, depth=2).to_parquet(path)
    return path


def _forge(good: Path, out: Path, rows: Any = None, meta: dict[str, str] | None = None) -> Path:
    """``good`` with its rows replaced by ``rows(table)`` and metadata keys overridden by ``meta``."""
    table = pq.read_table(good)
    if rows is not None:
        table = rows(table).replace_schema_metadata(table.schema.metadata)
    if meta:
        table = table.replace_schema_metadata({**table.schema.metadata, **{
            f"ir_rarity.{k}".encode(): v.encode() for k, v in meta.items()}})
    pq.write_table(table, out)
    return out


def _set_s_d(value: int, row: int = 0) -> Any:
    def change(table: pa.Table) -> pa.Table:
        s_d = table.column("S_d").to_pylist()
        s_d[row] = value
        return table.set_column(2, "S_d", pa.array(s_d, type=pa.int64()))
    return change


def test_the_good_table_loads(good: Path, hand_pool: Pool) -> None:
    table = CountTable.read_parquet(good)
    assert table.num_systems == 3 and table.n_runs == 3 and len(table.members) == 3
    # S_d at depth 2 by hand: A q1 d1 d2, q2 d1; B q1 d2 d4; C q1 d3 d2 (9.0 tie: docno descending), q2 x.
    assert table.to_frame().S_d.tolist() == [1, 3, 1, 1, 1, 1]  # q1 d1 d2 d3 d4, q2 d1 x
    assert sum(n for n, _ in table.members.values()) == 8 == sum(table.to_frame().S_d)


@pytest.mark.parametrize(("name", "forge", "invariant"), [
    ("a member's document at S_d = 0", dict(rows=_set_s_d(0)), r"S_d must be whole numbers in \[1, S = 3\], found 0"),
    ("S_d above S", dict(rows=_set_s_d(4)), r"S_d must be whole numbers in \[1, S = 3\], found 4"),
    ("a member's row removed", dict(rows=lambda t: t.slice(1)),
     r"the S_d column sums to 7 but the members hold 8 rows"),
    ("S_d raised within [1, S]", dict(rows=_set_s_d(2, 2)), r"the S_d column sums to 9 but the members hold 8 rows"),
    ("S below the runs counted", dict(meta={"num_systems": "2"}), r"S_d must be whole numbers in \[1, S = 2\]"),
    ("S below the runs (S_d fits)", dict(meta={"num_systems": "2"}, rows=_set_s_d(2, 1)),
     r"3 runs counted as S = 2 runs"),
    ("runs counted below S", dict(meta={"runs": "2"}), r"2 runs counted as S = 3 runs"),
    ("a member's fingerprint dropped", dict(meta={"members": json.dumps([["A", 3, "0"], ["B", 2, "0"]]),
                                                  "runs": ""}),
     r"2 runs counted as S = 3 runs"),
    ("teams: more S_d than member rows", dict(meta={"systems": "teams"}, rows=_set_s_d(3, 2)),
     r"the S_d column sums to 10 but the members hold 8 rows"),
])
def test_a_forged_count_table_is_refused(name: str, forge: dict[str, Any], invariant: str, good: Path,
                                         tmp_path: Path) -> None:
    path = _forge(good, tmp_path / "forged.parquet", **forge)
    with pytest.raises(InputError) as caught:
        CountTable.read_parquet(path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}: "), message
    assert re.search(invariant, message), message


def test_a_small_parquet_declaring_millions_of_rows_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "hostile.parquet"
    rows = 4 * ROWS_ALLOWANCE
    _bench().write_hostile_parquet(path, rows)
    size = path.stat().st_size
    assert rows > MAX_ROWS_PER_BYTE * size + ROWS_ALLOWANCE  # the file is small, its rows many
    with pytest.raises(InputError, match=rf"hostile\.parquet: count table declares {rows:,} rows in {size:,} bytes"):
        CountTable.read_parquet(path)
