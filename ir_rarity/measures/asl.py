r"""``ASL``: atomized search length (Alex, Hall & Metzler), over all relevant documents or a group of them."""

from __future__ import annotations

import math
import re
from typing import ClassVar

from ir_measures.measures.base import ParamInfo

from ir_rarity.errors import ParameterError, RarityWarning
from ir_rarity.measures.base import RarityMeasure, rel_param

__all__ = ["ASL", "UNRETRIEVED_CHOICES", "RankingLengthWarning", "parse_group"]

UNRETRIEVED_CHOICES = ("after_last", "eq3")
"""Values of ``unretrieved``: where a relevant document the run did not retrieve is placed."""



class RankingLengthWarning(RarityWarning):
    """ASL compared across runs that return rankings of different lengths (a shorter run scores lower, better).

    A relevant document a run misses counts only the non-relevant documents the run returned (eq. 3), so a run
    cut short is rewarded; ``ASL(length=N)`` scores every run as cut or padded to ``N`` documents.
    """


_GROUP = re.compile(r"^g(\d+)-(\d+)$")


def parse_group(group: str) -> tuple[int, int]:
    """``(A, B)`` of a group range written ``'gA-B'`` (the A-th to B-th best-placed relevant documents).

    Raises:
        ParameterError: not of the form ``gA-B``, ``A < 1`` or ``A > B``.

    """
    match = _GROUP.match(group) if isinstance(group, str) else None
    if match is None:
        raise ParameterError(f"ASL: group must be written 'gA-B' (e.g. ASL@g1-10), got {group!r}")
    first, last = int(match.group(1)), int(match.group(2))
    if first < 1:
        raise ParameterError(f"ASL: the group range gA-B needs A >= 1, got {group!r}")
    if first > last:
        raise ParameterError(f"ASL: the group range gA-B needs A <= B, got {group!r}")
    return first, last


class _ASL(RarityMeasure):
    r"""Atomized search length of Alex, Hall & Metzler, eq. 1-5. Lower is better; 1 is optimal.

    The mean, over the relevant documents of a query, of the number of non-relevant documents ranked above each
    one, plus 1:

    .. math:: ASL_{q,d} = irrel_{q,d} + 1, \qquad ASL_q = \frac{1}{n_q} \sum_{d=1}^{n_q} ASL_{q,d}

    :math:`irrel_{q,d}` counts the non-relevant documents above :math:`d` (other relevant documents are ignored,
    hence "atomized"); :math:`n_q` counts every relevant document of the query in the qrels, retrieved or not. A
    relevant document the run did not retrieve is placed right after the run's last document,
    :math:`irrel_q + 1` with :math:`irrel_q` the number of non-relevant documents the run retrieved for the query
    (``unretrieved='after_last'``, the default, consistent with eq. 1), or gets :math:`irrel_q` exactly as eq. 3
    writes it (``unretrieved='eq3'``). Either way these values are lower bounds on the true search length.

    ``ASL@gA-B`` (eq. 5; ``ASL@g1-10`` replaces P@20, ``ASL@g1-1`` MRR) averages only the A-th to B-th
    best-placed relevant documents: the retrieved ones in rank order, then the unretrieved ones. A query with
    fewer than B relevant documents averages those it has from the A-th on. ``ASL@gN`` is the first N,
    ``ASL@g1-N``, as ``P@N`` is the top N.

    Documents are ordered as trec_eval orders them; relevant means label >= ``rel``; unjudged documents are
    non-relevant. A query without relevant documents (or with fewer than A) has no value: it is NaN and left out
    of the mean over queries (``DEFAULT`` is NaN and the aggregator skips NaN). A query with relevant documents
    for which the run retrieved nothing is *not* left out: all its relevant documents are unretrieved with
    :math:`irrel_q = 0`, so it scores 1 (0 with ``'eq3'``) -- eq. 3 applied as written, the same lower bound as
    for any short ranking.

    Eq. 3 therefore rewards a run for stopping early: the fewer documents it returns, the smaller
    :math:`irrel_q`. ``length`` :math:`= N` (default None: the paper's rule above) scores every ranking as
    returning exactly :math:`N` documents: a ranking longer than :math:`N` is cut at :math:`N` (its relevant
    documents below rank :math:`N` count as unretrieved), a shorter one is padded with non-relevant documents
    to :math:`N`. With :math:`r_q^N` the relevant documents among the run's top :math:`N`,

    .. math:: irrel_q^N = N - r_q^N

    takes the place of :math:`irrel_q`: a relevant document in the top :math:`N` keeps
    :math:`ASL_{q,d} = irrel_{q,d} + 1`, and every other relevant document (missed, or ranked below :math:`N`)
    scores :math:`N - r_q^N + 1` (``'after_last'``) or :math:`N - r_q^N` (``'eq3'``); a query the run
    retrieved nothing for scores :math:`N + 1` (``'eq3'``: :math:`N`). ``ASL@gA-B`` keeps its order (the top
    :math:`N`'s relevant documents in rank order, then the others) and averages the A-th to B-th of these
    values. A ranking of exactly :math:`N` documents scores as without ``length``; runs of any lengths become
    comparable (none is rewarded for returning fewer than :math:`N`).

    .. cite:: Alex, Hall & Metzler. Atomized Search Length: Beyond User Models (2022).
    """

    __name__ = "ASL"
    NAME = __name__
    PRETTY_NAME = "Atomized search length"
    SHORT_DESC = "Mean over relevant documents of 1 + the number of non-relevant documents ranked above each."
    AT_PARAM = "group"
    SUPPORTED_PARAMS = {  # noqa: RUF012 (an instance attribute of ir_measures.Measure)
        "group": ParamInfo(dtype=str, default=None,
                           desc="'gA-B': average the A-th to B-th best-placed relevant documents (default: all)"),
        "rel": rel_param(),
        "unretrieved": ParamInfo(dtype=str, default="after_last", choices=UNRETRIEVED_CHOICES,
                                 desc="value of an unretrieved relevant document: 'after_last' = irrel_q + 1 "
                                      "(placed after the run's last document), 'eq3' = irrel_q (eq. 3 literally)"),
        "length": ParamInfo(dtype=int, default=None,
                            desc="nominal run length N: every ranking cut at N and padded with non-relevant "
                                 "documents to N, so irrel_q = N - (relevant in the top N) (default: the rankings "
                                 "as returned, the paper's rule)"),
    }
    DEFAULT = float("nan")
    HIGHER_IS_BETTER: ClassVar[bool] = False
    NEEDS_POOL: ClassVar[bool] = False
    SKIPS_UNDEFINED: ClassVar[bool] = True
    BATCHES_SAMPLES: ClassVar[bool] = True
    """A query without relevant documents has no value (NaN) and is left out of the mean."""
    SCORES_EMPTY_RANKINGS: ClassVar[bool] = True
    """Queries the run retrieved nothing for are computed (all relevant documents unretrieved), not defaulted."""

    def check_ranges(self) -> None:
        """Check the group range (A >= 1, A <= B) and the nominal length (a positive integer)."""
        super().check_ranges()
        if self["group"] is not None:
            parse_group(self["group"])
        length = self["length"]
        if length is not None and (isinstance(length, bool) or not isinstance(length, int) or length < 1):
            raise ParameterError(f"ASL: length must be a positive integer (the nominal run length), got {length!r}")

    def group_range(self) -> tuple[int, float]:
        """``(A, B)`` of the group range; ``(1, inf)`` for plain ``ASL``."""
        return (1, math.inf) if self["group"] is None else parse_group(self["group"])


ASL = _ASL()
