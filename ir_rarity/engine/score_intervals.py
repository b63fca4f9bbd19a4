r"""One interval per score, saying what it covers: topics, the unjudged documents, ties, or all of them.

:meth:`Evaluation.interval <ir_rarity.engine.result.Evaluation.interval>` computes it here from the values the
evaluation carries:

* ``"topics"``: the percentile bootstrap (or Student's t-interval) of each run's mean over the queries
  (:mod:`ir_rarity.stats.intervals`; Efron & Tibshirani, Chapman & Hall 1993), the queries in natural order of their
  ids: today's ``--ci``;
* ``"unjudged"``: what the judgments left open, the percentile interval of the mean over draws of the unjudged
  documents' judgments (:mod:`ir_rarity.engine.judgment_draws`; bootstrapped judgments, Fröbe, Gienapp, Potthast &
  Hagen, ECIR 2023);
* ``"ties"``: the exact range of the mean over every order of tied documents (the mean of each query's minimum
  and maximum: the orders of different queries are independent; :mod:`ir_rarity.engine.ties`);
* ``"all"``: judgments and queries drawn together (each draw draws the judgments and resamples the queries), the
  interval then widened by the tie range of the mean below and above the score (a run's value may move by that
  much under another order of its ties: a conservative sum); for trec_eval's measures and RBP, whose values lie
  in [0, 1], the widened ends are clipped to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ir_rarity.checks import check_draws
from ir_rarity.engine.contract import MemberCampaign
from ir_rarity.engine.families import is_engine_measure
from ir_rarity.engine.judgment_draws import drawn_interval, drawn_values
from ir_rarity.engine.means import aggregate, skips_undefined
from ir_rarity.engine.names import COVERS
from ir_rarity.errors import ParameterError
from ir_rarity.stats.intervals import bootstrap_interval, t_interval
from ir_rarity.stats.scores import natural_order

if TYPE_CHECKING:
    from ir_rarity.engine.result import Evaluation

__all__ = ["score_interval"]



def _member_positions(evaluation: Evaluation) -> tuple[MemberCampaign, list[int]]:
    """The campaign and each evaluated run's position in it (the runs must be its members)."""
    campaign = evaluation.campaign
    if not isinstance(campaign, MemberCampaign) or evaluation.judgments is None:
        raise ParameterError("covers='unjudged' or 'all' needs the campaign's runs (a pool of run files or a saved "
                             ".npz), not a count table")
    if not getattr(evaluation, "whole_runs", True):
        raise ParameterError("covers='unjudged' or 'all' draws the judgments of whole runs, and these runs were read "
                             "to the depth their measures read: evaluate with unjudged=True (run files read whole) "
                             "or give a Pool")
    index = {n: i for i, n in enumerate(campaign.names)}
    positions = []
    for name in evaluation.names:
        member = name if evaluation.mode == "members" else evaluation.members.get(name)
        if member is None or member not in index:
            raise ParameterError(f"covers='unjudged' or 'all' draws the judgments of the campaign's own runs; "
                                 f"{name!r} is not one of them (evaluate it as part of the campaign)")
        positions.append(index[member])
    return campaign, positions


def _tie_shift(evaluation: Evaluation, measure: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(score, ties low, ties high)`` of each run's mean."""
    frame = evaluation.ties(measure)
    return (frame["value"].to_numpy(float), frame["ties low"].to_numpy(float), frame["ties high"].to_numpy(float))


def _topics(values: np.ndarray, m: Any, level: float, method: str, resamples: int, seed: int | None
            ) -> tuple[np.ndarray, np.ndarray, dict[str, object]]:
    """The interval over topics (the queries' columns in natural order)."""
    if method == "bootstrap":
        low, high = bootstrap_interval(values, level, resamples, seed, skips_undefined(m))
    elif method == "t":
        low, high = t_interval(values, level, skips_undefined(m))
    else:
        raise ParameterError(f"unknown interval method {method!r}; choose bootstrap or t")
    return low, high, {"method": method, "resamples": resamples}


def _drawn(evaluation: Evaluation, m: Any, covers: str, level: float, draws: int, seed: int | None
           ) -> tuple[np.ndarray, np.ndarray, dict[str, object]]:
    """The interval of the drawn judgments (``"unjudged"``), with the topics and the tie range (``"all"``)."""
    campaign, positions = _member_positions(evaluation)
    assert evaluation.judgments is not None  # checked by _member_positions
    draws = check_draws(draws, "draws", len(positions) * len(evaluation.query_ids), each="scores")
    encoded = evaluation.judgments.encoded_for(campaign)
    rng = np.random.default_rng(seed)
    order = natural_order(evaluation.query_ids)
    drawn = drawn_values(campaign, encoded, positions, [m], draws, rng)[m][:, :, order]
    low, high = drawn_interval(drawn, level, topics=covers == "all", seed=rng)
    details: dict[str, object] = {"method": "percentile", "draws": draws}
    if covers == "all":
        try:
            value, tie_low, tie_high = _tie_shift(evaluation, m)
        except ParameterError as e:  # the tie values were not gathered (runs scored apart from the campaign)
            details["ties"] = f"not added: {e}"
        else:
            low = low - np.where(np.isnan(tie_low), 0.0, value - tie_low)
            high = high + np.where(np.isnan(tie_high), 0.0, tie_high - value)
            details["ties"] = ("added" if not np.isnan(tie_low).all()
                               else "not added: no exact tie range for this measure")
            if not is_engine_measure(m):  # P, R, AP, RR, Rprec, nDCG, RBP: the widened ends stay in [0, 1]
                low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
    return low, high, details


def score_interval(evaluation: Evaluation, measure: Any, covers: str = "topics", level: float = 0.95, *,
                   method: str = "bootstrap", draws: int = 1000, resamples: int = 10_000, seed: int | None = 0
                   ) -> pd.DataFrame:
    """Each run's score and the interval of what ``covers`` names (see the module).

    The draws (``"unjudged"``, ``"all"``) read the campaign's own rows: give a campaign of whole runs (a
    :class:`~ir_rarity.Pool` from ``Pool.from_runs``, or ``evaluate(files, ..., unjudged=True)``, which reads the
    files whole; ``ir-rarity eval --covers`` does). From files read for some measures only, the campaign keeps
    their depth, and the model is fitted on those rows.

    Args:
        evaluation: The evaluation.
        measure: One of its measures (object, string or label).
        covers: ``"topics"``, ``"unjudged"``, ``"ties"`` or ``"all"``.
        level: The level, in (0, 1).
        method: With ``"topics"``: ``"bootstrap"`` or ``"t"``.
        draws: Draws of the judgments (``"unjudged"``, ``"all"``).
        resamples: Bootstrap resamples (``"topics"``).
        seed: Seed of every draw.

    Returns:
        One row per run (index ``run``): the score (the measure's label), ``low``, ``high``; ``attrs`` says what
        the interval covers, its level, method and draws, and the campaign.

    Raises:
        ParameterError: an unknown ``covers`` or level, unjudged draws for runs that are not the campaign's, a
            measure whose judgments cannot be drawn, or a measure without a tie range.

    """
    if covers not in COVERS:
        raise ParameterError(f"unknown covers={covers!r}; choose from {', '.join(COVERS)}")
    if not 0.0 < float(level) < 1.0:
        raise ParameterError(f"the confidence level must be in (0, 1), got {level}")
    m = evaluation.measure(measure)
    values = evaluation.values[m]
    score = aggregate(m, values)
    if covers == "topics":
        low, high, details = _topics(values[:, natural_order(evaluation.query_ids)], m, level, method, resamples, seed)
    elif covers == "ties":
        _, low, high = _tie_shift(evaluation, m)
        if np.isnan(low).any():
            raise ParameterError(f"{evaluation.label(m)} has no exact tie range (see Evaluation.ties)")
        details = {"method": "exact"}
    else:
        low, high, details = _drawn(evaluation, m, covers, level, draws, seed)
    frame = pd.DataFrame({evaluation.label(m): score, "low": low, "high": high},
                         index=pd.Index(evaluation.names, name="run"))
    frame.attrs.update(measure=evaluation.label(m), covers=covers, what=COVERS[covers], level=float(level),
                       seed=seed, pool=evaluation.attrs(), **details)
    return frame
