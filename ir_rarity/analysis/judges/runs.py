r"""Each run's score under each judge, the difference with its paired bootstrap interval, and group favour tests.

* Per run and measure, judge b against the reference judge a: the mean over the queries both judged of the
  per-query differences :math:`\bar d_r = \frac{1}{|Q|} \sum_{q \in Q} (s^b_{r,q} - s^a_{r,q})`, its paired
  bootstrap interval over queries (:func:`ir_rarity.stats.paired_effects`, :func:`scipy.stats.bootstrap`; Efron &
  Tibshirani, "An introduction to the bootstrap", 1993) and Cohen's :math:`d_z`.
* Does judge b favour a group of runs (a value of a leaderboard column, e.g. ``runtype``)? For each group g, the
  runs' mean differences :math:`\bar d_r` of the group are compared with those of the other runs by Welch's
  two-sample t-test (Welch, "The generalization of Student's problem when several different population variances
  are involved", Biometrika 1947; :func:`scipy.stats.ttest_ind` with ``equal_var=False``): a judge that favours g
  raises g's runs more than the others (``gap`` > 0). Every (measure, judge pair, group) is one hypothesis of one
  family, corrected as the user names (:func:`ir_rarity.stats.correct`; Holm by default). A column of two groups
  gives one hypothesis per measure and pair (the first group, sorted, against the other), not it and its mirror.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ir_rarity.errors import InputError
from ir_rarity.io.csvfile import read_csv_columns
from ir_rarity.io.raw import short
from ir_rarity.stats.corrections import correct
from ir_rarity.stats.effects import paired_effects
from ir_rarity.stats.scores import run_means

__all__ = ["favour_tests", "read_groups", "run_differences"]


def run_differences(matrices: Mapping[str, Mapping[str, pd.DataFrame]], pairs: Sequence[tuple[str, str]],
                    level: float = 0.95, resamples: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """Per measure, pair of judges and run: both means, the mean per-query difference and its interval.

    Args:
        matrices: Judge -> measure -> runs x queries values (the judge's queries as columns).
        pairs: The (reference judge a, judge b) pairs.
        level: The confidence level of the bootstrap intervals.
        resamples: Bootstrap resamples of the queries.
        seed: Seed of every interval (one generator per run, :func:`ir_rarity.stats.paired_effects`).

    Returns:
        ``measure, judge_a, judge_b, run, score_a, score_b, n_queries, diff, diff_low, diff_high, d_z``: the
        scores are each judge's means over its own queries, the difference is over the queries both judged.

    """
    parts = []
    first = next(iter(matrices.values()))
    for measure in first:
        for a, b in pairs:
            ma, mb = matrices[a][measure], matrices[b][measure]
            queries = ma.columns.intersection(mb.columns, sort=False)
            runs = ma.index
            delta = mb.loc[runs, queries].to_numpy(np.float64) - ma.loc[runs, queries].to_numpy(np.float64)
            effects = paired_effects(delta, level=level, resamples=resamples, seed=seed)
            parts.append(pd.DataFrame({
                "measure": measure, "judge_a": a, "judge_b": b, "run": runs.astype(str),
                "score_a": run_means(ma).to_numpy(), "score_b": run_means(mb.loc[runs]).to_numpy(),
                "n_queries": (~np.isnan(delta)).sum(axis=1), "diff": effects["diff"],
                "diff_low": effects["diff low"], "diff_high": effects["diff high"], "d_z": effects["d_z"]}))
    return pd.concat(parts, ignore_index=True)


def read_groups(leaderboard: str | os.PathLike[str] | pd.DataFrame, column: str, run_column: str = "run"
                ) -> pd.Series:
    """Run -> group from a leaderboard: a CSV path (``'path:RUNCOLUMN'`` names its run column) or a DataFrame.

    A run whose group cell is empty (or NA in a DataFrame) has no group and takes no part in the tests; a run
    listed twice with the same group counts once.

    Raises:
        InputError: the file is unreadable or lacks the run column or ``column``, or lists a run twice with two
            different groups (the message names the file, the line and the run).

    """
    if isinstance(leaderboard, pd.DataFrame):
        for needed in (run_column, column):
            if needed not in leaderboard.columns:
                raise InputError(f"leaderboard has no column {needed!r}")
        source = "leaderboard"
        frame = leaderboard[leaderboard[column].notna()].astype(str)
        frame.index = pd.RangeIndex(2, len(frame) + 2)
        lines = False
    else:
        path = os.fspath(leaderboard)
        if not Path(path).exists() and ":" in path:
            path, run_column = path.rsplit(":", 1)
        source = path
        frame = read_csv_columns(path, [run_column, column], "leaderboard")
        lines = True
    frame = frame[frame[column].str.strip() != ""].drop_duplicates([run_column, column])
    twice = frame[run_column].duplicated()
    if twice.any():
        line = int(frame.index[twice.to_numpy()][0])
        raise InputError(f"lists run {short(frame.loc[line, run_column])} again with another {short(column, 20)}",
                         source,
                         line if lines else None)
    return pd.Series(frame[column].to_numpy(), index=pd.Index(frame[run_column].to_numpy(), name="run"),
                     name=column)


def favour_tests(differences: pd.DataFrame, groups: pd.Series, correction: str | None = "holm",
                 alpha: float = 0.05) -> pd.DataFrame:
    """Whether judge b favours each group of runs over the others, against judge a (see the module).

    Args:
        differences: :func:`run_differences`' table.
        groups: Run -> group (runs it does not list take no part).
        correction: The correction of the family (a :data:`ir_rarity.stats.CORRECTIONS` name, or None).
        alpha: The family's level.

    Returns:
        ``measure, judge_a, judge_b, column, group, n_group, n_rest, mean_diff_group, mean_diff_rest, gap, t,
        p_value, p_corrected, rejected`` (``gap`` = group minus the rest; NaN t and p with fewer than two runs on
        either side).

    Raises:
        InputError: no evaluated run is listed in ``groups``.

    """
    from scipy import stats as sps

    listed = differences["run"].isin(groups.index)
    if not listed.any():
        raise InputError(f"the leaderboard's {groups.name!r} column names none of the evaluated runs")
    rows = []
    labelled = differences[listed].assign(group=differences.loc[listed, "run"].map(groups))
    for (measure, a, b), block in labelled.groupby(["measure", "judge_a", "judge_b"], sort=False):
        named = sorted(block["group"].unique())
        for group in named[:1] if len(named) == 2 else named:  # two groups: one hypothesis, not it and its mirror
            inside = block["group"].to_numpy() == group
            x, y = block["diff"].to_numpy()[inside], block["diff"].to_numpy()[~inside]
            x, y = x[~np.isnan(x)], y[~np.isnan(y)]
            t, p = (float("nan"), float("nan"))
            if len(x) >= 2 and len(y) >= 2:
                with warnings.catch_warnings(), np.errstate(all="ignore"):  # equal values: t and p NaN
                    warnings.simplefilter("ignore", RuntimeWarning)
                    result = sps.ttest_ind(x, y, equal_var=False)
                t, p = float(result.statistic), float(result.pvalue)
            rows.append({"measure": measure, "judge_a": a, "judge_b": b, "column": groups.name, "group": group,
                         "n_group": len(x), "n_rest": len(y),
                         "mean_diff_group": float(np.mean(x)) if len(x) else float("nan"),
                         "mean_diff_rest": float(np.mean(y)) if len(y) else float("nan"), "t": t, "p_value": p})
    table = pd.DataFrame(rows)
    table.insert(table.columns.get_loc("t"), "gap", table["mean_diff_group"] - table["mean_diff_rest"])
    rejected, corrected = correct(table["p_value"].to_numpy(), correction, alpha)
    return table.assign(p_corrected=corrected, rejected=rejected)
