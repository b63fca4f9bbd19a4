"""The ``slow`` marker is registered and markers are strict: ``python -m pytest -m "not slow"`` is the quick subset.

CI (``.ci/run``) runs every test; docs/development.md says which tests are slow and how to leave them out.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_slow_marker_is_registered_and_markers_are_strict(request: pytest.FixtureRequest) -> None:
    markers = request.config.getini("markers")
    assert [m.split(":")[0] for m in markers if m.startswith("slow:")] == ["slow"]
    assert "--strict-markers" in request.config.getini("addopts")


def _run(tmp_path: Path, mark: str) -> subprocess.CompletedProcess[str]:
    test = tmp_path / "test_one.py"
    test.write_text(f"import pytest\n\n\n@pytest.mark.{mark}\ndef test_one():\n    assert 1 + 1 == 2\n")
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c",
                           str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path), str(test), "-m", "not slow"],
                          capture_output=True, text=True, check=False, cwd=tmp_path)


def test_an_unregistered_marker_fails_and_slow_is_deselected(tmp_path: Path) -> None:
    misspelt = _run(tmp_path, "slwo")
    assert misspelt.returncode != 0
    assert "'slwo' not found in `markers` configuration option" in misspelt.stdout + misspelt.stderr
    slow = _run(tmp_path, "slow")
    assert slow.returncode == 5, slow.stdout + slow.stderr  # 5: no test left to run, the slow one deselected
    assert "1 deselected" in slow.stdout
