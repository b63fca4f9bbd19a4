"""Shared fixtures: the embedded TREC-COVID round-1 campaign and a small hand-checked campaign."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from small_files import QRELS as SMALL_QRELS
from small_files import RUN as SMALL_RUN

import ir_rarity
from ir_rarity import Pool, covid_round1

HAND_QRELS = """\
q1 0 d1 2
q1 0 d2 1
q1 0 d3 0
q1 0 d5 1
q2 0 d1 1
"""



@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The tests' campaign cache lives in a temporary folder, never the user's ``~/.cache/ir_rarity``."""
    import os

    os.environ.setdefault("IR_RARITY_CACHE", str(tmp_path_factory.mktemp("ir_rarity_cache")))
    # Tables without their provenance lines, so tests parse them as plain tables; the provenance itself is tested
    # format by format (tests/cli/test_provenance_outputs.py) with this unset.
    os.environ.setdefault("IR_RARITY_NO_PROVENANCE", "1")


# Three systems. The rank column is deliberately wrong in run C: it must be ignored.
HAND_RUNS = {
    "A": "q1 Q0 d1 1 3.0 A\nq1 Q0 d2 2 2.0 A\nq1 Q0 d3 3 1.0 A\nq1 Q0 d4 4 0.5 A\nq2 Q0 d1 1 1.0 A\n",
    "B": "q1 Q0 d2 1 5.0 B\nq1 Q0 d4 2 4.0 B\nq1 Q0 d1 3 1.0 B\n",
    "C": "q1 Q0 d6 1 1.0 C\nq1 Q0 d2 2 9.0 C\nq1 Q0 d3 3 9.0 C\nq2 Q0 x 1 1.0 C\n",
}


@pytest.fixture
def hand_files(tmp_path: Path) -> dict[str, Path]:
    paths = {}
    for name, text in HAND_RUNS.items():
        p = tmp_path / name
        p.write_text(text)
        paths[name] = p
    q = tmp_path / "qrels.txt"
    q.write_text(HAND_QRELS)
    paths["qrels"] = q
    return paths


@pytest.fixture
def hand_pool(hand_files: dict[str, Path]) -> Pool:
    return Pool.from_runs([hand_files[n] for n in "ABC"])


@pytest.fixture
def hand_qrels(hand_files: dict[str, Path]) -> pd.DataFrame:
    return ir_rarity.read_trec_qrels(hand_files["qrels"])


@pytest.fixture(scope="session")
def covid_pool() -> Pool:
    return Pool.from_runs(covid_round1.runs, split_by_tag=True)


@pytest.fixture(scope="session")
def covid_qrels() -> pd.DataFrame:
    return ir_rarity.read_trec_qrels(covid_round1.qrels)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """A small qrels file and run (``small_files``); a test module may define its own ``files``."""
    out = {"qrels": tmp_path / "qrels", "run": tmp_path / "run"}
    out["qrels"].write_text(SMALL_QRELS)
    out["run"].write_text(SMALL_RUN)
    return out


# ------------------------------------------------------------------------------------------------------
# Hand-computed fixture: 3 runs x 4 queries
#   A = [.9 .7 .8 .6]  mean .75   within-run SS .05
#   B = [.5 .6 .4 .3]  mean .45   within-run SS .05
#   C = [.2 .3 .1 .4]  mean .25   within-run SS .05
# ------------------------------------------------------------------------------------------------------


@pytest.fixture
def small() -> pd.DataFrame:
    """Per-query scores of 3 runs x 4 queries, computed by hand in the meta-evaluation and statistics tests."""
    return pd.DataFrame(
        [[0.9, 0.7, 0.8, 0.6], [0.5, 0.6, 0.4, 0.3], [0.2, 0.3, 0.1, 0.4]],
        index=["A", "B", "C"],
        columns=["q1", "q2", "q3", "q4"],
    )
