"""A self-contained meta-evaluation report of the rarity measures on one campaign (Markdown, CSV, PNG).

The report reproduces, for any pool, the analyses of Türkmen, Lease & Kutlu (ECIR 2023): Figure 1 (synthetic rare
vs. common system), Figure 2 (Kendall tau vs. alpha), Table 1 (discriminative power), Table 2 (stability) and
Table 3 (number of systems). It is made in three steps:

* :func:`compute_report` runs the analyses and returns their tables as a :class:`MetaReport` (the score matrices
  of every measure come from one :func:`~ir_rarity.evaluation.evaluate_campaign` call);
* :func:`save_report` writes that value as CSV files, PNG figures (:mod:`ir_rarity.meta.plots`) and
  ``report.md`` (:func:`report_markdown`);
* :func:`write_report` is the two in a row.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ir_rarity.io.files import write_text
from ir_rarity.io.frames import as_qrels_frame
from ir_rarity.io.guard import OutputFolder
from ir_rarity.measures.parse import parse_measure
from ir_rarity.meta.curves import DEFAULT_ALPHAS, curve_measures, curve_parameters, score_matrices, tau_alpha_curve
from ir_rarity.meta.discriminative import discriminative_power
from ir_rarity.meta.plots import plot_robustness, plot_synthetic, plot_tau_alpha
from ir_rarity.meta.robustness import DEFAULT_SIZES, robustness_tables, synthetic_rank_curve
from ir_rarity.meta.stability import stability
from ir_rarity.pool import pool_for_rows
from ir_rarity.pool.pool import Pool
from ir_rarity.pool.stream import TWO_PASSES, StreamedCampaign
from ir_rarity.progress import counter
from ir_rarity.tables import render_frame

__all__ = ["LEVELS", "MetaReport", "compute_report", "report_markdown", "report_measures", "save_report",
           "write_report"]

LEVELS: tuple[float, ...] = (0.05, 0.01)
"""Significance levels of Table 1 (95% and 99%)."""


def report_measures(cutoff: int = 100) -> list[tuple[str, str, float]]:
    """The measures of Tables 1 and 2: ``(label, engine measure, alpha)``.

    ``P@k`` and ``AP@k`` are computed as ``P_rare(alpha=0)@k`` and ``AP_rare(alpha=0)@k``, which equal
    trec_eval's values exactly (tested against pytrec_eval).

    Args:
        cutoff: The rank cutoff k of every measure.

    Returns:
        P@k, P_rare@k at alpha 0.5 and 1, AP@k, AP_rare@k at alpha 0.5 and 1.

    """
    out = []
    for name, base in (("P_rare", "P"), ("AP_rare", "AP")):
        out.append((f"{base}@{cutoff}", f"{name}(alpha=0)@{cutoff}", 0.0))
        for alpha in (0.5, 1.0):
            out.append((f"{name}(alpha={alpha:g})@{cutoff}", f"{name}(alpha={alpha:g})@{cutoff}", alpha))
    return out


@dataclass(frozen=True, eq=False)
class MetaReport:
    """The tables of a meta-evaluation report and the parameters they were computed with.

    Attributes:
        tau_alpha: Kendall tau and tau_AP of each rarity measure vs. its base measure per alpha (Figure 2).
        discriminative_power: Significant run pairs per measure and confidence (Table 1).
        stability: Buckley & Voorhees stability per measure (Table 2).
        robustness: Mean Kendall tau per sample size N for ``P_rare(alpha=1)@k`` and ``AP_rare(alpha=1)@k``
            (Algorithm 1, Table 3).
        synthetic: Rank of the hypothetical rare and common systems per relevant documents found (Figure 1).
        query: The topic of the synthetic experiment.
        cutoff: The rank cutoff k of every measure and the S_d depth.
        alphas: The rarity weights of the tau vs. alpha curve.
        trials: Trials of the stability and robustness analyses.
        sizes: The sample sizes N of the robustness analysis (those within the number of runs).
        fuzziness: The (absolute) stability fuzziness.
        seed: Seed of every random draw.
        n_runs: Runs of the pool.
        num_systems: Systems S of the pool.
        n_queries: Judged queries (columns of every score matrix).
        two_passes: The runs were read in two passes (:class:`~ir_rarity.pool.stream.StreamedCampaign`): the
            tables are the in-memory campaign's, and the header says how they were read.

    """

    tau_alpha: pd.DataFrame
    discriminative_power: pd.DataFrame
    stability: pd.DataFrame
    robustness: pd.DataFrame
    synthetic: pd.DataFrame
    query: str
    cutoff: int
    alphas: tuple[float, ...]
    trials: int
    sizes: tuple[int, ...]
    fuzziness: float
    seed: int
    n_runs: int
    num_systems: int
    n_queries: int
    two_passes: bool = False

    def tables(self) -> dict[str, pd.DataFrame]:
        """The five tables by the name of their CSV file (without ``.csv``)."""
        return {"tau_alpha": self.tau_alpha, "discriminative_power": self.discriminative_power,
                "stability": self.stability, "robustness": self.robustness, "synthetic": self.synthetic}


# ------------------------------------------------------------------------------------------------ computing


def _default_query(qrels: pd.DataFrame) -> str:
    """The query with the most relevant documents (label >= 1), ties by smallest id."""
    counts = qrels[qrels["relevance"] >= 1].groupby(qrels["query_id"].astype(str)).size()
    return str(counts.sort_index().idxmax())


def _power_table(scores: dict[str, pd.DataFrame], measures: list[tuple[str, str, float]]) -> pd.DataFrame:
    """Table 1, long: significant pairs per measure and level (pooled-variance two-sample t-test).

    The p-values do not depend on the level: each measure is tested once, and its pairs counted at every level
    (``p < level``, an undefined p-value never significant, as :func:`discriminative_power` decides).
    """
    records = []
    for label, _, alpha in measures:
        res = discriminative_power(scores[label], method="ttest_ind", alpha=LEVELS[0])
        pvalues = res.pairs()["pvalue"].fillna(1.0).to_numpy()
        for level in LEVELS:
            significant = res.significant_pairs if level == res.alpha else int((pvalues < level).sum())
            records.append({"measure": label, "alpha": alpha, "confidence": f"{1 - level:.0%}",
                            "significant_pairs": significant, "total_pairs": res.total_pairs})
    return pd.DataFrame.from_records(records)


def _stability_table(scores: dict[str, pd.DataFrame], measures: list[tuple[str, str, float]], trials: int,
                     fuzziness: float, seed: int) -> pd.DataFrame:
    """Table 2: stability of every measure, half the topics per trial."""
    return pd.DataFrame.from_records([
        {"measure": label, "alpha": alpha,
         "stability": stability(scores[label], trials=trials, fuzziness=fuzziness, seed=seed)}
        for label, _, alpha in measures
    ])


def _robustness_table(pool: Pool, qrels: pd.DataFrame, cutoff: int, sizes: Sequence[int], trials: int, seed: int,
                      progress: bool | None) -> pd.DataFrame:
    """Table 3: Algorithm 1 for ``P_rare(alpha=1)@k`` and ``AP_rare(alpha=1)@k``, both on the same draws.

    The seed is an integer: each measure's table is ``system_count_robustness`` of it with that seed.
    """
    measures = [f"{name}(alpha=1)@{cutoff}" for name in ("P_rare", "AP_rare")]
    parts = robustness_tables(pool, qrels, measures, sizes=sizes, trials=trials, seed=seed, progress=progress)
    for measure, part in zip(measures, parts, strict=True):
        part.insert(0, "measure", measure)
    return pd.concat(parts, ignore_index=True)


def _run_analyses(analyses: list[tuple[str, Callable[[], pd.DataFrame]]], progress: bool | None
                  ) -> list[pd.DataFrame]:
    """Run each analysis in turn behind one progress bar."""
    steps = counter(len(analyses), desc="meta analyses", unit="analysis", enabled=progress)
    tables = []
    for name, analysis in analyses:
        steps.set_postfix_str(name)
        tables.append(analysis())
        steps.update()
    steps.close()
    return tables


def compute_report(
    pool: Pool | StreamedCampaign,
    qrels: Any,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    trials: int = 1000,
    *,
    cutoff: int = 100,
    sizes: Sequence[int] = DEFAULT_SIZES,
    fuzziness: float = 0.05,
    seed: int = 0,
    synthetic_query: str | None = None,
    progress: bool | None = None,
) -> MetaReport:
    """Run the analyses of a meta-evaluation report of P_rare and AP_rare on ``pool``.

    Every measure of the tau vs. alpha curve and of Tables 1 and 2 is scored in one
    :func:`~ir_rarity.evaluation.evaluate_campaign` call. Table 1 uses ``method="ttest_ind"``, the pooled-variance
    two-sample t-test, which gives exactly the p-values of the paper's per-pair two-group Tukey HSD
    (``method="paper"``; with two groups Tukey's q is ``sqrt(2)|t|``), vectorised. Table 2 is Buckley & Voorhees
    stability (SIGIR 2000) with half the topics per trial; Table 3 is Algorithm 1 of Türkmen, Lease & Kutlu (ECIR
    2023) for ``P_rare(alpha=1)@k`` and ``AP_rare(alpha=1)@k``.

    A campaign read in two passes is scored on its judged rows (:mod:`ir_rarity.pool.judged`, read again from its
    files): every table equals the in-memory campaign's.

    Args:
        pool: The campaign, or a campaign read in two passes (:class:`~ir_rarity.pool.stream.StreamedCampaign`).
        qrels: Qrels in any shape :meth:`Pool.evaluate` accepts.
        alphas: Rarity weights of the tau vs. alpha curve.
        trials: Trials of the stability and robustness analyses (the paper uses 1000).
        cutoff: The rank cutoff k of every measure and the S_d depth.
        sizes: Sample sizes N of the robustness analysis; those above the number of runs are dropped.
        fuzziness: Stability fuzziness (absolute).
        seed: Seed of every random draw, so that a report is reproducible.
        synthetic_query: Topic of the synthetic experiment; default the one with the most relevant documents.
        progress: Progress bars over the analyses and their trials (None: :mod:`ir_rarity.progress`'s default,
            on a terminal only).

    Returns:
        The :class:`MetaReport`.

    Raises:
        ParameterError: On a negative alpha, no alphas, or a cutoff < 1.

    """
    alpha_values, cutoff = curve_parameters(alphas, cutoff)
    frame = as_qrels_frame(qrels)
    measures = report_measures(cutoff)
    scored = [m for _, m, _ in measures] + curve_measures(alpha_values, cutoff)  # robustness: two of these
    # the campaign, or (read in two passes) its judged rows within the cutoff, where S_d is counted
    rows = pool_for_rows(pool, frame, [parse_measure(m) for m in scored], "the meta-evaluation report")
    matrices = score_matrices(rows, frame, scored, progress=progress)
    scores = {label: matrices[str(parse_measure(m))] for label, m, _ in measures}
    usable = tuple(n for n in sizes if 2 <= n <= len(pool))
    query = str(synthetic_query) if synthetic_query is not None else _default_query(frame)
    curve, power, stab, robust, synthetic = _run_analyses([
        ("tau vs alpha", lambda: tau_alpha_curve(rows, frame, alpha_values, cutoff, matrices)),
        ("discriminative power", lambda: _power_table(scores, measures)),
        ("stability", lambda: _stability_table(scores, measures, trials, fuzziness, seed)),
        ("robustness", lambda: _robustness_table(rows, frame, cutoff, usable, trials, seed, progress)),
        ("synthetic systems", lambda: synthetic_rank_curve(pool, frame, query, measure_cutoff=cutoff)),
    ], progress)
    return MetaReport(tau_alpha=curve, discriminative_power=power, stability=stab, robustness=robust,
                      synthetic=synthetic, query=query, cutoff=cutoff, alphas=tuple(alpha_values), trials=trials,
                      sizes=usable, fuzziness=fuzziness, seed=seed, n_runs=len(pool), num_systems=pool.num_systems,
                      n_queries=next(iter(scores.values())).shape[1], two_passes=isinstance(pool, StreamedCampaign))


# ------------------------------------------------------------------------------------------------ writing


def _md_table(df: pd.DataFrame, digits: int = 3) -> str:
    """A Markdown table of ``df`` (floats rounded to ``digits``), rendered by :func:`ir_rarity.tables.render_frame`."""
    return render_frame(df, "markdown", digits).rstrip("\n")


def _alpha_labels(values: Any) -> list[str]:
    return [f"{a:g}" for a in values]


def _tau_wide(curve: pd.DataFrame) -> pd.DataFrame:
    """One row per alpha, one column per statistic and measure pair."""
    wide = curve.pivot_table(index="alpha", columns="pair", values=["tau", "tau_ap"], sort=False)
    wide.columns = [f"{stat} {pair}" for stat, pair in wide.columns]
    wide = wide.reset_index()
    wide["alpha"] = _alpha_labels(wide["alpha"])
    return wide


def _power_wide(power: pd.DataFrame) -> pd.DataFrame:
    """One row per measure, one column per confidence level."""
    return pd.DataFrame.from_records([
        {"measure": label, "alpha": f"{alpha:g}",
         **{str(c): int(n) for c, n in zip(group["confidence"], group["significant_pairs"], strict=True)}}
        for (label, alpha), group in power.groupby(["measure", "alpha"], sort=False)
    ])


def _robustness_wide(robust: pd.DataFrame) -> pd.DataFrame:
    """One row per measure, one column per sample size."""
    wide = robust.pivot_table(index="measure", columns="size", values="mean_tau", sort=False)
    wide.columns = [f"N={c}" for c in wide.columns]
    return wide.reset_index()


def _first_ranks(synthetic: pd.DataFrame) -> pd.DataFrame:
    """Fewest relevant documents each hypothetical system needs to rank first, per alpha."""
    first = (synthetic[synthetic["rank"] == 1].groupby(["system", "alpha"])["n_relevant"].min()
             .rename("relevant docs to rank first"))
    grid = pd.MultiIndex.from_product([["rare", "common"], sorted(synthetic["alpha"].unique())],
                                      names=["system", "alpha"])
    first = first.reindex(grid).astype("Int64").reset_index()
    first["alpha"] = _alpha_labels(first["alpha"])
    return first


def _figure(plots: bool, name: str, caption: str) -> str:
    return f"![{caption}]({name})\n\n" if plots else ""


def _header(report: MetaReport) -> list[str]:
    k = report.cutoff
    read = f" ({TWO_PASSES})" if report.two_passes else ""
    return [
        "# Meta-evaluation of the rarity measures",
        "",
        f"Pool: {report.n_runs} runs, S = {report.num_systems} systems{read}; {report.n_queries} judged queries; "
        f"cutoff k = {k} (S_d counted at depth {k}). Analyses of Türkmen, Lease & Kutlu, ECIR 2023. P@{k} and AP@{k} "
        f"are the rarity measures at alpha = 0, equal to trec_eval's values. Seed {report.seed}.",
        "",
    ]


def _tau_section(report: MetaReport, plots: bool) -> list[str]:
    return [
        "## System rankings: rank correlation vs. alpha (Section 4.2, Figure 2)",
        "",
        "Kendall tau-b and tau_AP (base measure as the reference ranking).",
        "",
        _md_table(_tau_wide(report.tau_alpha)),
        "",
        _figure(plots, "tau_alpha.png", "tau vs alpha") + "Data: `tau_alpha.csv`.",
        "",
    ]


def _power_section(report: MetaReport) -> list[str]:
    power = report.discriminative_power
    return [
        "## Discriminative power (Section 4.3, Table 1)",
        "",
        f"Significantly different run pairs out of {power['total_pairs'].iloc[0]}, two-sample pooled-variance "
        "t-test per pair (`method='ttest_ind'`), whose p-values equal those of the paper's per-pair two-group "
        "Tukey HSD. No family-wise correction, as in the paper.",
        "",
        _md_table(_power_wide(power)),
        "",
        "Data: `discriminative_power.csv`.",
        "",
    ]


def _stability_section(report: MetaReport) -> list[str]:
    n = report.n_queries
    return [
        "## Stability (Section 4.4, Table 2)",
        "",
        f"Buckley & Voorhees stability: {n // 2} of {n} topics per trial, {report.trials} trials, "
        f"fuzziness {report.fuzziness:g} (absolute).",
        "",
        _md_table(report.stability.assign(alpha=_alpha_labels(report.stability["alpha"]))),
        "",
        "Data: `stability.csv`.",
        "",
    ]


def _robustness_section(report: MetaReport, plots: bool) -> list[str]:
    return [
        "## Number of systems (Section 4.5, Algorithm 1, Table 3)",
        "",
        f"Mean Kendall tau over {report.trials} trials between the ranking of N sampled runs with S and S_d from "
        "the sample only and their ranking in the full pool (trials where tau is undefined are left out; see "
        "`robustness.csv`).",
        "",
        _md_table(_robustness_wide(report.robustness)),
        "",
        _figure(plots, "robustness.png", "tau vs number of systems") + "Data: `robustness.csv`.",
        "",
    ]


def _synthetic_section(report: MetaReport, plots: bool) -> list[str]:
    query = report.query
    return [
        f"## Synthetic rare vs. common system (Section 3, Figure 1), query {query}",
        "",
        f"Fewest relevant documents the hypothetical system needs to rank first on P_rare@{report.cutoff} for "
        f"query {query} (empty: never within the range tried).",
        "",
        _md_table(_first_ranks(report.synthetic)),
        "",
        _figure(plots, "synthetic.png", "synthetic systems") + "Data: `synthetic.csv`.",
        "",
    ]


def report_markdown(report: MetaReport, plots: bool = True) -> str:
    """The text of ``report.md``: every table of ``report``, linking the figures when ``plots``.

    Args:
        report: The computed report.
        plots: Link the PNG figures (written next to it by :func:`save_report`).

    Returns:
        The Markdown text.

    """
    return "\n".join([*_header(report), *_tau_section(report, plots), *_power_section(report),
                      *_stability_section(report), *_robustness_section(report, plots),
                      *_synthetic_section(report, plots)])


def save_report(report: MetaReport, out_dir: str | os.PathLike[str], plots: bool = True, *,
                overwrite: bool = False) -> Path:
    """Write ``report`` to ``out_dir``: one CSV per table, the PNG figures and ``report.md``.

    Files (every one written atomically: a temporary file in ``out_dir``, then ``os.replace``):
    ``tau_alpha.csv``, ``discriminative_power.csv``, ``stability.csv``, ``robustness.csv``, ``synthetic.csv``;
    with ``plots``, ``tau_alpha.png``, ``robustness.png`` and ``synthetic.png`` (:mod:`ir_rarity.meta.plots`);
    last ``report.md`` (:func:`report_markdown`); and the manifest of what was written
    (:class:`~ir_rarity.io.guard.OutputFolder`).

    Args:
        report: The computed report.
        out_dir: Folder to write to (created if missing).
        plots: Write the PNG figures (needs matplotlib).
        overwrite: Write into a folder holding files an earlier report did not write, replacing them.

    Returns:
        The path of ``report.md``.

    Raises:
        InputError: ``out_dir`` holds files an earlier meta-evaluation report did not write (a hand-written
            ``ir_metadata.yml``), and ``overwrite`` is false.

    """
    with OutputFolder(out_dir, "meta", overwrite=overwrite) as out:
        return _save_files(report, out, plots)


def _save_files(report: MetaReport, out: Path, plots: bool) -> Path:
    """The files of :func:`save_report`, written into ``out``."""
    for name, table in report.tables().items():
        write_text(out / f"{name}.csv", table.to_csv(index=False))
    if plots:
        plot_tau_alpha(report.tau_alpha, out / "tau_alpha.png")
        plot_robustness(report.robustness, out / "robustness.png")
        plot_synthetic(report.synthetic, out / "synthetic.png")
    return write_text(out / "report.md", report_markdown(report, plots))


def write_report(
    pool: Pool | StreamedCampaign,
    qrels: Any,
    out_dir: str | os.PathLike[str],
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    trials: int = 1000,
    *,
    cutoff: int = 100,
    sizes: Sequence[int] = DEFAULT_SIZES,
    fuzziness: float = 0.05,
    seed: int = 0,
    synthetic_query: str | None = None,
    plots: bool = True,
    progress: bool | None = None,
    overwrite: bool = False,
) -> Path:
    """Write a meta-evaluation report of P_rare and AP_rare on ``pool`` to ``out_dir``.

    :func:`compute_report` then :func:`save_report`. Files (every one written atomically):

    * ``tau_alpha.csv`` / ``.png``: Kendall tau and tau_AP of ``P_rare(alpha)@k`` vs. ``P@k`` and
      ``AP_rare(alpha)@k`` vs. ``AP@k`` for each alpha (:func:`~ir_rarity.meta.curves.tau_alpha_curve`).
    * ``discriminative_power.csv``: significantly different run pairs at 95% and 99% for P@k, P_rare@k at
      alpha 0.5 and 1, AP@k and AP_rare@k at alpha 0.5 and 1 (``method="ttest_ind"``).
    * ``stability.csv``: Buckley & Voorhees stability of the same measures (half the topics per trial,
      ``trials`` trials, absolute fuzziness ``fuzziness``).
    * ``robustness.csv`` / ``.png``: Algorithm 1 for ``P_rare(alpha=1)@k`` and ``AP_rare(alpha=1)@k``.
    * ``synthetic.csv`` / ``.png``: the rare vs. common hypothetical systems of Section 3 on one topic.
    * ``report.md``: all tables, linking the figures.

    Args:
        pool: The campaign, or a campaign read in two passes (as :func:`compute_report` takes it).
        qrels: Qrels in any shape :meth:`Pool.evaluate` accepts.
        out_dir: Folder to write to (created if missing).
        alphas: Rarity weights of the tau vs. alpha curve.
        trials: Trials of the stability and robustness analyses (the paper uses 1000).
        cutoff: The rank cutoff k of every measure and the S_d depth.
        sizes: Sample sizes N of the robustness analysis; those above the number of runs are dropped.
        fuzziness: Stability fuzziness (absolute).
        seed: Seed of every random draw, so that a report is reproducible.
        synthetic_query: Topic of the synthetic experiment; default the one with the most relevant documents.
        plots: Write the PNG figures (needs matplotlib).
        progress: Progress bars over the analyses and their trials (None: :mod:`ir_rarity.progress`'s default,
            on a terminal only).
        overwrite: Write into a folder holding files an earlier report did not write, replacing them (checked
            before anything is computed).

    Returns:
        The path of ``report.md``.

    Raises:
        InputError: ``out_dir`` holds files an earlier meta-evaluation report did not write, and ``overwrite``
            is false.

    """
    OutputFolder(out_dir, "meta", overwrite=overwrite)  # refused before the analyses run, not after
    report = compute_report(pool, qrels, alphas, trials, cutoff=cutoff, sizes=sizes, fuzziness=fuzziness, seed=seed,
                            synthetic_query=synthetic_query, progress=progress)
    return save_report(report, out_dir, plots=plots, overwrite=overwrite)
