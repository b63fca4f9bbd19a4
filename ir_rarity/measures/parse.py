"""Measures given as objects or strings in ir_measures syntax, parsed and checked in one place, and their direction."""

from __future__ import annotations

from collections.abc import Iterable

import ir_measures

from ir_rarity.errors import ParameterError
from ir_rarity.measures.base import RarityMeasure

__all__ = ["higher_is_better", "parse_measure", "parse_measures"]


def parse_measure(measure: ir_measures.Measure | str) -> ir_measures.Measure:
    """One measure: an ``ir_measures.Measure`` (returned as is) or a string such as ``'P_rare(alpha=0.5)@100'``.

    ir_rarity's measures have their parameters checked here, so a bad value fails before any run is read.

    Raises:
        ParameterError: not a measure or string, an unknown measure, bad syntax or a parameter out of range.

    """
    if isinstance(measure, str):
        try:
            parsed = ir_measures.parse_measure(measure)
        except Exception as e:  # ir_measures raises NameError for unknown names, ValueError/SyntaxError for syntax
            raise ParameterError(f"cannot parse measure {measure!r}: {' '.join(str(e).split())}") from None
    elif isinstance(measure, ir_measures.Measure):
        parsed = measure
    else:
        raise ParameterError(f"expected a measure (an ir_measures.Measure or a string such as 'P_rare@100'), got "
                             f"{type(measure).__name__}")
    if isinstance(parsed, RarityMeasure):
        parsed.validate_params()
    return parsed


def parse_measures(measures: ir_measures.Measure | str | Iterable[ir_measures.Measure | str]
                   ) -> list[ir_measures.Measure]:
    """A measure, or an iterable of them, as a list of parsed measures (see :func:`parse_measure`)."""
    if isinstance(measures, (str, ir_measures.Measure)):
        return [parse_measure(measures)]
    if not isinstance(measures, Iterable):
        raise ParameterError(f"expected measures (a measure, a string or a list of them), got "
                             f"{type(measures).__name__}")
    return [parse_measure(m) for m in measures]


def higher_is_better(measure: ir_measures.Measure | str) -> bool:
    """Whether larger values of ``measure`` are better.

    ir_rarity measures declare it with ``HIGHER_IS_BETTER`` (False for ASL); every standard ir_measures measure is
    higher-is-better.
    """
    return bool(getattr(parse_measure(measure), "HIGHER_IS_BETTER", True))
