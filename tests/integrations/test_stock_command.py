"""Every way of starting ir_measures knows the rarity measures (the start-up hook, ``ir_rarity_hook.py``).

``python -m ir_measures`` used to say "unknown measure": runpy looks the package up (``find_spec``) before importing
it, and the hook's finder removed itself on that first lookup. The stock command's user also got a 30-line
traceback for a rarity measure without a pool, or with ``IR_RARITY_POOL=/etc/passwd``: now one line, exit 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import ir_rarity_hook

BIN = Path(sys.executable).parent
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d1 1\nq2 0 d4 1\n"
RUNS = {"a": "q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq2 Q0 d4 1 3 a\n",
        "b": "q1 Q0 d3 1 3 b\nq1 Q0 d1 2 2 b\nq2 Q0 d1 1 3 b\n"}
EXPECTED = "0.6250"  # P_rare@2 of run a against the pool {a, b}


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "pool").mkdir()
    for name, text in RUNS.items():
        (tmp_path / "pool" / name).write_text(text)
    return tmp_path


def _run(cmd: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("IR_RARITY_NO_HOOK", "IR_RARITY_POOL")}
    environment["IR_RARITY_CACHE"] = str(cwd / "cache")  # the test's own disk cache, not the user's
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=cwd, env={**environment, **env})


COMMANDS = {
    "python -m ir_measures": [sys.executable, "-m", "ir_measures"],
    "python -m ir_measures.__main__": [sys.executable, "-m", "ir_measures.__main__"],
    "python -I -m ir_measures": [sys.executable, "-I", "-m", "ir_measures"],
    "ir_measures script": [str(BIN / "ir_measures")],
}


@pytest.mark.parametrize("how", list(COMMANDS))
def test_the_command_knows_the_rarity_measures(campaign: Path, how: str) -> None:
    out = _run([*COMMANDS[how], "qrels", "pool/a", "P_rare(pool='pool')@2"], campaign)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["P_rare(pool='pool')@2", EXPECTED]
    out = _run([*COMMANDS[how], "qrels", "pool/a", "P_rare@2"], campaign, IR_RARITY_POOL="pool")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["P_rare@2", EXPECTED]


SCRIPT = ("import sys, ir_measures\n"
          "qrels = ir_measures.read_trec_qrels('qrels'); run = ir_measures.read_trec_run('pool/a')\n"
          "measure = ir_measures.parse_measure(\"P_rare(pool='pool')@2\")\n"
          "print(measure, f'{ir_measures.calc_aggregate([measure], qrels, run)[measure]:.4f}')\n")


def test_python_c_and_a_script_know_the_rarity_measures(campaign: Path) -> None:
    out = _run([sys.executable, "-c", "import ir_measures; print(ir_measures.parse_measure('P_rare@10'))"],
               campaign)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "P_rare@10"
    (campaign / "script.py").write_text(SCRIPT)
    out = _run([sys.executable, "script.py"], campaign)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["P_rare(pool='pool')@2", EXPECTED]
    # a lookup before the import (as runpy and PyTerrier do) no longer uses the hook up
    lookup = "import importlib.util; assert importlib.util.find_spec('ir_measures')\n"
    out = _run([sys.executable, "-c", lookup + SCRIPT], campaign)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["P_rare(pool='pool')@2", EXPECTED]


def test_the_hook_imports_nothing_before_ir_measures(campaign: Path) -> None:
    code = ("import sys, ir_rarity_hook\n"
            "heavy = {'ir_rarity', 'ir_measures', 'numpy', 'pandas', 'typing'} & set(sys.modules)\n"
            "print(sorted(heavy), any(type(f).__name__ == '_Finder' for f in sys.meta_path))")
    out = _run([sys.executable, "-S", "-c", code], campaign, PYTHONPATH=str(Path(ir_rarity_hook.__file__).parent))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[]", "True"]


@pytest.mark.slow
def test_the_command_counts_the_campaign_once(campaign: Path) -> None:
    """The first call counts the pool and says where it cached the counts (one line); the next read them."""
    command = [*COMMANDS["ir_measures script"], "qrels", "pool/a", "P_rare(pool='pool')@2 P@2"]
    first = _run(command, campaign)
    assert first.returncode == 0, first.stderr
    said = [line for line in first.stderr.splitlines() if line.startswith("ir_rarity: counted S_d")]
    assert len(said) == 1 and str(campaign / "cache") in said[0] and "pool" in said[0]
    assert len(list((campaign / "cache").glob("counts-*.npz"))) == 1
    again = _run(command, campaign)
    assert again.returncode == 0 and "counted S_d" not in again.stderr
    assert again.stdout == first.stdout and again.stdout.split()[:2] == ["P_rare(pool='pool')@2", EXPECTED]
    off = _run(command, campaign, IR_RARITY_CACHE="off")
    assert off.stdout == first.stdout and "counted S_d" not in off.stderr


@pytest.mark.parametrize("how", ["python -m ir_measures", "ir_measures script"])
@pytest.mark.parametrize("pool", [None, "/etc/passwd", "no/such/pool"])
def test_a_rarity_error_in_the_command_is_one_line(campaign: Path, how: str, pool: str | None) -> None:
    env = {"IR_RARITY_POOL": pool} if pool else {}
    out = _run([*COMMANDS[how], "qrels", "pool/a", "P_rare@2"], campaign, **env)
    assert out.returncode == 2, out
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ir_measures: error: "), out.stderr
    assert ("needs a pool" in lines[0]) if pool is None else ("/etc/passwd:1:" in lines[0] or "no/such" in lines[0])


def test_other_programs_keep_their_tracebacks(campaign: Path) -> None:
    code = "import ir_measures, ir_rarity.errors\nraise ir_rarity.errors.InputError('boom')\n"
    out = _run([sys.executable, "-c", code], campaign)
    assert out.returncode == 1 and "Traceback" in out.stderr and "ir_measures: error" not in out.stderr


@pytest.mark.parametrize(("argv", "module"), [
    (["py", "-m", "ir_measures"], "ir_measures"), (["py", "-Im", "ir_measures"], "ir_measures"),
    (["py", "-mir_measures"], "ir_measures"), (["py", "-W", "ignore", "-m", "x.y"], "x.y"),
    (["py", "-Wdefault::module", "-c", "x", "-m", "ir_measures"], None), (["py", "s.py", "-m", "ir_measures"], None),
    (["py", "-X", "dev", "-E", "-m", "foo"], "foo"), (["py"], None),
])
def test_module_run(argv: list[str], module: str | None) -> None:
    assert ir_rarity_hook._module_run(argv) == module
