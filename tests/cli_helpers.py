"""Running the ir-rarity command in tests, and checking its one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent


def run_cli(*args: object, env: dict[str, str] | None = None, script: bool = False) -> subprocess.CompletedProcess:
    """Run ``ir-rarity`` (the installed script, or ``python -m ir_rarity``) and capture its output."""
    cmd = [str(BIN / "ir-rarity")] if script else [sys.executable, "-m", "ir_rarity"]
    return subprocess.run([*cmd, *map(str, args)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def assert_cli_error(result: subprocess.CompletedProcess, *words: str) -> None:
    """Exit 2, no traceback, exactly one stderr line ``ir-rarity: error: ...`` holding every word."""
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ir-rarity: error: "), result.stderr
    for word in words:
        assert word in lines[0], lines[0]
