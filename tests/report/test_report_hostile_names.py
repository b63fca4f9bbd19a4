"""No input string becomes markup: run names, the qrels file's name, the title and the command hold HTML and
script-closing text, and the page shows them as text, in its own elements only, with its scripts intact.

The page is parsed with :mod:`html.parser` (every element is one the report writes; every ``<script>`` is one of
its own, whole) and loaded in headless Chromium (names shown as written, sorting works, the provenance JSON parses
in the page, no alert).
"""

from __future__ import annotations

import json
import shlex
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import ir_rarity
from ir_rarity.cli import main
from ir_rarity.report.facts import compact_lines

HOSTILE = ["<!--<script>", "</script><script>alert(1)</script>", "<img src=x onerror=alert(1)>", "-->",
           "&amp; \"double\" 'single'", "line\u2028separator\u2029paragraph"]
"""Strings that would end a script or comment, or open an element, if they reached the page as markup."""

TITLE = "Report " + " ".join(HOSTILE)

RUNS = [  # six runs, P@2 of 1, 0.75, 0.5, 0.5, 0.25, 0 (hand-worked below), names HOSTILE in that order
    "q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq2 Q0 d4 1 3 t\nq2 Q0 d5 2 2 t\n",
    "q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq2 Q0 d4 1 3 t\nq2 Q0 x1 2 2 t\n",
    "q1 Q0 d1 1 3 t\nq1 Q0 x1 2 2 t\nq2 Q0 d4 1 3 t\nq2 Q0 x2 2 2 t\n",
    "q1 Q0 d2 1 3 t\nq1 Q0 d3 2 2 t\nq2 Q0 x1 1 3 t\nq2 Q0 x2 2 2 t\n",
    "q1 Q0 x1 1 3 t\nq1 Q0 d3 2 2 t\nq2 Q0 x2 1 3 t\nq2 Q0 x3 2 2 t\n",
    "q1 Q0 x1 1 3 t\nq1 Q0 x2 2 2 t\nq2 Q0 x3 1 3 t\nq2 Q0 x4 2 2 t\n",
]
P2 = [1.0, 0.75, 0.5, 0.5, 0.25, 0.0]
QRELS = "q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 1\nq2 0 d4 1\nq2 0 d5 1\n"

OURS = {"html", "head", "meta", "title", "style", "script", "body", "header", "h1", "div", "nav", "a", "main",
        "section", "h2", "h3", "p", "dl", "dt", "dd", "span", "small", "table", "thead", "tbody", "tr", "th", "td",
        "label", "input", "details", "summary", "pre", "footer"}
"""Every element the report writes."""

FAST = {"resamples": 50, "composition_resamples": 5, "trials": 10, "budgets": (2, 4), "strategies": ("depth",),
        "progress": False}


def _qrels_path(root: Path) -> Path:
    """A qrels file whose path holds ``<!--<script></script><img src=x onerror=alert(1)>`` and quotes."""
    folder = root / "<!--<script><"
    folder.mkdir(parents=True)
    path = folder / "script><img src=x onerror=alert(1)> &amp; \"q\" 'q'.qrels"
    path.write_text(QRELS)
    return path


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[ir_rarity.report.Report, Path]:
    pytest.importorskip("plotly")
    root = tmp_path_factory.mktemp("hostile")
    qrels = _qrels_path(root)
    runs = {}
    for i, (name, text) in enumerate(zip(HOSTILE, RUNS, strict=True)):
        path = root / f"run{i}"
        path.write_text(text)
        runs[name] = path
    built = ir_rarity.report(runs, qrels, ["P@2", "P_rare(alpha=0.5)@2", "ASL"], title=TITLE,
                             command=["ir-rarity", "report", str(qrels), "--title", TITLE], **FAST)
    return built, built.save(root / "report.html")


class _Elements(HTMLParser):
    """Every element and attribute of a page, every script's text, comments, and the text of some elements."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[str] = []
        self.scripts: list[tuple[str | None, str]] = []
        self.comments: list[str] = []
        self.texts: dict[str, str] = {}
        self._open: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [name for name, _ in attrs]
        a = dict(attrs)
        if tag in ("script", "title", "h1", "pre"):
            self._open.append((tag, a.get("id")))
            self.texts.setdefault(f"{tag}#{a.get('id')}", "")

    def handle_data(self, data: str) -> None:
        for tag, ident in self._open:
            self.texts[f"{tag}#{ident}"] += data

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1][0] == tag:
            _, ident = self._open.pop()
            if tag == "script":
                self.scripts.append((ident, self.texts.pop(f"script#{ident}")))

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


def test_names_are_runs_of_the_report(hostile: tuple[ir_rarity.report.Report, Path]) -> None:
    built, _ = hostile
    table = built.data.evaluation.table()
    assert sorted(table.index) == sorted(HOSTILE)
    assert [float(table.at[name, "P@2"]) for name in HOSTILE] == P2


def test_no_element_the_report_did_not_write(hostile: tuple[ir_rarity.report.Report, Path]) -> None:
    built, _ = hostile
    page = _Elements()
    page.feed(built.html)
    page.close()
    assert set(page.tags) <= OURS, set(page.tags) - OURS
    assert not [a for a in page.attributes if a.startswith("on")]
    assert page.comments == []
    assert page.texts["title#None"] == TITLE and page.texts["h1#None"] == TITLE
    # every script is one of the page's own, whole: JSON that parses, plotly.js, a chart, or report.js
    kinds = {"json": 0, "plotly.js": 0, "chart": 0, "report.js": 0}
    for ident, text in page.scripts:
        if ident is not None or text.startswith("Plotly.newPlot("):  # data: no raw <, >, &, U+2028/9 at all
            assert not set(text) & set("<>&\u2028\u2029"), (ident, text[:200])
        if ident in ("report-meta", "provenance-json"):
            json.loads(text)
            kinds["json"] += 1
        elif "plotly.js v" in text[:400]:
            kinds["plotly.js"] += 1
        elif text.startswith("Plotly.newPlot(") and text.endswith(");"):
            kinds["chart"] += 1
        else:
            assert text.lstrip().startswith("/* ir_rarity report: sortable"), text[:200]
            kinds["report.js"] += 1
    assert kinds["json"] == 2 and kinds["plotly.js"] == 1 and kinds["report.js"] == 1
    assert kinds["chart"] == built.html.count("Plotly.newPlot(") >= 6
    # the provenance names the hostile qrels file and command, as written
    facts = json.loads(dict(page.scripts)["provenance-json"])
    assert facts == json.loads(json.dumps(built.provenance.as_dict(), default=str))
    assert any("<!--<script></script><img src=x onerror=alert(1)>" in i["name"] for i in facts["inputs"])
    assert shlex.split(facts["command"])[-1] == TITLE
    assert page.texts["pre#provenance-lines"] == "\n".join(compact_lines(built.provenance))  # a name stays on its line


def test_cli_title_is_text(hand_files: dict[str, Path], tmp_path: Path) -> None:
    pytest.importorskip("plotly")
    out = tmp_path / "report.html"
    qrels = _qrels_path(tmp_path / "inputs")
    qrels.write_text(hand_files["qrels"].read_text())
    code = main(["report", str(qrels), str(hand_files["A"]), str(hand_files["B"]), "--out", str(out), "--title",
                 TITLE, "--resamples", "20", "--composition-resamples", "2", "--trials", "5", "--no-pooling",
                 "--quiet", "-m", "P@2", "P_rare(alpha=0.5)@2"])
    assert code == 0
    page = _Elements()
    page.feed(out.read_text(encoding="utf-8"))
    page.close()
    assert set(page.tags) <= OURS and page.comments == []
    assert page.texts["title#None"] == TITLE and page.texts["h1#None"] == TITLE
    assert json.loads(dict(page.scripts)["provenance-json"])["inputs"][0]["name"].endswith(qrels.name)


def _open(browser: Any, built: ir_rarity.report.Report, path: Path) -> None:
    """Load the page and wait until every chart is drawn."""
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(path.resolve().as_uri())
    WebDriverWait(browser, 60).until(lambda d: d.execute_script(
        "return document.readyState === 'complete' && "
        "document.querySelectorAll('.js-plotly-plot .main-svg').length >= arguments[0]",
        built.html.count("Plotly.newPlot(")))


@pytest.mark.slow
def test_hostile_names_in_a_browser(browser: Any, hostile: tuple[ir_rarity.report.Report, Path]) -> None:
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    built, path = hostile
    _open(browser, built, path)
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018
    assert [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"] == []
    assert browser.execute_script("return document.title") == TITLE
    assert browser.execute_script("return document.querySelector('h1').textContent") == TITLE
    assert browser.execute_script("return document.querySelectorAll('img, iframe, object, embed').length") == 0

    # run names shown as text, in leaderboard order (P@2 best first; the tied pair by name)
    def runs() -> list[str]:
        return browser.execute_script(  # type: ignore[no-any-return]
            "return Array.from(document.querySelectorAll('#leaderboard-table tbody tr'))"
            ".map(r => r.cells[1].firstChild.textContent.replace(/ $/, ''))")

    order = sorted(HOSTILE, key=lambda n: (-P2[HOSTILE.index(n)], n))
    assert runs() == order
    # sorting still works: the run column, then P@2 ascending after the descending first click
    headers = browser.find_elements(By.CSS_SELECTOR, "#leaderboard-table thead th")
    names = [h.text for h in headers]
    headers[names.index("run")].click()
    assert runs() == sorted(HOSTILE, key=str.lower)
    headers[names.index("P@2")].click()
    assert [P2[HOSTILE.index(n)] for n in runs()] == sorted(P2, reverse=True)
    headers[names.index("P@2")].click()
    assert [P2[HOSTILE.index(n)] for n in runs()] == sorted(P2)

    # the provenance JSON parses in the page and names the hostile qrels file
    facts = browser.execute_script("return JSON.parse(document.getElementById('provenance-json').textContent)")
    assert facts == json.loads(json.dumps(built.provenance.as_dict(), default=str))
    assert browser.execute_script("return document.getElementById('provenance-lines').textContent") == \
        "\n".join(compact_lines(built.provenance))
    # the per-query heat map labels every run by its name, as written
    labels = browser.execute_script("return Array.from(document.querySelectorAll('#per-query-0 .ytick text'))"
                                    ".map(t => t.textContent)")
    assert sorted(labels) == sorted(HOSTILE)


@pytest.mark.slow
def test_charts_label_runs_and_provenance_folds(browser: Any, hostile: tuple[ir_rarity.report.Report, Path]) -> None:
    """The heat map and the interval chart name every run; the provenance is collapsed, and wraps when opened."""
    built, path = hostile
    _open(browser, built, path)
    table = built.data.table
    assert table is not None
    ticks = "return Array.from(document.querySelectorAll(arguments[0])).map(t => t.textContent)"
    assert browser.execute_script(ticks, "#mean-intervals .xtick text") == list(table.index)
    for i in range(len(built.data.per_query)):
        assert sorted(browser.execute_script(ticks, f"#per-query-{i} .ytick text")) == sorted(table.index)
    assert browser.execute_script("return document.getElementById('provenance-details').open") is False
    assert not browser.find_element("id", "provenance-lines").is_displayed()
    browser.execute_script("document.getElementById('provenance-details').open = true")
    assert browser.find_element("id", "provenance-lines").is_displayed()
    assert browser.execute_script("const pre = document.getElementById('provenance-lines');"
                                  "return pre.scrollWidth <= pre.clientWidth")  # long lines wrap
