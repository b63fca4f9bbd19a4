"""Start-up hook: make the stock ``ir_measures`` command (and any ``import ir_measures``) know ir_rarity's measures.

ir_measures loads no plugins, so ir_rarity installs ``ir_rarity_hook.pth`` into site-packages; Python runs it at
start-up and it imports this module. Importing it only adds a finder to ``sys.meta_path`` (``os`` and ``sys`` only:
neither numpy, pandas, ir_measures nor ir_rarity are imported, nor ``typing`` or ``warnings``).

The finder wraps the loader of every spec of ``ir_measures`` it is asked for, and stays installed until the module
is actually executed: ``python -m ir_measures`` (runpy), PyTerrier and others look the package up
(``importlib.util.find_spec``) before importing it, and a lookup must not use the hook up. When ``ir_measures``
has finished executing, the wrapped loader removes the finder and imports ``ir_rarity``, which registers its
measures and provider. So every way of starting ir_measures knows them: the ``ir_measures`` command,
``python -m ir_measures``, ``python -c``, a script, a subprocess.

When the running program is the ``ir_measures`` command itself (the console script or ``python -m ir_measures``),
an error of ir_rarity's own (:class:`ir_rarity.errors.RarityError`: no pool named, a pool that cannot be read)
is printed as one line ``ir_measures: error: <message>`` with exit status 2, instead of a traceback; any other
exception is left to the previous ``sys.excepthook``.

Set ``IR_RARITY_NO_HOOK=1`` to turn the hook off. A hook that fails (this file damaged, an exception while it is
imported or installed) is one line ``ir_rarity_hook: disabled (...)`` on stderr, never a traceback: the ``.pth``
line (``PTH_LINE`` in ``setup.py``) catches every exception, and :func:`install` never raises.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not imported from typing: the hook runs at every start-up of the interpreter
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import TracebackType
    from typing import Any

__all__ = ["install", "uninstall"]

_TARGET = "ir_measures"
_PROG = "ir_measures"


class _AfterImportLoader:
    """Wraps the real loader of ``ir_measures``: executes it, then imports ``ir_rarity``.

    Any other attribute (``get_code``, ``is_package``, resource readers...) is the real loader's.
    """

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        uninstall()  # the module is being executed: the hook has done its work
        spec = module.__spec__
        if spec is not None and spec.loader is self:
            spec.loader = self._loader  # put the real loader back before anything looks at it
        module.__loader__ = self._loader
        self._loader.exec_module(module)
        if "ir_rarity" not in sys.modules:
            try:
                __import__("ir_rarity")
            except Exception as e:  # never break ir_measures because of ir_rarity
                import warnings

                warnings.warn(f"ir_rarity could not register its measures with ir_measures: {e!r}",
                              RuntimeWarning, stacklevel=2)
                return
        if running_ir_measures():
            install_excepthook()


class _Finder:
    """A ``sys.meta_path`` finder that wraps the loader of ``ir_measures`` until that module is executed."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != _TARGET:
            return None
        for finder in list(sys.meta_path):
            find_spec = getattr(finder, "find_spec", None)
            if finder is self or find_spec is None:
                continue
            spec = find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _AfterImportLoader(spec.loader)
                return spec
        return None


_FINDER = _Finder()


def install() -> None:
    """Add the finder to ``sys.meta_path`` (once), unless ``ir_measures`` is already imported.

    Never raises: it runs at every start of the interpreter, where a failure is one line on stderr (the hook left
    off), not a traceback.
    """
    try:
        if os.environ.get("IR_RARITY_NO_HOOK") or _TARGET in sys.modules:
            return
        if not any(f is _FINDER for f in sys.meta_path):
            sys.meta_path.insert(0, _FINDER)
    except Exception as e:
        _disabled(e)


def _disabled(error: BaseException) -> None:
    """Say in one line on stderr that the hook is off because of ``error`` (nothing if stderr is gone)."""
    try:  # noqa: SIM105 (contextlib is not imported at start-up)
        sys.stderr.write(f"ir_rarity_hook: disabled ({type(error).__name__}: {' '.join(str(error).split())})\n")
    except Exception:
        pass


def uninstall() -> None:
    """Remove the finder from ``sys.meta_path``."""
    sys.meta_path[:] = [f for f in sys.meta_path if f is not _FINDER]


def _module_run(argv: Sequence[str]) -> str | None:
    """The module ``python -m MODULE`` runs, from the interpreter's own arguments (``sys.orig_argv``), or None."""
    args = iter(argv[1:])
    for arg in args:
        if arg in ("-W", "-X", "--check-hash-based-pycs"):  # options taking the next argument
            next(args, None)
        elif arg.startswith("--") and arg != "--":  # --version, --help...
            continue
        elif arg in ("-", "--") or not arg.startswith("-"):
            return None  # standard input or a script: no -m
        else:
            flags = arg[1:]
            for i, flag in enumerate(flags):
                if flag in "WX":  # -Wdefault, -Xdev: the rest is the option's value
                    break
                if flag == "c":
                    return None
                if flag == "m":
                    return flags[i + 1:] or next(args, None)
    return None


def running_ir_measures() -> bool:
    """Whether the running program is the ``ir_measures`` command (its console script or ``python -m``)."""
    program = os.path.basename(sys.argv[0]) if sys.argv else ""
    if os.path.splitext(program)[0] in (_PROG, f"{_PROG}-script"):
        return True
    # python -m ir_measures: the package is imported while the module is located, with sys.argv[0] == "-m"
    return program == "-m" and _module_run(getattr(sys, "orig_argv", [])) in (_TARGET, f"{_TARGET}.__main__")


def _rarity_error(error: BaseException) -> bool:
    errors = sys.modules.get("ir_rarity.errors")
    return errors is not None and isinstance(error, errors.RarityError)


def _excepthook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
    """ir_rarity's errors: one line and exit status 2; anything else: the previous hook."""
    if not _rarity_error(error):
        _PREVIOUS[0](kind, error, tb)
        return
    message = " ".join(str(error).split()) or kind.__name__
    import contextlib

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed stream: nothing more to show
            stream.flush()
    sys.stderr.write(f"{_PROG}: error: {message}\n")
    sys.stderr.flush()
    os._exit(2)  # an excepthook cannot set the exit status; the output has been flushed


_PREVIOUS: list[Any] = [sys.excepthook]


def install_excepthook() -> None:
    """Make ir_rarity's errors one line ``ir_measures: error: ...`` (exit 2) in the ``ir_measures`` command."""
    if sys.excepthook is not _excepthook:
        _PREVIOUS[0] = sys.excepthook
        sys.excepthook = _excepthook


install()
