"""Progress bars: on stderr when asked (or on a terminal), never with progress=False or ``--quiet``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ir_rarity import Pool
from ir_rarity.cli import main
from ir_rarity.meta.robustness import system_count_robustness
from ir_rarity.pool.build.sources import iter_named_runs
from ir_rarity.progress import progress_disabled, set_progress


def test_fallback_through_ir_measures_shows_runs(hand_pool: Pool, hand_qrels: pd.DataFrame,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    hand_pool.evaluate(hand_qrels, ["SetP"], progress=True)
    assert "ir_measures" in capsys.readouterr().err
    hand_pool.evaluate(hand_qrels, ["SetP"], progress=False)
    with progress_disabled():
        hand_pool.evaluate(hand_qrels, ["SetP"])
    assert capsys.readouterr().err == ""


def test_reading_files_and_trials(hand_files: dict[str, Path], covid_pool: Pool, covid_qrels: pd.DataFrame,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    list(iter_named_runs([hand_files[n] for n in "ABC"], progress=True))
    assert "reading runs" in capsys.readouterr().err
    system_count_robustness(covid_pool, covid_qrels, "P_rare@10", sizes=[5], trials=3, seed=0, progress=True)
    assert "trial" in capsys.readouterr().err


def test_cli_quiet(hand_files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    args = ["eval", str(hand_files["qrels"]), *(str(hand_files[n]) for n in "ABC"), "-m", "SetP", "P@1"]
    set_progress(True)  # as on a terminal
    try:
        assert main(args) == 0
        assert "ir_measures" in capsys.readouterr().err
        assert main([*args, "--quiet"]) == 0
        err = capsys.readouterr().err
        assert "ir_measures" not in err and "\r" not in err
    finally:
        set_progress(None)


def test_a_jupyter_kernel_shows_bars(monkeypatch) -> None:
    """In a kernel stderr is no terminal (tqdm's disable=None would hide the bar): bars are on there."""
    import sys
    import types

    from ir_rarity import progress as module

    assert module._disable(None) is None  # not in a kernel: tqdm decides by isatty
    kernel = types.SimpleNamespace(kernel=object())
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: kernel))
    assert module.in_notebook() and module._disable(None) is False
    assert module._disable(False) is True  # an explicit choice still wins
    shell = types.SimpleNamespace(get_ipython=lambda: types.SimpleNamespace())  # plain IPython terminal: no kernel
    monkeypatch.setitem(sys.modules, "IPython", shell)
    assert not module.in_notebook()


def test_no_bar_where_tqdm_would_draw_none(monkeypatch) -> None:
    """By default a bar is drawn on a terminal only, as tqdm's disable=None: elsewhere tqdm is not even called."""
    import io
    import sys

    from tqdm import tqdm

    from ir_rarity.progress import progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    items = [1, 2, 3]
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # a pipe or a file: no bar
    assert progress(items, desc="x") is items
    plain = progress(items, desc="x", enabled=True)  # asked for where no bar can be drawn: one plain line
    assert not isinstance(plain, tqdm) and list(plain) == items
    assert sys.stderr.getvalue() == "x: 3/3 its in 0.0 s\n"
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    bar = progress(items, desc="reading", unit="file")
    assert isinstance(bar, tqdm) and list(bar) == items
    assert "reading" in terminal.getvalue()


ESCAPES = ("\r", "\x1b")


def _kernel(monkeypatch: pytest.MonkeyPatch, widgets: bool) -> None:
    """Pretend the code runs in a Jupyter kernel, with or without ipywidgets."""
    import sys
    import types

    from ir_rarity import progress as module

    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: types.SimpleNamespace(
        kernel=object())))
    monkeypatch.setattr(module, "_widgets", lambda: widgets)


def test_a_kernel_without_widgets_prints_one_plain_line_per_bar(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """No ipywidgets (VS Code's kernels often lack it): tqdm would print a line per refresh, with carriage returns,
    and nested bars cursor-up codes. Here: one line per bar once done, on stdout (not the warnings' stream)."""
    from ir_rarity.progress import counter, progress

    _kernel(monkeypatch, widgets=False)
    for _ in progress(range(126), desc="reading runs", unit="file"):
        for _ in progress(range(3), desc="inner", unit="step"):
            pass
    with counter(5, desc="campaigns", unit="campaign") as bar:
        for _ in range(5):
            bar.update()
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert err == "" and not any(code in out for code in ESCAPES)
    assert len(lines) == 126 + 1 + 1  # one line per bar: 126 inner bars, the outer one, the counter
    assert lines[-2].startswith("reading runs: 126/126 files in ") and lines[-1].startswith("campaigns: 5/5 ")
    assert lines[0].startswith("inner: 3/3 steps in ")


def test_a_kernel_with_widgets_keeps_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ipywidgets, tqdm's notebook bars, kept when done (leave=True) so the cell shows what ran."""
    import tqdm.notebook

    from ir_rarity.progress import counter, progress

    made: list[dict] = []

    class Widget:
        def __init__(self, iterable=None, **options):
            made.append(options)
            self.iterable = iterable

        def __iter__(self):
            return iter(self.iterable)

    _kernel(monkeypatch, widgets=True)
    monkeypatch.setattr(tqdm.notebook, "tqdm", Widget)
    assert list(progress([1, 2], desc="runs", unit="run")) == [1, 2]
    counter(4, desc="trials")
    assert [m["leave"] for m in made] == [True, True] and [m["desc"] for m in made] == ["runs", "trials"]
    assert progress([1], desc="x", enabled=False) == [1]  # an explicit choice still wins


def test_a_terminal_bar_is_tqdms_and_goes(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    from tqdm import tqdm

    from ir_rarity.progress import progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stderr", Terminal())
    bar = progress([1, 2], desc="x")
    assert isinstance(bar, tqdm) and bar.leave is False
