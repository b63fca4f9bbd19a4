"""Campaign tables researchers can publish: significance against baselines, intervals, pool composition.

* :mod:`~ir_rarity.compare.significance`: paired tests (t, Wilcoxon, randomization) and corrections;
* :mod:`~ir_rarity.compare.intervals`: bootstrap and t confidence intervals of each run's mean;
* :mod:`~ir_rarity.compare.uncertainty`: how a rarity or novelty score and rank move with the other participants;
* :mod:`~ir_rarity.compare.table`: the table, rendered by :func:`ir_rarity.tables.render`;
* :mod:`~ir_rarity.compare.plots`: the composition plot; :mod:`~ir_rarity.compare.cli`: the ``eval`` options.
"""

from typing import TYPE_CHECKING

from ir_rarity.lazy import lazy_exports

if TYPE_CHECKING:
    from ir_rarity.compare.intervals import add_intervals, bootstrap_interval, t_interval
    from ir_rarity.compare.significance import (
        CORRECTIONS,
        TESTS,
        compare_values,
        comparison_pairs,
        correct,
        paired_pvalues,
    )
    from ir_rarity.compare.table import CampaignTable, campaign_table
    from ir_rarity.compare.uncertainty import composition, depends_on_pool

__all__ = [
    "CORRECTIONS",
    "TESTS",
    "CampaignTable",
    "add_intervals",
    "bootstrap_interval",
    "campaign_table",
    "compare_values",
    "comparison_pairs",
    "composition",
    "correct",
    "depends_on_pool",
    "paired_pvalues",
    "t_interval",
]

__getattr__, __dir__ = lazy_exports(__name__, {
    "composition": "ir_rarity.compare.uncertainty",
    "depends_on_pool": "ir_rarity.compare.uncertainty",
    "add_intervals": "ir_rarity.compare.intervals",
    "bootstrap_interval": "ir_rarity.compare.intervals",
    "t_interval": "ir_rarity.compare.intervals",
    "CORRECTIONS": "ir_rarity.compare.significance",
    "TESTS": "ir_rarity.compare.significance",
    "compare_values": "ir_rarity.compare.significance",
    "comparison_pairs": "ir_rarity.compare.significance",
    "correct": "ir_rarity.compare.significance",
    "paired_pvalues": "ir_rarity.compare.significance",
    "CampaignTable": "ir_rarity.compare.table",
    "campaign_table": "ir_rarity.compare.table",
}, globals())
