"""ir_rarity.Experiment parses each measure once: one ``{measure: column}`` mapping travels down the call.

The measures are read where they enter (:func:`ir_rarity.integrations.experiment.inputs.convert_measures`): each
distinct string once by each parser (a trec_eval name first, then ir_measures syntax), and the mapping is built once
by :func:`ir_rarity.measures.parse.measure_labels`. :func:`ir_rarity.evaluate` is given that mapping, the values are
read back by the same measure objects, and the scoring and the rendering read each measure's direction from it.
Counting wrappers on the parsers tell how often each string is parsed.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ir_measures
import pandas as pd
import pytest

import ir_rarity
import ir_rarity.measures.parse as parse
from ir_rarity.engine.result import Evaluation
from ir_rarity.integrations.experiment import inputs, rendering, scores

# Two runs, two queries. q1: a and c relevant; q2: b relevant, c judged not relevant.
RUNS = {
    "A": pd.DataFrame({"qid": ["1", "1", "2", "2"], "docno": ["a", "b", "a", "c"], "score": [2.0, 1.0, 2.0, 1.0]}),
    "B": pd.DataFrame({"qid": ["1", "1", "2", "2"], "docno": ["b", "c", "c", "b"], "score": [2.0, 1.0, 2.0, 1.0]}),
}
QRELS = pd.DataFrame({"qid": ["1", "1", "2", "2"], "docno": ["a", "c", "b", "c"], "label": [1, 1, 1, 0]})
TOPICS = pd.DataFrame({"qid": ["1", "2"], "query": ["x", "y"]})
MEASURES = ["map", "P@2", "P_rare(alpha=0.5)@2", "AP_rare", "map", "P@2"]
"""Four measures (a trec_eval name, ir_measures syntax, two rarity measures), two of them given twice."""

# By hand. AP: A q1 a at rank 1 of 2 relevant = 0.5, q2 nothing = 0 -> 0.25; B q1 c at rank 2 = (1/2)/2 = 0.25,
# q2 b at rank 2 = 0.5 -> 0.375. P@2: A 1/2, 0 -> 0.25; B 1/2, 1/2 -> 0.5. P_rare(alpha=0.5)@2, S = 2 runs: every
# relevant document is retrieved by one run (S_d = 1), w = 1 + 0.5 (1 - 1/2) = 1.25, P_rare@2 = sum w / 2:
# A 0.625, 0 -> 0.3125; B 0.625, 0.625 -> 0.625.
EXPECTED = {"map": [0.25, 0.375], "P@2": [0.25, 0.5], "P_rare(alpha=0.5)@2": [0.3125, 0.625]}


def _counting(counts: Counter[Any], label: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(measure: Any, *args: Any, **kwargs: Any) -> Any:
        counts[label, measure if isinstance(measure, str) else "an object"] += 1
        return function(measure, *args, **kwargs)

    return wrapper


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Counter[Any]:
    """``(parser, string) -> calls`` for ir_measures' two parsers and ir_rarity's, wherever they are bound."""
    counts: Counter[Any] = Counter()
    monkeypatch.setattr(ir_measures, "parse_measure", _counting(counts, "ir_measures", ir_measures.parse_measure))
    monkeypatch.setattr(ir_measures, "parse_trec_measure",
                        _counting(counts, "trec_eval", ir_measures.parse_trec_measure))
    ours = parse.parse_measure
    wrapped = _counting(counts, "ir_rarity", ours)
    for name, module in list(sys.modules.items()):
        if name.startswith("ir_rarity") and getattr(module, "parse_measure", None) is ours:
            monkeypatch.setattr(module, "parse_measure", wrapped)
    return counts


def test_each_measure_string_is_parsed_at_most_once(parses: Counter[Any]) -> None:
    table = ir_rarity.Experiment(RUNS, TOPICS, QRELS, MEASURES, baseline=0, perquery="both").averages
    strings = {key: n for key, n in parses.items() if key[1] != "an object"}
    assert strings, "the counting wrappers saw no parse"
    assert {s for _, s in strings} == set(MEASURES)  # every string went through a parser ...
    assert max(strings.values()) == 1, strings  # ... once per parser, though two are given twice
    assert strings[("trec_eval", "map")] == 1 and ("ir_measures", "map") not in strings  # a trec_eval name
    assert strings[("ir_measures", "P@2")] == strings[("ir_rarity", "P@2")] == 1  # ir_measures syntax
    assert list(table.columns[:5]) == ["name", "map", "P@2", "P_rare(alpha=0.5)@2", "AP_rare"]
    for column, values in EXPECTED.items():
        assert table[column].tolist() == pytest.approx(values, abs=1e-15), column


def test_the_mapping_travels_down_to_evaluate_and_the_renderers(monkeypatch: pytest.MonkeyPatch) -> None:
    given: list[Any] = []
    real_evaluate = scores.evaluate

    def spy(runs: Any, qrels: Any, measures: Any, **kwargs: Any) -> Evaluation:
        given.append(measures)
        return real_evaluate(runs, qrels, measures, **kwargs)

    monkeypatch.setattr(scores, "evaluate", spy)
    lookups: Counter[Any] = Counter()
    monkeypatch.setattr(Evaluation, "measure", _counting(lookups, "Evaluation.measure", Evaluation.measure))
    directions: Counter[Any] = Counter()
    for module in (inputs, scores, rendering):
        if hasattr(module, "higher_is_better"):
            monkeypatch.setattr(module, "higher_is_better",
                                _counting(directions, module.__name__, module.higher_is_better))
    styled = ir_rarity.Experiment(RUNS, TOPICS, QRELS, MEASURES, baseline=0, highlight="bold")
    table = styled.data
    assert len(given) == 1 and isinstance(given[0], dict)  # one evaluate call, given the parsed mapping
    assert all(isinstance(m, ir_measures.Measure) for m in given[0])
    assert list(given[0].values()) == list(table.columns[1:5])  # measure -> its column, in the table's order
    assert lookups == Counter()  # the values are read by the measure objects, no measure looked up again
    assert sum(directions.values()) <= 4, directions  # each measure's direction found once, where it is parsed
    for column, values in EXPECTED.items():
        assert table[column].tolist() == pytest.approx(values, abs=1e-15), column
    assert table["map +"].tolist()[1] == 1 and table["map -"].tolist()[1] == 1  # q2 better, q1 worse than A


def test_the_experiment_modules_import_no_private_name_nor_pyterrier_private_module() -> None:
    """One house: the Experiment's modules import one another's public names, and PyTerrier's public API only."""
    root = Path(ir_rarity.__file__).parent
    files = [*sorted((root / "integrations" / "experiment").glob("*.py")), root / "integrations" / "pyterrier.py"]
    assert not any(f.name.startswith("_") and f.name != "__init__.py" for f in files)
    found = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(("ir_rarity", ".")):
                found += [f"{path.name}: {node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.name}: {m}" for m in modules
                      if m.split(".")[0] in ("pyterrier", "ir_rarity") and any(p.startswith("_") for p in m.split("."))]
    assert found == []
