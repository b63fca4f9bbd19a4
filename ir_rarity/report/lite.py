"""The report as a notebook shows it: a lite summary (no plotly.js, no charts), well under :data:`LIMIT` bytes.

Displaying the whole page in a cell would put megabytes (plotly.js and every chart's data) into the notebook file.
The lite summary holds what the report was computed from (the glance facts), the leaderboard's means (best first,
the first :data:`ROWS` runs), the rarity gain of each pair at the same cutoff, the sections' notes, and a link to the
saved page (``Report.save(path)``) or the sentence saying how to save it. Every value goes through the report's
autoescaping templates.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ir_rarity.report.markup import frame_table, render_string
from ir_rarity.report.pairs import pair_title

if TYPE_CHECKING:
    from ir_rarity.report.build import Report

__all__ = ["LIMIT", "ROWS", "lite_html"]

LIMIT = 300_000
"""The most bytes the notebook display may take."""

ROWS = 30
"""Runs shown in the lite leaderboard (the best by the first measure)."""

_STYLE = ("font-family:system-ui,sans-serif;font-size:13px;max-width:100%;overflow-x:auto")

_PAGE = (
    r"""<div class="ir-rarity-lite" style="{{ style }}"><h3 style="margin:0.2em 0">{{ title }}</h3>"""
    r"""<p>{{ description }}</p><p>{% if path %}Full report (charts, every table with CSV and LaTeX export): """
    r"""<a href="{{ path }}" target="_blank">{{ path }}</a>{% else %}This is a summary; """
    r"""<code>report.save("report.html")</code> writes the full page (charts, every table with CSV and LaTeX """
    r"""export){% endif %} ({{ size }} MB).</p>"""
    r"""<dl style="display:grid;grid-template-columns:max-content auto;gap:0 1em;margin:0">"""
    r"""{% for key, value in facts %}<dt style="font-weight:600">{{ key }}</dt>"""
    r"""<dd style="margin:0">{{ value }}</dd>{% endfor %}</dl>"""
    r"""<h4>Leaderboard (the first {{ shown }} of {{ runs }} runs, best first by {{ first }})</h4>{{ leaderboard }}"""
    r"""{% for title, table in gains %}<h4>Rarity gain, the first {{ shown }} runs: {{ title.label }}</h4>"""
    r"""{{ table }}{% endfor %}{% for key, notes in notes %}{% for note in notes %}"""
    r"""<p><em>{{ key }}: {{ note }}</em></p>{% endfor %}{% endfor %}</div>""")


def lite_html(built: Report, path: str | os.PathLike[str] | None = None) -> str:
    """The notebook summary of ``built`` (a link to ``path`` when the page was saved there)."""
    data = built.data
    table = data.table if data.table is not None else data.evaluation.table()
    shown = table.head(ROWS).reset_index()
    shown.insert(1, "team", [data.teams.get(r, r) for r in shown["run"]])
    gains: list[tuple[dict[str, str], Any]] = [
        (pair_title(data, pair), frame_table(frame.head(ROWS), f"lite-gain-{i}"))
        for i, (pair, frame) in enumerate(data.gain.items())]
    return str(render_string(_PAGE, style=_STYLE, title="ir_rarity campaign report",
                             description=data.evaluation.describe(),
                             path=os.fspath(path) if path is not None else None, size=f"{built.size / 1e6:.1f}",
                             facts=data.glance, shown=len(shown), runs=len(table), first=data.labels[0],
                             leaderboard=frame_table(shown, "lite-leaderboard"), gains=gains,
                             notes=list(data.notes.items())))
