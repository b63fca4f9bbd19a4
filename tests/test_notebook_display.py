"""What a notebook shows: an Evaluation best first and cut as pandas cuts a frame; notices as one plain line.

The executed-notebook check (no warning output, no escape codes) is tests/docs/test_notebook_output.py.
"""

from __future__ import annotations

import sys
import types
import warnings
from html.parser import HTMLParser

import pandas as pd
import pytest

import ir_rarity
from ir_rarity.display import best_first, shown_rows
from ir_rarity.errors import MemberNotice, warn


class _Rows(HTMLParser):
    """The first cell of every body row of an HTML table, and its caption."""

    def __init__(self) -> None:
        super().__init__()
        self.first: list[str] = []
        self.caption = ""
        self._cell: str | None = None
        self._row_cells = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "tr":
            self._row_cells = 0
        if tag in ("td", "th"):
            self._row_cells += 1
            self._cell = tag if self._row_cells == 1 else None
            if self._cell == "td":
                self.first.append("")
        if tag == "caption":
            self._cell = "caption"

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th", "caption"):
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell == "td":
            self.first[-1] += data
        elif self._cell == "caption":
            self.caption += data


def _parse(html: str) -> _Rows:
    rows = _Rows()
    rows.feed(html)
    return rows


def _pandas_shown(n_rows: int) -> list[int]:
    """The row positions pandas itself shows of a frame of ``n_rows`` rows (its repr), under the current options."""
    frame = pd.DataFrame({"x": range(n_rows)}, index=[f"r{i}" for i in range(n_rows)])
    return [int(token[1:]) for token in repr(frame).split() if token.startswith("r") and token[1:].isdigit()]


@pytest.mark.parametrize(("max_rows", "min_rows"), [(60, 10), (10, 4), (5, None), (7, 20), (1, None), (3, 1),
                                                    (None, 10)])  # (0: the terminal's height, in a terminal)
def test_rows_shown_are_pandas_own(max_rows: int | None, min_rows: int | None) -> None:
    with pd.option_context("display.max_rows", max_rows, "display.min_rows", min_rows):
        for n in (1, 3, 5, 6, 7, 10, 11, 60, 61, 143):
            shown = shown_rows(n)
            ours = list(range(n)) if shown is None else [*range(shown[0]), *range(n - shown[1], n)]
            assert ours == _pandas_shown(n), (max_rows, min_rows, n)


def _evaluation(measures: list[str]) -> ir_rarity.Evaluation:
    return ir_rarity.evaluate(ir_rarity.covid_round1.runs, ir_rarity.covid_round1.qrels, measures,
                              split_by_tag=True)


@pytest.fixture(scope="module")
def round1() -> ir_rarity.Evaluation:
    return _evaluation(["P@10", "AP"])


def test_an_evaluation_shows_best_first_and_cut_like_pandas(round1: ir_rarity.Evaluation) -> None:
    table = round1.table()
    # the order, by hand: P@10 descending, ties by run name
    expected = sorted(table.index, key=lambda run: (-table.loc[run, "P@10"], run))
    with pd.option_context("display.max_rows", 10, "display.min_rows", 6):
        shown = _parse(round1._repr_html_())
        text = repr(round1)
    assert shown.first == [*expected[:3], "...", *expected[-3:]]
    assert "best first by P@10" in shown.caption and "the first 3 and the last 3 of 143" in shown.caption
    assert round1.describe() in shown.caption
    assert text.splitlines()[1].split() == ["P@10", "AP"] and expected[0] in text.splitlines()[3]
    assert "[143 rows x 2 columns]" in text  # pandas' own cut and footer
    with pd.option_context("display.max_rows", 200):
        assert _parse(round1._repr_html_()).first == expected  # all 143, best first
    assert best_first(table, "P@10").index.tolist() == expected


@pytest.mark.filterwarnings("ignore::ir_rarity.measures.asl.RankingLengthWarning")  # (rankings of round 1 differ)
def test_lower_is_better_comes_first_for_asl() -> None:
    result = _evaluation(["ASL@g1-10", "P@10"])
    table = result.table()
    expected = sorted(table.index, key=lambda run: (table.loc[run, "ASL@g1-10"], run))
    with pd.option_context("display.max_rows", 200):
        assert _parse(result._repr_html_()).first == expected


def _kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: types.SimpleNamespace(
        kernel=object())))


def test_a_notice_in_a_kernel_is_one_plain_line(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    _kernel(monkeypatch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn("run 'a' is scored as member 'a'", MemberNotice)
    assert caught == []  # no warning (no red stream, no source line)
    assert capsys.readouterr().out == "ir_rarity note: run 'a' is scored as member 'a'\n"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemberNotice)  # the user's filters still decide
        warn("hidden", MemberNotice)
    assert capsys.readouterr().out == ""
    with warnings.catch_warnings():
        warnings.simplefilter("error", MemberNotice)
        with pytest.raises(MemberNotice):
            warn("raised", MemberNotice)
    monkeypatch.delitem(sys.modules, "IPython")  # outside a kernel: a warning, as before
    with pytest.warns(MemberNotice):
        warn("a warning", MemberNotice)


def test_the_member_notice_is_in_the_caption(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Two round-1 runs scored against the round-1 pool equal their members: one note, and the caption says so."""
    runs = ir_rarity.read_trec_run(ir_rarity.covid_round1.runs)
    systems = {name: runs[runs["tag"] == name][["query_id", "doc_id", "score"]] for name in ("BERT", "run1")}
    pool = ir_rarity.Pool.from_runs(ir_rarity.covid_round1.runs, split_by_tag=True)
    _kernel(monkeypatch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = ir_rarity.evaluate(systems, ir_rarity.covid_round1.qrels, ["P_rare@10", "P@10"], pool=pool)
    assert [w for w in caught if issubclass(w.category, MemberNotice)] == []
    out = capsys.readouterr().out
    assert out.count("ir_rarity note:") == 1 and "'BERT'" in out and "'run1'" in out
    assert result.members == {"BERT": "BERT", "run1": "run1"}
    caption = _parse(result._repr_html_()).caption
    assert "2 evaluated runs scored as the campaign members they equal ('BERT', 'run1')" in caption
    assert "scored as the campaign members" in repr(result)
