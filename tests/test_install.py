"""What ``pip install`` brings: no extra that adds nothing, and only PyTerrier's public API imported.

* Every extra (but ``test`` and ``docs``, which gather tools) must add a requirement that neither the dependencies
  nor what they pull in already bring: ``parquet`` (pyarrow, a dependency) and ``meta`` (statsmodels, required by
  PyTerrier itself) added nothing and are gone.
* No module of ir_rarity imports a private name of PyTerrier (a module or attribute starting with ``_``): those
  move between releases without notice.
"""

from __future__ import annotations

import ast
import re
import sys
from importlib.metadata import requires
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")


def _name(requirement: str) -> str:
    """The normalized distribution name of a requirement (``dask[dataframe]>=2024.1`` -> ``dask``)."""
    return re.split(r"[\[<>=!~; ]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _project() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_every_extra_adds_something() -> None:
    project = _project()
    dependencies = {_name(r) for r in project["dependencies"]}
    pulled = {_name(r) for r in requires("pyterrier") or [] if "extra ==" not in r}  # what pyterrier always pulls
    assert "statsmodels" in pulled  # the reason the meta extra went: PyTerrier requires statsmodels
    for extra, items in project["optional-dependencies"].items():
        if extra in ("test", "docs"):
            continue
        new = {_name(r) for r in items} - dependencies - pulled
        assert new, f"extra {extra!r} adds nothing to the dependencies and what PyTerrier pulls: {items}"
    assert not {"parquet", "meta"} & set(project["optional-dependencies"])


def test_modules_imported_directly_are_dependencies() -> None:
    """statsmodels and pyarrow are imported by ir_rarity itself: they are declared, not left to PyTerrier."""
    dependencies = {_name(r) for r in _project()["dependencies"]}
    assert {"statsmodels", "pyarrow", "zstandard"} <= dependencies


def _private_imports(tree: ast.AST) -> tuple[list[str], set[str]]:
    """Imports of private PyTerrier modules or names, and the names PyTerrier is bound to."""
    found, aliases = [], {"pyterrier"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "pyterrier":
                    aliases.add(alias.asname or "pyterrier")
                    found += [alias.name] if any(p.startswith("_") for p in alias.name.split(".")) else []
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "pyterrier":
            parts = (node.module or "").split(".") + [a.name for a in node.names]
            found += [f"from {node.module} import ..."] if any(p.startswith("_") for p in parts) else []
    return found, aliases


def _private_pyterrier_uses(tree: ast.AST) -> list[str]:
    """Every private PyTerrier name ``tree`` imports or reaches as an attribute (``pt._x``, ``pt.model._y``)."""
    found, aliases = _private_imports(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in aliases:
                found.append(ast.unparse(node))
    return found


def test_no_private_pyterrier_names() -> None:
    offenders = {str(path.relative_to(ROOT)): uses for path in sorted((ROOT / "ir_rarity").rglob("*.py"))
                 if (uses := _private_pyterrier_uses(ast.parse(path.read_text())))}
    assert offenders == {}


def test_the_check_finds_private_names() -> None:
    """The scan above is not vacuous: each way of reaching a private name is found."""
    code = ("import pyterrier as pt\nfrom pyterrier._evaluation import X\nimport pyterrier._ops\n"
            "pt._thing\npt.model._private\nfrom pyterrier import _hidden\n")
    assert len(_private_pyterrier_uses(ast.parse(code))) == 5
