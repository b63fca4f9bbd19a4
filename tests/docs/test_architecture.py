"""docs/architecture.md names every module of the package, and names no module that does not exist."""

from __future__ import annotations

import re
from pathlib import Path

import ir_rarity

ROOT = Path(ir_rarity.__file__).parent
DOC = ROOT.parent / "docs" / "architecture.md"


def _modules() -> set[str]:
    return {str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts}


def test_every_module_is_named() -> None:
    text = DOC.read_text(encoding="utf-8")
    named = set(re.findall(r"`([a-z_/]+\.py)`", text))
    packages = {m for m in _modules() if m.endswith("__init__.py")}
    missing = sorted(m for m in _modules() - named - packages)
    assert missing == [], f"docs/architecture.md does not name {missing}"
    undocumented = sorted(p for p in packages if p != "__init__.py" and p not in named
                          and p.rsplit("/", 1)[0] not in text)
    assert undocumented == []


def test_every_module_named_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    named = set(re.findall(r"`([a-z_/]+\.py)`", text))
    unknown = sorted(n for n in named if n not in _modules() and not n.startswith("tests/"))
    assert unknown == [], f"docs/architecture.md names modules that do not exist: {unknown}"
