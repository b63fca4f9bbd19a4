"""S_d count tables: parquet round trip, evaluation against them, and the DuckDB recipe equal to the pool."""

from __future__ import annotations

import gzip
from pathlib import Path

import ir_measures
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import InputError, ParameterError, Pool
from ir_rarity.pool.counts import CountTable, duckdb_counts_sql

MEASURES = ["P_rare(alpha=0.5)@100", "AP_rare@100", "AP_rare(bounded=True)@100"]


def test_parquet_round_trip_and_members_score_their_campaign_values(covid_pool: Pool, covid_qrels: pd.DataFrame,
                                                                     tmp_path: Path) -> None:
    path = tmp_path / "counts.parquet"
    CountTable.from_pool(covid_pool, depth=100).to_parquet(path)
    table = CountTable.read_parquet(path)
    assert (table.num_systems, table.depth, table.systems) == (143, 100, "runs")
    pd.testing.assert_frame_equal(table.to_frame(), covid_pool.counts(100))
    names = covid_pool.names[:12]
    expected = covid_pool.evaluate(covid_qrels, MEASURES).loc[names]
    got = table.evaluate(covid_qrels, MEASURES, {n: covid_pool.run(n) for n in names})
    pd.testing.assert_frame_equal(got, expected, check_exact=False, atol=1e-12, rtol=0, check_names=False)
    with table:  # also as the active context of plain ir_measures
        m = ir_measures.parse_measure("P_rare(alpha=0.5)@100")
        value = ir_measures.calc_aggregate([m], covid_qrels, covid_pool.run(names[0]))[m]
    assert value == pytest.approx(expected.iloc[0, 0], abs=1e-12)


def test_newcomers_against_a_count_table(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    newcomer = covid_pool.run("BERT").groupby("query_id").head(60)
    table = CountTable.from_pool(covid_pool, depth=100)
    table.assume_members = False
    got = table.evaluate(covid_qrels, ["P_rare@100"], {"new": newcomer}).loc["new", "P_rare@100"]
    with covid_pool:  # the pool knows it is not a member and scores it as joining: the same number
        expected = ir_measures.calc_aggregate([ir_measures.parse_measure("P_rare@100")], covid_qrels, newcomer)
    assert got == pytest.approx(next(iter(expected.values())), abs=1e-12)


def test_count_table_errors(covid_pool: Pool, covid_qrels: pd.DataFrame, tmp_path: Path) -> None:
    table = CountTable.from_pool(covid_pool, depth=100)
    with pytest.raises(ParameterError, match="counted at depth 100"):
        table.evaluate(covid_qrels, ["P_rare@10"], {"BERT": covid_pool.run("BERT")})
    # standard measures do not depend on the campaign: computed by ir_measures on the given runs
    standard = table.evaluate(covid_qrels, ["P@10"], {"BERT": covid_pool.run("BERT")})
    assert standard.loc["BERT", "P@10"] == covid_pool.evaluate(covid_qrels, ["P@10"]).loc["BERT", "P@10"]
    other = tmp_path / "other.parquet"
    pd.DataFrame({"a": [1]}).to_parquet(other)
    with pytest.raises(InputError, match="not an ir_rarity count table"):
        CountTable.read_parquet(other)
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not parquet at all")
    with pytest.raises(InputError, match=r"junk\.parquet"):
        CountTable.read_parquet(junk)
    with pytest.raises(InputError, match=r"S_d must be whole numbers in \[1, S = 3\]"):
        CountTable(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "S_d": [4]}), num_systems=3, depth=10)


@pytest.mark.parametrize("depth", [100, 10, None])
def test_duckdb_recipe_equals_builtin_counts_one_file(covid_pool: Pool, depth: int | None) -> None:
    duckdb = pytest.importorskip("duckdb")
    sql = duckdb_counts_sql(depth, run_from="tag")
    table = duckdb.connect().execute(sql, [str(ir_rarity.covid_round1.runs)]).df()
    table = table.astype({"query_id": str, "doc_id": str, "S_d": "int64"})
    pd.testing.assert_frame_equal(table, covid_pool.counts(depth), check_dtype=False)


def test_duckdb_recipe_over_a_folder_of_run_files(covid_pool: Pool, tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    names = covid_pool.names[:7]
    for name in names:  # one gzip file per run, tab separated, rank column shuffled (it must be ignored)
        run = covid_pool.run(name).sample(frac=1.0, random_state=0)
        lines = [f"{r.query_id}\tQ0\t{r.doc_id}\t{i}\t{r.score!r}\tx\n" for i, r in enumerate(run.itertuples())]
        with gzip.open(tmp_path / f"{name}.gz", "wt") as f:
            f.writelines(lines)
    table = duckdb.connect().execute(duckdb_counts_sql(50, "filename"), [str(tmp_path / "*.gz")]).df()
    expected = covid_pool.subset(names).counts(50)
    pd.testing.assert_frame_equal(table.astype({"query_id": str, "doc_id": str, "S_d": "int64"}), expected,
                                  check_dtype=False)


@pytest.mark.slow
def test_cli_pool_export_loads_as_a_count_table(tmp_path: Path) -> None:
    import subprocess
    import sys

    out = tmp_path / "counts.parquet"
    done = subprocess.run([sys.executable, "-m", "ir_rarity", "pool", str(ir_rarity.covid_round1.runs),
                           "--split-by-tag", "--depth", "100", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    table = CountTable.read_parquet(out)
    assert (table.num_systems, table.depth) == (143, 100) and len(table.to_frame()) > 0
