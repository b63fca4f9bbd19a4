r"""What each team adds to the campaign's fused ranking: leave-one-team-out and sampled Shapley values.

The fused ranking of a coalition C of teams (:mod:`ir_rarity.complementarity.fusion`) is a run; its value
:math:`v(C)` under a measure is that run's mean over the qrels' queries, computed by the one
:func:`ir_rarity.evaluate` against the whole campaign: rarity measures count :math:`S_d` from all the campaign's
runs, the fused run joining it as one more system (:math:`S + 1`, its own documents counted in :math:`S_d`), or
scored as the member whose rankings it equals (a coalition of one run, whose RRF ranking is that run's). The empty
coalition has :math:`v(\emptyset) = 0`.

* **Contribution** of team t: :math:`v(N) - v(N \setminus \{t\})`, the fused score *with* the team's runs minus
  *without* them: positive when the team improves the fusion.
* **Shapley value** (Shapley, 1953) of team t: :math:`\phi_t = E_\pi[v(P_\pi(t) \cup \{t\}) - v(P_\pi(t))]`, the
  mean marginal contribution over orders :math:`\pi` of the teams, :math:`P_\pi(t)` the teams before t.
  Estimated by permutation sampling (Castro, Gómez & Tejada, Computers & Operations Research 36(5), 2009):
  ``samples`` orders drawn uniformly (seeded), standard error :math:`sd / \sqrt{samples}` of the marginal
  contributions. The values of each order sum to :math:`v(N) - v(\emptyset)` (efficiency), so the estimates do
  too. With ``exact=True`` every order is enumerated (small games only): the exact value, standard error 0.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ir_rarity.complementarity.fusion import FusionParts, fused_runs
from ir_rarity.complementarity.names import Method
from ir_rarity.errors import MemberNotice, ParameterError
from ir_rarity.evaluation import evaluate
from ir_rarity.pool import Pool

__all__ = ["CoalitionGame", "ShapleyValues", "leave_one_team_out_fusion", "shapley"]

MAX_EXACT_PLAYERS = 9
"""Enumerating every order of more players than this is refused (9! = 362,880 orders)."""


class CoalitionGame:
    """The value of a coalition of teams: measures of its fused run, evaluated against the campaign.

    Coalition values are cached by their membership, so the orders of a Shapley sample that share a prefix, and
    the full and empty coalitions, are evaluated once.

    Args:
        parts: Each team's part of the fused scores.
        pool: The campaign (S and S_d for rarity measures).
        qrels: Its judgments.
        measures: The measures (ir_measures strings or objects).
        method: Fusion method.
        depth: Documents per query of each fused run.

    """

    def __init__(self, parts: FusionParts, pool: Pool, qrels: pd.DataFrame, measures: Sequence[str],
                 method: Method = "rrf", depth: int = 100) -> None:
        self.parts, self.pool, self.qrels = parts, pool, qrels
        self.measures, self.method, self.depth = list(measures), method, depth
        self._cache: dict[bytes, np.ndarray] = {}
        self.evaluated = 0
        """Number of fused runs evaluated so far."""

    @property
    def n_players(self) -> int:
        """The number of teams."""
        return len(self.parts.ranked.team_names)

    def values(self, coalitions: np.ndarray) -> np.ndarray:
        """``(B, n_measures)`` means of each coalition's fused run (0 for a coalition that retrieved nothing)."""
        coalitions = np.atleast_2d(np.asarray(coalitions, dtype=bool))
        packed = [row.tobytes() for row in np.packbits(coalitions, axis=1)]
        first: dict[bytes, int] = {}
        for i, key in enumerate(packed):  # one entry per coalition of the batch, not per row
            first.setdefault(key, i)
        missing = [i for key, i in first.items() if key not in self._cache]
        if missing:
            names = [f"c{i}" for i in range(len(missing))]
            subset = coalitions[missing]
            found = np.zeros((len(missing), len(self.measures)))
            for runs in fused_runs(self.parts, subset, self.method, self.depth, names):
                with warnings.catch_warnings():  # a one-run coalition equals its member: the rule, said once
                    warnings.simplefilter("ignore", MemberNotice)  # in the module's docstring
                    table = evaluate(runs, self.qrels, self.measures, pool=self.pool).table()
                self.evaluated += len(runs)
                rows = [int(name[1:]) for name in table.index]
                found[rows] = table.to_numpy(np.float64)
            for row, i in enumerate(missing):
                self._cache[packed[i]] = found[row]
        return np.stack([self._cache[key] for key in packed])

    def value(self, coalitions: np.ndarray, measure: int = 0) -> np.ndarray:
        """``(B,)`` values of one measure (its position in ``measures``): the game Shapley values are taken of."""
        return self.values(coalitions)[:, measure]


@dataclass(frozen=True)
class ShapleyValues:
    r"""Shapley values of the players of a game.

    Attributes:
        value: Estimated Shapley value of each player.
        se: Its standard error (0 when exact).
        samples: Orders drawn (every order when exact).
        exact: Whether every order was enumerated.
        grand: :math:`v(N) - v(\emptyset)`, which the values sum to.

    """

    value: np.ndarray
    se: np.ndarray
    samples: int
    exact: bool
    grand: float


def shapley(value: Callable[[np.ndarray], np.ndarray], n_players: int, samples: int = 100, seed: int = 0,
            exact: bool = False) -> ShapleyValues:
    """Shapley values by permutation sampling (or exactly, over every order).

    Args:
        value: Coalitions ``(B, n_players)`` booleans -> their values ``(B,)``; called once with every distinct
            coalition the orders need.
        n_players: The number of players.
        samples: Orders drawn uniformly at random.
        seed: Seed of numpy's generator.
        exact: Enumerate every order instead (at most :data:`MAX_EXACT_PLAYERS` players).

    Raises:
        ParameterError: fewer than one player or sample, or an exact game too large.

    """
    if n_players < 1:
        raise ParameterError("a Shapley value needs at least one player")
    if exact:
        if n_players > MAX_EXACT_PLAYERS:
            raise ParameterError(f"exact Shapley values enumerate {n_players}! orders; at most "
                                 f"{MAX_EXACT_PLAYERS} players (sample instead)")
        orders = np.array(list(itertools.permutations(range(n_players))), dtype=np.int64)
    else:
        if samples < 2:
            raise ParameterError(f"samples must be >= 2 (a standard error needs two), got {samples}")
        rng = np.random.default_rng(seed)
        orders = np.argsort(rng.random((samples, n_players)), axis=1)
    n_orders = len(orders)
    position = np.empty_like(orders)
    position[np.arange(n_orders)[:, None], orders] = np.arange(n_players)[None, :]
    # prefix m of order s holds the players at positions < m: (n_orders, n_players + 1, n_players)
    prefixes = position[:, None, :] < np.arange(n_players + 1)[None, :, None]
    flat = prefixes.reshape(-1, n_players)
    unique, inverse = np.unique(flat, axis=0, return_inverse=True)
    values = np.zeros(len(unique))
    nonempty = unique.any(axis=1)
    if nonempty.any():
        values[nonempty] = np.asarray(value(unique[nonempty]), dtype=np.float64)
    v = values[inverse.reshape(-1)].reshape(n_orders, n_players + 1)
    # marginal of player t in order s: v(prefix pos+1) - v(prefix pos)
    marginal = np.take_along_axis(v, position + 1, axis=1) - np.take_along_axis(v, position, axis=1)
    mean = marginal.mean(axis=0)
    se = np.zeros(n_players) if exact else marginal.std(axis=0, ddof=1) / math.sqrt(n_orders)
    return ShapleyValues(value=mean, se=se, samples=n_orders, exact=exact, grand=float(v[0, -1] - v[0, 0]))


def leave_one_team_out_fusion(game: CoalitionGame) -> pd.DataFrame:
    """Each team's contribution to the fused run: with minus without its runs, for every measure.

    Returns:
        ``team, measure, with, without, contribution`` (``contribution = with - without``).

    """
    n = game.n_players
    coalitions = ~np.eye(n, dtype=bool)
    full = game.values(np.ones((1, n), dtype=bool))[0]
    without = game.values(coalitions) if n > 1 else np.zeros((1, len(game.measures)))
    teams = list(game.parts.ranked.team_names)
    parts = [pd.DataFrame({"team": teams, "measure": name, "with": full[m], "without": without[:, m],
                           "contribution": full[m] - without[:, m]})
             for m, name in enumerate(game.measures)]
    return pd.concat(parts, ignore_index=True)
