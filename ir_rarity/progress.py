"""Progress bars for long work, shown where they can be drawn and as one plain line where they cannot.

Every long loop of ir_rarity (reading run files, the per-run fallback through ir_measures, the meta analyses,
loops over trials) goes through :func:`progress` or :func:`counter`. A call's own ``progress`` argument wins;
without one (``None``) the process-wide setting applies (:func:`set_progress`, what ``ir-rarity --quiet`` sets), and
without that a bar is shown when stderr is a terminal or the code runs in a Jupyter kernel. Where it is shown:

* on a terminal: a tqdm bar on stderr, removed when done (``leave=False``);
* in a Jupyter kernel with ipywidgets: a tqdm widget, kept when done (``leave=True``: the cell shows what ran);
* anywhere else (a kernel without ipywidgets, as VS Code often runs one; stderr a file or a pipe with
  ``progress=True``): one plain line per bar once it is done (``reading runs: 126/126 files in 2.1 s``), no
  carriage returns, no escape codes. In a kernel the line goes to stdout (a normal output, not a warning's
  stream); elsewhere to stderr, since the command line's stdout carries data.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

__all__ = ["PlainBar", "counter", "in_notebook", "progress", "progress_disabled", "set_progress"]

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


def _widgets() -> bool:
    """Whether ipywidgets can be imported (tqdm's notebook bars need it), without importing it."""
    import importlib.util

    return importlib.util.find_spec("ipywidgets") is not None


def _mode(enabled: bool | None) -> str | None:
    """How a bar is shown: ``"terminal"``, ``"widget"``, ``"plain"``, or None (not at all)."""
    disable = _disable(enabled)
    if disable is True:
        return None
    if in_notebook():
        return "widget" if _widgets() else "plain"
    if _on_terminal():
        return "terminal"
    return None if disable is None else "plain"  # asked for (progress=True) where no bar can be drawn


class PlainBar:
    """A progress "bar" that prints one line when done: ``desc: n/total units in s``; tqdm's interface in part.

    Where tqdm cannot draw (a Jupyter kernel without ipywidgets, a log file), it would print a line per refresh
    with carriage returns, and nested bars would print cursor-up escape codes. This prints nothing until
    :meth:`close`, then one line (to ``stream``: stdout in a kernel, stderr elsewhere).
    """

    def __init__(self, iterable: Iterable[Any] | None = None, *, desc: str, total: int | None = None,
                 unit: str = "it", stream: str = "stderr") -> None:
        import time

        self.iterable, self.desc, self.unit, self.stream = iterable, desc, unit, stream
        self.total = total if total is not None else _length(iterable)
        self.n, self.postfix, self._start, self._closed = 0, "", time.perf_counter(), False

    def __iter__(self) -> Iterator[Any]:
        for item in self.iterable or ():
            yield item
            self.n += 1
        self.close()

    def update(self, n: int = 1) -> None:
        """Count ``n`` more steps done."""
        self.n += n

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:  # refresh: tqdm's signature
        """The step in progress (not printed: the line says what was done)."""
        self.postfix = text

    def close(self) -> None:
        """Print the one line (once)."""
        import sys
        import time

        if self._closed:
            return
        self._closed = True
        seconds = time.perf_counter() - self._start
        done = f"{self.n}/{self.total}" if self.total is not None else str(self.n)
        units = self.unit if self.unit.endswith("s") or (self.total or self.n) == 1 else f"{self.unit}s"
        print(f"{self.desc}: {done} {units} in {seconds:.1f} s", file=getattr(sys, self.stream), flush=True)

    def __enter__(self) -> PlainBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _length(iterable: Iterable[Any] | None) -> int | None:
    try:
        return len(iterable) if iterable is not None else None  # type: ignore[arg-type]
    except TypeError:
        return None


def _bar(iterable: Iterable[Any] | None, mode: str, desc: str, total: int | None, unit: str,
         options: dict[str, Any]) -> Any:
    """The bar of ``mode`` (see :func:`_mode`)."""
    if mode == "plain":
        return PlainBar(iterable, desc=desc, total=total, unit=unit,
                        stream="stdout" if in_notebook() else "stderr")
    if mode == "widget":
        from tqdm.notebook import tqdm as widget

        return widget(iterable, desc=desc, total=total, unit=unit, leave=True, **options)
    from tqdm import tqdm

    return tqdm(iterable, desc=desc, total=total, unit=unit, leave=False, **options)


def progress(iterable: Iterable[T], *, desc: str, total: int | None = None, unit: str = "it",
             enabled: bool | None = None, **options: Any) -> Iterable[T]:
    """``iterable`` with a progress bar (see the module docstring for when and how it shows).

    Args:
        iterable: What to iterate over.
        desc: The bar's label.
        total: Number of items, when ``iterable`` has no length.
        unit: What one item is (``"run"``, ``"file"``, ``"trial"``...).
        enabled: True or False to force; None for the process-wide default.
        **options: Further tqdm options (tqdm bars only).

    """
    mode = _mode(enabled)
    if mode is None:
        return iterable  # no bar would be drawn: tqdm (and the asyncio it loads, 20 ms) is not imported
    return cast(Iterable[T], _bar(iterable, mode, desc, total, unit, options))


def counter(total: int, *, desc: str, unit: str = "it", enabled: bool | None = None) -> Any:
    """A bar to ``update()`` by hand (steps that are not one loop): tqdm's, a :class:`PlainBar`, or a silent one."""
    mode = _mode(enabled)
    if mode is None:
        from tqdm import tqdm

        return tqdm(total=total, desc=desc, unit=unit, disable=True)
    return _bar(None, mode, desc, total, unit, {})
