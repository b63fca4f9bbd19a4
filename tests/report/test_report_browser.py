"""The round-1 report in a real browser: headless Chromium driven by Selenium.

No console error, every section shown, a click on a leaderboard header sorts the rows, hovering a scatter point
names its run, and a screenshot that is not blank. Needs the Debian packages ``chromium`` and ``chromium-driver``
and the ``selenium`` package: without them the test skips, except in CI (``IR_RARITY_CI=1``, set by ``.ci/run``,
which installs them), where it fails.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

import ir_rarity
from ir_rarity.report.sections import SECTIONS

pytestmark = pytest.mark.slow  # a browser (Chromium)


def _leaderboard_runs(driver: Any) -> list[str]:
    return [str(r) for r in driver.execute_script(
        "return Array.from(document.querySelectorAll('#leaderboard-table tbody tr')).map(r => r.dataset.run)")]


def test_report_in_a_browser(opened: Any, round1_report: ir_rarity.report.Report) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = opened
    # no console errors
    severe = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    assert severe == []

    # every section present and shown, with its title
    for key, entry in SECTIONS.items():
        section = driver.find_element(By.ID, key)
        assert section.is_displayed() and section.find_element(By.TAG_NAME, "h2").text == entry.title

    # clicking a leaderboard header sorts the rows
    table = round1_report.data.table
    assert table is not None
    before = _leaderboard_runs(driver)
    assert before == list(table.index)
    headers = driver.find_elements(By.CSS_SELECTOR, "#leaderboard-table thead th")
    column = [h.text for h in headers].index("P_rare(alpha=0.5)@100")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", headers[column])
    headers[column].click()
    after = _leaderboard_runs(driver)
    ranked = table["P_rare(alpha=0.5)@100"].sort_values(ascending=False, kind="mergesort")  # stable: ties keep order
    assert after == list(ranked.index) and after != before
    headers[column].click()  # again: the other way round
    assert _leaderboard_runs(driver) == list(table["P_rare(alpha=0.5)@100"].sort_values(kind="mergesort").index)
    run_header = [h.text for h in headers].index("run")
    headers[run_header].click()
    assert _leaderboard_runs(driver) == sorted(before, key=str.lower)

    # filtering by team keeps that team's runs
    box = driver.find_element(By.ID, "leaderboard-table-filter")
    box.send_keys("GUIR_S2")
    shown = driver.execute_script("return Array.from(document.querySelectorAll('#leaderboard-table tbody tr'))"
                                  ".filter(r => !r.hidden).map(r => r.dataset.run)")
    teams = round1_report.data.teams
    assert shown and set(shown) == {r for r, t in teams.items() if t == "GUIR_S2"}
    box.clear()
    box.send_keys(" ")  # an empty filter shows every row again

    # hovering a scatter point names its run and team
    scatter = driver.find_element(By.ID, "scatter-0")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", scatter)
    points = scatter.find_elements(By.CSS_SELECTOR, ".scatterlayer .points path.point")
    assert len(points) == 143
    ActionChains(driver).move_to_element(points[len(points) // 2]).perform()
    WebDriverWait(driver, 10).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#scatter-0 .hoverlayer .hovertext"))
    lines = driver.execute_script("return Array.from(document.querySelectorAll("
                                  "'#scatter-0 .hoverlayer .hovertext tspan.line')).map(t => t.textContent)")
    assert lines[0] in teams and lines[1] == f"team {teams[lines[0]]}", lines

    # a screenshot, not blank
    from PIL import Image

    driver.execute_script("window.scrollTo(0, 0)")
    image = Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20)
    assert image.size[0] >= 800 and colours is not None and len(colours) > 16
