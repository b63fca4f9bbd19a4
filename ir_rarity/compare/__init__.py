"""Campaign tables researchers can publish: significance against baselines, intervals, pool composition.

* :mod:`~ir_rarity.compare.significance`: which runs are compared, each pair tested and corrected with
  :mod:`ir_rarity.stats`;
* :mod:`~ir_rarity.compare.intervals`: interval columns of each run's mean (intervals from :mod:`ir_rarity.stats`);
* :mod:`~ir_rarity.compare.uncertainty`: how a rarity or novelty score and rank move with the other participants;
* :mod:`~ir_rarity.compare.table`: the table, rendered by :func:`ir_rarity.tables.render`;
* :mod:`~ir_rarity.compare.plots`: the composition plot; the ``eval`` options are :mod:`ir_rarity.cli.compare`.
"""

from typing import TYPE_CHECKING

from ir_rarity.lazy import lazy_exports

if TYPE_CHECKING:
    from ir_rarity.compare.intervals import add_intervals
    from ir_rarity.compare.significance import compare_values, comparison_pairs
    from ir_rarity.compare.table import CampaignTable, campaign_table
    from ir_rarity.compare.uncertainty import composition, depends_on_pool

__all__ = [
    "CampaignTable",
    "add_intervals",
    "campaign_table",
    "compare_values",
    "comparison_pairs",
    "composition",
    "depends_on_pool",
]

__getattr__, __dir__ = lazy_exports(__name__, {
    "composition": "ir_rarity.compare.uncertainty",
    "depends_on_pool": "ir_rarity.compare.uncertainty",
    "add_intervals": "ir_rarity.compare.intervals",
    "compare_values": "ir_rarity.compare.significance",
    "comparison_pairs": "ir_rarity.compare.significance",
    "CampaignTable": "ir_rarity.compare.table",
    "campaign_table": "ir_rarity.compare.table",
}, globals())
