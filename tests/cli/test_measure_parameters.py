"""Every measure's parameters are checked before any provider sees them: one line naming the measure and value.

``P@0`` used to abort the process in pytrec_eval's C code; ``Judged@0``, ``P(judged_only=1)@10``,
``nDCG(gains={1:1.5})@10`` and ``SDCG@10`` ended in "internal error ... please report it"; ``RR@0`` and
``P_rare(depth=True)@10`` were accepted; ``-m P@10 P@10`` failed on a pandas length mismatch.
"""

from __future__ import annotations

from pathlib import Path

import ir_measures
import pytest

import ir_rarity
from ir_rarity.errors import ParameterError
from ir_rarity.measures.parse import parse_measure, parse_measures
from tests.cli_helpers import assert_cli_error, run_cli

BAD = {
    "P@0": ("P", "cutoff=0", "positive"),
    "RR@0": ("RR", "cutoff=0", "positive"),
    "Judged@0": ("Judged", "cutoff=0", "positive"),
    "P(judged_only=1)@10": ("P", "judged_only=1", "True or False"),
    "nDCG(gains={1:1.5})@10": ("nDCG", "gains={1: 1.5}", "integer gains"),
    "SDCG@10": ("SDCG", "max_rel", "required"),
    "P_rare(depth=True)@10": ("P_rare", "depth=True", "integer"),
    "P(rel=True)@10": ("P", "rel=True", "integer"),
    "P_rare@0": ("P_rare", "cutoff=0", "positive"),
    "nDCG(dcg='nope')": ("nDCG", "dcg='nope'", "choose from"),
}


@pytest.mark.parametrize("text", list(BAD))
def test_bad_parameters_api(text: str) -> None:
    with pytest.raises(ParameterError) as info:
        parse_measure(text)
    message = str(info.value)
    assert "\n" not in message and all(word in message for word in BAD[text])
    with pytest.raises(ParameterError):  # a measure object, too
        parse_measure(ir_measures.parse_measure(text))


@pytest.mark.slow
def test_bad_parameters_cli(files: dict[str, Path]) -> None:
    for text, words in BAD.items():
        result = run_cli("eval", files["qrels"], files["run"], "-m", text)
        assert_cli_error(result, *words)  # never a SIGABRT (exit -6) nor "internal error"
        assert "internal error" not in result.stderr


def test_good_parameters_pass_and_int_floats_become_floats() -> None:
    assert parse_measure("RBP(p=1)") == ir_measures.parse_measure("RBP(p=1.0)")
    assert parse_measure("nDCG(gains={0:0,1:3})@10") == ir_measures.parse_measure("nDCG(gains={0:0,1:3})@10")
    assert parse_measure("P_rare(depth=5,alpha=1)@10") == ir_rarity.P_rare(depth=5) @ 10
    assert str(parse_measure("ASL@g1-10")) == "ASL@g1-10"


@pytest.mark.slow
def test_sdcg_with_max_rel_says_unsupported(files: dict[str, Path]) -> None:
    # ir_measures knows SDCG; none of the installed providers computes it: one line saying so, exit 2
    result = run_cli("eval", files["qrels"], files["run"], "-m", "SDCG(max_rel=2)@10")
    if result.returncode == 0:  # a provider that computes it is installed: computed through ir_measures
        assert "SDCG(max_rel=2)@10" in result.stdout
    else:
        assert_cli_error(result, "SDCG(max_rel=2)@10")


@pytest.mark.slow
def test_duplicate_measures_are_one_column(files: dict[str, Path]) -> None:
    assert parse_measures(["P@10", "P@10", "P_rare(alpha=1)@5", "P_rare@5"]) == [
        ir_measures.P @ 10, ir_rarity.P_rare @ 5]
    table = ir_rarity.evaluate(str(files["run"]), str(files["qrels"]), ["P@2", "P@2"]).table()
    assert list(table.columns) == ["P@2"]
    result = run_cli("eval", files["qrels"], files["run"], "-m", "P@2", "P@2")
    assert result.returncode == 0, result.stderr
    assert [line.split("\t")[0] for line in result.stdout.splitlines()] == ["P@2"]  # one line: as ir_measures
