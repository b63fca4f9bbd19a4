"""The vectorized evaluation engine: ordering, encoding, S_d lookup, measure kernels and every row source.

This module is the engine's public face for the layers above it (the front door, the analyses, the integrations,
the report and the command line): they import what they use from here, never from the engine's modules, and
``lint-imports`` (the contracts in ``pyproject.toml``) holds them to it. Names load on first use (PEP 562), so that
importing the package costs nothing.

By what it is for:

Values and contracts
    :class:`Evaluation` and :data:`MODES` (per-query values and what they were computed against);
    :class:`Campaign`, :class:`MemberCampaign`, :class:`CampaignInfo` (what a campaign must offer);
    :class:`Judgments` (qrels read once, encoded once per campaign); :class:`EncodedQrels`, :data:`UNJUDGED`,
    :func:`is_relevant`; :data:`ScorePrecision`, :data:`Duplicates` and their option texts.
Means
    :func:`aggregate`, :func:`exact_means`, :func:`exact_sums`, :func:`skips_undefined`.
Measures
    :data:`ENGINE_FAMILIES`, :func:`is_engine_measure`, :func:`s_d_depth`.
The rule
    :func:`apply_rule` (the front door calls it; nothing else above the engine should).
Row sources scored by the one rule
    :class:`SubsetScorer` and :func:`newcomer_prefix_scores` (samples of a campaign's runs),
    :class:`Restrictor`, :func:`restricted_scores` and :func:`pool_qrels` (relabelled qrels),
    :class:`WeightedCampaign` and :func:`values_under` (systems counted any number of times),
    :class:`CountsCampaign` and :func:`score_run` (one run against cached counts),
    :func:`per_row_search_length` (ASL per relevant document),
    :func:`drawn_values`, :func:`drawn_interval`, :func:`can_draw` (judgments drawn for the unjudged documents).
Process
    :func:`tune_allocator` (the command line's allocator settings), :func:`allocator_environ` (the same, as
    environment variables for processes started later: Dask's workers).
"""

from typing import TYPE_CHECKING

from ir_rarity.lazy import lazy_exports

if TYPE_CHECKING:
    from ir_rarity.engine.asl import per_row_search_length
    from ir_rarity.engine.codes import ScorePrecision
    from ir_rarity.engine.compute import s_d_depth
    from ir_rarity.engine.contract import Campaign, CampaignInfo, MemberCampaign
    from ir_rarity.engine.families import ENGINE_FAMILIES, is_engine_measure
    from ir_rarity.engine.judgment_draws import can_draw, drawn_interval, drawn_values
    from ir_rarity.engine.judgments import Judgments
    from ir_rarity.engine.means import aggregate, exact_means, exact_sums, skips_undefined
    from ir_rarity.engine.members import one_member_notice
    from ir_rarity.engine.names import COVERS, COVERS_CHOICES, DUPLICATES, DUPLICATES_HELP
    from ir_rarity.engine.one_run import CountsCampaign, score_run
    from ir_rarity.engine.pages import allocator_environ, tune_allocator
    from ir_rarity.engine.qrels import UNJUDGED, EncodedQrels, is_relevant
    from ir_rarity.engine.relabelled import Restrictor, pool_qrels, restricted_scores
    from ir_rarity.engine.result import MODES, Evaluation
    from ir_rarity.engine.rule import apply_rule
    from ir_rarity.engine.runs import Duplicates
    from ir_rarity.engine.samples import SubsetScorer, newcomer_prefix_scores
    from ir_rarity.engine.weighted import WeightedCampaign, values_under

_LAZY = {
    "aggregate": "means", "exact_means": "means", "exact_sums": "means", "skips_undefined": "means",
    "one_member_notice": "members",
    "per_row_search_length": "asl",
    "ScorePrecision": "codes",
    "s_d_depth": "compute",
    "Campaign": "contract", "CampaignInfo": "contract", "MemberCampaign": "contract",
    "ENGINE_FAMILIES": "families", "is_engine_measure": "families",
    "Judgments": "judgments",
    "can_draw": "judgment_draws", "drawn_interval": "judgment_draws", "drawn_values": "judgment_draws",
    "DUPLICATES": "names", "DUPLICATES_HELP": "names", "COVERS": "names", "COVERS_CHOICES": "names",
    "CountsCampaign": "one_run", "score_run": "one_run",
    "tune_allocator": "pages", "allocator_environ": "pages",
    "UNJUDGED": "qrels", "EncodedQrels": "qrels", "is_relevant": "qrels",
    "Restrictor": "relabelled", "pool_qrels": "relabelled", "restricted_scores": "relabelled",
    "MODES": "result", "Evaluation": "result",
    "apply_rule": "rule",
    "Duplicates": "runs",
    "SubsetScorer": "samples", "newcomer_prefix_scores": "samples",
    "WeightedCampaign": "weighted", "values_under": "weighted",
}
"""Public name -> the engine module (``ir_rarity.engine.<module>``) that defines it."""

__all__ = [
    "COVERS",
    "COVERS_CHOICES",
    "DUPLICATES",
    "DUPLICATES_HELP",
    "ENGINE_FAMILIES",
    "MODES",
    "UNJUDGED",
    "Campaign",
    "CampaignInfo",
    "CountsCampaign",
    "Duplicates",
    "EncodedQrels",
    "Evaluation",
    "Judgments",
    "MemberCampaign",
    "Restrictor",
    "ScorePrecision",
    "SubsetScorer",
    "WeightedCampaign",
    "aggregate",
    "allocator_environ",
    "apply_rule",
    "can_draw",
    "drawn_interval",
    "drawn_values",
    "exact_means",
    "exact_sums",
    "is_engine_measure",
    "is_relevant",
    "newcomer_prefix_scores",
    "one_member_notice",
    "per_row_search_length",
    "pool_qrels",
    "restricted_scores",
    "s_d_depth",
    "score_run",
    "skips_undefined",
    "tune_allocator",
    "values_under",
]

__getattr__, __dir__ = lazy_exports(__name__, {name: f"ir_rarity.engine.{module}" for name, module in _LAZY.items()},
                                     globals())
