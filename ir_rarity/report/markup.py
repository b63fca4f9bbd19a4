r"""The report's markup: one autoescaping Jinja2 environment, the JSON encoder for ``<script>``, sortable tables.

Every string the report shows (run, team and measure names, the title, notes, warnings, provenance values, table
cells) reaches the page through a template of ``templates/`` rendered with ``autoescape=True``, so none of them
ever becomes markup. :class:`~markupsafe.Markup` is used only for fragments the package itself built through
these templates (a section's body, a chart). JSON placed inside a ``<script>`` element (Plotly figures, the
provenance) goes through :func:`json_for_script`, the package's one script encoder
(:func:`ir_rarity.provenance.json_for_script`: ``<``, ``>``, ``&``, U+2028 and U+2029 as ``\u003c``-style
escapes), so the text can neither close the element nor open a comment, and stays JSON (and JavaScript).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from ir_rarity.provenance import json_for_script as _json_for_script

__all__ = ["FIRST_DESCENDING", "frame_table", "json_for_script", "macro", "number", "render", "scale_places"]

FIRST_DESCENDING = "descending"
"""A header's ``data-first``: its first click sorts descending (higher is better)."""


def json_for_script(value: Any, *, indent: int | None = None) -> Markup:
    """``value`` as JSON safe inside a ``<script>`` element, as markup (:func:`ir_rarity.provenance.json_for_script`).

    Args:
        value: Any JSON-ready value (others are written as their ``str``).
        indent: Indentation of the JSON (None: one line).

    """
    return Markup(_json_for_script(value, indent))


@functools.lru_cache(maxsize=1)
def _environment() -> Environment:
    """The report's template environment (templates are package data of :mod:`ir_rarity.report`)."""
    env = Environment(loader=PackageLoader("ir_rarity.report", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["script_json"] = json_for_script
    return env


def render(template: str, **context: Any) -> Markup:
    """The template ``template`` of ``templates/`` rendered with ``context`` (every value autoescaped)."""
    return Markup(_environment().get_template(template).render(**context))


def macro(template: str, name: str, *args: Any, **kwargs: Any) -> Markup:
    """The macro ``name`` of ``template`` called with the arguments (every value autoescaped)."""
    return Markup(getattr(_environment().get_template(template).module, name)(*args, **kwargs))


# ---------------------------------------------------------------------------------------------- cells and tables
def number(value: Any, places: int = 4, integral: bool = False) -> tuple[str, str]:
    """``(data-value, shown text)`` of a number: the full value (repr) and the rounded text; '–' for NaN."""
    if value is None or value is pd.NA:
        return "", "–"
    if isinstance(value, (int, np.integer)):
        return str(int(value)), f"{int(value):,}"
    figure = float(value)
    if math.isnan(figure):
        return "", "–"
    if integral:
        return repr(figure), f"{int(figure):,}"
    return repr(figure), f"{figure:.{places}f}"


def scale_places(values: Any, places: int = 4) -> int:
    """Decimals for numbers of this scale: ``places`` below 10, then one fewer per power of ten (0 from 10,000).

    Shares and scores (0.6844) keep four decimals, ASL's hundreds one (312.4), counts in thousands none: about
    four significant figures, never "4 decimals of hundreds".
    """
    array = np.asarray(values, dtype=float).ravel()
    finite = np.abs(array[np.isfinite(array)])
    if not len(finite) or finite.max() < 10:
        return places
    return max(0, places - math.floor(math.log10(float(finite.max()))))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _integral(column: pd.Series) -> bool:
    """Whether a column holds whole numbers only (ranks, counts), shown without decimals."""
    if column.dtype.kind in "iu":
        return True
    if column.dtype.kind != "f":
        return False
    values = column.dropna().to_numpy()
    return bool(len(values)) and bool(np.all(values == np.round(values)))


def frame_table(frame: pd.DataFrame, table_id: str, *, places: int = 4, search: Sequence[str] = (),
                descending: Sequence[str] = (), filter_box: bool = False, index: bool = False) -> Markup:
    """A sortable HTML table of ``frame`` (numbers right-aligned with their full value in ``data-value``).

    Args:
        frame: The table.
        table_id: The element id.
        places: Decimals shown for non-integers.
        search: Columns whose text a filter box matches (run, team).
        descending: Columns sorted descending on the first click (higher is better).
        filter_box: Put a filter box above the table.
        index: Show the index as the first column.

    """
    shown = frame.reset_index() if index else frame
    columns = [str(c) for c in shown.columns]
    head = [{"text": str(c), "numeric": bool(pd.api.types.is_numeric_dtype(shown[c])),
             "first": FIRST_DESCENDING if str(c) in descending else None} for c in shown.columns]
    whole = [_integral(shown[c]) for c in shown.columns]
    scaled = [scale_places(shown[c].to_numpy(float), places) if pd.api.types.is_numeric_dtype(shown[c])
              and not pd.api.types.is_bool_dtype(shown[c]) else places for c in shown.columns]
    rows = []
    for record in shown.itertuples(index=False, name=None):
        cells: list[dict[str, str | None]] = []
        for value, integral, digits in zip(record, whole, scaled, strict=True):
            if _is_number(value):
                full, text = number(value, digits, integral)
                cells.append({"value": full, "text": text})
            else:
                cells.append({"value": None, "text": str(value)})
        text = " ".join(str(record[columns.index(c)]) for c in search if c in columns)
        rows.append({"search": text if search else None, "cells": cells})
    return macro("tables.html.j2", "table", table_id, head, rows, filter_box=filter_box)


@functools.cache
def _compiled(source: str) -> Any:
    return _environment().from_string(source)


def render_string(source: str, **context: Any) -> Markup:
    """A template given as text (a report section's), rendered in the report's autoescaping environment."""
    return Markup(_compiled(source).render(**context))
