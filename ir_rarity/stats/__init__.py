"""The statistics of ir_rarity, one concern per module, shared by comparisons, meta-evaluation and pooling.

* :mod:`~ir_rarity.stats.scores`: runs x queries score tables (validation, run means, moments, direction, the
  natural order of query ids that seeded resampling applies first);
* :mod:`~ir_rarity.stats.correlation`: Kendall's tau-b (Kendall, Biometrika 1945) and tau_AP (Yilmaz, Aslam &
  Robertson, SIGIR 2008) between system rankings;
* :mod:`~ir_rarity.stats.paired`: paired t, Wilcoxon and randomization tests and the two-sample t-test,
  vectorized over pairs of runs;
* :mod:`~ir_rarity.stats.hsd`: Tukey's HSD (Tukey, Princeton 1953), vectorized over pairs of runs;
* :mod:`~ir_rarity.stats.intervals`: bootstrap and t confidence intervals of each run's mean;
* :mod:`~ir_rarity.stats.effects`: the mean of paired differences with its paired bootstrap interval (percentile
  or BCa, :func:`scipy.stats.bootstrap`) and Cohen's d_z;
* :mod:`~ir_rarity.stats.corrections`: multiple-testing corrections (statsmodels' ``multipletests``);
* :mod:`~ir_rarity.stats.names`: the names of the tests, corrections and interval methods.

Names load on first use, so that importing :mod:`ir_rarity.stats.names` (the command line does) imports no scipy.
"""

from typing import TYPE_CHECKING

from ir_rarity.lazy import lazy_exports

if TYPE_CHECKING:
    from ir_rarity.stats.corrections import correct
    from ir_rarity.stats.correlation import kendall_tau, kendall_tau_b, tau_ap
    from ir_rarity.stats.effects import cohens_dz, mean_difference_interval, paired_effects
    from ir_rarity.stats.hsd import paper_hsd, studentized_range_sf, tukey_hsd_pvalues
    from ir_rarity.stats.intervals import bootstrap_interval, bootstrap_ratio_interval, t_interval
    from ir_rarity.stats.names import CORRECTIONS, DIFF_INTERVALS, INTERVALS, TESTS
    from ir_rarity.stats.paired import (
        PairTest,
        paired_differences,
        paired_pvalues,
        paired_t_pvalues,
        randomization_pvalues,
        two_sample_t_pvalues,
        wilcoxon_pvalues,
    )
    from ir_rarity.stats.scores import (
        BLOCK_ELEMENTS,
        check_scores,
        direction_of,
        group_moments,
        in_natural_order,
        natural_order,
        run_means,
    )

__all__ = [
    "BLOCK_ELEMENTS",
    "CORRECTIONS",
    "DIFF_INTERVALS",
    "INTERVALS",
    "TESTS",
    "PairTest",
    "bootstrap_interval",
    "bootstrap_ratio_interval",
    "check_scores",
    "cohens_dz",
    "correct",
    "direction_of",
    "group_moments",
    "in_natural_order",
    "kendall_tau",
    "kendall_tau_b",
    "mean_difference_interval",
    "natural_order",
    "paired_differences",
    "paired_effects",
    "paired_pvalues",
    "paired_t_pvalues",
    "paper_hsd",
    "randomization_pvalues",
    "run_means",
    "studentized_range_sf",
    "t_interval",
    "tau_ap",
    "tukey_hsd_pvalues",
    "two_sample_t_pvalues",
    "wilcoxon_pvalues",
]

_MODULES = {
    "ir_rarity.stats.corrections": ("correct",),
    "ir_rarity.stats.correlation": ("kendall_tau", "kendall_tau_b", "tau_ap"),
    "ir_rarity.stats.effects": ("cohens_dz", "mean_difference_interval", "paired_effects"),
    "ir_rarity.stats.hsd": ("paper_hsd", "studentized_range_sf", "tukey_hsd_pvalues"),
    "ir_rarity.stats.intervals": ("bootstrap_interval", "bootstrap_ratio_interval", "t_interval"),
    "ir_rarity.stats.names": ("CORRECTIONS", "DIFF_INTERVALS", "INTERVALS", "TESTS"),
    "ir_rarity.stats.paired": ("PairTest", "paired_differences", "paired_pvalues", "paired_t_pvalues",
                               "randomization_pvalues", "two_sample_t_pvalues", "wilcoxon_pvalues"),
    "ir_rarity.stats.scores": ("BLOCK_ELEMENTS", "check_scores", "direction_of", "group_moments",
                               "in_natural_order", "natural_order", "run_means"),
}

__getattr__, __dir__ = lazy_exports(__name__, {name: module for module, names in _MODULES.items()
                                               for name in names}, globals())
