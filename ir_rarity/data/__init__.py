"""Paths to the data embedded in the package.

TREC-COVID round 1 (Roberts et al., "Searching for scientific evidence in a pandemic: an overview of
TREC-COVID", JBI 2021), from NIST's public archive as mirrored in castorini/TREC-COVID: the 143 official runs
of 56 teams, each cut to depth 100 in trec_eval order and gathered in one file (run name in the tag column),
the graded qrels (30 topics, 8,691 judgments), the topics and the official leaderboard.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["covid_round1"]


class _Round1:
    """Files of TREC-COVID round 1 shipped with ir_rarity."""

    @property
    def folder(self) -> Path:
        """The folder holding the files."""
        return Path(str(resources.files("ir_rarity") / "data" / "trec_covid_round1"))

    @property
    def runs(self) -> Path:
        """All 143 runs cut to depth 100, one file: read it with ``split_by_tag=True`` (``--split-by-tag``).

        A file is one run unless split by its tag column; this file holds 143 runs, one per tag.
        """
        return self.folder / "runs_top100.trec.gz"

    @property
    def qrels(self) -> Path:
        """The round-1 qrels (labels 0, 1, 2)."""
        return self.folder / "qrels.txt.gz"

    @property
    def leaderboard(self) -> Path:
        """The official leaderboard (CSV: run, team, runtype, ... and the official scores)."""
        return self.folder / "leaderboard.csv"

    @property
    def topics(self) -> Path:
        """The 30 topics (XML)."""
        return self.folder / "topics.xml.gz"


covid_round1 = _Round1()
