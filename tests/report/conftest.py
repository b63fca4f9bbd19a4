"""The campaign report of the embedded round 1, built once per session with small trials and budgets; a browser.

``browser`` is headless Chromium driven by Selenium (module-scoped): without it the test skips, except in CI.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chromium import chromium

import ir_rarity
from ir_rarity import covid_round1

FAST = {"resamples": 200, "composition_resamples": 20, "trials": 50, "budgets": (10, 20),
        "strategies": ("depth", "mtf"), "progress": False}
"""Settings that keep a round-1 report to a few seconds."""


@pytest.fixture(scope="session")
def round1_report() -> ir_rarity.report.Report:
    pytest.importorskip("plotly", reason="the report's charts need plotly (pip install 'ir_rarity[report]')")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir_rarity.RarityWarning)  # ASL's run-length warning: shown in the page
        return ir_rarity.report(covid_round1.runs, covid_round1.qrels, split_by_tag=True,
                                teams=covid_round1.leaderboard, leaderboard=covid_round1.leaderboard,
                                baselines=["bm25_baseline"], **FAST)


@pytest.fixture(scope="session")
def round1_html(round1_report: ir_rarity.report.Report, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return round1_report.save(tmp_path_factory.mktemp("report") / "round1.html")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium("test the report in a browser", console=True)


@pytest.fixture(scope="module")
def opened(browser: Any, round1_html: Path) -> Any:
    """The round-1 report open in the browser, once every chart has drawn."""
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(round1_html.resolve().as_uri())
    expected = round1_html.read_text(encoding="utf-8").count("Plotly.newPlot(")
    WebDriverWait(browser, 60).until(lambda d: d.execute_script(
        "return document.readyState === 'complete' && "
        "document.querySelectorAll('.js-plotly-plot .main-svg').length >= arguments[0]", expected))
    return browser
