"""One run scored against a campaign known by its counts alone, with numpy alone: the rule's one-run code path.

The stock command ``ir_measures QRELS RUN "P_rare(pool='runs/*.gz')@100"`` starts a new process per call. Once the
campaign's count table is in the disk cache (:mod:`ir_rarity.pool.store.cachefile`), scoring one run against it needs
little: the table's arrays as a :class:`CountsCampaign` (the engine's
:class:`~ir_rarity.engine.contract.Campaign`), the qrels and the run as numpy columns, and the engine. This module
puts them together without importing pandas, pyarrow or scipy (what plain ``ir_measures ... P@100`` does not import
either), so a repeated call costs about what a standard measure costs.

Nothing here restates the evaluation rule. The qrels are encoded by
:func:`~ir_rarity.engine.qrels.encode_qrels_columns` and the run ranked by :func:`~ir_rarity.engine.runs.rank_columns`
(the codes, order and checks of :func:`~ir_rarity.engine.qrels.encode_qrels` and
:func:`~ir_rarity.engine.runs.rank_runs`), the rows are counted by :func:`~ir_rarity.engine.against.rows_against`
(a member by its fingerprint, :func:`~ir_rarity.engine.hashes.match_fingerprints`, else the run alone joined:
S + 1), and the measures are the engine's kernels (:func:`~ir_rarity.engine.compute.compute`): the values of
:func:`ir_rarity.evaluation.evaluate_campaign` against the same counts (tests compare them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ir_rarity.engine.against import rows_against
from ir_rarity.engine.codes import ScorePrecision, check_precision, sorted_lookup
from ir_rarity.engine.compute import compute
from ir_rarity.engine.contract import CampaignInfo
from ir_rarity.engine.hashes import match_fingerprints
from ir_rarity.engine.members import report_members
from ir_rarity.engine.qrels import encode_qrels_columns
from ir_rarity.engine.runs import RankedRuns, rank_columns
from ir_rarity.errors import ParameterError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CountsCampaign", "score_run"]


class CountsCampaign:
    """A count table's arrays as the engine's :class:`~ir_rarity.engine.contract.Campaign`, numpy alone.

    What :class:`~ir_rarity.CountTable` is for a table read with pandas, for the arrays the disk cache keeps
    (:class:`~ir_rarity.pool.store.cachefile.CachedCounts`): S_d at the depth counted, and members recognised by their
    fingerprints. Its vocabularies are sorted numpy unicode arrays, which the numpy paths of the engine's encoding
    (:func:`~ir_rarity.engine.codes.encode`) take in place of a ``pd.Index``.

    Args:
        queries: The sorted query-id vocabulary (numpy unicode array).
        docs: The sorted docno vocabulary.
        query_hash: :func:`~ir_rarity.engine.runs.string_hashes` of each query id.
        doc_hash: The same of each docno.
        keys: Sorted pair keys counted within the depth.
        counts: S_d of each key.
        members: Member name -> its fingerprint ``(rows within the depth, sum of their hashes)``.
        num_systems: S.
        systems: ``"runs"`` or ``"teams"``.
        n_runs: The runs counted.
        depth: The depth S_d was counted at (None: whole runs).
        scores: How the members' rankings were ordered.

    """

    def __init__(self, *, queries: np.ndarray, docs: np.ndarray, query_hash: np.ndarray, doc_hash: np.ndarray,
                 keys: np.ndarray, counts: np.ndarray, members: Mapping[str, tuple[int, int]], num_systems: int,
                 systems: str, n_runs: int | None, depth: int | None, scores: str = "float32") -> None:
        self.queries, self.docs = queries, docs
        self.hashes = (query_hash, doc_hash)
        self._keys, self._counts = keys, counts
        self._by_print = {fingerprint: name for name, fingerprint in members.items()}  # the last of equal ones
        self.num_systems, self.systems, self.n_runs, self.depth = num_systems, systems, n_runs, depth
        self.scores: ScorePrecision = check_precision(scores)

    def _check(self, depth: int | None) -> None:
        if depth != self.depth:
            at = "whole runs" if self.depth is None else f"depth {self.depth}"
            raise ParameterError(f"these counts hold S_d counted at {at}; a measure asks for depth {depth}")

    def vocabularies(self) -> tuple[pd.Index, pd.Index]:
        """The query-id and docno vocabularies (sorted numpy unicode arrays, standing for ``pd.Index``)."""
        return cast("pd.Index", self.queries), cast("pd.Index", self.docs)

    def num_systems_at(self, depth: int | None) -> int:
        """S, at the depth counted."""
        self._check(depth)
        return self.num_systems

    def count_keys(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        """S_d of each pair key at the depth counted (0 where no member retrieved it)."""
        self._check(depth)
        return sorted_lookup(self._keys, self._counts, keys, 0)

    def find_members(self, runs: RankedRuns, depth: int | None) -> list[str | None]:
        """Members by fingerprint, as :meth:`ir_rarity.CountTable.find_members` finds them.

        A run with a row within the depth that no member retrieved (S_d 0: a pair never counted, a query id or
        docno outside the vocabularies) is no member, whatever its fingerprint: every member row within the depth
        is counted. Such a run is refused before its fingerprint is read, so rows of strings outside the
        vocabularies need no hash of their own (:func:`~ir_rarity.engine.runs.rank_columns` gives them 0).
        """
        within = np.ones(len(runs.rank), dtype=bool) if depth is None else runs.rank < depth
        uncounted = np.zeros(runs.n_runs, dtype=bool)
        uncounted[runs.run[within][self.count_keys(runs.key[within], depth) == 0]] = True
        found = match_fingerprints(self._by_print, *runs.fingerprints(depth))
        return [None if outside else member for outside, member in zip(uncounted.tolist(), found, strict=True)]

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int]:
        """Not available: counts hold S_d only."""
        raise ParameterError("a count table holds S_d only; the novelty utility needs the runs themselves")

    def info(self) -> CampaignInfo:
        """S, what it counts, the runs counted and the depth."""
        return CampaignInfo(num_systems=self.num_systems, systems=self.systems, n_runs=self.n_runs,
                            depths=(self.depth,), source="count table", scores=self.scores)


def score_run(campaign: CountsCampaign, measures: Sequence[Any], qrels: tuple[np.ndarray, np.ndarray, np.ndarray],
              run: tuple[np.ndarray, np.ndarray, np.ndarray], name: str = "the evaluated run"
              ) -> tuple[np.ndarray, dict[Any, np.ndarray]]:
    """Per-query values of ``measures`` for one run scored against ``campaign`` by the evaluation rule.

    Args:
        campaign: The counts the run is scored against.
        measures: Engine measures needing S_d at the campaign's depth (or no pool).
        qrels: ``(query ids, docnos, labels)`` of the judgments (numpy unicode arrays, integers).
        run: ``(query ids, docnos, scores)`` of the run's rows.
        name: The run's name, in the member notice and in errors.

    Returns:
        The qrels' query ids (sorted) and, per measure, its value on each. A run equal to a member is named in
        one :class:`~ir_rarity.errors.MemberNotice`, as :func:`ir_rarity.evaluation.evaluate_campaign` names it.

    Raises:
        InputError: a NaN score, a document listed twice for a query, or judged twice (as the ordinary path).
        ParameterError: a measure the counts cannot compute.

    """
    queries, docs = campaign.queries, campaign.docs
    encoded = encode_qrels_columns(*qrels, queries, docs)
    extensions = cast("tuple[np.ndarray, np.ndarray]", (encoded.query_extra, encoded.doc_extra))  # numpy arrays
    ranked = rank_columns(name, *run, [queries, extensions[0]], [docs, extensions[1]], campaign.hashes,
                          scores=campaign.scores)
    rows, membership = rows_against(campaign, ranked, encoded)
    values = {m: compute(m, rows)[0] for m in measures}
    report_members([name], membership)
    return cast("np.ndarray", encoded.query_ids), values
