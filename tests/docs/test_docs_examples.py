"""The code in README.md and docs/*.md runs.

Every ```python block of a page is executed, in order, in one namespace per page (a page's blocks build on each
other), with a temporary folder as the working directory. A block preceded by the line ``<!-- skip -->`` is only
compiled (it needs a network, an index or data that is not embedded). Every ``ir-rarity`` command of a ```bash
block must parse with the command's own argument parser.
"""

from __future__ import annotations

import re
import shlex
import warnings
from pathlib import Path

import pytest

import ir_rarity
from ir_rarity.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SKIP = "<!-- skip -->"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)


def blocks(page: Path, language: str) -> list[tuple[int, str, bool]]:
    """``(line, code, skipped)`` of every fenced block of ``language`` in ``page``."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        if match.group(1) != language:
            continue
        before = text[: match.start()].rstrip().splitlines()
        skipped = bool(before) and before[-1].strip() == SKIP
        found.append((text.count("\n", 0, match.start()) + 2, match.group(2), skipped))
    return found


def test_pages_have_examples() -> None:
    assert (ROOT / "mkdocs.yml").is_file()
    with_code = [p.name for p in PAGES if blocks(p, "python")]
    assert "README.md" in with_code and "index.md" in with_code
    assert len(with_code) >= 8


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p, "python")], ids=lambda p: p.name)
def test_python_blocks_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.delenv("IR_RARITY_POOL", raising=False)
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir_rarity.RarityWarning)  # notices the pages mention, not failures
        for line, code, skipped in blocks(page, "python"):
            compiled = compile(code, f"{page.relative_to(ROOT)}:{line}", "exec")
            if not skipped:
                exec(compiled, namespace)


def ir_rarity_commands(code: str) -> list[list[str]]:
    """The argument lists of every ``ir-rarity`` command in a shell block (continued lines joined)."""
    commands = []
    for line in code.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        while words and "=" in words[0] and not words[0].startswith("-"):  # VAR=value before the command
            words = words[1:]
        if words and words[0] == "ir-rarity":
            commands.append(words[1:])
    return commands


def bash_commands() -> list[tuple[str, list[str]]]:
    return [(f"{p.name}:{line}", args) for p in PAGES for line, code, _ in blocks(p, "bash")
            for args in ir_rarity_commands(code)]


@pytest.mark.parametrize(("where", "args"), bash_commands(), ids=lambda v: v if isinstance(v, str) else "")
def test_bash_commands_parse(where: str, args: list[str]) -> None:
    try:
        build_parser().parse_args(args)
    except SystemExit as exit_:
        pytest.fail(f"{where}: ir-rarity {shlex.join(args)} does not parse (exit {exit_.code})")
