"""Run and file names that try to break out of every output format: each output parses back to exactly its table.

``ir-rarity eval`` on runs and qrels whose file names hold line breaks, ``-->``, ``--->``, ``<!--``, ``<script>``,
``<img onerror>``, ``|``, ``\\``, ``&``, ``%``, ``$`` and quotes, in each format: the table read back (csv module,
pandas, json, Python-Markdown, html.parser, the LaTeX rows) holds the runs' names and hand-worked values, and the
provenance read back holds the files as given, their hashes and the command, which ``shlex.split`` gives back.
"""

from __future__ import annotations

import csv
import io
import json
import shlex
from pathlib import Path

import pandas as pd
import pytest
from hostile_names import (
    P_AT_2,
    comment_json,
    hostile_campaign,
    latex_rows,
    markdown_to_html,
    parse_html,
    sha256,
)

from ir_rarity.cli import main
from ir_rarity.formats import read_comment


@pytest.fixture(autouse=True)
def _with_provenance(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IR_RARITY_NO_PROVENANCE", raising=False)


def _eval(files: dict[str, Path], capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[list[str], str]:
    args = ["eval", str(files["qrels"]), str(files["A"]), str(files["B"]), "-m", "P@2", "--provenance", *extra]
    assert main(args) == 0
    return args, capsys.readouterr().out


def _check_provenance(facts: dict, files: dict[str, Path], args: list[str]) -> None:
    """The inputs by the names given, with their hashes and no path; the command as run, byte for byte."""
    assert [i["name"] for i in facts["inputs"]] == [str(files[k]) for k in ("qrels", "A", "B")]
    assert [i["sha256"] for i in facts["inputs"]] == [sha256(files[k]) for k in ("qrels", "A", "B")]
    assert all("path" not in i for i in facts["inputs"])  # no resolved path unless --absolute-paths
    assert shlex.split(facts["command"]) == ["ir-rarity", *args]


def _expected(files: dict[str, Path]) -> list[tuple[str, float]]:
    return [(files["A"].name, P_AT_2["A"]), (files["B"].name, P_AT_2["B"])]


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_tsv_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    files = hostile_campaign(tmp_path, newline_runs=fmt == "csv")  # tsv refuses a line break in a run name
    args, out = _eval(files, capsys, "-o", fmt)
    _check_provenance(read_comment(out, fmt), files, args)
    comments = [line for line in out.split("\n") if line.startswith("#")]
    assert len(comments) == 9  # produced_by, versions, command, 3 inputs, pool, created, extra: one line each
    if fmt == "csv":
        frame = pd.read_csv(io.StringIO(out), comment="#")
        rows = list(csv.reader(io.StringIO(out[out.index("run,"):])))[1:]
    else:
        frame = pd.read_csv(io.StringIO(out), sep="\t", comment="#", quoting=csv.QUOTE_NONE)
        rows = list(csv.reader(io.StringIO("".join(line + "\n" for line in out.split("\n")[len(comments):-1])),
                               delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    assert list(frame.columns) == ["run", "P@2"]
    assert list(zip(frame["run"], frame["P@2"], strict=True)) == _expected(files)
    assert [(r[0], float(r[1])) for r in rows] == _expected(files)


def test_jsonl(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = hostile_campaign(tmp_path)
    args, out = _eval(files, capsys, "-o", "jsonl")
    lines = out.rstrip("\n").split("\n")
    assert len(lines) == 3
    _check_provenance(json.loads(lines[0])["provenance"], files, args)
    assert [(r["run"], r["P@2"]) for r in map(json.loads, lines[1:])] == _expected(files)


def test_latex(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = hostile_campaign(tmp_path)
    args, out = _eval(files, capsys, "-o", "latex")
    _check_provenance(read_comment(out, "latex"), files, args)
    lines = out.split("\n")
    begin = next(i for i, line in enumerate(lines) if not line.startswith("%"))
    assert lines[begin] == r"\begin{table}"  # nothing typeset before the table
    rows = latex_rows(out)
    assert lines[lines.index(r"\midrule") - 1] == r"run & P@2 \\"
    assert rows == [[files["A"].name, r"\textbf{0.7500}"],  # the best value bold; a line break a space to TeX
                    [files["B"].name.replace("\n", " "), "0.2500"]]


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_markdown_and_html(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    files = hostile_campaign(tmp_path)
    args, out = _eval(files, capsys, "-o", fmt)
    page = parse_html(markdown_to_html(out) if fmt == "markdown" else out)
    _check_provenance(comment_json(page), files, args)  # one comment, and it holds all the facts
    assert _check_no_markup(page.tags, fmt)
    header, *rows = page.rows
    assert header == ["run", "P@2"]
    assert [(r[0], float(r[1])) for r in rows] == _expected(files)
    caption = out[out.index("\n-->\n") + 5:].lstrip("\n").split("\n")[0]  # the caption line, markdown
    if fmt == "markdown":
        assert parse_html(markdown_to_html(caption)).tags == ["p"]


def _check_no_markup(tags: list[str], fmt: str) -> bool:
    """Only the elements the table is made of: no img, no script."""
    allowed = {"table", "thead", "tbody", "tr", "th", "td", "caption", "b", "sup", "p", "strong"}
    assert set(tags) <= allowed, sorted(set(tags) - allowed)
    return True


def test_provenance_lists_the_files_read_by_their_names(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    files = hostile_campaign(tmp_path / "in")
    runs = tmp_path / "in" / "runs"
    runs.mkdir()
    (runs / "a").write_text(files["A"].read_text())
    (runs / "b").write_text(files["B"].read_text())
    (runs / ".env").write_text("SECRET=1\n")  # hidden: the reader skips it, so the provenance does too
    (runs / "sub").mkdir()  # a folder: not a run
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "in/" + files["qrels"].name, "in/runs", "-m", "P@2", "-o", "jsonl", "--provenance"]) == 0
    facts = json.loads(capsys.readouterr().out.split("\n")[0])["provenance"]
    assert [i["name"] for i in facts["inputs"]] == ["in/" + files["qrels"].name, "in/runs/a", "in/runs/b"]
    assert all("path" not in i for i in facts["inputs"])
    assert str(tmp_path) not in json.dumps(facts)  # no absolute path anywhere unless asked
    assert main(["eval", "in/" + files["qrels"].name, "in/runs", "-m", "P@2", "-o", "jsonl", "--absolute-paths",
                 "--provenance"]) == 0
    facts = json.loads(capsys.readouterr().out.split("\n")[0])["provenance"]
    assert [i["path"] for i in facts["inputs"]] == [str(files["qrels"].resolve()), str((runs / "a").resolve()),
                                                   str((runs / "b").resolve())]


def test_the_meta_folder_lists_the_files_read(tmp_path: Path, hand_files: dict[str, Path],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in "ABC":
        (runs / name).write_text(hand_files[name].read_text())
    (runs / ".env").write_text("SECRET=1\n")
    assert main(["meta", str(hand_files["qrels"]), str(runs), "--out", str(tmp_path / "meta"), "--trials", "5",
                 "--cutoff", "3", "--no-plots", "--quiet"]) == 0
    capsys.readouterr()
    facts = json.loads((tmp_path / "meta" / "provenance.json").read_text())
    assert [i["name"] for i in facts["inputs"]] == [str(hand_files["qrels"]), *(str(runs / n) for n in "ABC")]
    assert all("path" not in i for i in facts["inputs"])
