"""The report for organizers in headless Chromium: pairs at one cutoff in the DOM, CSV export, group filters.

The CSV a table's button downloads is ``window.irRarityReport.csv(id)`` (the same function): read back with pandas it
is ``Evaluation.table()`` to the last digit. Needs Chromium and its driver (see ``tests/chromium.py``).
"""

from __future__ import annotations

import io
import re
from typing import Any

import pandas as pd
import pytest

import ir_rarity
from ir_rarity import covid_round1

pytestmark = pytest.mark.slow  # a browser (Chromium)

PAIR = re.compile(r"(\S+?)@(\d+) against (\S+?)@(\d+) \(both at cutoff (\d+)\)")


def test_every_rarity_view_pairs_measures_at_one_cutoff(opened: Any, round1_report: ir_rarity.report.Report
                                                         ) -> None:
    texts = opened.execute_script(
        "return Array.from(document.querySelectorAll('#rarity .gtitle, #rarity h3, #gain .gtitle, #gain h3, "
        "#rarity .xtitle, #gain .ytitle')).map(e => e.textContent)")
    labelled = [PAIR.search(t) for t in texts]
    found = [m.groups() for m in labelled if m]
    # each pair's scatter title, its movers table and its gain table say it; every one at one cutoff
    assert len(found) >= 3 * len(round1_report.data.pairs)
    assert all(a == b == c for _, a, _, b, c in found), found
    assert {(f"{r}@{a}", f"{s}@{b}") for r, a, s, b, _ in found} == set(round1_report.data.pairs)
    axes = opened.execute_script("return Array.from(document.querySelectorAll('#rarity .xtitle')).map(e => "
                                 "e.textContent)")
    assert axes == [f"{base} (standard, same cutoff)" for _, base in round1_report.data.pairs]
    moved = opened.execute_script("return Array.from(document.querySelectorAll('#rarity table thead th')).map(e => "
                                  "e.textContent)")
    ranks = [re.fullmatch(r"rank by (\S+)", t).group(1) for t in moved if t.startswith("rank by")]
    cutoffs = [r.rsplit("@", 1)[1] for r in ranks]
    assert ranks and all(cutoffs[i] == cutoffs[i + 1] for i in range(0, len(cutoffs), 2))


def test_csv_export_parses_back_to_the_evaluation_table(opened: Any, round1_report: ir_rarity.report.Report
                                                         ) -> None:
    from selenium.webdriver.common.by import By

    text = opened.execute_script("return window.irRarityReport.csv('leaderboard-table')")
    frame = pd.read_csv(io.StringIO(text), dtype={"run": str}).set_index("run")
    table = round1_report.data.evaluation.table()
    got = frame.loc[table.index, list(table.columns)]
    pd.testing.assert_frame_equal(got, table, check_exact=True, check_names=False, check_dtype=False)
    assert list(frame.columns[:4]) == ["#", "team", "runtype", "contributed judgments"]
    # every table has both buttons, and a click downloads without an error
    tables = opened.execute_script("return Array.from(document.querySelectorAll('table.sortable')).map(t => t.id)")
    buttons = opened.execute_script("return Array.from(document.querySelectorAll('button[data-export-table]'))"
                                    ".map(b => b.getAttribute('data-export-table') + ' ' + b.textContent)")
    assert sorted(buttons) == sorted([f"{t} {kind}" for t in tables for kind in ("CSV", "LaTeX")])
    for tid in tables:  # each table's CSV has its rows
        rows = opened.execute_script(f"return document.getElementById('{tid}').tBodies[0].rows.length")
        csv = opened.execute_script(f"return window.irRarityReport.csv('{tid}')")
        assert len(pd.read_csv(io.StringIO(csv))) == rows, tid
    button = opened.find_element(By.CSS_SELECTOR, "button.export-csv[data-export-table='leaderboard-table']")
    opened.execute_script("arguments[0].click()", button)
    assert [e for e in opened.get_log("browser") if e.get("level") == "SEVERE"] == []
    latex = opened.execute_script("return window.irRarityReport.latex('gain-table-0')")
    lines = latex.splitlines()
    assert lines[0].startswith("\\begin{tabular}{") and lines[-1] == "\\end{tabular}"
    assert len(lines) == 5 + len(round1_report.data.gain[round1_report.data.pairs[0]]) + 1


def test_group_select_filters_the_leaderboard(opened: Any) -> None:
    from selenium.webdriver.support.ui import Select

    raw = pd.read_csv(covid_round1.leaderboard, dtype=str)
    select = opened.find_element("css selector", "select[data-group-table='leaderboard-table'][data-group-index='0']")
    Select(select).select_by_value("manual")
    shown = opened.execute_script("return Array.from(document.querySelectorAll('#leaderboard-table tbody tr'))"
                                  ".filter(r => !r.hidden).map(r => r.dataset.run)")
    assert set(shown) == set(raw.loc[raw["runtype"] == "manual", "run"])
    Select(select).select_by_value("")
    hidden = opened.execute_script("return Array.from(document.querySelectorAll('#leaderboard-table tbody tr'))"
                                   ".filter(r => r.hidden).length")
    assert hidden == 0
