"""The ir_metadata document: read back by repro_eval (the header form, the YAML form, MetadataAnalyzer's PRIMAD),
a campaign folder recorded once by a manifest hash computed here independently, TIREx's JSON, ``--metadata`` on
every command."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from ir_rarity.cli import main
from ir_rarity.metadata import (
    HEADER_END,
    HEADER_START,
    document,
    header_text,
    manifest,
    platform_facts,
    read_header,
    source_facts,
    write_metadata,
    yaml_text,
)
from ir_rarity.provenance import collect, file_record

RUN = "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq2 Q0 d1 1 1.0 r\nq2 Q0 d4 2 0.5 r\n"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def campaign(tmp_path: Path) -> dict[str, Path]:
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, text in {"a.run": RUN, "b.run": RUN.replace("d2", "d3"), "c#.run": RUN.replace("r\n", "c\n")}.items():
        (runs / name).write_text(text)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d3 1\nq2 0 d4 1\nq2 0 d1 0\n")
    return {"runs": runs, "qrels": qrels}


def _provenance(campaign: dict[str, Path], command: str = "ir-rarity eval qrels.txt runs -m P@1") -> object:
    return collect(command, [campaign["qrels"], campaign["runs"]], {"S": 3, "systems": "runs", "depths": [1]},
                   measures=["P@1", "AP"])


def test_a_folder_is_one_manifest_whose_hash_is_the_sorted_file_list(campaign: dict[str, Path],
                                                                      tmp_path: Path) -> None:
    doc = document(_provenance(campaign), qrels=str(campaign["qrels"]))
    inputs = doc["ir_rarity"]["inputs"]
    assert len(inputs) == 1 and inputs[0]["name"] == str(campaign["runs"]) and inputs[0]["files"] == 3
    files = sorted(campaign["runs"].iterdir())
    if shutil.which("sha256sum"):  # what `cd runs && sha256sum * | LC_ALL=C sort -k2 | sha256sum` prints
        listing = subprocess.run("sha256sum * | LC_ALL=C sort -k2", shell=True, cwd=campaign["runs"],
                                 capture_output=True, text=True, check=True).stdout
    else:  # the same lines, by hand
        listing = "".join(f"{_sha(f.read_bytes())}  {f.name}\n" for f in files)
    assert inputs[0]["manifest sha256"] == _sha(listing.encode())
    assert inputs[0]["size"] == sum(f.stat().st_size for f in files)
    text = yaml_text(doc)
    assert text.count(str(campaign["runs"])) == 1  # the folder once, no run listed with its path twice
    copy = tmp_path / "elsewhere"
    shutil.copytree(campaign["runs"], copy)  # the same campaign elsewhere: the same manifest
    assert manifest(str(copy), file_record(copy))["manifest sha256"] == inputs[0]["manifest sha256"]
    (copy / "a.run").write_text(RUN + "q1 Q0 d9 3 1.0 r\n")
    assert manifest(str(copy), file_record(copy))["manifest sha256"] != inputs[0]["manifest sha256"]
    qrels = doc["data"]["test collection"]
    assert qrels["qrels sha256"] == _sha(campaign["qrels"].read_bytes())
    assert qrels["qrels size"] == campaign["qrels"].stat().st_size


def test_the_primad_components(campaign: dict[str, Path]) -> None:
    doc = document(_provenance(campaign), qrels="cord19/trec-covid/round1", baseline=["a.run"], test="t",
                   correction="holm", tag="b.run")
    assert {"platform", "research goal", "implementation", "method", "actor", "data"} <= set(doc)
    assert doc["data"]["test collection"]["ir_datasets"] == "cord19/trec-covid/round1"
    evaluation = doc["research goal"]["evaluation"]
    assert evaluation == {"reported measures": ["P@1", "AP"], "baseline": ["a.run"],
                          "significance test": [{"name": "t", "correction method": "holm"}]}
    assert doc["tag"] == "b.run" and doc["actor"]["role"] == "experimenter"
    assert doc["ir_rarity"]["pool"] == {"S": 3, "systems": "runs", "depths": [1]}
    cpu = doc["platform"]["hardware"]["cpu"]
    assert cpu["number of cores"] == os.cpu_count()
    if hasattr(os, "sysconf"):
        gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024 ** 3
        assert doc["platform"]["hardware"]["ram"] == f"{gb:.2f} GB"
    assert platform_facts()["hardware"]["cpu"]["architecture"] == os.uname().machine
    assert "ir_rarity==" in " ".join(doc["platform"]["software"]["libraries"]["python"])


def test_the_commit_of_a_git_checkout() -> None:
    root = Path(__file__).resolve().parents[1]
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True)
    import ir_rarity

    if head.returncode != 0 or not Path(ir_rarity.__file__).resolve().is_relative_to(root):
        pytest.skip("ir_rarity is not imported from a git checkout")
    assert source_facts()["commit"] == head.stdout.strip()


def test_the_header_form_survives_hostile_strings(campaign: dict[str, Path]) -> None:
    command = shlex.join(["ir-rarity", "eval", "q\nrels#", "run#", " x ", "# ir_metadata.end", "-m", "P@1"])
    doc = document(_provenance(campaign, command), qrels=str(campaign["qrels"]), tag="run#")
    text = header_text(doc)
    lines = text.splitlines()
    assert lines[0] == HEADER_START and lines[-1] == HEADER_END and lines.count(HEADER_END) == 1
    assert all(line.startswith("# ") for line in lines)
    assert read_header(text) == doc
    assert shlex.split(read_header(text)["implementation"]["executable"]["cmd"])[2:4] == ["q\nrels#", "run#"]


@pytest.mark.slow  # (importing repro_eval takes about a second)
def test_repro_eval_reads_the_header_and_the_yaml(campaign: dict[str, Path], tmp_path: Path) -> None:
    metadata = pytest.importorskip("repro_eval.metadata")
    doc = document(_provenance(campaign, shlex.join(["ir-rarity", "eval", "qrels#", "x\ny"])),
                   qrels=str(campaign["qrels"]), tag="a#")
    run = tmp_path / "a.annotated"
    run.write_text(header_text(doc) + RUN)  # a run file led by its metadata, as repro_eval writes them
    assert metadata.MetadataHandler.read_metadata(str(run)) == doc
    plain = write_metadata(tmp_path / "doc.yml", _provenance(campaign), qrels=str(campaign["qrels"]))
    assert metadata.MetadataHandler.read_metadata_template(str(plain)) == yaml.safe_load(plain.read_text())
    assert set(yaml.safe_load(plain.read_text())) >= {"platform", "research goal", "data", "ir_rarity"}


def test_repro_eval_metadata_analyzer_finds_the_changed_component(campaign: dict[str, Path],
                                                                   tmp_path: Path) -> None:
    metadata = pytest.importorskip("repro_eval.metadata")
    provenance = _provenance(campaign)
    folder = tmp_path / "annotated"
    folder.mkdir()
    reference = folder / "ref"
    reference.write_text(header_text(document(provenance, qrels=str(campaign["qrels"]), baseline=["x"])) + RUN)
    other = folder / "other"  # another baseline: only the research goal differs
    other.write_text(header_text(document(provenance, qrels=str(campaign["qrels"]), baseline=["y"])) + RUN)
    same = folder / "same"
    same.write_text(reference.read_text())
    analyzer = metadata.MetadataAnalyzer(str(reference))
    found = analyzer.analyze_directory(str(folder))
    assert dict(found) == {"pRimad": [str(other)], "primad": [str(same)]}


def test_tirex_json(campaign: dict[str, Path], tmp_path: Path) -> None:
    command = shlex.join(["ir-rarity", "eval", "q rels", "runs", "-m", "P@1"])
    path = write_metadata(tmp_path, _provenance(campaign, command), qrels=str(campaign["qrels"]))
    assert path == tmp_path / ".ir-metadata"
    data = json.loads(path.read_text())
    assert data["sys"]["argv"] == ["ir-rarity", "eval", "q rels", "runs", "-m", "P@1"]
    assert any(p.lower().startswith(("ir-rarity==", "ir_rarity==")) for p in data["pkg_resources"])
    assert data["ir_metadata"]["data"]["test collection"]["qrels sha256"] == _sha(campaign["qrels"].read_bytes())


def test_every_command_takes_metadata(campaign: dict[str, Path], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = str(campaign["qrels"]), str(campaign["runs"])
    commands = {
        "eval": ["eval", qrels, runs, "-m", "P@1", "--baseline", "a.run", "--correction", "holm"],
        "pool": ["pool", runs, "--depth", "2", "--out", str(tmp_path / "sd.csv")],
        "meta": ["meta", qrels, runs, "--out", str(tmp_path / "meta"), "--trials", "3", "--cutoff", "2",
                 "--no-plots", "--quiet"],
        "pooling": ["pooling", qrels, runs, "--out", str(tmp_path / "pooling"), "--budgets", "1", "--strategies",
                    "depth", "--measures", "P@1", "--no-plots", "--no-reusability"],
    }
    for name, args in commands.items():
        path = tmp_path / f"{name}.ir_metadata"
        assert main([*args, "--metadata", str(path)]) == 0, capsys.readouterr().err
        doc = read_header(path.read_text())
        assert doc is not None
        assert shlex.split(doc["implementation"]["executable"]["cmd"])[1] == name
        assert doc["ir_rarity"]["pool"]["S"] == 3, name
        assert [i["files"] for i in doc["ir_rarity"]["inputs"]] == [3], name
        if name != "pool":
            assert doc["data"]["test collection"]["qrels sha256"] == _sha(campaign["qrels"].read_bytes())
    capsys.readouterr()
    eval_doc = read_header((tmp_path / "eval.ir_metadata").read_text())
    assert eval_doc["research goal"]["evaluation"] == {
        "reported measures": ["P@1"], "baseline": ["a.run"],
        "significance test": [{"name": "t", "correction method": "holm"}]}
    assert main(["demo", "--metadata", "-"]) == 2  # demo prints its tables there
    assert "--metadata -" in capsys.readouterr().err
    assert main(["pool", runs, "--out", str(tmp_path / "sd2.csv"), "--metadata", str(campaign["runs"] / "a.run")]) \
        == 2  # never over an input
    assert campaign["runs"].joinpath("a.run").read_text() == RUN


def test_the_report_takes_metadata(hand_files: dict[str, Path], tmp_path: Path) -> None:
    path = tmp_path / "report.yml"
    args = ["report", str(hand_files["qrels"]), *(str(hand_files[n]) for n in "ABC"), "--out",
            str(tmp_path / "r.html"), "-m", "P@2", "--no-pooling", "--resamples", "20", "--trials", "5",
            "--composition-resamples", "5", "--quiet", "--metadata", str(path)]
    assert main(args) == 0
    doc = yaml.safe_load(path.read_text())
    assert doc["data"]["test collection"]["qrels sha256"] == _sha(hand_files["qrels"].read_bytes())
    assert doc["research goal"]["evaluation"]["reported measures"] == ["P@2"]
    assert shlex.split(doc["implementation"]["executable"]["cmd"])[1] == "report"


def test_every_sub_command_has_the_option() -> None:
    import argparse

    from ir_rarity.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert {"eval", "pool", "meta", "pooling", "report", "demo"} <= set(commands)
    missing = [name for name, sub in commands.items()
               if not any("--metadata" in a.option_strings for a in sub._actions)]
    assert missing == []
