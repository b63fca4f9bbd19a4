"""Run files: one file is one run (trec_eval 10.0 ignores the tag), split by tag only when asked; a run whose
first query id is PAR1 or PK is a run; a broken link in a run folder is an error naming it."""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path

import ir_measures
import pandas as pd
import pytest
from cli_helpers import run_cli

import ir_rarity
from ir_rarity import DuplicateDocumentError, InputError, Pool
from ir_rarity.pool.build.sources import expand_run_paths, file_kind

QRELS = "q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d1 1\nq2 0 d4 1\n"
LINES = ["q1 Q0 d1 1 3.0 {}", "q1 Q0 d3 2 2.0 {}", "q1 Q0 d2 3 1.0 {}", "q2 Q0 d4 1 2.0 {}", "q2 Q0 d5 2 1.0 {}"]
MEASURES = ["P@2", "AP", "nDCG@10"]


def _run(tags: list[str]) -> str:
    return "".join(line.format(tag) + "\n" for line, tag in zip(LINES, tags, strict=True))


def _expected(qrels: Path, run_text: str) -> dict[str, float]:
    """P@2, AP, nDCG@10 of ``run_text`` by pytrec_eval (through ir_measures), its tags ignored."""
    run = [ir_measures.ScoredDoc(q, d, float(s)) for q, _, d, _, s, _ in (line.split() for line in
                                                                        run_text.splitlines())]
    got = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in MEASURES],
                                     list(ir_measures.read_trec_qrels(str(qrels))), run)
    return {str(k): v for k, v in got.items()}


@pytest.fixture
def qrels(tmp_path: Path) -> Path:
    path = tmp_path / "qrels.txt"
    path.write_text(QRELS)
    return path


@pytest.mark.parametrize("case", ["comment of six words", "cut inside its last tag", "two tags"])
def test_a_file_is_one_run_whatever_its_tags(tmp_path: Path, qrels: Path, case: str) -> None:
    text = {"comment of six words": "# qid Q0 docno rank score tag\n" + _run(["BM25"] * 5),
            "cut inside its last tag": _run(["BRPHJ_BM25"] * 4 + ["BRPH"]),
            "two tags": _run(["A", "A", "A", "B", "B"])}[case]
    path = tmp_path / "mine.run.gz"
    path.write_bytes(gzip.compress(text.encode()))
    result = ir_rarity.evaluate(path, qrels, MEASURES)
    assert result.names == ["mine.run"]
    table = result.table()
    expected = _expected(qrels, "".join(line + "\n" for line in text.splitlines() if not line.startswith("#")))
    for m in MEASURES:
        assert table.loc["mine.run", m] == pytest.approx(expected[m], abs=1e-12)
    assert Pool.from_runs(path).names == ["mine.run"]
    assert Pool.from_runs(path, split_by_tag=False).names == ["mine.run"]


@pytest.mark.slow
def test_split_by_tag_splits_only_when_asked(tmp_path: Path, qrels: Path) -> None:
    path = tmp_path / "both.run"
    path.write_text(_run(["A", "A", "A", "B", "B"]))
    assert sorted(Pool.from_runs(path, split_by_tag=True).names) == ["A", "B"]
    assert sorted(ir_rarity.evaluate(path, qrels, MEASURES, split_by_tag=True).names) == ["A", "B"]
    result = run_cli("eval", qrels, path, "-m", "P@2", "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert pd.read_csv(io.StringIO(result.stdout))["run"].tolist() == ["both.run"]
    result = run_cli("eval", qrels, path, "--split-by-tag", "-m", "P@2", "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert sorted(pd.read_csv(io.StringIO(result.stdout))["run"]) == ["A", "B"]
    out = tmp_path / "sd.csv"
    result = run_cli("pool", path, "--split-by-tag", "--out", out)
    assert result.returncode == 0, result.stderr
    assert "S = 2" in result.stderr


def test_the_round1_file_is_143_runs_only_split_by_tag() -> None:
    assert Pool.from_runs(ir_rarity.covid_round1.runs, split_by_tag=True).num_systems == 143
    # Read as one run (the default), the 143 runs list the same documents: one run, refused as trec_eval would.
    with pytest.raises(DuplicateDocumentError, match=r"run 'runs_top100\.trec' lists document"):
        Pool.from_runs(ir_rarity.covid_round1.runs)


@pytest.mark.parametrize("first", ["PAR1", "PK\x03\x04"])
def test_a_run_whose_first_query_id_looks_like_a_magic_number_is_a_run(tmp_path: Path, first: str) -> None:
    run = tmp_path / "odd.run"
    text = "".join(f"{first} Q0 d{k} {k} {10 - k}.0 t\n" for k in range(1, 4)) + "q2 Q0 d1 1 1.0 t\nq2 Q0 d2 2 0.5 t\n"
    run.write_text(text)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"{first} 0 d1 1\n{first} 0 d3 1\nq2 0 d2 1\n")
    assert file_kind(run) == "runs"
    other = tmp_path / "other.run"
    other.write_text("q2 Q0 d2 1 1.0 u\n")
    result = ir_rarity.evaluate(run, qrels, MEASURES, pool=[run, other])
    assert result.names == ["odd.run"]
    expected = _expected(qrels, text)
    for m in MEASURES:
        assert result.table().loc["odd.run", m] == pytest.approx(expected[m], abs=1e-12)
    with open(run, "rb") as f:  # the same bytes through a pipe
        assert ir_rarity.read_trec_run(f"/dev/fd/{f.fileno()}")["query_id"].iloc[0] == first


def test_real_parquet_and_npz_files_are_still_recognised(tmp_path: Path, hand_pool: Pool) -> None:
    npz = tmp_path / "pool.npz"
    hand_pool.save(npz)
    parquet = tmp_path / "sd.parquet"
    from ir_rarity.pool.counts import CountTable

    CountTable.from_pool(hand_pool, None).to_parquet(parquet)
    assert file_kind(npz) == "pool" and file_kind(parquet) == "counts"
    for path in (npz, parquet):
        with pytest.raises(InputError, match=rf"{path.name}: cannot be read as a run file"):
            ir_rarity.read_trec_run(path)


def test_a_broken_link_in_a_run_folder_is_an_error_naming_it(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "A.run").write_text(_run(["A"] * 5))
    (folder / ".hidden").symlink_to(tmp_path / "nowhere-hidden")  # hidden entries stay skipped
    (folder / "sub").mkdir()  # so do folders
    assert expand_run_paths(folder) == [folder / "A.run"]
    (folder / "B.run").symlink_to(tmp_path / "nowhere")
    with pytest.raises(InputError, match=r"runs/B\.run: a broken symbolic link") as e:
        Pool.from_runs(folder)
    assert "\n" not in str(e.value)
    with pytest.raises(InputError, match=r"runs/B\.run: a broken symbolic link"):
        Pool.from_runs(str(folder / "*.run"))
    result = run_cli("pool", folder, "--out", tmp_path / "sd.csv")
    assert result.returncode != 0 and "B.run: a broken symbolic link" in result.stderr


def test_an_entry_that_cannot_be_examined_is_an_error_naming_it(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "A.run").write_text(_run(["A"] * 5))
    (folder / "C.run").write_text(_run(["C"] * 5))
    real_stat = Path.stat

    def stat(self: Path, *args: object, **kwargs: object) -> os.stat_result:
        if self.name == "C.run":  # as a link into a folder we may not enter (root enters every folder)
            raise PermissionError(13, "Permission denied")
        return real_stat(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "stat", stat)
    with pytest.raises(InputError, match=r"runs/C\.run: cannot be read \(Permission denied\)"):
        Pool.from_runs(folder)


def test_a_file_of_too_many_tags_is_refused_before_it_is_split(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    import ir_rarity.pool.build.sources as sources
    from ir_rarity.cli import main

    monkeypatch.setattr(sources, "MAX_RUNS_PER_FILE", 3)
    run = tmp_path / "tags.run"
    run.write_text("".join(f"q1 Q0 d{i} 1 1.0 tag{i}\n" for i in range(4)))
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    with pytest.raises(InputError, match=r"into 4 runs \(at most 3\)"):
        Pool.from_runs(run, split_by_tag=True)
    assert main(["eval", str(qrels), str(run), "--split-by-tag", "-m", "P@1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ir-rarity: error:") and "tags.run" in err[0]
    assert len(Pool.from_runs(run)) == 1  # read as what it is: one run
