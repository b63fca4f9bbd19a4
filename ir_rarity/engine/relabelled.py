r"""Scoring a campaign's members under many relabellings of one qrels, in one pass over their rows.

The reusability experiment of :mod:`ir_rarity.judging.reuse` (Zobel, SIGIR 1998) scores every run under the qrels
of many simulated pools: each the full judgments with the labels outside the pool set to 0. For measures whose value
of a ranking depends on its relevant rows only, the rows that can be relevant under some labelling are gathered once
per block of runs, with their S_d, and each labelling relabels and scores them with the engine's kernels. This is
a row source of the engine (:class:`Labelled` gives the rows their labels), scored by the same kernels as every
evaluation, so each value equals the front door's for the restricted qrels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.engine.codes import encode, pair_keys
from ir_rarity.engine.compute import compute, s_d_depth
from ir_rarity.engine.contract import Campaign, MemberCampaign
from ir_rarity.engine.families import is_engine_measure
from ir_rarity.engine.judgments import Judgments
from ir_rarity.engine.means import aggregate
from ir_rarity.engine.qrels import UNJUDGED, EncodedQrels, is_relevant
from ir_rarity.engine.rows import Labelled, Rows, Subrows
from ir_rarity.engine.rule import BLOCK_ROWS, apply_rule
from ir_rarity.engine.standard import compute_standard, covers
from ir_rarity.io.frames import as_qrels_frame

__all__ = ["RELEVANT_ROWS_STANDARD", "Labelled", "Relabelled", "Restrictor", "pool_qrels", "reads_relevant_rows_only",
           "relabelled_values", "restricted_scores"]


def pool_qrels(qrels: Any, judged: pd.DataFrame, drop: bool = False) -> pd.DataFrame:
    """The qrels as a campaign that judged only ``judged`` would have them.

    Args:
        qrels: The full judgments.
        judged: The simulated pool: a frame with ``query_id, doc_id``.
        drop: Drop the judgments outside ``judged`` instead of setting their label to 0. Needed where "judged"
            matters (``judged_only=True``, ``Judged@k``); queries left without a judgment then leave the means.

    Returns:
        The qrels frame with label 0 for every judgment of a document outside ``judged`` (see the module), or
        without those judgments.

    """
    frame = as_qrels_frame(qrels).copy()
    pairs = pd.MultiIndex.from_frame(frame[["query_id", "doc_id"]].astype(str))
    inside = pairs.isin(pd.MultiIndex.from_frame(judged[["query_id", "doc_id"]].astype(str)))
    if drop:
        return frame.loc[inside].reset_index(drop=True)
    frame.loc[~inside, "relevance"] = 0
    return frame


class Relabelled(Judgments):
    """Restricted qrels that share the full qrels' encoding against one campaign: only the labels differ.

    :meth:`encoded_for` gives that campaign the full qrels' :class:`~ir_rarity.engine.qrels.EncodedQrels` with the
    restricted labels (the same sorted pair keys, queries and extensions ``encode_qrels`` gives the restricted
    frame, which holds the same pairs), so nothing is encoded again; any other campaign encodes the frame.
    """

    def __init__(self, frame: pd.DataFrame, campaign: Campaign, encoded: EncodedQrels) -> None:
        super().__init__(frame)
        self.vocabularies, self.encoded = campaign.vocabularies(), encoded

    def encoded_for(self, campaign: Campaign) -> EncodedQrels:
        """The relabelled encoding for the campaign it was made for."""
        queries, docs = campaign.vocabularies()
        if queries is self.vocabularies[0] and docs is self.vocabularies[1]:
            return self.encoded
        return super().encoded_for(campaign)


class Restrictor:
    """Restricted qrels of many simulated pools (:func:`pool_qrels`, labels set to 0), the full qrels encoded once.

    The full qrels' (query, document) pairs are keyed once in the campaign's codes; a simulated pool's pairs are
    keyed the same way and looked up by integer (``np.isin``), and the restricted qrels reuse the full qrels'
    encoding with their labels only changed (:class:`Relabelled`).
    """

    def __init__(self, pool: MemberCampaign, judgments: Judgments) -> None:
        self.pool, self.frame = pool, judgments.frame
        self.encoded = judgments.encoded_for(pool)
        self.queries, self.docs = pool.vocabularies()
        self.query_chain = [self.queries, self.encoded.query_extra]
        self.doc_chain = [self.docs, self.encoded.doc_extra]
        self.row_keys = self._keys(self.frame)
        # The frame's keys are those of the encoding (same codes, one per judgment); otherwise encode each pool.
        self.shared = bool(np.array_equal(np.sort(self.row_keys), self.encoded.keys))

    def _keys(self, frame: pd.DataFrame) -> np.ndarray:
        queries, _ = encode(frame["query_id"].astype(str).to_numpy(), self.query_chain)
        docs, _ = encode(frame["doc_id"].astype(str).to_numpy(), self.doc_chain)
        return pair_keys(queries, docs)

    def restrict(self, judged: pd.DataFrame) -> Judgments:
        """The qrels restricted to ``judged`` (``query_id, doc_id``): equal to ``pool_qrels(qrels, judged)``."""
        if not self.shared:
            return Judgments(pool_qrels(self.frame, judged))
        inside = self._keys(judged)
        frame = self.frame.copy()
        frame.loc[~np.isin(self.row_keys, inside), "relevance"] = 0
        labels = np.where(np.isin(self.encoded.keys, inside), self.encoded.labels, 0)
        return Relabelled(frame, self.pool, replace(self.encoded, labels=labels))


RELEVANT_ROWS_STANDARD: frozenset[str] = frozenset({"P", "R", "AP", "RR", "Rprec"})
"""trec_eval measures whose value of a ranking is that of its relevant rows alone, at their ranks (a non-relevant
row adds nothing: P, R and Rprec count relevant rows, AP and RR read their ranks); without ``judged_only``."""


def reads_relevant_rows_only(measure: Any) -> bool:
    """Whether a measure's value of a ranking depends on its relevant rows only (and the qrels' counts).

    The rarity-weighted measures (``RELEVANT_ROWS_ONLY``, the rows :class:`~ir_rarity.engine.samples.SubsetScorer`
    gathers for them) and :data:`RELEVANT_ROWS_STANDARD`, unless ``judged_only`` (which ranks the judged rows
    again).
    """
    if "judged_only" in measure.SUPPORTED_PARAMS and bool(measure["judged_only"]):
        return False
    if is_engine_measure(measure):
        return bool(getattr(measure, "RELEVANT_ROWS_ONLY", False))
    return str(getattr(measure, "NAME", "")) in RELEVANT_ROWS_STANDARD and covers(measure)


def relabelled_values(pool: MemberCampaign, encoded: EncodedQrels, labellings: Sequence[np.ndarray],
                      measures: Sequence[Any]) -> list[dict[Any, np.ndarray]]:
    """Each measure's runs x queries values under each labelling of ``encoded``'s keys, in one pass over the runs.

    For restricted qrels (:func:`pool_qrels`: a label kept or set to 0, the same judged pairs) and measures that
    :func:`read relevant rows only <reads_relevant_rows_only>`: block by block of the pool's runs, the rows that
    can be relevant under some labelling (relevant under ``encoded`` at the lowest threshold, or judged where a
    threshold is 0 or below) are gathered once with their S_d and their judgment's position; every labelling then
    labels them by that position and scores them. A row left out is relevant under no labelling, so each value
    equals scoring the whole rows against that labelling (the front door's value, tested).

    Args:
        pool: The campaign (its runs are scored as members).
        encoded: The full qrels, encoded for ``pool``.
        labellings: Labels of ``encoded.keys``, one array per restricted qrels: each label as in ``encoded`` or 0.
        measures: Measures that read relevant rows only.

    Returns:
        Per labelling, measure -> ``(len(pool), n_queries)`` values.

    """
    rel = min(int(m["rel"]) for m in measures)
    depths = {s_d_depth(m) for m in measures if is_engine_measure(m) and getattr(m, "NEEDS_POOL", True)}
    parts: list[dict[Any, list[np.ndarray]]] = [{m: [] for m in measures} for _ in labellings]
    for block in pool.member_blocks(BLOCK_ROWS):
        rows = pool.member_rows(encoded, block)
        full = rows.labels()
        readable = is_relevant(full, rel) | ((full != UNJUDGED) if rel <= 0 else False)
        held = np.flatnonzero(readable)
        judgment = np.searchsorted(encoded.keys, rows.keys(held))  # every held row is judged
        base = Rows(run=rows.run[held], query=rows.query[held], rank=rows.rank[held], present=rows.present,
                    n_runs=rows.n_runs, qrels=encoded, source=Subrows(rows, held), returned=rows.cell_sizes())
        for depth in depths:
            base.s_d(depth)  # counted once, read by every labelling
        for labels, part in zip(labellings, parts, strict=True):
            relabelled = Rows(run=base.run, query=base.query, rank=base.rank, present=base.present,
                              n_runs=base.n_runs, qrels=replace(encoded, labels=labels),
                              source=Labelled(base, labels[judgment]), returned=base.returned)
            for m in measures:
                part[m].append(compute(m, relabelled) if is_engine_measure(m) else compute_standard(m, relabelled))
            relabelled.release()
        base.release()
        rows.release()
    return [{m: values[0] if len(values) == 1 else np.vstack(values) for m, values in part.items()}
            for part in parts]


def restricted_scores(pool: MemberCampaign, restrictor: Restrictor, restricted: Sequence[Judgments],
                      measures: Sequence[Any], index: pd.Index) -> list[dict[str, pd.Series]]:
    """Each member's mean under each restricted qrels, per measure name: the front door's values.

    The measures that read relevant rows only are scored for every restricted qrels in one pass
    (:func:`relabelled_values`); any other measure, or qrels not shared with the full encoding, by the engine's
    rule (:func:`~ir_rarity.engine.rule.apply_rule`) once per restricted qrels.

    Args:
        pool: The campaign whose members are scored.
        restrictor: The full qrels, encoded once for ``pool``.
        restricted: The restricted qrels (from ``restrictor.restrict``).
        measures: Parsed measures; each is named ``str(measure)``.
        index: The members' names, in the pool's order.

    """
    together = [m for m in measures if reads_relevant_rows_only(m)] if restrictor.shared else []
    apart = [m for m in measures if m not in together]
    scores: list[dict[str, pd.Series]] = [{} for _ in restricted]
    if together:
        labellings = [r.encoded_for(pool).labels for r in restricted]
        for score, values in zip(scores, relabelled_values(pool, restrictor.encoded, labellings, together),
                                 strict=True):
            score.update({str(m): pd.Series(aggregate(m, v), index=index) for m, v in values.items()})
    if apart:
        for score, judgments in zip(scores, restricted, strict=True):
            table = apply_rule(pool, judgments.frame, apart, encoded_qrels=judgments.encoded_for(pool)).table()
            score.update({str(m): table[str(m)] for m in apart})
    return scores
