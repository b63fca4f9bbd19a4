"""The layer contracts of pyproject.toml hold, and break when code crosses a layer (import-linter, run as CI runs it).

``lint-imports`` reads the contracts from ``pyproject.toml``; CI runs it too (``.ci/run``). These tests run it on
the package as it is (every contract kept), and on copies of the package with one deliberate violation each: the
contract that forbids it must then be broken, naming the import.
"""

from __future__ import annotations

import ast
import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ir_rarity

ROOT = Path(ir_rarity.__file__).parent
PROJECT = ROOT.parent
LINT = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")

pytestmark = pytest.mark.skipif(LINT is None or not (PROJECT / "pyproject.toml").is_file(),
                                reason="import-linter (the test extra) and a source checkout are needed")


def _lint(project: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(project)}
    return subprocess.run([str(LINT), "--config", str(project / "pyproject.toml"), "--no-cache"], cwd=project,
                          env=env, capture_output=True, text=True, timeout=300)


def test_every_contract_is_kept() -> None:
    result = _lint(PROJECT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(("module", "line", "contract"), [
    # an analysis reaching into the engine's rows
    ("meta/curves.py", "from ir_rarity.engine.rows import Rows", "used through their public faces"),
    # the pool importing the front door
    ("pool/teams.py", "import ir_rarity.evaluation", "never imports the front door"),
    # the engine importing an analysis above it
    ("engine/kernels.py", "import ir_rarity.meta.curves", "Layers"),
    # an integration importing a private module of another package
    ("report/charts.py", "import ir_rarity.integrations.experiment._private", "Private modules"),
])
def test_a_violation_breaks_its_contract(tmp_path: Path, module: str, line: str, contract: str) -> None:
    copy = tmp_path / "project"
    shutil.copytree(ROOT, copy / "ir_rarity", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(PROJECT / "pyproject.toml", copy / "pyproject.toml")
    if "_private" in line:
        (copy / "ir_rarity" / "integrations" / "experiment" / "_private.py").write_text('"""A private module."""\n')
    target = copy / "ir_rarity" / module
    text = target.read_text()
    future = "from __future__ import annotations\n"
    target.write_text(text.replace(future, future + line + "  # noqa\n", 1) if future in text else line + "\n" + text)
    result = _lint(copy)
    assert result.returncode != 0, result.stdout
    broken = result.stdout[result.stdout.index("Broken contracts"):]
    assert contract in broken, broken
    assert line.split()[1] in broken or line.split()[-1] in broken, broken


def test_no_module_imports_another_modules_private_name() -> None:
    """``from ir_rarity.x import _y`` across modules: a name private to x used elsewhere is a contract by stealth."""
    found = []
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ir_rarity"):
                found += [f"{path.relative_to(ROOT)}:{node.lineno} imports {node.module}.{alias.name}"
                          for alias in node.names if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert found == []


@pytest.mark.parametrize("package", ["ir_rarity.engine", "ir_rarity.pool"])
def test_a_public_face_exports_what_it_maps(package: str) -> None:
    """``__all__`` of a package's public face is its lazy map's names, each loading from the module named."""
    face = importlib.import_module(package)
    assert sorted(face.__all__) == sorted(face._LAZY)
    for name in face.__all__:
        assert getattr(face, name) is not None
