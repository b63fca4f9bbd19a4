"""Scripts written for the ``ir_measures`` command's output run unchanged on ``ir-rarity eval``'s standard output.

The reference output is made in the test by the real ``ir_measures`` command (ir_measures' own CLI, through
pytrec_eval) on runs of the embedded TREC-COVID round 1; the scripts are what a user of ir_measures writes:
``pandas.read_csv(sep="\\t", header=None, names=[...])``, ``pandas.read_json(lines=True)``, ``cut -f``, ``sort``, a
jq-like selection in Python. By default standard output carries the table alone (no ``#`` line, no provenance
object, no header row that ir_measures does not print); provenance goes to ``--metadata`` or, with
``--provenance``, in-band.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import run_cli

from ir_rarity.cli import main
from ir_rarity.data import covid_round1

BIN = Path(sys.executable).parent
MEASURES = ["P@10", "AP", "nDCG@10", "R@100"]
RUNS = ("BERT", "BBGhelani1", "10x20.prf.unipd.it")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The round-1 qrels and three runs of the embedded file, each run a file of its own."""
    root = tmp_path_factory.mktemp("streams")
    qrels = root / "qrels.txt"
    qrels.write_bytes(gzip.decompress(Path(covid_round1.qrels).read_bytes()))
    lines: dict[str, list[str]] = {tag: [] for tag in RUNS}
    with gzip.open(covid_round1.runs, "rt") as f:
        for line in f:
            tag = line.split()[5]
            if tag in lines:
                lines[tag].append(line)
    out = {"qrels": qrels}
    for tag, text in lines.items():
        assert text, tag
        (root / tag).write_text("".join(text))
        out[tag] = root / tag
    return out


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("IR_RARITY_NO_PROVENANCE", "IR_RARITY_POOL")}
    return {**env, "IR_RARITY_NO_HOOK": "1"}


def _ir_measures(*args: object) -> str:
    done = subprocess.run([str(BIN / "ir_measures"), *map(str, args)], capture_output=True, text=True, timeout=120,
                          env=_env(), check=True)
    return done.stdout


def _ours(*args: object) -> str:
    done = run_cli("eval", *args, env={"IR_RARITY_NO_PROVENANCE": "0"})  # the default, whatever conftest sets
    assert done.returncode == 0, done.stderr
    return done.stdout


def _read_tsv(text: str, names: list[str]) -> pd.DataFrame:
    """The script a user of ``ir_measures`` writes for its tsv."""
    return pd.read_csv(io.StringIO(text), sep="\t", header=None, names=names, dtype={"query_id": str})


@pytest.mark.slow
def test_one_run_summary_tsv_reads_as_ir_measures_output(files: dict[str, Path]) -> None:
    theirs = _ir_measures(files["qrels"], files["BERT"], *MEASURES)
    ours = _ours(files["qrels"], files["BERT"], "-m", *MEASURES)
    assert "#" not in ours
    a, b = _read_tsv(theirs, ["measure", "value"]), _read_tsv(ours, ["measure", "value"])
    assert list(b.columns) == list(a.columns) and b["measure"].tolist() == a["measure"].tolist() == MEASURES
    assert b["value"].dtype == a["value"].dtype == float
    assert (b["value"] - a["value"]).abs().max() <= 1e-4 + 1e-12  # both printed with 4 decimals
    assert [line.split("\t")[0] for line in ours.splitlines()] == [  # cut -f1
        line.split("\t")[0] for line in theirs.splitlines()]


@pytest.mark.slow
def test_one_run_per_query_tsv_reads_as_ir_measures_output(files: dict[str, Path]) -> None:
    theirs = _ir_measures(files["qrels"], files["BBGhelani1"], *MEASURES, "-q", "-p", "6")
    ours = _ours(files["qrels"], files["BBGhelani1"], "-m", *MEASURES, "-q", "-p", "6")
    assert not ours.startswith("query_id") and "#" not in ours  # no header row, no comment
    names = ["query_id", "measure", "value"]
    a, b = _read_tsv(theirs, names), _read_tsv(ours, names)
    assert len(a) == len(b) == 31 * len(MEASURES)  # 30 topics and "all", per measure
    merged = a.merge(b, on=["query_id", "measure"], suffixes=("_theirs", "_ours"), validate="one_to_one")
    assert len(merged) == len(a)
    assert (merged["value_theirs"] - merged["value_ours"]).abs().max() <= 1e-6 + 1e-12
    assert b["query_id"].tolist() == a["query_id"].tolist()  # query after query, its measures together
    key = sorted(line.rsplit("\t", 1)[0] for line in theirs.splitlines())  # sort, then cut -f1,2
    assert sorted(line.rsplit("\t", 1)[0] for line in ours.splitlines()) == key
    summary = b[b["query_id"] == "all"].set_index("measure")["value"]  # the 'all' rows, as ir_measures -q
    assert summary.index.tolist() == MEASURES


@pytest.mark.slow
def test_jsonl_reads_as_ir_measures_output(files: dict[str, Path]) -> None:
    for extra in ([], ["-q"]):
        theirs = _ir_measures(files["qrels"], files["BERT"], *MEASURES, "-o", "jsonl", *extra)
        ours = _ours(files["qrels"], files["BERT"], "-m", *MEASURES, "-o", "jsonl", *extra)
        a, b = pd.read_json(io.StringIO(theirs), lines=True), pd.read_json(io.StringIO(ours), lines=True)
        assert list(b.columns) == list(a.columns) and len(b) == len(a)
        key = ["query_id", "measure"] if extra else ["measure"]
        merged = a.astype({k: str for k in key}).merge(b.astype({k: str for k in key}), on=key, validate="1:1")
        assert len(merged) == len(a)
        assert (merged["value_x"] - merged["value_y"]).abs().max() < 1e-12  # full precision in jsonl
        # jq -r 'select(.measure == "AP") | .value', in Python
        selected = [json.loads(line)["value"] for line in ours.splitlines() if json.loads(line)["measure"] == "AP"]
        assert len(selected) == (31 if extra else 1)
        assert all("provenance" not in json.loads(line) for line in ours.splitlines())


@pytest.mark.slow
def test_several_runs_per_query_put_the_run_first_and_no_header(files: dict[str, Path]) -> None:
    runs = [files[tag] for tag in RUNS]
    ours = _ours(files["qrels"], *runs, "-m", *MEASURES, "-q", "-p", "6")
    table = _read_tsv(ours, ["run", "query_id", "measure", "value"])
    assert set(table["run"]) == set(RUNS) and "run" not in set(table["run"])
    for tag in RUNS:  # each run's rows, less the run column, are ir_measures' output for that run
        theirs = _read_tsv(_ir_measures(files["qrels"], files[tag], *MEASURES, "-q", "-p", "6"),
                           ["query_id", "measure", "value"])
        mine = table[table["run"] == tag].drop(columns="run")
        merged = theirs.merge(mine, on=["query_id", "measure"], validate="1:1")
        assert len(merged) == len(theirs) == len(mine)
        assert (merged["value_x"] - merged["value_y"]).abs().max() <= 1e-6 + 1e-12


def test_provenance_only_where_asked_or_where_readers_skip_it(hand_files: dict[str, Path], tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IR_RARITY_NO_PROVENANCE", raising=False)
    args = ["eval", str(hand_files["qrels"]), str(hand_files["A"]), str(hand_files["B"]), "-m", "P@2"]

    def out(*extra: object) -> str:
        assert main([*args, *map(str, extra)]) == 0
        return capsys.readouterr().out

    assert out().startswith("run\tP@2\n")  # the table alone
    assert out("--provenance").startswith("# produced_by: ")
    assert "provenance" in json.loads(out("-o", "jsonl", "--provenance").splitlines()[0])
    for fmt, mark in (("tsv", None), ("csv", None), ("jsonl", None), ("markdown", "<!-- ir_rarity provenance"),
                      ("html", "<!-- ir_rarity provenance"), ("latex", "% produced_by: ")):
        path = tmp_path / f"table.{fmt}"
        out("-o", fmt, "--output", path)
        text = path.read_text()
        if mark is None:  # pandas, cut, jq skip no comment: the file holds the table alone
            assert "produced_by" not in text and text.startswith(("run", '{"run"'))
        else:  # renderers skip an HTML comment, TeX a % line
            assert text.startswith(mark)
    assert main([*args, "--no-provenance"]) == 0  # deprecated: accepted, does nothing, says so
    done = capsys.readouterr()
    assert done.out.startswith("run\tP@2\n")
    assert "ir-rarity: note: --no-provenance is deprecated and does nothing" in done.err
