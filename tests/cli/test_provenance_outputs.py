"""Every output says what produced it and what it was computed from: one test per format (in-band with
--provenance), the folders, --metadata."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from pathlib import Path

import pytest
import yaml

import ir_rarity
from ir_rarity.cli import main


@pytest.fixture(autouse=True)
def _with_provenance(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IR_RARITY_NO_PROVENANCE", raising=False)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _eval(hand_files: dict, capsys: pytest.CaptureFixture[str], *extra: str, provenance: bool = True) -> str:
    args = ["eval", str(hand_files["qrels"]), str(hand_files["A"]), str(hand_files["B"]), "-m", "P_rare@2", "P@2",
            *(["--provenance"] if provenance else [])]
    assert main([*args, *extra]) == 0
    return capsys.readouterr().out


def _check(facts: dict, hand_files: dict) -> None:
    assert facts["versions"]["ir_rarity"] == ir_rarity.__version__ and "numpy" in facts["versions"]
    assert facts["command"].split()[1:3] == ["eval", str(hand_files["qrels"])]
    hashes = {i["name"]: i.get("sha256") for i in facts["inputs"]}
    assert hashes[str(hand_files["qrels"])] == _sha(hand_files["qrels"])
    assert hashes[str(hand_files["A"])] == _sha(hand_files["A"])
    assert facts["pool"]["S"] == 2 and facts["pool"]["systems"] == "runs"


def _lines_to_facts(lines: list[str]) -> dict:
    """The comment lines of tsv/csv/latex back into the facts: ``key: JSON`` each, ``input`` one line an input."""
    facts: dict = {"inputs": []}
    for line in lines:
        key, _, value = line.partition(": ")
        if key == "input":
            facts["inputs"].append(json.loads(value))
        else:
            facts[key] = json.loads(value)
    return facts


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_tsv_and_csv_lead_with_comment_lines(hand_files: dict, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    out = _eval(hand_files, capsys, "-o", fmt)
    comments = [line[2:] for line in out.splitlines() if line.startswith("# ")]
    _check(_lines_to_facts(comments), hand_files)
    table = [line for line in out.splitlines() if not line.startswith("#")]
    rows = list(csv.reader(io.StringIO("\n".join(table)), delimiter="\t" if fmt == "tsv" else ","))
    assert rows[0] == ["run", "P_rare@2", "P@2"] and len(rows) == 3


def test_jsonl_leads_with_a_provenance_object(hand_files: dict, capsys: pytest.CaptureFixture[str]) -> None:
    lines = _eval(hand_files, capsys, "-o", "jsonl").splitlines()
    _check(json.loads(lines[0])["provenance"], hand_files)
    assert [json.loads(line)["run"] for line in lines[1:]] == ["A", "B"]


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_markdown_and_html_carry_an_html_comment(hand_files: dict, capsys: pytest.CaptureFixture[str],
                                                 fmt: str) -> None:
    out = _eval(hand_files, capsys, "-o", fmt)
    match = re.match(r"<!-- ir_rarity provenance\n(.*?)\n-->\n", out, re.S)
    assert match is not None
    _check(json.loads(match.group(1)), hand_files)
    assert "P_rare@2" in out[match.end():]


def test_latex_leads_with_percent_lines(hand_files: dict, capsys: pytest.CaptureFixture[str]) -> None:
    out = _eval(hand_files, capsys, "-o", "latex")
    _check(_lines_to_facts([line[2:] for line in out.splitlines() if line.startswith("% ")]), hand_files)
    assert r"\begin{tabular}" in out


def test_no_provenance_by_default_and_metadata(hand_files: dict, capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    meta = tmp_path / "run.ir_metadata"
    out = _eval(hand_files, capsys, "--metadata", str(meta), provenance=False)
    assert out.startswith("run\t") and "#" not in out  # the table alone on standard output
    lines = meta.read_text().splitlines()
    assert lines[0] == "# ir_metadata.start" and lines[-1] == "# ir_metadata.end"
    document = yaml.safe_load("\n".join(line[2:] for line in lines[1:-1]))
    assert {"platform", "implementation", "data", "method", "research goal", "actor"} <= set(document)
    assert document["data"]["test collection"]["qrels sha256"] == _sha(hand_files["qrels"])
    assert {o["sha256"] for o in document["ir_rarity"]["inputs"]} == {_sha(hand_files["A"]), _sha(hand_files["B"])}


def test_meta_and_pooling_folders(hand_files: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = [str(hand_files[n]) for n in "ABC"]
    assert main(["meta", str(hand_files["qrels"]), *runs, "--out", str(tmp_path / "meta"), "--trials", "5",
                 "--cutoff", "3", "--no-plots", "--quiet"]) == 0
    assert main(["pooling", str(hand_files["qrels"]), *runs, "--out", str(tmp_path / "pooling"), "--budgets", "1",
                 "--strategies", "depth", "--measures", "P@2", "--no-plots", "--no-reusability"]) == 0
    capsys.readouterr()
    for folder in ("meta", "pooling"):
        facts = json.loads((tmp_path / folder / "provenance.json").read_text())
        assert facts["command"].split()[1] == folder
        assert facts["pool"]["S"] == 3
        assert {i["name"]: i["sha256"] for i in facts["inputs"]}[runs[0]] == _sha(hand_files["A"])
        document = yaml.safe_load((tmp_path / folder / "ir_metadata.yml").read_text())  # plain YAML
        assert document["data"]["test collection"]["qrels sha256"] == _sha(hand_files["qrels"])
        assert document["ir_rarity"]["pool"]["S"] == 3
