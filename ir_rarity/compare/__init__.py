"""Campaign tables researchers can publish: significance against baselines, intervals, pool composition.

* :mod:`~ir_rarity.compare.significance`: paired tests (t, Wilcoxon, randomization) and corrections;
* :mod:`~ir_rarity.compare.intervals`: bootstrap and t confidence intervals of each run's mean;
* :mod:`~ir_rarity.compare.composition`: how a rarity or novelty score and rank move with the other participants;
* :mod:`~ir_rarity.compare.table`: the table, rendered by :func:`ir_rarity.tables.render`;
* :mod:`~ir_rarity.compare.plots`: the composition plot; :mod:`~ir_rarity.compare.cli`: the ``eval`` options.
"""

from ir_rarity.compare.composition import composition, depends_on_pool
from ir_rarity.compare.intervals import add_intervals, bootstrap_interval, t_interval
from ir_rarity.compare.significance import CORRECTIONS, TESTS, compare_values, comparison_pairs, correct, paired_pvalues
from ir_rarity.compare.table import CampaignTable, campaign_table

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
