"""The shapes of input the public API accepts, named once (for signatures and the type checker).

Each alias says what a parameter may be; the readers in :mod:`ir_rarity.io` and :mod:`ir_rarity.pool.build.sources` turn
every shape into the canonical frames, and refuse anything else with a one-line error.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeAlias

import ir_measures
import pandas as pd

from ir_rarity.engine.contract import Campaign

__all__ = ["CampaignLike", "MeasureLike", "MeasuresLike", "PathLike", "QrelsLike", "RunLike", "RunsLike",
           "TeamsLike"]

PathLike: TypeAlias = str | os.PathLike[str]
"""A file, folder or glob pattern."""

MeasureLike: TypeAlias = ir_measures.Measure | str
"""A measure object, or a string in ir_measures syntax (``'P_rare(alpha=0.5)@100'``, ``'ASL@g1-10'``)."""

MeasuresLike: TypeAlias = MeasureLike | Iterable[MeasureLike]
"""One measure or several."""

QrelsLike: TypeAlias = pd.DataFrame | PathLike | Iterable[Any]
"""A qrels DataFrame (ir_measures or PyTerrier columns), a TREC qrels file, an ir_measures qrels iterable, or an
ir_datasets id."""

RunLike: TypeAlias = pd.DataFrame | PathLike | Mapping[str, Mapping[str, float]] | Iterable[Any]
"""One run: a DataFrame (``query_id, doc_id, score`` or ``qid, docno, score``), a TREC run file, a dict of dicts
``query -> doc -> score``, or an iterable of ``ir_measures.ScoredDoc``."""

RunsLike: TypeAlias = Mapping[str, RunLike] | PathLike | Sequence[PathLike]
"""Several runs: a mapping ``name -> run``, run files, a folder, a glob, or a list of them."""

CampaignLike: TypeAlias = Campaign | RunsLike
"""What a campaign may be named by: a :class:`~ir_rarity.Pool`, a :class:`~ir_rarity.CountTable`, runs (as
:data:`RunsLike`), a saved ``.npz`` pool or a ``.parquet`` count table."""

TeamsLike: TypeAlias = Mapping[str, str] | str | tuple[str, str]
"""Which team each run belongs to: a mapping ``run -> team``, or a leaderboard CSV (``'path:team_column'``,
``'path:run_column:team_column'``, or ``(path, team_column)``)."""
