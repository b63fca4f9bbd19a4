"""``ir-rarity --help`` starts light: building the parser and printing any help imports no heavy dependency.

A structural test, not a timing test (timings are flaky in CI): each command imports what it runs when it runs,
so the parser (choices, defaults, help texts) must come from modules that load neither numpy nor pandas.
``ir_measures`` is not on the list: ``import ir_rarity`` registers the measures with it, by design.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ir_rarity.cli import build_parser

HEAVY = ("pandas", "numpy", "scipy", "pyarrow", "matplotlib", "statsmodels", "ir_datasets", "pyterrier", "duckdb")

CODE = """
import contextlib, io, json, sys
from ir_rarity.cli import build_parser
{extra}
for argv in {argvs!r}:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        build_parser().parse_args(argv)
print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


def _commands() -> list[str]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return sorted(sub.choices or ())


def _heavy_after(*argvs: list[str], extra: str = "") -> list[str]:
    """The heavy modules loaded once ``ir_rarity.cli`` is imported (then ``extra`` run) and ``argvs`` parsed."""
    code = CODE.format(argvs=list(argvs), heavy=HEAVY, extra=extra)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_commands_are_listed() -> None:
    assert {"eval", "pool", "meta", "demo", "pooling"} <= set(_commands())


def test_importing_the_command_line_is_light() -> None:
    assert _heavy_after() == []


@pytest.mark.parametrize("command", [None, *_commands()])
def test_help_is_light(command: str | None) -> None:
    assert _heavy_after([command, "--help"] if command else ["--help"]) == []


def test_the_check_sees_a_heavy_import() -> None:
    assert _heavy_after(["--help"], extra="import numpy") == ["numpy"]
