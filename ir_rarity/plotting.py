"""matplotlib, loaded on first use with a non-interactive backend: the one entry to it for every figure."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ir_rarity.io.files import write_with

__all__ = ["pyplot", "save_figure"]


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (figures are only ever written to files).

    Raises:
        ImportError: matplotlib is not installed; the message says which extra brings it.

    """
    try:
        import matplotlib
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("plots need matplotlib: pip install 'ir_rarity[plots]'") from None
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: str | os.PathLike[str]) -> Path:
    """Write ``fig`` to ``path`` as PNG (120 dpi, tight box) atomically, then close it."""
    try:
        return write_with(path, lambda tmp: fig.savefig(tmp, format="png", dpi=120, bbox_inches="tight"))
    finally:
        pyplot().close(fig)
