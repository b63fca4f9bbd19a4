"""A plain table needs no scipy: the statistics modules import it only in the functions that test or bound."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
import ir_rarity.compare.table, ir_rarity.stats.intervals, ir_rarity.stats.paired, ir_rarity.stats.effects
import ir_rarity.stats.correlation
from ir_rarity.cli import main
print(sorted(m for m in sys.modules if m == "scipy" or m.startswith("scipy.")))
"""


def test_importing_the_tables_and_statistics_loads_no_scipy() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-1000:]
    assert done.stdout.strip() == "[]"
