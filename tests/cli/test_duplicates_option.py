"""``--duplicates``: one option, one help text, whichever command takes it (ir_rarity.engine.names.DUPLICATES_HELP)."""

from __future__ import annotations

import argparse

import pandas as pd
import pytest

from ir_rarity import Pool
from ir_rarity.cli import build_parser
from ir_rarity.engine.names import DUPLICATES, DUPLICATES_HELP
from ir_rarity.errors import DuplicateDocumentError


def _duplicates_options() -> dict[str, argparse.Action]:
    """Command -> its ``--duplicates`` option, for every ``ir-rarity`` command that has one."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    found = {}
    for name, parser in sub.choices.items():
        for action in parser._actions:
            if "--duplicates" in action.option_strings:
                found[name] = action
    return found


def test_one_help_text_for_every_command_but_the_report() -> None:
    options = _duplicates_options()
    assert {"eval", "pooling"} <= set(options)
    for name, action in options.items():
        if name == "report":  # ir_rarity/report/cli.py words its own (not part of this change)
            continue
        assert action.help == DUPLICATES_HELP, name
        assert tuple(action.choices or ()) == DUPLICATES and action.default == "error", name


def test_the_help_says_what_first_does() -> None:
    # d1 twice for q1, scored 1 (rank 3) and 3 (rank 1): "first" keeps the highest-scored, the one trec_eval
    # ranks first, so d1 is at rank 1 and d2 at rank 2; "error" refuses the run.
    run = pd.DataFrame({"query_id": "q1", "doc_id": ["d1", "d2", "d1"], "score": [1.0, 2.0, 3.0]})
    pool = Pool.from_runs({"A": run}, duplicates="first")
    kept = pool.run("A")
    assert list(kept["doc_id"]) == ["d1", "d2"] and list(kept["score"]) == [3.0, 2.0]
    assert "highest-scored" in DUPLICATES_HELP and "trec_eval ranks first" in DUPLICATES_HELP
    with pytest.raises(DuplicateDocumentError, match="more than once"):
        Pool.from_runs({"A": run})
