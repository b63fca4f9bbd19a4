"""Headless Chromium driven by Selenium, for the tests that open outputs in a browser (one helper, every page test).

Without Chromium, its driver or selenium, a browser test skips, except in CI (``IR_RARITY_CI=1``), where it fails:
``.ci/run`` installs Debian's ``chromium`` and ``chromium-driver``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
OPTIONS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run"]


def missing() -> list[str]:
    """What a browser test needs and this machine lacks (empty: a browser can be started)."""
    lacking = [f"{p} (apt-get install -y chromium chromium-driver)" for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    try:
        import selenium  # noqa: F401
    except ImportError:
        lacking.append("selenium (pip install selenium)")
    return lacking


def chromium(what: str, window: str = "1400,1000", console: bool = False) -> Iterator[Any]:
    """A Chromium driver with a fresh profile, quit and removed afterwards (the body of a pytest fixture).

    Args:
        what: What the browser is for, in the skip or failure message.
        window: Window size, ``"width,height"``.
        console: Keep the page's console messages (``driver.get_log("browser")``).

    """
    lacking = missing()
    if lacking:
        reason = f"no browser to {what}: " + ", ".join(lacking)
        if os.environ.get("IR_RARITY_CI") == "1":
            pytest.fail(reason + f" (IR_RARITY_CI=1: CI must {what})")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="ir-rarity-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for option in [*OPTIONS, f"--window-size={window}", f"--user-data-dir={profile}"]:
        options.add_argument(option)
    if console:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
