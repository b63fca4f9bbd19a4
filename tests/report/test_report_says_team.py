"""The report says "team" where the campaign's S counts teams, "system" where it counts runs.

Round 1 with its leaderboard's teams: S_d counts the teams that retrieved a document, so a relevant document "retrieved
by one system" was in fact retrieved by one team (perhaps by several of its runs). The per-query table of the section
"Who finds what others miss" names its columns by what S counts.
"""

from __future__ import annotations

import pandas as pd
import pytest

import ir_rarity
from ir_rarity import covid_round1


def _expected(report: ir_rarity.report.Report) -> pd.DataFrame:
    """Per query: relevant documents retrieved by exactly one, and by 1 to ``rare``, of S's systems (from S_d)."""
    data = report.data
    qrels = data.evaluation.qrels
    relevant = qrels[qrels["relevance"] >= 1][["query_id", "doc_id"]].astype(str)
    counts = data.pool.counts(data.depth()).astype({"query_id": str, "doc_id": str})
    s_d = relevant.merge(counts, on=["query_id", "doc_id"], how="left")["S_d"].fillna(0)
    frame = pd.DataFrame({"query_id": relevant["query_id"].to_numpy(), "one": (s_d == 1).to_numpy(),
                          "rare": ((s_d >= 1) & (s_d <= data.settings.rare)).to_numpy()})
    return frame.groupby("query_id").sum().astype(int)


def test_a_campaign_of_teams_says_team(round1_report: ir_rarity.report.Report) -> None:
    data = round1_report.data
    assert data.evaluation.info.systems == "teams"
    rare = data.settings.rare
    table = data.rare_queries.set_index("query_id")
    assert list(table.columns) == ["relevant", "retrieved by none", "retrieved by one team",
                                   f"retrieved by 1 to {rare} teams"]
    expected = _expected(round1_report).loc[table.index]
    assert table["retrieved by one team"].tolist() == expected["one"].tolist()
    assert table[f"retrieved by 1 to {rare} teams"].tolist() == expected["rare"].tolist()
    assert table["retrieved by one team"].sum() > 0
    assert "retrieved by one team" in round1_report.html and "retrieved by one system" not in round1_report.html


def test_a_campaign_of_runs_says_system() -> None:
    pytest.importorskip("plotly")
    evaluation = ir_rarity.evaluate(covid_round1.runs, covid_round1.qrels, ["P@10", "P_rare(alpha=0.5)@10"],
                                    split_by_tag=True)
    assert evaluation.info.systems == "runs"
    built = ir_rarity.report(evaluation=evaluation.select(evaluation.names[:20]), pooling=False, resamples=50,
                             composition_resamples=5, trials=10, progress=False)
    assert built.data.rare_queries is not None
    rare = built.data.settings.rare
    assert list(built.data.rare_queries.columns) == ["query_id", "relevant", "retrieved by none",
                                                     "retrieved by one system", f"retrieved by 1 to {rare} systems"]
