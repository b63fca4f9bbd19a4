"""HTML rendering of the campaign report: one self-contained page (styles, scripts, charts and data inline).

:func:`render_html` turns a :class:`~ir_rarity.report.data.ReportData` into the page: ``templates/page.html.j2``
around the sections of :data:`~ir_rarity.report.sections.SECTIONS` (each opening with one sentence on what it
shows and how to read it), rendered by the autoescaping environment of :mod:`~ir_rarity.report.markup`, so no
name, title, note or provenance value becomes markup. Tables are plain HTML, sorted and filtered by the package's
own small script (``static/report.js``); numbers carry their full value in ``data-value``. Charts are Plotly's
(:mod:`ir_rarity.report.charts`), with plotly.js inlined once.
"""

from __future__ import annotations

from importlib.resources import files
from typing import TYPE_CHECKING

from markupsafe import Markup

from ir_rarity.report import charts
from ir_rarity.report.markup import render
from ir_rarity.report.sections import SECTIONS, body

if TYPE_CHECKING:
    from ir_rarity.provenance import Provenance
    from ir_rarity.report.data import ReportData

__all__ = ["render_html"]

ASSETS = files("ir_rarity.report") / "static"


def render_html(data: ReportData, provenance: Provenance, *, title: str = "ir_rarity campaign report",
                seconds: float | None = None) -> str:
    """The report page.

    Args:
        data: Every section's data.
        provenance: The :class:`~ir_rarity.provenance.Provenance` of the page.
        title: The page title (shown as text, whatever characters it holds).
        seconds: Time taken to compute the data (stated in the footer).

    """
    sections = [{"key": s.key, "title": s.title, "lead": s.lead, "body": body(s, data, provenance),
                 "notes": data.notes.get(s.key, [])} for s in SECTIONS.values()]
    return str(render("page.html.j2", title=title, description=data.evaluation.describe(), sections=sections,
                      seconds=seconds, css=Markup((ASSETS / "report.css").read_text(encoding="utf-8")),
                      script=Markup((ASSETS / "report.js").read_text(encoding="utf-8")),
                      plotly=Markup(charts.plotly_js())))
