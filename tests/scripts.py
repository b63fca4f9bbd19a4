"""Loading the repository's scripts (bench/, examples/) as modules, for the tests that run them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_script(relative: str) -> ModuleType:
    """The script at ``relative`` (to the repository root, e.g. ``"bench/make_hostile.py"``) as a module.

    It is registered in ``sys.modules`` under its file name, as an import would (dataclasses need it).
    """
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module
