"""A dependency's warning under ``ir-rarity`` is shown once, in one line, and the command ends.

``cli._notices`` used to re-show foreign warnings with ``warnings.showwarning`` while still recording, so each
one was appended to the list being iterated and the command never ended (memory growing without bound).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CODE = """
import sys, warnings
import ir_rarity.evaluation as evaluation
from ir_rarity.errors import DegeneratePoolWarning
from ir_rarity.cli import commands as cli

real = evaluation.evaluate

def noisy(*args, **kwargs):
    warnings.warn("precision loss\\n  (catastrophic cancellation)", RuntimeWarning)
    warnings.warn("precision loss\\n  (catastrophic cancellation)", RuntimeWarning)
    warnings.warn("a pool of one system", DegeneratePoolWarning)
    return real(*args, **kwargs)

evaluation.evaluate = noisy
sys.exit(cli.main(sys.argv[1:]))
"""


def test_a_dependency_warning_is_shown_once_and_the_command_ends(files: dict[str, Path]) -> None:
    done = subprocess.run([sys.executable, "-c", CODE, "eval", str(files["qrels"]), str(files["run"]), "-m", "P@2"],
                          capture_output=True, text=True, timeout=60, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    foreign = [line for line in lines if "RuntimeWarning" in line]
    assert foreign == ["ir-rarity: warning: RuntimeWarning: precision loss (catastrophic cancellation)"], lines
    assert lines.count("ir-rarity: warning: a pool of one system") == 1, lines
    assert "Traceback" not in done.stderr and ".py:" not in done.stderr  # no source path
    assert done.stdout.splitlines()[0].split("\t")[0] == "P@2"  # one run: as ir_measures prints it
