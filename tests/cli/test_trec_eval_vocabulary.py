"""``ir-rarity eval`` with trec_eval's names and flags gives trec_eval 10.0's values.

Every expected number below was printed by trec_eval 10.0 (usnistgov/trec_eval commit f4253652, built with
``make``; see tests/data/trec_eval_10/README.md) on the embedded TREC-COVID round-1 qrels and three of its runs,
one file per run, with::

    trec_eval [FLAGS] -m P.10 -m map -m ndcg_cut.10 -m recip_rank qrels.txt RUN

The numbers are written here; the binary is not needed to run the tests. trec_eval prints 4 decimals, so each
value must agree to half a unit in the last place.
"""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from ir_rarity.cli import main
from ir_rarity.data import covid_round1

RUNS = ("BBGhelani1", "run1", "RUIR-doc2vec")
MEASURES = ("P.10", "map", "ndcg_cut.10", "recip_rank")

# trec_eval 10.0, "all" rows: run -> (P_10, map, ndcg_cut_10, recip_rank), per set of flags
TREC_EVAL_10 = {
    (): {"BBGhelani1": (0.7433, 0.2548, 0.6689, 0.8667), "run1": (0.7067, 0.2351, 0.6844, 0.9278),
         "RUIR-doc2vec": (0.1600, 0.0668, 0.1315, 0.3542)},
    ("-J",): {"BBGhelani1": (0.7933, 0.3151, 0.6952, 0.8667), "run1": (0.7533, 0.2827, 0.7086, 0.9278),
              "RUIR-doc2vec": (0.4467, 0.1179, 0.3578, 0.7075)},
    ("-l", "2"): {"BBGhelani1": (0.5433, 0.2637, 0.6689, 0.7520), "run1": (0.5867, 0.2775, 0.6844, 0.8431),
                  "RUIR-doc2vec": (0.0867, 0.0423, 0.1315, 0.2081)},
    ("-M", "50"): {"BBGhelani1": (0.7433, 0.2223, 0.6689, 0.8667), "run1": (0.7067, 0.2032, 0.6844, 0.9278),
                   "RUIR-doc2vec": (0.1600, 0.0498, 0.1315, 0.3536)},
    ("-J", "-l", "2", "-M", "50"): {"BBGhelani1": (0.5733, 0.2664, 0.6952, 0.7520),
                                    "run1": (0.6133, 0.2751, 0.7086, 0.8431),
                                    "RUIR-doc2vec": (0.2000, 0.0512, 0.3173, 0.3989)},
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The embedded qrels and the three runs, one plain file each (named by the run, as trec_eval is given them)."""
    folder = tmp_path_factory.mktemp("round1")
    lines = gzip.decompress(covid_round1.runs.read_bytes()).decode().splitlines(keepends=True)
    out = {"qrels": folder / "qrels.txt"}
    out["qrels"].write_bytes(gzip.decompress(covid_round1.qrels.read_bytes()))
    for run in RUNS:
        out[run] = folder / run
        out[run].write_text("".join(line for line in lines if line.split()[5] == run))
    return out


def _eval(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[pd.DataFrame, str]:
    """``ir-rarity eval ARGS`` in this process: the table it prints (run x measure) and its stderr."""
    capsys.readouterr()
    status = main(["eval", *map(str, args)])
    out, err = capsys.readouterr()
    assert status == 0, err
    return pd.read_csv(io.StringIO(out), sep="\t", comment="#", index_col=0), err


@pytest.mark.parametrize("flags", list(TREC_EVAL_10), ids=lambda f: " ".join(f) or "none")
def test_trec_eval_names_and_flags_equal_trec_eval_10(files: dict[str, Path], capsys: pytest.CaptureFixture[str],
                                                       flags: tuple[str, ...]) -> None:
    table, err = _eval(capsys, files["qrels"], *(files[r] for r in RUNS), *flags, "-m", *MEASURES,
                       "--trec-eval-10")
    assert list(table.columns) == list(MEASURES)  # printed under the names given
    assert sorted(table.index) == sorted(RUNS)
    for run, expected in TREC_EVAL_10[flags].items():
        assert table.loc[run].to_numpy() == pytest.approx(expected, abs=5e-5 + 1e-12), (run, flags)
    if flags:
        assert "ir-rarity: note: as trec_eval -" in err


def test_flags_change_what_they_should(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """A control on the numbers above: each flag changes some value (the tests could not pass by ignoring it)."""
    plain = TREC_EVAL_10[()]
    for flags in (("-J",), ("-l", "2"), ("-M", "50")):
        assert any(TREC_EVAL_10[flags][r] != plain[r] for r in RUNS)
    # -l leaves nDCG alone (its gains are the labels), in trec_eval and here
    assert all(TREC_EVAL_10[("-l", "2")][r][2] == plain[r][2] for r in RUNS)


def test_c_is_the_default(files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run answering queries 11-30 only: ``trec_eval -c`` gives P_10 0.4667 and map 0.1710 (the 10 missing
    queries count 0); trec_eval 10.0 without -c stops ("result qid '1' not found"). Here both ways give -c's."""
    partial = tmp_path / "run1_q11"
    partial.write_text("".join(line for line in files["run1"].read_text().splitlines(keepends=True)
                               if int(line.split()[0]) > 10))
    for flags in ((), ("-c",), ("--complete_rel_info_wanted",)):
        table, _ = _eval(capsys, files["qrels"], partial, files["BBGhelani1"], *flags, "-m", "P.10", "map",
                         "--trec-eval-10")
        assert table.loc["run1_q11", "P.10"] == pytest.approx(0.4667, abs=5e-5)
        assert table.loc["run1_q11", "map"] == pytest.approx(0.1710, abs=5e-5)


def test_measure_lists_and_groups(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """``P.5,10`` gives two columns named as given; ``all_trec`` every measure ir_measures supports, named as
    trec_eval prints them, stdout holding the table only (the unsupported ones named on stderr)."""
    table, _ = _eval(capsys, files["qrels"], files["run1"], files["BBGhelani1"], "-m", "P_5,10", "P.10",
                     "--trec-eval-10")
    assert list(table.columns) == ["P_5", "P_10"]  # P.10 is P@10 again: kept once, under its first name
    assert table.loc["run1", "P_10"] == pytest.approx(0.7067, abs=5e-5)
    table, err = _eval(capsys, files["qrels"], files["run1"], files["BBGhelani1"], "-m", "all_trec",
                       "--trec-eval-10")
    rows = table.loc["run1"]
    # trec_eval 10.0 -m all_trec on run1
    expected = {"Rprec": 0.3152, "bpref": 0.3219, "infAP": 0.2351, "map_cut_10": 0.0936, "ndcg": 0.4435,
                "num_rel_ret": 760, "recall_100": 0.3652, "set_F": 0.2810, "success_1": 0.8667, "P_1000": 0.0253}
    for name, value in expected.items():
        assert float(rows[name]) == pytest.approx(value, abs=5e-5), name
    assert len(rows) == 65 and sorted(table.index) == ["BBGhelani1", "run1"]  # nothing but the table on stdout
    assert "gm_map" in err and "not supported by ir_measures" in err


def test_unsupported_and_bad_values_are_one_line(files: dict[str, Path], capsys: pytest.CaptureFixture[str]
                                                 ) -> None:
    for args, word in ((["-m", "gm_map"], "gm_map"), (["-m", "P.10", "-M", "0"], "-M 0"),
                       (["-m", "nonsense_cut.3"], "cannot parse measure")):
        capsys.readouterr()
        assert main(["eval", str(files["qrels"]), str(files["run1"]), *args]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("ir-rarity: error: ") and word in err[0], err


def test_n_is_trec_evals_nosummary(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """trec_eval's -n (--nosummary) drops the 'all' rows of -q: the same as this command's -n."""
    for flag in ("", "-n", "--nosummary", "--no-summary"):
        capsys.readouterr()
        assert main(["eval", str(files["qrels"]), str(files["run1"]), "-m", "P.10", "-q", *([flag] if flag else [])
                     ]) == 0
        out = [line.split("\t") for line in capsys.readouterr().out.splitlines()
               if line and not line.startswith("#") and not line.startswith("run\t")]
        queries = [fields[-3] for fields in out]  # (run,) query, measure, value
        assert queries.count("all") == (0 if flag else 1) and len(queries) == 30 + (0 if flag else 1), flag


def test_n_without_q_is_refused_as_ir_measures_refuses_it(files: dict[str, Path], tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """-n drops the 'all' rows of -q; alone it asked for nothing this command prints: one line, nothing on stdout.

    ir_measures' own command refuses it too (run here as the independent reference); trec_eval 10.0 prints nothing.
    """
    reference = subprocess.run([sys.executable, "-m", "ir_measures", str(files["qrels"]), str(files["run1"]), "P@10",
                                "-n"], capture_output=True, text=True, timeout=120,
                               env={**os.environ, "IR_RARITY_NO_HOOK": "1"})
    assert reference.returncode != 0 and reference.stdout == ""
    for flag in ("-n", "--nosummary", "--no-summary"):
        capsys.readouterr()
        assert main(["eval", str(files["qrels"]), str(files["run1"]), "-m", "P.10", flag]) == 2
        captured = capsys.readouterr()
        err = captured.err.strip().splitlines()
        assert captured.out == "" and len(err) == 1 and err[0].startswith("ir-rarity: error: -n"), err
