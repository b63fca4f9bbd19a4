"""Several judges of one campaign: agreement overall and by rarity, leaderboards, runs, hole-filling.

* :mod:`~ir_rarity.analysis.judges.agreement`: Cohen's kappa (plain and weighted), Krippendorff's alpha, confusions;
* :mod:`~ir_rarity.analysis.judges.labels`: judges aligned on the units they judged, the rarity buckets of S_d;
* :mod:`~ir_rarity.analysis.judges.combine`: a hole-filler judge over a base judge (``fill``);
* :mod:`~ir_rarity.analysis.judges.perturb`: a documented, seeded lenient second judge (examples and tests);
* :mod:`~ir_rarity.analysis.judges.rankings`: each judge's leaderboards, tau-b, tau_AP, top-10 overlap;
* :mod:`~ir_rarity.analysis.judges.runs`: per-run differences with bootstrap intervals; group favour tests;
* :mod:`~ir_rarity.analysis.judges.compare`: :func:`compare_judges`, all of it in one call;
* :mod:`~ir_rarity.analysis.judges.summary`: the ``ir-rarity judges`` folder (CSVs and ``summary.md``).
"""

from ir_rarity.analysis.judges.agreement import cohen_kappa, confusion, krippendorff_alpha
from ir_rarity.analysis.judges.combine import fill
from ir_rarity.analysis.judges.compare import JudgeComparison, compare_judges
from ir_rarity.analysis.judges.perturb import lenient_judge

__all__ = ["JudgeComparison", "cohen_kappa", "compare_judges", "confusion", "fill", "krippendorff_alpha",
           "lenient_judge"]
