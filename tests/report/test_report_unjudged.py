"""The report's "Unjudged documents" section: every score with its unjudged share and high bound, and the runs
whose order against the next one judged documents alone do not decide (checked against the evaluation's bounds)."""

from __future__ import annotations

import re

import pandas as pd

import ir_rarity
from ir_rarity.compare.rests import undecided_pairs


def test_undecided_pairs_by_hand() -> None:
    # a: P@2 reads x (relevant), u (unjudged): bounds [1/2, 1]; b: x, y judged: [1/2, 1/2]; c: y, w: [0, 1/2]
    runs = {"a": pd.DataFrame({"qid": "q", "docno": ["x", "u"], "score": [2.0, 1.0]}),
            "b": pd.DataFrame({"qid": "q", "docno": ["x", "y"], "score": [2.0, 1.0]}),
            "c": pd.DataFrame({"qid": "q", "docno": ["y", "w"], "score": [2.0, 1.0]})}
    qrels = pd.DataFrame({"query_id": "q", "doc_id": ["x", "y"], "relevance": [1, 0]})
    result = ir_rarity.evaluate(runs, qrels, ["P@2"], unjudged=True)
    # a vs b: a's low 1/2 is not above b's high 1/2: undecided; a vs c and b vs c: c's high 1/2 is not below
    # their low 1/2: undecided too. Decided needs strictly separated bounds.
    assert undecided_pairs(result, "P@2") == [("a", "b"), ("a", "c"), ("b", "c")]
    runs["c"] = pd.DataFrame({"qid": "q", "docno": ["y"], "score": [1.0]})  # c: [0, 0]
    result = ir_rarity.evaluate(runs, qrels, ["P@2"], unjudged=True)
    assert undecided_pairs(result, "P@2") == [("a", "b")]


def test_the_section_shows_every_score_with_its_unjudged_share(round1_report: ir_rarity.report.Report) -> None:
    html = round1_report.html
    section = html[html.index('id="unjudged"'):]
    section = section[:section.index("</section>")]
    ev = round1_report.data.evaluation
    first = ev.label(ev.measures[0])
    assert 'id="unjudged-table"' in section
    count = re.search(r"By (.+?), (\d+) of the (\d+) neighbouring pairs", section)
    assert count is not None and count.group(1) == first and int(count.group(3)) == len(ev.names) - 1
    shares = ev.unjudged(ev.measures[0])["unjudged"]
    assert 0 < shares.min() <= shares.max() < 1  # round 1's runs all read some unjudged documents
    assert f"{shares.max():.4f}"[:5] in section or f"{shares.max():.3f}" in section
    assert int(count.group(2)) > 0
