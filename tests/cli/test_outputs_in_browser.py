"""The html table and the markdown table (rendered by Python-Markdown) in headless Chromium: no injected element.

The campaign of :mod:`hostile_names` (file names holding ``-->``, ``--->``, ``<img onerror>``, ``<script>``...)
evaluated by ``ir-rarity eval`` with its provenance, and a campaign table whose run names hold ``</script>``: the
page a browser builds holds no ``<img>`` nor ``<script>``, no alert is raised, one comment holds the provenance, and
the cells show the names as they are. Needs ``chromium``, ``chromium-driver`` and ``selenium``: without them the
test skips, except in CI (``IR_RARITY_CI=1``), where it fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from chromium import chromium
from hostile_names import hostile_campaign, markdown_to_html

import ir_rarity
from ir_rarity.cli import main
from ir_rarity.compare import campaign_table


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium("open the outputs in a browser", window="1000,800")


def _page(browser: Any, path: Path, body: str) -> dict[str, Any]:
    """Open ``body`` as a page; what the browser built of it (elements, comments, cell texts), and no alert."""
    from selenium.common.exceptions import NoAlertPresentException

    path.write_text(f"<!doctype html><html><head><meta charset='utf-8'><title>t</title></head><body>{body}"
                    "</body></html>", encoding="utf-8")
    browser.get(path.resolve().as_uri())  # returns after the load event: an image's error event came before
    alerts = []
    while True:  # every alert accepted, so that the next page opens whatever this one did
        try:
            alert = browser.switch_to.alert
        except NoAlertPresentException:
            break
        alerts.append(alert.text)
        alert.accept()
    assert alerts == [], f"the page raised alerts: {alerts}"
    return dict(browser.execute_script("""
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_COMMENT);
        let comments = 0; while (walker.nextNode()) comments++;
        return {img: document.querySelectorAll('img').length, script: document.querySelectorAll('script').length,
                elements: Array.from(new Set(Array.from(document.body.querySelectorAll('*')).map(e => e.localName))),
                comments: comments,
                cells: Array.from(document.querySelectorAll('tbody tr')).map(r => r.cells[0].textContent)};"""))


@pytest.mark.parametrize("fmt", ["html", "markdown"])
def test_eval_output_injects_nothing(browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    monkeypatch.delenv("IR_RARITY_NO_PROVENANCE", raising=False)
    files = hostile_campaign(tmp_path / "in")
    assert main(["eval", str(files["qrels"]), str(files["A"]), str(files["B"]), "-m", "P@2", "-o", fmt,
                 "--provenance"]) == 0  # with the provenance comment, which nothing may close
    out = capsys.readouterr().out
    built = _page(browser, tmp_path / "page.html", markdown_to_html(out) if fmt == "markdown" else out)
    assert built["img"] == 0 and built["script"] == 0 and built["comments"] == 1
    assert set(built["elements"]) <= {"table", "thead", "tbody", "tr", "th", "td", "caption", "b", "strong", "sup",
                                      "p"}
    assert built["cells"] == [files["A"].name, files["B"].name]


@pytest.mark.parametrize("fmt", ["html", "markdown"])
def test_campaign_table_injects_nothing(browser: Any, tmp_path: Path, hand_files: dict[str, Path],
                                        hand_qrels: pd.DataFrame, fmt: str) -> None:
    names = ["</script><script>alert(5)</script>", "x|y <img src=x onerror=alert(6)>"]
    result = ir_rarity.evaluate(dict(zip(names, (hand_files["A"], hand_files["B"]), strict=True)), hand_qrels,
                                ["P@2"])
    table = campaign_table(result, baselines=[names[0]], resamples=50)
    text = table._repr_html_() if fmt == "html" else markdown_to_html(table._repr_markdown_())
    built = _page(browser, tmp_path / "table.html", text)
    assert built["img"] == 0 and built["script"] == 0 and built["comments"] == 0
    assert [c for c in built["cells"]] == ["a", ""]  # the letter column first; the names are the second
    assert browser.execute_script(
        "return Array.from(document.querySelectorAll('tbody tr')).map(r => r.cells[1].textContent)") == names
