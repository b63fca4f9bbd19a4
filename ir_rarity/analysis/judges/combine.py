"""Judges combined by a named rule into one more judge: a hole-filler over a base judge.

``fill``: the combined judge keeps every label of the base judge and takes the second judge's label only for the
(query, document) pairs the base judge left unjudged. This is how organisers use an automatic (LLM) judge to fill
the holes of a pool judged by people (e.g. the UMBRELA labels of TREC 2024 RAG, Upadhyay et al., "UMBRELA: UMbrela
is the (open-source reproduction of the) Bing RELevance Assessor", arXiv 2024): the base judge's labels are never
replaced.
"""

from __future__ import annotations

import pandas as pd

from ir_rarity.errors import ParameterError

__all__ = ["COMBINE_RULES", "combine", "fill"]

COMBINE_RULES = ("fill",)
"""The rules :func:`combine` knows."""


def fill(base: pd.DataFrame, filler: pd.DataFrame) -> pd.DataFrame:
    """The base judge's qrels with the filler's labels of the pairs the base left unjudged.

    Args:
        base: Canonical qrels (``query_id, doc_id, relevance``) of the base judge.
        filler: Canonical qrels of the hole-filler.

    Returns:
        Canonical qrels: every row of ``base``, then the rows of ``filler`` whose (query, document) ``base`` does
        not judge, sorted by query id then docno.

    """
    columns = ["query_id", "doc_id", "relevance"]
    judged = pd.MultiIndex.from_frame(base[["query_id", "doc_id"]])
    holes = ~pd.MultiIndex.from_frame(filler[["query_id", "doc_id"]]).isin(judged)
    combined = pd.concat([base[columns], filler.loc[holes, columns]], ignore_index=True)
    return combined.sort_values(["query_id", "doc_id"], kind="stable").reset_index(drop=True)


def combine(rule: str, base: pd.DataFrame, other: pd.DataFrame) -> pd.DataFrame:
    """Two judges' qrels combined by ``rule`` (one of :data:`COMBINE_RULES`).

    Raises:
        ParameterError: an unknown rule.

    """
    if rule != "fill":
        raise ParameterError(f"unknown combination rule {rule!r}; choose from {', '.join(COMBINE_RULES)}")
    return fill(base, other)
