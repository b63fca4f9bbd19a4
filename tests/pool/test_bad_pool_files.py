"""Hostile or malformed saved pools and S_d count tables are refused with ir_rarity's own errors."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_helpers import assert_cli_error, run_cli

from ir_rarity import CountTable, InputError, ParameterError, Pool


def test_a_saved_pool_declaring_a_huge_array_is_refused_before_allocation(tmp_path: Path,
                                                                         files: dict[str, Path]) -> None:
    good = tmp_path / "good.npz"
    Pool.from_runs(files["run"]).save(good)
    hostile = tmp_path / "hostile.npz"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(hostile, "w") as dst:
        for member in src.infolist():
            data = src.read(member)
            if member.filename == "score.npy":  # claim 2**40 float64 scores in a member of a few bytes
                header = io.BytesIO()  # magic and header of a 2**40-element array, then 8 bytes
                np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                              "shape": (1 << 40,)})
                data = header.getvalue() + b"\0" * 8
            dst.writestr(member, data)
    with pytest.raises(InputError, match=r"hostile\.npz: damaged pool file \(member 'score.npy' declares"):
        Pool.load(hostile)
    assert_cli_error(run_cli("eval", files["qrels"], files["run"], "--pool", hostile, "-m", "P_rare@1"),
                     "hostile.npz", "declares")


def test_not_a_pool_file(tmp_path: Path, files: dict[str, Path]) -> None:
    npy = tmp_path / "array.npy"
    np.save(npy, np.arange(3))
    text = tmp_path / "text.npz"
    text.write_text("hello")
    for path in (npy, text):
        with pytest.raises(InputError, match="not an ir_rarity pool file"):
            Pool.load(path)


def test_bad_count_tables(tmp_path: Path) -> None:
    frame = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "S_d": [1.5]})
    with pytest.raises(InputError, match="whole numbers"):
        CountTable(frame, num_systems=3, depth=10)
    with pytest.raises(ParameterError, match="depth must be a positive integer"):
        CountTable(frame.assign(S_d=1), num_systems=3, depth=0)
    path = tmp_path / "counts.parquet"
    CountTable(frame.assign(S_d=1), num_systems=3, depth=10).to_parquet(path)
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    meta = {**table.schema.metadata, b"ir_rarity.depth": b"0"}
    pq.write_table(table.replace_schema_metadata(meta), tmp_path / "zero.parquet")
    with pytest.raises(InputError, match=r"zero\.parquet: depth must be a positive integer"):
        CountTable.read_parquet(tmp_path / "zero.parquet")
