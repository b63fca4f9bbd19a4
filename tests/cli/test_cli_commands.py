"""The ``ir-rarity`` command and the stock ``ir_measures`` command, driven as subprocesses."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import assert_cli_error, run_cli

from ir_rarity import Pool
from ir_rarity.cli import main

MEASURES = ["P_rare@2", "P_rare(alpha=0.5)@3", "AP_rare", "P@2"]
BIN = Path(sys.executable).parent


@pytest.fixture
def expected(hand_files: dict[str, Path]) -> pd.DataFrame:
    pool = Pool.from_runs([hand_files[n] for n in "ABC"])
    return pool.evaluate(hand_files["qrels"], MEASURES)


@pytest.fixture
def multi_run_file(hand_files: dict[str, Path], tmp_path: Path) -> Path:
    path = tmp_path / "all.run"
    path.write_text("".join(hand_files[n].read_text() for n in "ABC"))
    return path


@pytest.mark.slow
def test_eval_jsonl_matches_python_api(hand_files, expected):
    result = run_cli("eval", hand_files["qrels"], *(hand_files[n] for n in "ABC"), "-m", *MEASURES,
                     "--format", "jsonl", script=True)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert sorted(r["run"] for r in rows) == ["A", "B", "C"]
    firsts = [r[MEASURES[0]] for r in rows]
    assert firsts == sorted(firsts, reverse=True)
    for row in rows:
        for m in MEASURES:
            assert row[m] == pytest.approx(expected.loc[row["run"], m], abs=1e-12)


@pytest.mark.slow
def test_eval_tsv_single_file_split_by_tag(hand_files, expected, multi_run_file):
    result = run_cli("eval", hand_files["qrels"], multi_run_file, "--split-by-tag", "-m", *MEASURES, "-p", "-1")
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(io.StringIO(result.stdout), sep="\t", index_col="run")
    assert list(table.columns) == MEASURES
    pd.testing.assert_frame_equal(table.sort_index(), expected.sort_index(), check_names=False, rtol=1e-12)


def test_every_format_in_process(hand_files, expected, capsys):
    args = ["eval", str(hand_files["qrels"]), *(str(hand_files[n]) for n in "ABC"), "-m", *MEASURES]
    for fmt in ("csv", "markdown", "latex", "tsv", "jsonl"):
        assert main([*args, "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert "P_rare(alpha=0.5)@3" in out.replace(r"\_", "_")
        if fmt == "csv":
            rows = list(csv.DictReader(io.StringIO(out)))
            assert {r["run"] for r in rows} == {"A", "B", "C"}
            for r in rows:
                assert float(r["AP_rare"]) == pytest.approx(expected.loc[r["run"], "AP_rare"], abs=5e-5)
        elif fmt == "markdown":
            lines = out.splitlines()
            assert lines[0].startswith("Computed against the pool: S = 3 runs")
            assert lines[2].startswith("| run | P_rare@2") and "| --- |" in out
        elif fmt == "latex":
            # the same table float as with comparisons: the caption says what it was computed against
            assert out.startswith(r"\begin{table}") and r"\caption{Computed against the pool: S = 3 runs" in out
            assert r"\begin{tabular}" in out
            assert r"P\_rare@2" in out and out.count(r"\\") == 4


@pytest.mark.slow
def test_per_query_long_output(hand_files):
    result = run_cli("eval", hand_files["qrels"], *(hand_files[n] for n in "ABC"), "-m", "P_rare@2", "P@2", "-q",
                     "-p", "-1")
    assert result.returncode == 0, result.stderr
    got = pd.read_csv(io.StringIO(result.stdout), sep="\t", header=None,  # no header row, as ir_measures -q
                      names=["run", "query_id", "measure", "value"], dtype={"query_id": str})
    pool = Pool.from_runs([hand_files[n] for n in "ABC"])
    want = pool.evaluate(hand_files["qrels"], ["P_rare@2", "P@2"], by_query=True)
    key = ["run", "query_id", "measure"]
    per_query = got[got["query_id"] != "all"]
    merged = per_query.merge(want, on=key, suffixes=("", "_api"))
    assert len(merged) == len(want) == len(per_query)
    assert (merged["value"] - merged["value_api"]).abs().max() < 1e-12
    means = pool.evaluate(hand_files["qrels"], ["P_rare@2", "P@2"])  # then each run's means, as query "all"
    summary = got[got["query_id"] == "all"].pivot(index="run", columns="measure", values="value")
    assert (summary[means.columns] - means).abs().max().max() < 1e-12


def test_pool_only_runs_are_counted_not_scored(hand_files, expected, capsys):
    assert main(["eval", str(hand_files["qrels"]), str(hand_files["A"]), "--pool", str(hand_files["B"]),
                 str(hand_files["C"]), "-m", *MEASURES, "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]  # one run: as ir_measures prints
    assert [r["measure"] for r in rows] == list(MEASURES)
    for row in rows:
        assert row["value"] == pytest.approx(expected.loc["A", row["measure"]], abs=1e-12)


def test_depth_and_teams(hand_files, tmp_path, capsys):
    teams = tmp_path / "teams.csv"
    teams.write_text("run,team,group\nA,t1,g\nB,t1,g\nC,t2,g\n")
    runs = [str(hand_files[n]) for n in "ABC"]
    assert main(["eval", str(hand_files["qrels"]), *runs, "-m", "P_rare@3", "--depth", "1", "--teams", str(teams),
                 "--format", "jsonl"]) == 0
    rows = {r["run"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    pool = Pool.from_runs(runs, teams={"A": "t1", "B": "t1", "C": "t2"})
    want = pool.evaluate(hand_files["qrels"], ["P_rare(depth=1)@3"])
    for name in "ABC":
        # --depth rewrites the measure; its column stays the text given
        assert rows[name]["P_rare@3"] == pytest.approx(want.loc[name, "P_rare(depth=1)@3"], abs=1e-12)
    assert main(["eval", str(hand_files["qrels"]), *runs, "-m", "P_rare@3", "--teams", f"{teams}:group",
                 "--format", "jsonl"]) == 0
    one_team = Pool.from_runs(runs, teams=dict.fromkeys("ABC", "g")).evaluate(hand_files["qrels"], ["P_rare@3"])
    for row in map(json.loads, capsys.readouterr().out.splitlines()):
        assert row["P_rare@3"] == pytest.approx(one_team.loc[row["run"], "P_rare@3"], abs=1e-12)


@pytest.mark.slow
def test_errors_are_one_line_exit_2(hand_files, tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 1.0 X\nq1 Q0 d2 2 notanumber X\n")
    qrels, a = hand_files["qrels"], hand_files["A"]
    assert_cli_error(run_cli("eval", qrels, tmp_path / "missing.run", "-m", "P@2"), "missing.run")
    assert_cli_error(run_cli("eval", qrels, a, "-m", "Nonsense@3"), "Nonsense@3")
    assert_cli_error(run_cli("eval", qrels, a, "-m", "P_rare(alpha=-1)@3"), "alpha")
    assert_cli_error(run_cli("eval", qrels, bad, "-m", "P@2"), "bad.run:2")


def test_output_is_atomic_and_refuses_inputs(hand_files, tmp_path, capsys):
    out = tmp_path / "table.tsv"
    args = ["eval", str(hand_files["qrels"]), *(str(hand_files[n]) for n in "ABC"), "-m", "P_rare@2"]
    assert main([*args, "--output", str(out)]) == 0
    assert capsys.readouterr().out == ""
    assert out.read_text().startswith("run\tP_rare@2\n")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left
    before = hand_files["A"].read_text()
    assert main([*args, "--output", str(hand_files["A"])]) == 2
    assert "refusing to write --output there: it is an input file" in capsys.readouterr().err
    assert hand_files["A"].read_text() == before
    result = run_cli("eval", hand_files["qrels"], tmp_path / "*", "-m", "P@2", "--output", hand_files["qrels"])
    assert_cli_error(result, "refusing")


def test_pool_export(hand_files, tmp_path):
    runs = [hand_files[n] for n in "ABC"]
    counts, judging = tmp_path / "counts.csv", tmp_path / "judge.parquet"
    result = run_cli("pool", *runs, "--depth", "2", "--out", counts, "--judging-pool", judging)
    assert result.returncode == 0, result.stderr
    pool = Pool.from_runs(runs)
    got = pd.read_csv(counts, dtype={"query_id": str, "doc_id": str})
    pd.testing.assert_frame_equal(got, pool.counts(2), check_dtype=False)
    jp = pd.read_parquet(judging)
    assert list(jp.columns) == ["query_id", "doc_id", "n_runs"]
    top2 = pd.concat([pool.run(n).query("rank <= 2") for n in pool.names])
    assert len(jp) == len(top2.drop_duplicates(["query_id", "doc_id"]))
    assert int(jp["n_runs"].sum()) == len(top2)
    assert_cli_error(run_cli("pool", *runs, "--out", tmp_path / "x.txt"), ".csv or .parquet")


@pytest.mark.slow
def test_meta_command(hand_files, tmp_path):
    runs = [hand_files[n] for n in "ABC"]
    try:
        import ir_rarity.meta.summary  # noqa: F401
    except ImportError:
        assert_cli_error(run_cli("meta", hand_files["qrels"], *runs, "--out", tmp_path / "rep"), "not available")
    else:
        result = run_cli("meta", hand_files["qrels"], *runs, "--out", tmp_path / "rep", "--cutoff", "3",
                         "--trials", "5", "--no-plots")
        assert result.returncode == 0, result.stderr
        assert (tmp_path / "rep" / "report.md").exists()


@pytest.mark.slow
def test_demo_runs():
    result = run_cli("demo", "--top", "5")
    assert result.returncode == 0, result.stderr
    assert "143 runs" in result.stdout and "moves up most" in result.stdout
    assert "P_rare(alpha=0.5)@100" in result.stdout


# ------------------------------------------------------------------ the stock ir_measures command
def test_startup_hook_is_light_and_registers():
    code = "import sys; print(any(m in sys.modules for m in ('numpy', 'pandas', 'ir_rarity')))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"
    code = "import ir_measures; print('P_rare' in ir_measures.measures.registry)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "True"


@pytest.mark.slow
def test_stock_ir_measures_command(hand_files):
    runs = [hand_files[n] for n in "ABC"]
    folder = str(runs[0].parent / "[ABC]")
    want = Pool.from_runs(folder).evaluate(hand_files["qrels"], ["P_rare(alpha=0.5)@3", "AP_rare", "P@2"])
    ir_measures = str(BIN / "ir_measures")
    measures = ["P_rare(alpha=0.5)@3", "AP_rare", "P@2"]
    with_env = subprocess.run([ir_measures, str(hand_files["qrels"]), str(hand_files["B"]), *measures, "-p", "10"],
                              capture_output=True, text=True, env={**os.environ, "IR_RARITY_POOL": folder})
    assert with_env.returncode == 0, with_env.stderr
    got = dict(line.split("\t") for line in with_env.stdout.splitlines())
    for m in measures:
        assert float(got[m]) == pytest.approx(want.loc["B", m], abs=1e-9)
    param = f"P_rare(alpha=0.5,pool='{folder}')@3"
    env = {k: v for k, v in os.environ.items() if k != "IR_RARITY_POOL"}
    with_param = subprocess.run([ir_measures, str(hand_files["qrels"]), str(hand_files["B"]), param, "-p", "10"],
                                capture_output=True, text=True, env=env)
    assert with_param.returncode == 0, with_param.stderr
    assert float(with_param.stdout.split("\t")[1]) == pytest.approx(want.loc["B", "P_rare(alpha=0.5)@3"], abs=1e-9)
    no_pool = subprocess.run([ir_measures, str(hand_files["qrels"]), str(hand_files["B"]), "AP_rare"],
                             capture_output=True, text=True, env=env)
    assert no_pool.returncode != 0 and "IR_RARITY_POOL" in no_pool.stderr and "pool=" in no_pool.stderr


def test_flags_mean_what_they_mean_in_ir_measures(hand_files: dict, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """-o picks the format, -q prints per-query rows (no header) and then 'all' rows, -n drops those."""
    args = ["eval", str(hand_files["qrels"]), str(hand_files["A"]), "-m", "P@2", "P@1"]
    assert main([*args, "-o", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["measure"] for row in rows] == ["P@2", "P@1"] and all(set(row) == {"measure", "value"} for row in rows)
    assert main([*args, "-q"]) == 0
    lines = capsys.readouterr().out.splitlines()  # one run: query_id, measure, value (as ir_measures -q)
    assert all(len(line.split("\t")) == 3 for line in lines) and "query_id" not in lines[0]
    summary = [line.split("\t") for line in lines if line.split("\t")[0] == "all"]
    assert [row[1] for row in summary] == ["P@2", "P@1"]
    assert main([*args, "-q", "-n"]) == 0
    assert all(line.split("\t")[0] != "all" for line in capsys.readouterr().out.splitlines())
    old = tmp_path / "jsonl-file"
    assert main([*args, "-o", str(old)]) == 2  # -o takes a format only: a file is --output FILE
    assert not old.exists() and "write to a file with --output FILE" in capsys.readouterr().err
    assert main([*args, "-o", "yaml", "--output", str(tmp_path / "x")]) == 2
    assert "-o/--format takes a format" in capsys.readouterr().err
