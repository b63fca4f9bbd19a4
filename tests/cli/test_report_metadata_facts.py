"""``ir-rarity report --metadata``: the document states what the page used (its measures, the standard measures added
at the rarity measures' cutoffs, the test and Holm's correction taken by default with a baseline), and a file named
twice (``--teams F --leaderboard F``) is one input, hashed here with hashlib."""

from __future__ import annotations

import hashlib
import json
import shlex
from pathlib import Path

import pytest
import yaml

from ir_rarity.cli import main


def _report(hand_files: dict[str, Path], tmp_path: Path, *extra: str) -> dict:
    path = tmp_path / "report.yml"
    args = ["report", str(hand_files["qrels"]), *(str(hand_files[n]) for n in "ABC"), "--out",
            str(tmp_path / "r.html"), "--no-pooling", "--resamples", "20", "--trials", "5",
            "--composition-resamples", "5", "--quiet", "--metadata", str(path), *extra]
    assert main(args) == 0
    return yaml.safe_load(path.read_text())


def test_the_report_records_its_test_its_default_correction_and_the_added_bases(
        hand_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _report(hand_files, tmp_path, "-m", "P_rare(alpha=0.5)@2", "--baseline", "A")
    capsys.readouterr()
    # P@2 is added by the report (the base of P_rare at the same cutoff); Holm's is the report's default with a baseline
    assert doc["research goal"]["evaluation"] == {
        "reported measures": ["P_rare(alpha=0.5)@2", "P@2"], "baseline": ["A"],
        "significance test": [{"name": "t", "correction method": "holm"}]}
    doc = _report(hand_files, tmp_path, "-m", "P@2", "--baseline", "A", "--correction", "bonferroni")
    assert doc["research goal"]["evaluation"]["significance test"] == [{"name": "t",
                                                                        "correction method": "bonferroni"}]
    doc = _report(hand_files, tmp_path, "-m", "P@2")  # no baseline: no test
    assert doc["research goal"]["evaluation"] == {"reported measures": ["P@2"]}


def test_a_file_named_twice_is_one_input(hand_files: dict[str, Path], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    board = tmp_path / "leaderboard.csv"
    board.write_text("run,team,runtype\nA,t1,automatic\nB,t1,manual\nC,t2,automatic\n")
    doc = _report(hand_files, tmp_path, "-m", "P@2", "--teams", f"{board}:run:team", "--leaderboard", str(board))
    capsys.readouterr()
    named = [i for i in doc["ir_rarity"]["inputs"] if i["name"] == str(board)]
    assert named == [{"name": str(board), "size": board.stat().st_size,
                      "sha256": hashlib.sha256(board.read_bytes()).hexdigest()}]


def test_main_called_from_python_records_its_own_arguments(hand_files: dict[str, Path], tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The page and the document record the command ``main`` was given, not the calling process's (pytest's)."""
    doc = _report(hand_files, tmp_path, "-m", "P@2")
    capsys.readouterr()
    expected = ["ir-rarity", "report", str(hand_files["qrels"]), *(str(hand_files[n]) for n in "ABC"), "--out",
                str(tmp_path / "r.html"), "--no-pooling", "--resamples", "20", "--trials", "5",
                "--composition-resamples", "5", "--quiet", "--metadata", str(tmp_path / "report.yml"), "-m", "P@2"]
    assert shlex.split(doc["implementation"]["executable"]["cmd"]) == expected
    page = (tmp_path / "r.html").read_text()
    start = page.index('<script type="application/json" id="provenance-json">')
    embedded = json.loads(page[page.index(">", start) + 1:page.index("</script>", start)])
    assert shlex.split(embedded["command"]) == expected


def test_eval_comparisons_without_a_correction_say_none(hand_files: dict[str, Path], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """eval --baseline without --correction tests each pair uncorrected (its table's caption says so): the document
    says ``correction method: none`` rather than leaving it out."""
    path = tmp_path / "eval.yml"
    assert main(["eval", str(hand_files["qrels"]), *(str(hand_files[n]) for n in "ABC"), "-m", "P@2",
                 "--baseline", "A", "--output", str(tmp_path / "t.tsv"), "--metadata", str(path)]) == 0
    capsys.readouterr()
    assert yaml.safe_load(path.read_text())["research goal"]["evaluation"]["significance test"] == [
        {"name": "t", "correction method": "none"}]
