"""The leaderboard shows each score's unjudged share beside it: a column ``"<measure> unjudged"`` after each measure,
equal to ``Evaluation.unjudged(m)`` in the page and in its CSV export, and to a count by hand for P@10."""

from __future__ import annotations

import io
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import covid_round1


class _Leaderboard(HTMLParser):
    """The leaderboard table's header texts and, per row (its ``data-run``), its cells' ``data-value`` (or text)."""

    def __init__(self) -> None:
        super().__init__()
        self.head: list[str] = []
        self.rows: list[list[str]] = []
        self.runs: list[str] = []
        self._inside = False
        self._cell: str | None = None
        self._value: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and a.get("id") == "leaderboard-table":
            self._inside = True
        if not self._inside:
            return
        if tag == "tr" and a.get("data-run"):
            self.rows.append([])
            self.runs.append(a["data-run"] or "")
        if tag in ("th", "td"):
            self._cell, self._value = "", a.get("data-value")

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell += data

    def handle_endtag(self, tag: str) -> None:
        if not self._inside:
            return
        if tag == "th" and self._cell is not None:
            self.head.append(self._cell.strip())
            self._cell = None
        if tag == "td" and self._cell is not None:
            self.rows[-1].append(self._value if self._value is not None else self._cell.strip())
            self._cell = None
        if tag == "table":
            self._inside = False


@pytest.fixture(scope="module")
def board(round1_report: ir_rarity.report.Report) -> pd.DataFrame:
    parsed = _Leaderboard()
    parsed.feed(round1_report.html)
    return pd.DataFrame(parsed.rows, columns=parsed.head, index=pd.Index(parsed.runs, name="run")).drop(columns="run")


def test_each_score_has_its_unjudged_share_beside_it(round1_report: ir_rarity.report.Report,
                                                     board: pd.DataFrame) -> None:
    ev = round1_report.data.evaluation
    columns = list(board.columns)
    for m in ev.measures:
        label = ev.label(m)
        assert columns[columns.index(label) + 1] == f"{label} unjudged"  # right after the score
        expected = ev.unjudged(m)["unjudged"]
        got = board[f"{label} unjudged"].astype(float)
        np.testing.assert_array_equal(got.to_numpy(), expected.loc[got.index].to_numpy())  # full values, exactly
    assert len(board) == len(ev.names)
    shares = board["P@10 unjudged"].astype(float)
    assert 0 < shares.min() < shares.max() < 1  # round 1: every run reads some unjudged documents, none only those
    # the caption says what the column is, and the separate section stays
    assert '"&lt;measure&gt; unjudged": the mean share of the documents the measure reads' in round1_report.html
    assert 'id="unjudged-table"' in round1_report.html


def test_p10_share_counted_by_hand(board: pd.DataFrame) -> None:
    """The share of each run's top 10 (trec_eval's order) that no judgment covers, averaged over its judged queries."""
    run = ir_rarity.read_trec_run(covid_round1.runs)
    qrels = ir_rarity.read_trec_qrels(covid_round1.qrels)
    judged = set(zip(qrels["query_id"].astype(str), qrels["doc_id"].astype(str), strict=True))
    queries = set(qrels["query_id"].astype(str))
    tag = "run" if "run" in run.columns else "tag"
    for name in sorted(set(run[tag]))[::20]:
        rows = run[(run[tag] == name) & run["query_id"].astype(str).isin(queries)]
        shares = []
        for query, ranking in rows.groupby("query_id"):
            top = ranking.sort_values(["score", "doc_id"], ascending=[False, False], kind="mergesort").head(10)
            unjudged = sum((str(query), str(d)) not in judged for d in top["doc_id"])
            shares.append(unjudged / len(top))
        assert board["P@10 unjudged"].astype(float)[name] == pytest.approx(float(np.mean(shares)), abs=1e-12), name


@pytest.mark.slow  # a browser (Chromium)
def test_the_csv_export_carries_the_shares(browser: Any, round1_html: Path,
                                           round1_report: ir_rarity.report.Report) -> None:
    browser.get(round1_html.resolve().as_uri())
    text = browser.execute_script("return window.irRarityReport.csv('leaderboard-table')")
    frame = pd.read_csv(io.StringIO(text), dtype={"run": str}).set_index("run")
    ev = round1_report.data.evaluation
    for m in ev.measures:
        expected = ev.unjudged(m)["unjudged"]
        np.testing.assert_array_equal(frame[f"{ev.label(m)} unjudged"].to_numpy(float),
                                      expected.loc[frame.index].to_numpy())
