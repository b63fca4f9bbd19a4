"""The campaign report: one self-contained HTML page from one evaluation (``ir_rarity.report(runs, qrels)``).

* :mod:`~ir_rarity.report.data`: data assembly (every section's tables, from the evaluation and the package's
  analyses);
* :mod:`~ir_rarity.report.sections`: the one registry of sections (key, title, lead, body);
* :mod:`~ir_rarity.report.charts`: the Plotly charts; :mod:`~ir_rarity.report.render`: the HTML page, from the
  autoescaping templates of ``templates/`` (:mod:`~ir_rarity.report.markup`);
* :mod:`~ir_rarity.report.build`: :func:`report` and :class:`Report`; :mod:`~ir_rarity.cli.report`:
  ``ir-rarity report``.

``ir_rarity.report`` is this package and is callable: ``ir_rarity.report(runs, qrels, ...)`` is
``ir_rarity.report.report(runs, qrels, ...)``. (A submodule named like the function would otherwise replace the
function as the attribute of ``ir_rarity`` once it is imported.)
"""

import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ir_rarity.lazy import lazy_exports

if TYPE_CHECKING:
    from ir_rarity.report.build import Report, report
    from ir_rarity.report.data import DEFAULT_MEASURES, ReportData, Settings, assemble

__all__ = ["DEFAULT_MEASURES", "Report", "ReportData", "Settings", "assemble", "report"]

__getattr__, __dir__ = lazy_exports(__name__, {
    "DEFAULT_MEASURES": "ir_rarity.report.data",
    "Report": "ir_rarity.report.build",
    "ReportData": "ir_rarity.report.data",
    "Settings": "ir_rarity.report.data",
    "assemble": "ir_rarity.report.data",
    "report": "ir_rarity.report.build",
}, globals())


class _CallableModule(ModuleType):
    """This package, callable as :func:`report`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.report(*args, **kwargs)  # loaded on first use (the lazy exports above)


sys.modules[__name__].__class__ = _CallableModule
