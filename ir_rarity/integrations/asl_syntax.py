"""The ``ASL@gA-B`` syntax in ``ir_measures.parse_measure``.

Python parses ``ASL@g1-10`` as ``(ASL@g1) - 10``, which ir_measures rejects. The wrapper installed here rewrites a
trailing ``@gA-B`` (or ``@gN``, meaning the first N: ``@g1-N``, as ``P@N`` means the top N) to the string parameter
``@'gA-B'`` before delegating to ir_measures' own parser, so ``str(ASL@'g1-10') == 'ASL@g1-10'`` parses back to an
equal measure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import ir_measures
import ir_measures.util

__all__ = ["install_group_syntax", "rewrite_group_syntax"]

_GROUP_AT = re.compile(r"@\s*g\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def rewrite_group_syntax(text: str) -> str:
    """``'ASL(rel=2)@g1-10'`` -> ``"ASL(rel=2)@'g1-10'"``, ``'ASL@g10'`` -> ``"ASL@'g1-10'"``; other text unchanged."""
    match = _GROUP_AT.search(text)
    if match is None:
        return text
    first, last = (match.group(1), match.group(2)) if match.group(2) else ("1", match.group(1))
    return f"{text[:match.start()]}@'g{first}-{last}'"


def _wrap(parse: Callable[[Any], ir_measures.Measure]) -> Callable[[Any], ir_measures.Measure]:
    def parse_measure(measure: Any) -> ir_measures.Measure:
        if isinstance(measure, str):
            measure = rewrite_group_syntax(measure)
        return parse(measure)

    parse_measure.__doc__ = parse.__doc__
    parse_measure._ir_rarity_original = parse  # type: ignore[attr-defined]
    return parse_measure


def install_group_syntax() -> None:
    """Wrap ``ir_measures.util.parse_measure`` and ``ir_measures.parse_measure`` (imported by name). Idempotent."""
    for module in (ir_measures.util, ir_measures):
        current = module.parse_measure
        if not hasattr(current, "_ir_rarity_original"):
            module.parse_measure = _wrap(current)  # type: ignore[attr-defined]
