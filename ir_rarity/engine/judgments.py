"""Qrels read once and encoded once per campaign they are scored against: the value a call carries.

:class:`Judgments` is what the front door makes of the qrels it is given. Every layer above takes it (or the
:class:`~ir_rarity.Evaluation` that carries it) instead of the qrels again, so one call reads the qrels once and
encodes them once against each campaign's vocabularies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from ir_rarity.engine.contract import Campaign
from ir_rarity.engine.qrels import EncodedQrels, encode_qrels
from ir_rarity.io.frames import as_qrels_frame

if TYPE_CHECKING:
    from ir_rarity.typing import QrelsLike

__all__ = ["Judgments"]


class Judgments:
    """Qrels read once, and encoded once per campaign vocabulary they are scored against.

    A caller that scores many runs against one campaign (the ir_measures provider, one run per call) keeps one
    :class:`Judgments` so the qrels are encoded once, not once per run.
    """

    def __init__(self, qrels: QrelsLike | Judgments, source: str = "qrels") -> None:
        self.frame: pd.DataFrame = qrels.frame if isinstance(qrels, Judgments) else as_qrels_frame(qrels, source)
        self._encoded: list[tuple[pd.Index, pd.Index, EncodedQrels]] = []

    @classmethod
    def from_encoded(cls, frame: pd.DataFrame, campaign: Campaign, encoded: EncodedQrels) -> Judgments:
        """The judgments of a canonical qrels ``frame`` already encoded against ``campaign`` (neither done again).

        What :func:`~ir_rarity.engine.rule.apply_rule` carries when it is given the frame and its encoding.
        """
        judgments = cls.__new__(cls)
        judgments.frame = frame
        judgments._encoded = [(*campaign.vocabularies(), encoded)]
        return judgments

    def encoded_for(self, campaign: Campaign) -> EncodedQrels:
        """The qrels encoded against ``campaign``'s vocabularies (kept for the last few vocabularies)."""
        query_vocab, doc_vocab = campaign.vocabularies()
        for queries, docs, encoded in self._encoded:
            if queries is query_vocab and docs is doc_vocab:
                return encoded
        encoded = encode_qrels(self.frame, query_vocab, doc_vocab)
        self._encoded = [*self._encoded[-3:], (query_vocab, doc_vocab, encoded)]
        return encoded
