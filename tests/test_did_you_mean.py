"""A mistyped measure, run, team or baseline gets the closest known names in its one-line error."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import ParameterError, Pool, campaign
from ir_rarity.compare import compare_values
from ir_rarity.errors import did_you_mean
from ir_rarity.measures.parse import parse_measure

RUNS = {n: pd.DataFrame({"query_id": "1", "doc_id": [f"{n}1", "d"], "score": [2.0, 1.0]})
        for n in ("bm25_base", "bm25_rm3", "splade")}
QRELS = pd.DataFrame({"query_id": "1", "doc_id": ["d", "splade1"], "relevance": 1})


def test_the_hint_itself() -> None:
    assert did_you_mean("bm25_bse", ["bm25_base", "splade"]) == " (did you mean 'bm25_base'?)"
    assert did_you_mean("SPLADE", ["bm25_base", "splade"]) == " (did you mean 'splade'?)"
    assert did_you_mean("zzz", ["bm25_base"], "; the runs are bm25_base") == "; the runs are bm25_base"


def test_measures() -> None:
    with pytest.raises(ParameterError, match=r"measure not found: P_rar \(did you mean 'P_rare'"):
        parse_measure("P_rar(alpha=0.5)@10")
    with pytest.raises(ParameterError, match=r"did you mean 'nDCG'"):
        ir_rarity.evaluate(RUNS, QRELS, ["ndcg@10"])


def test_runs_teams_and_baselines() -> None:
    result = ir_rarity.evaluate(RUNS, QRELS, ["P@2"])
    with pytest.raises(KeyError, match=r"no evaluated run named 'bm25_rm' \(did you mean 'bm25_rm3'"):
        result.select(["bm25_rm"])
    with pytest.raises(KeyError, match=r"did you mean 'splade'"):
        Pool.from_runs(RUNS).run("spalde")
    with pytest.raises(ParameterError, match=r"baseline 'bm25_bas' is not one of the evaluated runs \(did you mean "
                                             r"'bm25_base'"):
        compare_values({ir_rarity.measures.parse.parse_measure("P@2"): np.zeros((3, 1))}, list(RUNS), ["bm25_bas"])
    teams = Pool.from_runs(RUNS, teams={"bm25_base": "waterloo", "bm25_rm3": "waterloo", "splade": "naver"})
    with pytest.raises(ParameterError, match=r"unknown team 'nave' \(did you mean 'naver'"):
        campaign.leave_one_team_out(teams, QRELS, ["P@2"], depth=2, teams=["nave"])
