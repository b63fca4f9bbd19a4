r"""Pool-composition uncertainty: how much a run's rarity or novelty score, and its rank, depend on who took part.

A rarity score is computed against the other systems of the campaign (S and S_d), so it changes when they change;
a standard measure does not. Two analyses, both scoring every run of the pool by the one evaluation rule against a
changed campaign (:class:`~ir_rarity.engine.weighted.WeightedCampaign`):

* **Leave one team out**: each team :math:`t` in turn is removed from S and S_d (weight 0); every run of the
  other teams stays in as a member and is scored and ranked among all runs (the removed team's runs scored as
  newcomers, as if each alone had joined). A run's range is its lowest and highest score, and best and worst rank,
  over the removals of the *other* teams (a run's own team is never removed for it). This is Zobel's
  leave-one-group-out idea (SIGIR 1998) applied to the pool-dependent measures of Türkmen, Lease & Kutlu (ECIR
  2023, Section 4.5 asks how rarity scores depend on the number of systems).
* **Bootstrap over teams** (runs, for a pool without teams): ``resamples`` campaigns, each drawing the pool's
  :math:`T` teams with replacement (multinomial weights, a team drawn twice counts twice in S and S_d); the
  interval is the :math:`(1 \pm \text{level})/2` percentiles of each run's score and rank (for ranks, the drawn
  ranks at or just outside them). Seeded; the teams are put in natural order of their names
  (:func:`ir_rarity.stats.scores.natural_order`) before the seeded draw, so the result does not depend on the
  order the runs came in.

Ranks are competition ranks (1 = best, ties share the best rank), in the measure's own direction.

A campaign read in two passes (:class:`~ir_rarity.pool.stream.StreamedCampaign`) is scored from its judged rows
(:mod:`ir_rarity.pool.judged`): the weighted S_d of every judged document is recounted exactly from them, so the
table equals the in-memory campaign's to the last bit; ``U_novel`` (every row's reading probability) needs the
runs in memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from ir_measures import Measure

from ir_rarity.checks import check_draws
from ir_rarity.engine import WeightedCampaign, aggregate, is_engine_measure, values_under
from ir_rarity.errors import ParameterError
from ir_rarity.measures.parse import higher_is_better, parse_measures
from ir_rarity.pool import pool_for_rows
from ir_rarity.pool.pool import Pool
from ir_rarity.pool.stream import StreamedCampaign
from ir_rarity.progress import counter
from ir_rarity.stats import natural_order
from ir_rarity.stats.ties import rank

__all__ = ["COMPOSITION_COLUMNS", "composition", "depends_on_pool", "ranks"]

COMPOSITION_COLUMNS = ("rank", "loto low", "loto high", "loto rank best", "loto rank worst", "boot low",
                       "boot high", "boot rank low", "boot rank high")
"""Per-measure columns of :func:`composition` (each prefixed ``"<measure> "``)."""


def depends_on_pool(measure: Measure) -> bool:
    """Whether a measure's value depends on the campaign's other systems (rarity measures, ``U_novel``)."""
    return is_engine_measure(measure) and bool(getattr(measure, "NEEDS_POOL", True))


def ranks(scores: np.ndarray, higher: bool = True) -> np.ndarray:
    """Competition ranks (1 = best, ties under :mod:`ir_rarity.stats.ties` share the best) along the last axis.

    NaN scores rank last.
    """
    values = np.asarray(scores, dtype=float)
    worst = -np.inf if higher else np.inf
    return rank(np.where(np.isnan(values), worst, values), higher_is_better=higher, method="min", axis=-1)


def composition(pool: Pool | StreamedCampaign, qrels: Any, measures: Any, *, resamples: int = 200, level: float = 0.95,
                seed: int | np.random.Generator | None = 0, leave_one_out: bool = True) -> pd.DataFrame:
    """Each run's score and rank under leave-one-team-out and a bootstrap over teams, for pool-dependent measures.

    Args:
        pool: The campaign (its teams, when built with ``teams``, are what is left out and resampled), or a
            campaign read in two passes (its judged rows are read again from its files).
        qrels: Qrels in any shape :meth:`Pool.evaluate` accepts, or the
            :class:`~ir_rarity.engine.judgments.Judgments` of an evaluation (``Evaluation.judgments``).
        measures: Measures; those that do not depend on the pool are refused.
        resamples: Bootstrap campaigns (0: no bootstrap).
        level: Confidence level of the bootstrap intervals.
        seed: Seed or generator of the bootstrap (teams are put in natural order of their names before the draw,
            so the result does not depend on the order the runs came in).
        leave_one_out: Compute the leave-one-team-out ranges.

    Returns:
        One row per run (index ``run``, pool order): ``team``, then per measure ``"<m>"`` (the score in the whole
        pool) and the :data:`COMPOSITION_COLUMNS`. ``attrs`` holds the pool description, ``resamples``,
        ``level`` and ``seed``.

    Raises:
        ParameterError: a measure that does not depend on the pool, fewer than two systems, a bad level,
            ``U_novel`` on a campaign read in two passes.

    """
    measure_list = parse_measures(measures)
    bad = [str(m) for m in measure_list if not depends_on_pool(m)]
    if bad:
        raise ParameterError(f"{', '.join(bad)} do(es) not depend on the pool: composition is for rarity and "
                             "novelty measures")
    if not 0.0 < level < 1.0:
        raise ParameterError(f"level must be in (0, 1), got {level}")
    if resamples < 0:
        raise ParameterError(f"resamples must be >= 0, got {resamples}")
    pool = pool_for_rows(pool, qrels, measure_list, "composition")
    campaign = WeightedCampaign(pool, pool.encode_qrels(qrels))  # Judgments: their encoding, not a new one
    n_sys, n_runs = campaign.num_systems, len(pool)
    if resamples:  # the draw: resamples x systems weights, then resamples x runs values of each measure
        check_draws(resamples, "resamples", max(n_sys, n_runs), each="systems")
    if n_sys < 2:
        raise ParameterError("composition needs a pool of at least two systems")
    weights: list[np.ndarray] = []
    if leave_one_out:
        weights += [1.0 - np.eye(n_sys)[t] for t in range(n_sys)]
    weights += list(_team_draws(campaign.system_names, resamples, seed))
    all_weights = [np.ones(n_sys), *weights]
    scores = _means_under(campaign, all_weights, measure_list, n_runs)
    out = pd.DataFrame({"team": [campaign.system_names[s] for s in campaign.run_system]},
                       index=pd.Index(pool.names, name="run"))
    for m in measure_list:
        values = scores[m]
        ranked = ranks(values, higher_is_better(m))
        out[str(m)] = values[0]
        out[f"{m} rank"] = ranked[0]
        if leave_one_out:
            _leave_one_out_columns(out, m, values[1:n_sys + 1], ranked[1:n_sys + 1], campaign.run_system)
        if resamples:
            _bootstrap_columns(out, m, values[len(all_weights) - resamples:], ranked[len(all_weights) - resamples:],
                               level)
    info = pool.info()
    out.attrs.update({"pool": info.as_dict(), "describe": info.describe(), "resamples": resamples, "level": level,
                      "seed": seed if isinstance(seed, int) else None, "left_out": info.systems})
    return out


def _team_draws(teams: Sequence[str], resamples: int, seed: int | np.random.Generator | None) -> np.ndarray:
    """Resamples x teams multinomial weights (teams drawn with replacement), drawn in natural order of the names."""
    n_sys = len(teams)
    drawn = np.random.default_rng(seed).multinomial(n_sys, np.full(n_sys, 1.0 / n_sys), size=resamples)
    weights = np.empty((resamples, n_sys))
    weights[:, natural_order(teams)] = drawn  # column k of the draw is the k-th team in natural order
    return weights


def _means_under(campaign: WeightedCampaign, weightings: list[np.ndarray], measures: list[Any], n_runs: int
                 ) -> dict[Any, np.ndarray]:
    """Each measure's per-run means ``(weightings, runs)``, one weighting of the systems after another."""
    scores = {m: np.empty((len(weightings), n_runs)) for m in measures}
    with counter(len(weightings), desc="campaigns", unit="campaign") as bar:
        for k, values in enumerate(values_under(campaign, weightings, measures)):
            for m in measures:
                scores[m][k] = aggregate(m, values[m])
            bar.update()
    return scores


def _leave_one_out_columns(out: pd.DataFrame, m: Any, loto: np.ndarray, loto_rank: np.ndarray, own: np.ndarray
                           ) -> None:
    """Lowest and highest score, best and worst rank over the removals of the other teams (row t: team t out)."""
    other = own[None, :] != np.arange(len(loto))[:, None]  # removal t counts for runs of the other teams
    out[f"{m} loto low"] = np.where(other, loto, np.inf).min(axis=0)
    out[f"{m} loto high"] = np.where(other, loto, -np.inf).max(axis=0)
    out[f"{m} loto rank best"] = np.where(other, loto_rank, np.inf).min(axis=0)
    out[f"{m} loto rank worst"] = np.where(other, loto_rank, -np.inf).max(axis=0)


def _bootstrap_columns(out: pd.DataFrame, m: Any, boot: np.ndarray, boot_rank: np.ndarray, level: float) -> None:
    """Percentile intervals at ``level`` of the resampled scores and ranks."""
    tail = (1.0 - level) / 2.0
    out[f"{m} boot low"] = np.percentile(boot, 100 * tail, axis=0)
    out[f"{m} boot high"] = np.percentile(boot, 100 * (1 - tail), axis=0)
    # ranks are whole numbers: the bounds are drawn ranks, rounded outwards
    out[f"{m} boot rank low"] = np.percentile(boot_rank, 100 * tail, axis=0, method="lower")
    out[f"{m} boot rank high"] = np.percentile(boot_rank, 100 * (1 - tail), axis=0, method="higher")


def composition_columns(measures: Sequence[Any]) -> list[str]:
    """The columns :func:`composition` gives for ``measures``, in order."""
    return [f"{m} {c}" for m in measures for c in COMPOSITION_COLUMNS]
