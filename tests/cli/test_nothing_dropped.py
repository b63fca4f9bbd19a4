"""The command line drops nothing silently, and every error is one line naming the file, line, option or value.

Repeated ``-m`` accumulate (as in trec_eval); ``-o`` takes a format only; ``-`` is standard output for ``--output``
and ``--metadata`` and standard input read once; qrels labels and run fields read a sign as trec_eval's
``atol``/``atof`` do; count options are bounded before their draw; a write error names its file; a frame with a
column twice, a measure value the syntax cannot write, QRELS and RUNS swapped: each one line, exit 2.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_helpers import assert_cli_error, run_cli

import ir_rarity
from ir_rarity import InputError, ParameterError, read_trec_qrels, read_trec_run
from ir_rarity.cli import build_parser, main
from ir_rarity.io.frames import as_qrels_frame, as_run_frame
from ir_rarity.measures.parse import measure_label, parse_measure
from ir_rarity.stats import bootstrap_interval, randomization_pvalues

# Hand-worked, on conftest's hand files (run A; qrels q1: d1 2, d2 1, d3 0, d5 1; q2: d1 1):
# q1 ranks d1 d2 d3 d4: P@2 = 1, AP = (1/1 + 2/2)/3 = 2/3; q2 ranks d1: P@2 = 1/2, AP = 1.
P2_A, AP_A = (1 + 0.5) / 2, (2 / 3 + 1) / 2


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ir-rarity: error: "), err
    assert "Traceback" not in err
    return lines[0]


def _jsonl(out: str) -> list[dict]:
    """The jsonl rows; one run's means, which eval prints as ir_measures does ({"measure", "value"} a line), as
    one row {measure: value}."""
    rows = [json.loads(line) for line in out.splitlines()]
    if rows and all(set(row) == {"measure", "value"} for row in rows):
        return [{row["measure"]: row["value"] for row in rows}]
    return rows


# ---------------------------------------------------------------------------------------------- -m accumulates
def test_repeated_m_accumulates_as_in_trec_eval(hand_files: dict[str, Path],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    args = ["eval", str(hand_files["qrels"]), str(hand_files["A"]), "-o", "jsonl"]
    assert main([*args, "-m", "P@2", "-m", "AP"]) == 0
    repeated = _jsonl(capsys.readouterr().out)
    assert main([*args, "-m", "P@2", "AP"]) == 0
    assert repeated == _jsonl(capsys.readouterr().out)
    assert repeated[0]["P@2"] == pytest.approx(P2_A, abs=1e-12)
    assert repeated[0]["AP"] == pytest.approx(AP_A, abs=1e-12)


def test_every_command_taking_m_accumulates(tmp_path: Path) -> None:
    parser = build_parser()
    for command in (["pooling", "Q", "R", "--out", str(tmp_path / "p")],
                    ["report", "Q", "R", "--out", str(tmp_path / "r.html")], ["eval", "Q", "R"]):
        args = parser.parse_args([*command, "-m", "P@10", "-m", "AP", "nDCG@10"])
        assert args.measures == ["P@10", "AP", "nDCG@10"], command
    assert parser.parse_args(["eval", "Q", "R", "-m", "AP", "--pool", "a", "--pool", "b"]).pool == ["a", "b"]
    from ir_rarity.cli.pooling import DEFAULT_MEASURES

    default = parser.parse_args(["pooling", "Q", "R", "--out", str(tmp_path / "p")])
    assert default.measures is None and DEFAULT_MEASURES == ["P@10", "AP", "P_rare(alpha=0.5)@10",
                                                             "AP_rare(alpha=0.5)"]


# ---------------------------------------------------------------------------------------------- -o and -
def test_o_takes_a_format_only(hand_files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["eval", str(hand_files["qrels"]), str(hand_files["A"]), "-m", "AP", "-o", "json"]) == 2
    captured = capsys.readouterr()
    line = _one_error_line(captured.err)
    assert "'json'" in line and "(did you mean 'jsonl'?)" in line and captured.out == ""
    assert not (tmp_path / "json").exists()  # was: a file named json, exit 0


def test_dash_is_standard_output(hand_files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["eval", str(hand_files["qrels"]), str(hand_files["A"]), "-m", "AP", "-o", "jsonl"]
    assert main(args) == 0
    plain = capsys.readouterr().out
    assert main([*args, "--output", "-"]) == 0
    assert capsys.readouterr().out == plain and _jsonl(plain)[0]["AP"] == pytest.approx(AP_A, abs=1e-12)
    table = tmp_path / "table.jsonl"
    assert main([*args, "--metadata", "-", "--output", str(table)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# ir_metadata.start\n") and out.rstrip().endswith("# ir_metadata.end")
    assert table.read_text() == plain
    assert main([*args, "--metadata", "-"]) == 2  # the table and the metadata on one stream: refused
    assert "--metadata - and the table both go to standard output" in _one_error_line(capsys.readouterr().err)
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("command", [
    ["pool", "{A}", "--out", "-"],
    ["pool", "{A}", "--depth", "2", "--judging-pool", "-"],
    ["meta", "{qrels}", "{A}", "{B}", "--out", "-"],
    ["eval", "{qrels}", "{A}", "-m", "P_rare@2", "--composition", "--plot", "-"],
])
def test_file_options_without_a_stream_refuse_dash(command: list[str], hand_files: dict[str, Path],
                                                   tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    argv = [part.format(**{k: str(v) for k, v in hand_files.items()}) for part in command]
    assert main(argv) == 2
    assert "cannot write to standard output (-)" in _one_error_line(capsys.readouterr().err)
    assert not (tmp_path / "-").exists()


@pytest.mark.slow
def test_standard_input_is_read_once(files: dict[str, Path]) -> None:
    run = files["run"].read_text()
    cases = [(["eval", files["qrels"], "-", "--pool", "-", "-m", "AP"], "given as RUNS and --pool"),
             (["eval", "-", "-", "-m", "AP"], "given as QRELS and RUNS"),
             (["eval", files["qrels"], "-", "-", "-m", "AP"], "given 2 times as RUNS"),
             (["pool", "-", "-", "--out", "x.csv"], "given 2 times as RUNS")]
    for args, where in cases:
        result = subprocess.run([sys.executable, "-m", "ir_rarity", *map(str, args)], input=run,
                                capture_output=True, text=True, timeout=120, cwd=files["run"].parent)
        assert_cli_error(result, f"standard input (-) can be read once: {where}")
    once = subprocess.run([sys.executable, "-m", "ir_rarity", "eval", str(files["qrels"]), "-", "-m", "AP"],
                          input=run, capture_output=True, text=True, timeout=120)
    assert once.returncode == 0, once.stderr


# ---------------------------------------------------------------------------------------------- labels with a sign
def test_plus_one_label_reads_as_one(hand_files: dict[str, Path], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    text = hand_files["qrels"].read_text()
    for delimiter in (" ", "\t"):  # pyarrow's CSV reader (one delimiter) and the whitespace splitter alike
        signed = tmp_path / f"signed{ord(delimiter)}"
        signed.write_text("".join(f"{q}{delimiter}0{delimiter}{d}{delimiter}{'+' if r != '0' else ''}{r}\n"
                                  for q, _, d, r in (line.split() for line in text.splitlines())))
        pd.testing.assert_frame_equal(read_trec_qrels(signed), read_trec_qrels(hand_files["qrels"]))
    signed = tmp_path / "signed32"
    args = [str(hand_files["A"]), "-m", "P@2", "AP", "-o", "jsonl"]
    assert main(["eval", str(signed), *args]) == 0
    with_sign = _jsonl(capsys.readouterr().out)
    assert main(["eval", str(hand_files["qrels"]), *args]) == 0
    assert with_sign == _jsonl(capsys.readouterr().out)
    assert with_sign[0]["AP"] == pytest.approx(AP_A, abs=1e-12)


def test_signed_run_fields_read_as_trec_eval(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 +1 +3.5 r\nq1 Q0 d2 2 -1e0 r\n")
    frame = read_trec_run(run)
    assert frame["score"].tolist() == [3.5, -1.0]


@pytest.mark.parametrize("label", ["1.5", "yes", "0x1", "99999999999999999999", "+-1"])
def test_bad_label_names_file_line_and_value(label: str, tmp_path: Path, files: dict[str, Path]) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"q1 0 d1 +1\nq1 0 d2 {label}\n")
    with pytest.raises(InputError) as caught:
        read_trec_qrels(qrels)
    assert str(caught.value) == (f"{qrels}:2: field 4 must be an integer (the relevance label, 64-bit), "
                                 f"found {label!r}")
    assert_cli_error(run_cli("eval", qrels, files["run"], "-m", "AP"), f"{qrels}:2:", repr(label))


# ---------------------------------------------------------------------------------------------- count options
def test_count_options_bounded_before_the_draw(hand_files: dict[str, Path], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    base = ["eval", str(hand_files["qrels"]), str(hand_files["A"]), str(hand_files["B"]), "-m", "AP"]
    huge = str(10**12)  # 10^12 draws of 2 queries: 16 TB, over the limit on any machine
    for options, name in ((["--ci", "0.9", "--resamples", huge], "--resamples"),
                          (["--all-pairs", "--test", "randomization", "--trials", huge], "--trials"),
                          (["--all-pairs", "--resamples", huge], "--resamples")):
        assert main([*base, *options]) == 2
        line = _one_error_line(capsys.readouterr().err)
        assert f"{name} {huge} is over the limit of" in line and "GiB" in line
    assert main(["meta", str(hand_files["qrels"]), str(hand_files["A"]), str(hand_files["B"]), "--out",
                 str(tmp_path / "m"), "--trials", huge, "--no-plots"]) == 2
    assert f"--trials {huge} is over the limit" in _one_error_line(capsys.readouterr().err)
    assert main([*base, "--ci", "0.9", "--resamples", "50"]) == 0  # within it: as before


def test_count_limit_is_the_memory_of_the_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    import ir_rarity.checks as checks

    monkeypatch.setattr(checks, "MAX_DRAW_BYTES", 8 * 4 * 100)  # 100 draws of 4 queries at 8 bytes
    values = np.arange(8.0).reshape(2, 4)  # 2 runs x 4 queries
    bootstrap_interval(values, resamples=100)
    with pytest.raises(ParameterError, match=r"^resamples 101 is over the limit of 100 here: 101 draws of 4 "):
        bootstrap_interval(values, resamples=101)
    randomization_pvalues(values[:1] - values[1:], trials=100)
    with pytest.raises(ParameterError, match=r"^trials 101 is over the limit of 100 here"):
        randomization_pvalues(values[:1] - values[1:], trials=101)
    with pytest.raises(ParameterError, match=r"^resamples must be an integer >= 2, got 1$"):
        bootstrap_interval(values, resamples=1)


# ---------------------------------------------------------------------------------------------- write errors
def test_write_error_names_the_file(tmp_path: Path, files: dict[str, Path]) -> None:
    script = textwrap.dedent("""
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (16, 16))
        from ir_rarity.io.files import write_text
        try:
            write_text(sys.argv[1], "x" * 100)
        except OSError as e:
            print(e.errno, str(e))
        from ir_rarity.cli import main
        sys.exit(main(sys.argv[2:]))
    """)
    api, out = tmp_path / "api.txt", tmp_path / "table.tsv"
    result = subprocess.run([sys.executable, "-c", script, str(api), "eval", str(files["qrels"]), str(files["run"]),
                             "-m", "AP", "P@1", "P@2", "--output", str(out)],
                            capture_output=True, text=True, timeout=120)
    assert result.stdout == f"27 [Errno 27] File too large: {str(api)!r}\n"
    assert result.returncode == 2 and "Traceback" not in result.stderr
    *before, last = result.stderr.splitlines()  # the pool line comes before the table is written
    assert last == f"ir-rarity: error: [Errno 27] File too large: {str(out)!r}"
    assert all(line.startswith("ir-rarity: pool: ") for line in before)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qrels", "run"]  # nothing half-written left behind


# ---------------------------------------------------------------------------------------------- frames
def test_frame_with_a_column_twice_is_one_input_error() -> None:
    run = pd.DataFrame([["q1", "d1", 1.0, "q2"]], columns=["query_id", "doc_id", "score", "query_id"])
    qrels = pd.DataFrame([["q1", "d1", 1, "d2"]], columns=["query_id", "doc_id", "relevance", "doc_id"])
    terrier = pd.DataFrame([["q1", "d1", 1.0, 2.0]], columns=["qid", "docno", "score", "score"])
    with pytest.raises(InputError, match=r"^run: DataFrame has 2 columns named 'query_id': keep one"):
        as_run_frame(run)
    with pytest.raises(InputError, match=r"^qrels: DataFrame has 2 columns named 'doc_id'"):
        as_qrels_frame(qrels)
    with pytest.raises(InputError, match=r"^run: DataFrame has 2 columns named 'score'"):
        as_run_frame(terrier)
    good = pd.DataFrame([["q1", "d1", 1]], columns=["query_id", "doc_id", "relevance"])
    with pytest.raises(InputError, match=r"DataFrame has 2 columns named 'query_id'"):
        ir_rarity.evaluate({"r": run}, good, ["P@1"])


# ---------------------------------------------------------------------------------------------- measures
def test_measure_columns_drop_whitespace(hand_files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert measure_label("P_rare(alpha=0.5) @100") == "P_rare(alpha=0.5)@100"
    assert measure_label(" P_rare( alpha = 0.5 )@ 100 ") == "P_rare(alpha=0.5)@100"
    assert measure_label("nDCG(dcg='a b')@10") == "nDCG(dcg='a b')@10"  # inside quotes: kept
    result = ir_rarity.evaluate([hand_files[n] for n in "ABC"], hand_files["qrels"], ["P_rare(alpha=0.5) @2", "P @ 2"])
    assert list(result.table().columns) == ["P_rare(alpha=0.5)@2", "P@2"]
    assert result.table().loc["A", "P@2"] == pytest.approx(P2_A, abs=1e-12)
    assert result.measure("P_rare (alpha=0.5)@2") == result.measures[0]
    assert main(["eval", str(hand_files["qrels"]), str(hand_files["A"]), "-m", "P @2", "-o", "jsonl"]) == 0
    assert _jsonl(capsys.readouterr().out)[0] == {"P@2": pytest.approx(P2_A, abs=1e-12)}


@pytest.mark.parametrize(("text", "value"), [("P_rare(alpha=inf)@10", "inf"), ("P_rare(alpha=-1)@10", "-1.0"),
                                             ("P_rare(alpha=nan)@10", "nan")])
def test_measure_value_the_syntax_cannot_write(text: str, value: str, files: dict[str, Path]) -> None:
    with pytest.raises(ParameterError) as caught:
        parse_measure(text)
    assert str(caught.value) == f"P_rare: alpha must be >= 0 and finite, got {value}"
    assert_cli_error(run_cli("eval", files["qrels"], files["run"], "-m", text), "alpha", value)
    with pytest.raises(ParameterError, match=r"^P_rare: 'alpha=foo': not a value"):
        parse_measure("P_rare(alpha=foo)@10")
    assert parse_measure("P_rare(alpha=+0.5)@10") == ir_rarity.P_rare(alpha=0.5) @ 10


def test_qrels_and_run_swapped(files: dict[str, Path]) -> None:
    assert_cli_error(run_cli("eval", files["run"], files["qrels"], "-m", "AP"),
                     f"{files['run']}:1: expected 4 whitespace-separated fields, found 6",
                     "QRELS comes first, then RUNS")
    with pytest.raises(InputError, match="QRELS comes first"):
        read_trec_run(files["qrels"])
