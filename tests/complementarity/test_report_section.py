"""The report's complementarity section: computed when asked, the same values as the analysis, a note otherwise."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import ir_rarity

pytest.importorskip("plotly")

RUNS = {"A1": ["d1", "d2", "d3"], "A2": ["d2", "d1", "d4"], "B1": ["d3", "d5", "d1"], "C1": ["d6", "d4", "d2"]}
TEAMS = {"A1": "A", "A2": "A", "B1": "B", "C1": "C"}
QRELS = pd.DataFrame({"query_id": ["q1"] * 5 + ["q2"] * 3, "doc_id": ["d1", "d3", "d4", "d6", "d2", "d2", "d5", "d6"],
                      "relevance": [1, 2, 1, 1, 0, 1, 1, 0]})


def runs() -> dict[str, pd.DataFrame]:
    return {name: pd.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 3, "doc_id": docs + docs[::-1],
                                "score": [3.0, 2.0, 1.0] * 2}) for name, docs in RUNS.items()}


def build(**options: object) -> ir_rarity.report.Report:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir_rarity.RarityWarning)
        return ir_rarity.report.report(runs(), QRELS, ["P@2", "P_rare(alpha=0.5)@2"], teams=TEAMS, pooling=False,
                                       resamples=20, composition_resamples=0, trials=5, **options)


def test_section_when_asked() -> None:
    built = build(complementarity=True)
    section = built.html[built.html.index('id="complementarity"'):]
    assert "What each team adds" in section and "S + 1" in section
    got = built.data.complementarity.teams.set_index("team")
    # the section says how deep the report's campaign holds its rankings (here whole: 3 documents)
    assert built.data.complementarity.settings["held_depth"] == 3 and "to depth 3 at most" in section
    direct = ir_rarity.complementarity(  # type: ignore[operator]  # the package is callable (its __class__)
        QRELS, runs(), ["P@2", "P_rare(alpha=0.5)@2"], teams=TEAMS, rarity=["P_rare(alpha=0.5)@2"], samples=50,
        seed=0).teams.set_index("team")
    np.testing.assert_allclose(got.loc[["A", "B", "C"], ["contribution", "shapley", "unique_relevant"]],
                               direct.loc[["A", "B", "C"], ["contribution", "shapley", "unique_relevant"]])
    # the Shapley values of the P@2 game sum to the fused run's P@2
    fused = built.data.complementarity.fusion.set_index(["method", "measure"]).loc[("rrf", "P@2"), "value"]
    assert got["shapley"].sum() == pytest.approx(fused)


def test_not_computed_by_default() -> None:
    built = build()
    assert built.data.complementarity is None and "complementarity" not in built.data.notes
    section = built.html[built.html.index('id="complementarity"'):]
    section = section[:section.index("</section>")] if "</section>" in section else section[:2000]
    assert "Not computed: ask for it" in section and "Shapley value</h3>" not in section
