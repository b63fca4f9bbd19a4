"""A broken start-up hook costs at most one line on stderr, never a traceback at every start of Python.

The ``.pth`` line that ``setup.py`` installs (``PTH_LINE``) used to catch ``ImportError`` only: a syntax error in
``ir_rarity_hook.py``, or any exception raised while it is imported, made ``site.py`` print the traceback (and
"Remainder of file ignored") at every start of every interpreter of the environment. The line is written here into
a site folder of the test's own, next to a hook module of the test's own, and that folder is processed by
``site.addsitedir`` in a fresh interpreter started with ``-S`` (so the installed ``.pth`` is not read).
"""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import pytest
import setuptools

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pth_line() -> str:
    """``PTH_LINE`` as setup.py defines it (its ``setup()`` call made a no-op)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(setuptools, "setup", lambda **_: None)
        line = runpy.run_path(str(ROOT / "setup.py"))["PTH_LINE"]
    assert isinstance(line, str) and line.count("\n") == 1 and line.endswith("\n")  # one line of a .pth file
    return line


def _start(site_dir: Path, hook: str | None, pth_line: str) -> subprocess.CompletedProcess:
    """Start Python, process ``site_dir`` (holding the .pth and, unless None, ``hook`` as ir_rarity_hook.py)."""
    site_dir.mkdir()
    (site_dir / "ir_rarity_hook.pth").write_text(pth_line)
    if hook is not None:
        (site_dir / "ir_rarity_hook.py").write_text(hook)
    code = f"import site, sys; site.addsitedir({str(site_dir)!r}); print('started')"
    return subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=site_dir)


@pytest.mark.parametrize(("hook", "error"), [
    ("def install(:\n    pass\n", "SyntaxError: invalid syntax (ir_rarity_hook.py, line 1)"),
    ("raise RuntimeError('the hook\\nbroke')\n", "RuntimeError: the hook broke"),
    ("import a_module_that_is_not_there_at_all\n", "ModuleNotFoundError: No module named "
                                                   "'a_module_that_is_not_there_at_all'"),
    ("x = 1 / 0\n", "ZeroDivisionError: division by zero"),
])
def test_a_broken_hook_is_one_line(tmp_path: Path, pth_line: str, hook: str, error: str) -> None:
    out = _start(tmp_path / "site", hook, pth_line)
    assert out.returncode == 0
    assert out.stdout == "started\n"
    assert out.stderr.splitlines() == [f"ir_rarity_hook: disabled ({error})"]


def test_a_removed_hook_is_silent(tmp_path: Path, pth_line: str) -> None:
    out = _start(tmp_path / "site", None, pth_line)  # the package uninstalled, its .pth left behind
    assert (out.returncode, out.stdout, out.stderr) == (0, "started\n", "")


def test_a_working_hook_is_silent_and_installed(tmp_path: Path, pth_line: str) -> None:
    out = _start(tmp_path / "site", "import sys\nsys.hook_ran = True\n", pth_line)
    assert (out.returncode, out.stdout, out.stderr) == (0, "started\n", "")
    check = _start(tmp_path / "again", "import sys\nsys.stderr.write('hook ran\\n')\n", pth_line)
    assert check.stderr == "hook ran\n"  # the line imports the module next to it


def test_the_real_hook_through_the_line_is_silent(tmp_path: Path, pth_line: str) -> None:
    hook = (ROOT / "ir_rarity_hook.py").read_text(encoding="utf-8")
    out = _start(tmp_path / "site", hook, pth_line)
    assert (out.returncode, out.stdout, out.stderr) == (0, "started\n", "")


def test_install_never_raises(tmp_path: Path) -> None:
    code = ("import sys, ir_rarity_hook\n"
            "ir_rarity_hook.uninstall()\n"
            "class ReadOnly(list):\n"
            "    def insert(self, index, value):\n"
            "        raise RuntimeError('meta_path is read-only here')\n"
            "sys.meta_path = ReadOnly(sys.meta_path)\n"
            "ir_rarity_hook.install()\n"
            "print('returned', any(type(f).__name__ == '_Finder' for f in sys.meta_path))\n")
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                         env={"PATH": "/usr/bin:/bin"})
    assert (out.returncode, out.stdout) == (0, "returned False\n")
    assert out.stderr.splitlines() == ["ir_rarity_hook: disabled (RuntimeError: meta_path is read-only here)"]
