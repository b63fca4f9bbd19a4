"""Progress bars for long work: tqdm.auto, shown on a terminal or in Jupyter, switched off by ``progress=False``.

Every long loop of ir_rarity (reading run files, the per-run fallback through ir_measures, the meta analyses,
loops over trials) goes through :func:`progress`. A call's own ``progress`` argument wins; without one
(``None``) the process-wide setting applies (:func:`set_progress`, what ``ir-rarity --quiet`` sets), and
without that a bar is drawn when stderr is a terminal or the code runs in a Jupyter kernel (``tqdm.auto``: a
widget there, text on stderr elsewhere).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["counter", "in_notebook", "progress", "progress_disabled", "set_progress"]

T = TypeVar("T")

_SETTING: list[bool | None] = [None]  # the process-wide default; None: only on a terminal


def set_progress(enabled: bool | None) -> None:
    """Set the process-wide default: True (always), False (never) or None (only when stderr is a terminal)."""
    _SETTING[0] = enabled


@contextmanager
def progress_disabled() -> Iterator[None]:
    """No progress bars inside the ``with`` block (calls that pass ``progress=True`` still get theirs)."""
    before = _SETTING[0]
    _SETTING[0] = False
    try:
        yield
    finally:
        _SETTING[0] = before


def in_notebook() -> bool:
    """Whether the code runs in a Jupyter kernel (ipykernel), where stderr is no terminal but bars show as widgets."""
    import sys

    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    kernel = get() if callable(get) else None
    return kernel is not None and getattr(kernel, "kernel", None) is not None


def _disable(enabled: bool | None) -> bool | None:
    """Tqdm's ``disable``: True hides the bar, None hides it when stderr is not a terminal (shown in a notebook)."""
    chosen = _SETTING[0] if enabled is None else enabled
    if chosen is None and in_notebook():
        return False  # tqdm.auto draws a widget; isatty() is False in a kernel, so None would hide it
    return None if chosen is None else not chosen


def _on_terminal() -> bool:
    """Whether stderr is a terminal: where tqdm, told ``disable=None``, draws its bar (it asks ``isatty()`` too)."""
    import sys

    isatty = getattr(sys.stderr, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):  # a closed or detached stream
        return False


def progress(iterable: Iterable[T], *, desc: str, total: int | None = None, unit: str = "it",
             enabled: bool | None = None, **options: Any) -> Iterable[T]:
    """``iterable`` with a tqdm bar on stderr (see the module docstring for when it shows).

    Args:
        iterable: What to iterate over.
        desc: The bar's label.
        total: Number of items, when ``iterable`` has no length.
        unit: What one item is (``"run"``, ``"file"``, ``"trial"``...).
        enabled: True or False to force; None for the process-wide default.
        **options: Further tqdm options.

    """
    disable = _disable(enabled)
    if disable is True or (disable is None and not _on_terminal()):
        return iterable  # no bar would be drawn: tqdm (and the asyncio it loads, 20 ms) is not imported
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, total=total, unit=unit, disable=disable, leave=False, **options)


def counter(total: int, *, desc: str, unit: str = "it", enabled: bool | None = None) -> Any:
    """A tqdm bar to ``update()`` by hand (steps that are not one loop); a silent one where bars are off."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=unit, disable=_disable(enabled), leave=False)
