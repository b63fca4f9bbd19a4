"""matplotlib's object interface, the one entry to it for every figure: no pyplot state, no backend chosen.

Every plot function of ir_rarity draws on a new :class:`matplotlib.figure.Figure` made by :func:`new_figure` (not
registered with pyplot, so nothing is left open and a notebook's inline backend is never switched), returns it,
and writes a file only when given a path (:func:`written`, atomically). In a notebook the returned figure shows
itself; a script saves it or passes a path.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ir_rarity.io.files import write_with

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["new_figure", "written"]


def new_figure(width: float, height: float, **options: Any) -> Figure:
    """A new figure of ``width`` x ``height`` inches, not registered with pyplot.

    Raises:
        ImportError: matplotlib is not installed; the message says which extra brings it.

    """
    return _figure_class()(figsize=(width, height), **options)


_CLASS: list[type] = []


def _figure_class() -> type[Figure]:
    """:class:`~matplotlib.figure.Figure` that also shows itself as a PNG in a notebook (``_repr_png_``).

    IPython shows an object by its ``_repr_png_`` when no backend registered a display for figures, so a figure
    returned by a cell shows without ``%matplotlib inline`` and without pyplot (where the inline backend is on,
    its own display is used instead, once).

    Raises:
        ImportError: matplotlib is not installed; the message says which extra brings it.

    """
    if not _CLASS:
        try:
            from matplotlib.figure import Figure
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("plots need matplotlib: pip install 'ir_rarity[plots]'") from None

        class ShownFigure(Figure):
            """A figure that renders itself as PNG for notebooks."""

            def _repr_png_(self) -> bytes:
                import io

                buffer = io.BytesIO()
                self.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
                return buffer.getvalue()

        _CLASS.append(ShownFigure)
    return _CLASS[0]


def written(fig: Figure, path: str | os.PathLike[str] | None, dpi: int = 120) -> Figure:
    """``fig``, first written to ``path`` when one is given (format from its suffix, PNG by default; atomically)."""
    if path is not None:
        out = Path(path)
        fmt = out.suffix.lstrip(".").lower() or "png"
        write_with(out, lambda tmp: fig.savefig(tmp, format=fmt, dpi=dpi, bbox_inches="tight"))
    return fig
