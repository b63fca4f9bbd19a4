"""Start-up hook: make the stock ``ir_measures`` command (and any ``import ir_measures``) know ir_rarity's measures.

ir_measures loads no plugins, so ir_rarity installs ``ir_rarity_hook.pth`` into site-packages; Python runs it at
start-up and it imports this module. Importing it only adds a finder to ``sys.meta_path`` (standard library only:
neither numpy, pandas, ir_measures nor ir_rarity are imported). When ``ir_measures`` is later imported and has
finished executing, the finder imports ``ir_rarity``, which registers its measures and provider.

Set ``IR_RARITY_NO_HOOK=1`` to turn the hook off.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

__all__ = ["install"]

_TARGET = "ir_measures"


class _AfterImportLoader:
    """Wraps the real loader of ``ir_measures``: executes it, then imports ``ir_rarity``."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        spec = module.__spec__
        spec.loader = self._loader  # put the real loader back before anything looks at it
        module.__loader__ = self._loader
        self._loader.exec_module(module)
        if "ir_rarity" not in sys.modules:
            try:
                __import__("ir_rarity")
            except Exception as e:  # never break ir_measures because of ir_rarity
                warnings.warn(f"ir_rarity could not register its measures with ir_measures: {e!r}",
                              RuntimeWarning, stacklevel=2)


class _Finder:
    """A ``sys.meta_path`` finder that only reacts to the first import of ``ir_measures``."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != _TARGET:
            return None
        uninstall()
        for finder in sys.meta_path:
            find_spec = getattr(finder, "find_spec", None)
            if find_spec is None:
                continue
            spec = find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _AfterImportLoader(spec.loader)
                return spec
        return None


_FINDER = _Finder()


def install() -> None:
    """Add the finder to ``sys.meta_path`` (once), unless ``ir_measures`` is already imported."""
    if os.environ.get("IR_RARITY_NO_HOOK") or _TARGET in sys.modules:
        return
    if not any(f is _FINDER for f in sys.meta_path):
        sys.meta_path.insert(0, _FINDER)


def uninstall() -> None:
    """Remove the finder from ``sys.meta_path``."""
    sys.meta_path[:] = [f for f in sys.meta_path if f is not _FINDER]


install()
