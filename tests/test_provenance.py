"""Provenance: versions, command, inputs hashed independently, pool, time; the ir_metadata document."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
from pathlib import Path

import yaml

import ir_rarity
from ir_rarity.provenance import collect, command_line, file_record


def test_inputs_are_hashed_and_sized(tmp_path: Path) -> None:
    a = tmp_path / "qrels.txt"
    a.write_bytes(b"1 0 d1 1\n" * 300_000)  # several chunks
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "b").write_bytes(b"x")
    (folder / "a").write_bytes(b"")
    records = [r for spec in (a, folder, "cord19/trec-covid/round1") for r in file_record(spec)]
    assert [r.name for r in records] == [str(a), str(folder / "a"), str(folder / "b"), "cord19/trec-covid/round1"]
    assert records[0].sha256 == hashlib.sha256(a.read_bytes()).hexdigest() and records[0].size == a.stat().st_size
    assert records[1].sha256 == hashlib.sha256(b"").hexdigest() and records[1].size == 0
    assert records[3].sha256 is None and records[3].path is None


def test_collect_records_versions_command_pool_and_time(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.write_text("1 Q0 d 1 1.0 r\n")
    prov = collect(["/usr/bin/ir-rarity", "eval", "q rels", str(run)], [run], {"S": 3, "systems": "runs"},
                   measures=["P@10"])
    d = prov.as_dict()
    assert d["versions"]["ir_rarity"] == ir_rarity.__version__
    assert d["versions"]["numpy"] == importlib.metadata.version("numpy")
    assert d["command"] == f"ir-rarity eval 'q rels' {run}"
    assert d["inputs"][0]["sha256"] == hashlib.sha256(run.read_bytes()).hexdigest()
    assert d["pool"] == {"S": 3, "systems": "runs"} and d["extra"] == {"measures": ["P@10"]}
    assert d["created"].endswith("+00:00")
    assert json.loads(prov.json()) == d
    assert any(line.startswith("input: ") and "sha256" in line for line in prov.lines())
    assert command_line(["python", "-c", "pass"]) == "python -c pass"


def test_ir_metadata_has_the_primad_components(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.write_text("1 Q0 d 1 1.0 r\n")
    text = collect("ir-rarity eval qrels run", [run], {"S": 1, "scores": "float64"}).ir_metadata(tag="r")
    lines = text.splitlines()
    assert lines[0] == "# ir_metadata.start" and lines[-1] == "# ir_metadata.end"
    assert all(line.startswith("# ") for line in lines)  # the header form of run files: every line a comment
    document = yaml.safe_load("\n".join(line[2:] for line in lines[1:-1]))
    assert document["schema-version"] == "0.1" and document["tag"] == "r"
    assert {"platform", "implementation", "data", "method", "research goal", "actor"} <= set(document)
    assert document["implementation"]["executable"]["cmd"] == "ir-rarity eval qrels run"
    assert document["ir_rarity"]["inputs"][0]["sha256"] == hashlib.sha256(run.read_bytes()).hexdigest()
    assert "float64" in document["method"]["score ties"]
    assert any(lib.startswith("ir_rarity==") or lib.startswith("ir-rarity==")
               for lib in document["platform"]["software"]["libraries"]["python"])
