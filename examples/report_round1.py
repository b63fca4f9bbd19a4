"""The campaign report of the embedded TREC-COVID round 1, and the screenshots of docs/report.md.

    python examples/report_round1.py [OUT.html] [--screenshots DIR]

Builds the report with the default settings (as ``ir-rarity report`` does), prints its size and the time taken,
(baseline ``bm25_baseline``, Holm's correction; the leaderboard file's columns as groups), and with
``--screenshots`` opens it in headless Chromium (Debian packages ``chromium`` and ``chromium-driver``,
``pip install selenium``) and saves a PNG of a few sections.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path

import ir_rarity
from ir_rarity import covid_round1

SHOTS = {"leaderboard": "leaderboard.png", "rarity": "rarity.png", "gain": "rarity_gain.png", "groups": "groups.png",
         "topics": "topics.png", "judged": "judged.png", "uncertainty": "how_sure.png", "depth": "depth.png"}


def screenshots(page: Path, folder: Path) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for option in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                   "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1280,860",
                   "--hide-scrollbars", f"--user-data-dir={tempfile.mkdtemp()}"]:
        options.add_argument(option)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(page.resolve().as_uri())
        WebDriverWait(driver, 60).until(lambda d: d.execute_script("return document.readyState") == "complete")
        time.sleep(1)
        folder.mkdir(parents=True, exist_ok=True)
        for section, name in SHOTS.items():
            driver.execute_script("document.getElementById(arguments[0]).scrollIntoView()", section)
            time.sleep(0.5)
            driver.save_screenshot(str(folder / name))
            print(f"wrote {folder / name}")
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", nargs="?", default="report_round1.html")
    parser.add_argument("--screenshots", metavar="DIR", type=Path)
    args = parser.parse_args()
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir_rarity.RarityWarning)  # the page shows them
        report = ir_rarity.report(covid_round1.runs, covid_round1.qrels, split_by_tag=True,
                                  teams=covid_round1.leaderboard, leaderboard=covid_round1.leaderboard,
                                  baselines=["bm25_baseline"], out=args.out,
                                  command="python examples/report_round1.py")
    print(f"{args.out}: {report.size:,} bytes ({report.size / 1e6:.1f} MB), built in "
          f"{time.perf_counter() - start:.1f} s; steps: "
          + ", ".join(f"{k} {v:.1f} s" for k, v in report.data.timings.items()))
    if args.screenshots:
        screenshots(Path(args.out), args.screenshots)


if __name__ == "__main__":
    main()
