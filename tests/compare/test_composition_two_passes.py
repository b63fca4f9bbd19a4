"""Composition intervals of a campaign read in two passes: the in-memory campaign's table, to the last bit.

The streamed campaign's composition is computed on its judged rows (:mod:`ir_rarity.pool.judged`); the reference
is the same analysis on the campaign held in memory (whole runs, and the rows an in-memory evaluation keeps), whose
values the composition tests check against brute force.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import ir_rarity
from ir_rarity import covid_round1
from ir_rarity.compare.uncertainty import composition
from ir_rarity.errors import ParameterError
from ir_rarity.measures.parse import parse_measure
from ir_rarity.pool import stream as stream_module
from ir_rarity.pool.pool import Pool
from ir_rarity.pool.stream import stream_campaign
from tests.run_files import write_campaign

MEASURES = ["P_rare@10", "AP_rare(alpha=0.5)", "nDCG_rare@15", "R_rare(alpha=0.5)@20", "P_rare(alpha=2,depth=25)@5"]
"""Every rarity family, S_d at the cutoff, at its own depth and over whole runs (``AP_rare``)."""


def test_round1_streamed_equals_in_memory() -> None:
    """TREC-COVID round 1 (143 runs of one file): the leave-one-run-out and bootstrap columns, every bit."""
    measures = ["P_rare(alpha=1)@100", "AP_rare(alpha=0.5)@100", "nDCG_rare@20", "R_rare(alpha=0.5)@50"]
    memory, streamed = (ir_rarity.evaluate(covid_round1.runs, covid_round1.qrels, measures[:3], split_by_tag=True,
                                           stream=s) for s in (False, True))  # R_rare: scored by composition
    assert isinstance(memory.campaign, Pool) and not isinstance(streamed.campaign, Pool)
    a = composition(Pool.from_runs(covid_round1.runs, split_by_tag=True), memory.judgments, measures, resamples=10,
                    seed=4)
    b = composition(streamed.campaign, streamed.judgments, measures, resamples=10, seed=4)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert a.attrs == b.attrs
    c = composition(memory.campaign, memory.judgments, measures[:3], resamples=10, seed=4)  # the rows it keeps
    pd.testing.assert_frame_equal(c, b[c.columns], check_exact=True)
    assert (a["P_rare@100 loto low"] < a["P_rare@100 loto high"]).any()  # the ranges are not empty


def test_several_files_and_blocks_equal_whole_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Several run files read in blocks of one or two: the table of the whole runs held in memory."""
    monkeypatch.setattr(stream_module, "_BLOCK_ROWS", 150)
    monkeypatch.setattr(stream_module, "_MAX_BLOCK_ROWS", 300)
    files, qrels = write_campaign(tmp_path / "c", n_runs=8)
    streamed = ir_rarity.evaluate(files, qrels, MEASURES[:3], stream=True)  # R_rare: scored by composition
    assert len(streamed.campaign.member_blocks(0)) > 2
    whole = Pool.from_runs(files)
    a = composition(whole, qrels, MEASURES, resamples=30, seed=1)
    b = composition(streamed.campaign, qrels, MEASURES, resamples=30, seed=1)
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_novelty_needs_the_rows(tmp_path: Path) -> None:
    """U_novel reads every row's reading probability: refused on judged rows, in one line saying so."""
    files, qrels = write_campaign(tmp_path / "c", n_runs=3)
    streamed = stream_campaign(files, [parse_measure("P_rare@10")], None)
    with pytest.raises(ParameterError, match="U_novel@10 needs the campaign's runs held in memory: it reads every "
                                             "row's reading probability"):
        composition(streamed, qrels, ["P_rare@10", "U_novel@10"], resamples=0)


def test_command_line_streamed_equals_in_memory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``ir-rarity eval --composition --stream`` prints the table it prints without --stream."""
    from ir_rarity.cli.commands import main

    files, qrels = write_campaign(tmp_path / "c", n_runs=4)
    args = ["eval", str(qrels), *map(str, files), "-m", "AP_rare", "P_rare@10", "--composition",
            "--composition-resamples", "20"]
    assert main(args) == 0
    in_memory = capsys.readouterr().out
    assert main([*args, "--stream"]) == 0
    assert capsys.readouterr().out == in_memory
    assert "loto" in in_memory


def test_the_report_keeps_the_composition_section(tmp_path: Path) -> None:
    """The campaign report of run files read in two passes has the composition table of the runs in memory."""
    from ir_rarity.report.data import ReportData, Settings
    from ir_rarity.report.sections import SECTIONS

    files, qrels = write_campaign(tmp_path / "c", n_runs=5)
    tables = []
    for stream in (False, True):
        evaluation = ir_rarity.evaluate(files, qrels, ["P@5", "P_rare@10", "AP_rare@10"], stream=stream)
        data = ReportData(evaluation=evaluation, settings=Settings(composition_resamples=15), teams={}, warnings=[])
        gather = SECTIONS["uncertainty"].gather
        assert gather is not None
        gather(data)
        assert data.composition is not None and not data.notes
        tables.append(data.composition)
    pd.testing.assert_frame_equal(tables[0], tables[1], check_exact=True)
