"""Output folders never replace the user's files: ``meta --out`` and ``pooling --out`` (and their Python functions).

``pooling --out submission/`` and ``meta --out`` used to replace a hand-written ``ir_metadata.yml`` or
``summary.md`` already in the folder. A folder is now written only if it is absent, empty, or holds nothing but
what an earlier run of the same command wrote there (its manifest, ``ir_rarity-outputs.json``, lists it); else the
command stops with one line naming the folder and a file, before reading any input, unless ``--overwrite``
(``overwrite=True`` in Python) is given.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ir_rarity.cli import commands as cli
from ir_rarity.errors import InputError
from ir_rarity.io.guard import MANIFEST, OutputFolder

MINE = {"summary.md": b"# My own notes\n\nhand-written, keep me\n",
        "ir_metadata.yml": b"ir_metadata.start\ntag: my-run\nir_metadata.end\n"}
ARGS = {"meta": ["--trials", "5", "--cutoff", "3", "--no-plots", "--quiet"],
        "pooling": ["--budgets", "1", "--strategies", "depth", "--measures", "P@2", "--no-plots", "--no-reusability"]}


def _run(command: str, hand_files: dict, out: Path, capsys: pytest.CaptureFixture[str], *extra: str
         ) -> tuple[int, str]:
    argv = [command, str(hand_files["qrels"]), *(str(hand_files[n]) for n in "ABC"), "--out", str(out),
            *ARGS[command], *extra]
    status = cli.main(argv)
    return status, capsys.readouterr().err


def _manifest(out: Path) -> dict:
    return json.loads((out / MANIFEST).read_text())


@pytest.mark.parametrize("command", ["meta", "pooling"])
@pytest.mark.parametrize("name", list(MINE))
def test_a_hand_written_file_is_refused_then_overwritten_when_asked(
        command: str, name: str, hand_files: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "submission"
    out.mkdir()
    (out / name).write_bytes(MINE[name])
    status, err = _run(command, hand_files, out, capsys)
    assert status == 2
    assert err.splitlines() == [f"ir-rarity: error: {out}: holds files this command did not write ({name}); give "
                                "--overwrite to replace them, or choose another folder"]
    assert (out / name).read_bytes() == MINE[name] and os.listdir(out) == [name]  # nothing written at all
    status, err = _run(command, hand_files, out, capsys, "--overwrite")
    assert status == 0, err
    written = _manifest(out)
    assert written["command"] == command
    left = name == "summary.md" and command == "meta"  # meta writes report.md: the user's summary.md is left alone
    if left:
        assert (out / name).read_bytes() == MINE[name] and name not in written["files"]
        assert _run(command, hand_files, out, capsys)[0] == 2  # and is still the user's, not the command's
    else:
        assert (out / name).read_bytes() != MINE[name] and name in written["files"]  # replaced, as asked
    assert set(written["files"]) == set(os.listdir(out)) - {MANIFEST} - ({name} if left else set())


@pytest.mark.parametrize("command", ["meta", "pooling"])
def test_a_second_run_into_its_own_folder_needs_no_overwrite(
        command: str, hand_files: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert _run(command, hand_files, out, capsys)[0] == 0
    first = _manifest(out)["files"]
    expected = {"meta": "report.md", "pooling": "summary.md"}[command]
    assert {expected, "provenance.json", "ir_metadata.yml"} <= set(first)
    assert set(first) == set(os.listdir(out)) - {MANIFEST}
    status, err = _run(command, hand_files, out, capsys)
    assert status == 0, err
    assert _manifest(out)["files"] == first
    (out / "notes.txt").write_text("mine")  # a file of the user's added since: refused again
    status, err = _run(command, hand_files, out, capsys)
    assert status == 2 and "(notes.txt)" in err and (out / "notes.txt").read_text() == "mine"


def test_a_folder_another_command_wrote_is_not_this_ones(hand_files: dict, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert _run("pooling", hand_files, out, capsys)[0] == 0
    status, err = _run("meta", hand_files, out, capsys)
    assert status == 2 and "holds files this command did not write" in err


def test_an_empty_or_absent_folder_is_written(hand_files: dict, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    assert _run("pooling", hand_files, tmp_path / "empty", capsys)[0] == 0
    assert _run("pooling", hand_files, tmp_path / "new" / "deeper", capsys)[0] == 0


def test_the_python_functions_refuse_unless_overwrite(hand_files: dict, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import ir_rarity
    from ir_rarity.judging.simulation import simulate
    from ir_rarity.judging.strategies import parse_strategy
    from ir_rarity.judging.summary import write_report as pooling_report
    from ir_rarity.meta import summary as meta_report

    out = tmp_path / "out"
    out.mkdir()
    (out / "ir_metadata.yml").write_bytes(MINE["ir_metadata.yml"])
    pool = ir_rarity.Pool.from_runs([hand_files[n] for n in "ABC"])
    qrels = ir_rarity.read_trec_qrels(hand_files["qrels"])

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("computed before the folder was checked")

    with monkeypatch.context() as patch:
        patch.setattr(meta_report, "compute_report", refuse)
        with pytest.raises(InputError, match=r"holds files this command did not write \(ir_metadata.yml\); give "
                                             r"overwrite=True"):
            meta_report.write_report(pool, qrels, out, trials=5, cutoff=3, plots=False)
    sim = simulate(pool, qrels, [parse_strategy("depth")], [1])
    with pytest.raises(InputError, match=r"\(ir_metadata.yml\)"):
        pooling_report(out, sim, plots=False)
    assert (out / "ir_metadata.yml").read_bytes() == MINE["ir_metadata.yml"]
    summary = pooling_report(out, sim, plots=False, overwrite=True)
    assert summary == out / "summary.md" and _manifest(out)["files"] == ["found.csv", "summary.md"]
    assert (out / "ir_metadata.yml").read_bytes() == MINE["ir_metadata.yml"]  # not written by it: left alone
    report = meta_report.write_report(pool, qrels, tmp_path / "meta", trials=5, cutoff=3, plots=False)
    assert report == tmp_path / "meta" / "report.md" and "report.md" in _manifest(tmp_path / "meta")["files"]


def test_links_fifos_and_subfolders_count_as_files_of_the_user(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "sub").mkdir(parents=True)
    (out / "sub" / "deep.txt").write_text("x")
    with pytest.raises(InputError, match=r"\(sub/deep.txt\)"):
        OutputFolder(out, "pooling")
    (out / "sub" / "deep.txt").unlink()
    OutputFolder(out, "pooling")  # an empty subfolder replaces nothing
    (out / "summary.md").symlink_to(tmp_path / "elsewhere.md")
    with pytest.raises(InputError, match=r"\(summary.md\)"):
        OutputFolder(out, "pooling")
    (out / "summary.md").unlink()
    os.mkfifo(out / "pipe")
    with pytest.raises(InputError, match=r"\(pipe\)"):
        OutputFolder(out, "pooling")


def test_a_forged_or_damaged_manifest_vouches_for_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / MANIFEST).write_text("{not json")
    with pytest.raises(InputError, match=MANIFEST):
        OutputFolder(out, "meta")
    (out / MANIFEST).write_text(json.dumps({"format": "ir_rarity.outputs/1", "command": "meta", "files": []}))
    OutputFolder(out, "meta")
    with pytest.raises(InputError, match=MANIFEST):
        OutputFolder(out, "pooling")
