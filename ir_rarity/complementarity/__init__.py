"""Complementarity of a campaign's runs: similarity, fusion, each team's contribution, and rarity.

Modules: :mod:`~ir_rarity.complementarity.names` (defaults and method names),
:mod:`~ir_rarity.complementarity.ranked` (the runs as whole arrays),
:mod:`~ir_rarity.complementarity.similarity` (Jaccard, RBO, clustering),
:mod:`~ir_rarity.complementarity.fusion` (RRF, CombSUM, CombMNZ of any coalition of teams),
:mod:`~ir_rarity.complementarity.contribution` (leave-one-team-out and Shapley values),
:mod:`~ir_rarity.complementarity.study` (:func:`complementarity`, the whole analysis) and
:mod:`~ir_rarity.complementarity.summary` (its folder: CSVs, plots, ``summary.md``). Names load on first use.

``ir_rarity.complementarity`` is this package and is callable: ``ir_rarity.complementarity(qrels, runs, ...)`` is
:func:`ir_rarity.complementarity.complementarity` (as ``ir_rarity.report`` is).
"""

import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ir_rarity.lazy import lazy_exports

if TYPE_CHECKING:
    from ir_rarity.complementarity.contribution import (
        CoalitionGame,
        ShapleyValues,
        leave_one_team_out_fusion,
        shapley,
    )
    from ir_rarity.complementarity.fusion import FusionParts, fuse, fused_runs, fusion_parts, minmax
    from ir_rarity.complementarity.names import DEFAULT_MEASURES, DEFAULT_RARITY, METHODS
    from ir_rarity.complementarity.ranked import RankedCampaign, ranked_campaign
    from ir_rarity.complementarity.similarity import (
        Similarity,
        cluster_runs,
        overlaps,
        plot_dendrogram,
        rbo_ext,
        run_similarity,
        team_similarity,
    )
    from ir_rarity.complementarity.study import Complementarity, complementarity, correlations
    from ir_rarity.complementarity.summary import plot_rarity, write_complementarity

_MODULES = {
    "contribution": ["CoalitionGame", "ShapleyValues", "leave_one_team_out_fusion", "shapley"],
    "fusion": ["FusionParts", "fuse", "fused_runs", "fusion_parts", "minmax"],
    "names": ["DEFAULT_MEASURES", "DEFAULT_RARITY", "METHODS"],
    "ranked": ["RankedCampaign", "ranked_campaign"],
    "similarity": ["Similarity", "cluster_runs", "overlaps", "plot_dendrogram", "rbo_ext", "run_similarity",
                   "team_similarity"],
    "study": ["Complementarity", "complementarity", "correlations"],
    "summary": ["plot_rarity", "write_complementarity"],
}
_LAZY = {name: f"ir_rarity.complementarity.{module}" for module, names in _MODULES.items() for name in names}
"""Public name -> the module that defines it."""

__all__ = [
    "DEFAULT_MEASURES",
    "DEFAULT_RARITY",
    "METHODS",
    "CoalitionGame",
    "Complementarity",
    "FusionParts",
    "RankedCampaign",
    "ShapleyValues",
    "Similarity",
    "cluster_runs",
    "complementarity",
    "correlations",
    "fuse",
    "fused_runs",
    "fusion_parts",
    "leave_one_team_out_fusion",
    "minmax",
    "overlaps",
    "plot_dendrogram",
    "plot_rarity",
    "ranked_campaign",
    "rbo_ext",
    "run_similarity",
    "shapley",
    "team_similarity",
    "write_complementarity",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())


class _CallableModule(ModuleType):
    """This package, callable as :func:`complementarity`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.complementarity(*args, **kwargs)  # loaded on first use (the lazy exports above)


sys.modules[__name__].__class__ = _CallableModule
