"""matplotlib, loaded on first use with a non-interactive backend: the one entry to it for every figure."""

from __future__ import annotations

from typing import Any

__all__ = ["pyplot"]


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
