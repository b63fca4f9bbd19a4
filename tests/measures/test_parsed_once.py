"""A measure is parsed and checked once, where a call begins, and then carried: ``parse_measure`` returns a measure
it made as it is and ``measure_labels`` the mapping it made; a measure that only equals a checked one is checked."""

from __future__ import annotations

import pytest
from derivations import counting

from ir_rarity.errors import ParameterError
from ir_rarity.measures import P_rare
from ir_rarity.measures.parse import MeasureLabels, measure_labels, parse_measure, parse_measures


def test_a_parsed_measure_is_returned_as_it_is_not_checked_again() -> None:
    measure = parse_measure("P_rare(alpha=0.5)@10")
    with counting() as derived:
        assert parse_measure(measure) is measure
        assert parse_measures([measure, measure]) == [measure]
    assert derived.rechecks == []  # before: every call checked the measure's parameters again
    assert dict(derived.parses) == {}


def test_measure_labels_carries_the_mapping_it_made() -> None:
    labels = measure_labels(["P_rare( alpha = 0 )@100", "P@10"])
    assert isinstance(labels, MeasureLabels)
    assert list(labels.values()) == ["P_rare(alpha=0)@100", "P@10"]
    with counting() as derived:
        assert measure_labels(labels) is labels
    assert derived.rechecks == [] and dict(derived.parses) == {}
    # a plain mapping (the user's names) is read: its names kept, its measures checked
    renamed = measure_labels({m: f"my_{name}" for m, name in labels.items()})
    assert renamed is not labels and list(renamed.values()) == ["my_P_rare(alpha=0)@100", "my_P@10"]


def test_a_measure_only_equal_to_a_checked_one_is_checked() -> None:
    checked = parse_measure("P_rare@5")  # alpha 1, the default: its name omits it
    impostor = P_rare(alpha=True) @ 5  # ir_measures calls it equal (same name), but True is not a number
    assert impostor == checked
    with pytest.raises(ParameterError, match=r"alpha=True: expected a number"):
        parse_measure(impostor)
    made = P_rare(alpha=1) @ 5  # equal too, checked on its own: its integer alpha becomes a float
    parsed = parse_measure(made)
    assert parsed is not checked and type(parsed["alpha"]) is float and parsed["alpha"] == 1.0
