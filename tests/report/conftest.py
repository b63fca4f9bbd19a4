"""The campaign report of the embedded round 1, built once per session with small trials and budgets; a browser.

``browser`` is headless Chromium driven by Selenium (module-scoped): without it the test skips, except in CI.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

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
                                teams=covid_round1.leaderboard, baselines=["bm25_baseline"], **FAST)


@pytest.fixture(scope="session")
def round1_html(round1_report: ir_rarity.report.Report, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return round1_report.save(tmp_path_factory.mktemp("report") / "round1.html")


CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
OPTIONS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1400,1000"]


def _missing() -> list[str]:
    missing = [f"{p} (apt-get install -y chromium chromium-driver)" for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip install selenium)")
    return missing


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = _missing()
    if missing:
        reason = "no browser to test the report in: " + ", ".join(missing)
        if os.environ.get("IR_RARITY_CI") == "1":
            pytest.fail(reason + " (IR_RARITY_CI=1: CI must test the report in a browser)")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="ir-rarity-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for option in [*OPTIONS, f"--user-data-dir={profile}"]:
        options.add_argument(option)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
