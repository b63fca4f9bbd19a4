"""A self-contained meta-evaluation report of the rarity measures on one campaign (Markdown, CSV, PNG).

:func:`write_report` reproduces, for any pool, the analyses of Türkmen, Lease & Kutlu (ECIR 2023): Figure 1
(synthetic rare vs. common system), Figure 2 (Kendall tau vs. alpha), Table 1 (discriminative power), Table 2
(stability) and Table 3 (number of systems).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ir_rarity.engine.compute import compute
from ir_rarity.io.files import write_text
from ir_rarity.io.frames import as_qrels_frame
from ir_rarity.measures.parse import parse_measure
from ir_rarity.meta.curves import DEFAULT_ALPHAS, tau_alpha_curve
from ir_rarity.meta.robustness import DEFAULT_SIZES, synthetic_rank_curve, system_count_robustness
from ir_rarity.meta.stats import discriminative_power, stability
from ir_rarity.pool.pool import Pool
from ir_rarity.progress import counter
from ir_rarity.tables import render_frame

__all__ = ["report_measures", "write_report"]

LEVELS: tuple[float, ...] = (0.05, 0.01)
"""Significance levels of Table 1 (95% and 99%)."""


def report_measures(cutoff: int = 100) -> list[tuple[str, str, float]]:
    """The measures of Tables 1 and 2: ``(label, engine measure, alpha)``.

    ``P@k`` and ``AP@k`` are computed as ``P_rare(alpha=0)@k`` and ``AP_rare(alpha=0)@k``, which equal
    trec_eval's values exactly (tested against pytrec_eval).
    """
    out = []
    for name, base in (("P_rare", "P"), ("AP_rare", "AP")):
        out.append((f"{base}@{cutoff}", f"{name}(alpha=0)@{cutoff}", 0.0))
        for alpha in (0.5, 1.0):
            out.append((f"{name}(alpha={alpha:g})@{cutoff}", f"{name}(alpha={alpha:g})@{cutoff}", alpha))
    return out


def _md_table(df: pd.DataFrame, digits: int = 3) -> str:
    """A Markdown table of ``df`` (floats rounded to ``digits``), rendered by :func:`ir_rarity.tables.render_frame`."""
    return render_frame(df, "markdown", digits).rstrip("\n")


def _write_csv(df: pd.DataFrame, path: Path) -> None:
    write_text(path, df.to_csv(index=False))


def _default_query(qrels: pd.DataFrame) -> str:
    """The query with the most relevant documents (label >= 1), ties by smallest id."""
    counts = qrels[qrels["relevance"] >= 1].groupby(qrels["query_id"].astype(str)).size()
    return str(counts.sort_index().idxmax())


def write_report(
    pool: Pool,
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
) -> Path:
    """Write a meta-evaluation report of P_rare and AP_rare on ``pool`` to ``out_dir``.

    Files (every one written atomically: a temporary file in ``out_dir``, then ``os.replace``):

    * ``tau_alpha.csv`` / ``.png``: Kendall tau and tau_AP of ``P_rare(alpha)@k`` vs. ``P@k`` and
      ``AP_rare(alpha)@k`` vs. ``AP@k`` for each alpha (:func:`~ir_rarity.meta.curves.tau_alpha_curve`).
    * ``discriminative_power.csv``: significantly different run pairs at 95% and 99% for P@k, P_rare@k at
      alpha 0.5 and 1, AP@k and AP_rare@k at alpha 0.5 and 1. The test is ``method="ttest_ind"``, the
      pooled-variance two-sample t-test, which gives exactly the p-values of the paper's per-pair two-group
      Tukey HSD (``method="paper"``, with two groups Tukey's q is ``sqrt(2)|t|``), vectorised.
    * ``stability.csv``: Buckley & Voorhees stability of the same measures (half the topics per trial,
      ``trials`` trials, absolute fuzziness ``fuzziness``).
    * ``robustness.csv`` / ``.png``: Algorithm 1 for ``P_rare(alpha=1)@k`` and ``AP_rare(alpha=1)@k``.
    * ``synthetic.csv`` / ``.png``: the rare vs. common hypothetical systems of Section 3 on one topic.
    * ``report.md``: all tables, linking the figures.

    Args:
        pool: The campaign.
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

    Returns:
        The path of ``report.md``.

    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    qrels_frame = as_qrels_frame(qrels)
    encoded = pool.encode_qrels(qrels_frame)
    rows = pool.member_rows(encoded)
    columns = [str(q) for q in encoded.query_ids]
    measures = report_measures(cutoff)
    scores = {label: pd.DataFrame(compute(parse_measure(m), rows), index=pool.names, columns=columns)
              for label, m, _ in measures}

    steps = counter(6 if plots else 5, desc="meta analyses", unit="analysis", enabled=progress)
    steps.set_postfix_str("tau vs alpha")
    shared = {str(parse_measure(m)): scores[label] for label, m, _ in measures}  # one matrix per measure
    curve = tau_alpha_curve(pool, qrels_frame, alphas=alphas, cutoff=cutoff, matrices=shared)
    _write_csv(curve, out / "tau_alpha.csv")
    steps.update()
    steps.set_postfix_str("discriminative power")

    power_records = []
    for label, _, alpha in measures:
        for level in LEVELS:
            res = discriminative_power(scores[label], method="ttest_ind", alpha=level)
            power_records.append({"measure": label, "alpha": alpha, "confidence": f"{1 - level:.0%}",
                                  "significant_pairs": res.significant_pairs, "total_pairs": res.total_pairs})
    power = pd.DataFrame.from_records(power_records)
    _write_csv(power, out / "discriminative_power.csv")
    power_wide = pd.DataFrame.from_records([
        {"measure": label, "alpha": f"{alpha:g}",
         **{f"{1 - level:.0%}": int(power.loc[(power["measure"] == label) & (power["confidence"] == f"{1 - level:.0%}"),
                                                "significant_pairs"].iloc[0]) for level in LEVELS}}
        for label, _, alpha in measures
    ])

    steps.update()
    steps.set_postfix_str("stability")
    stab = pd.DataFrame.from_records([
        {"measure": label, "alpha": alpha,
         "stability": stability(scores[label], trials=trials, fuzziness=fuzziness, seed=seed)}
        for label, _, alpha in measures
    ])
    _write_csv(stab, out / "stability.csv")

    steps.update()
    steps.set_postfix_str("robustness")
    usable = [n for n in sizes if 2 <= n <= len(pool)]
    robust_parts = []
    for name in ("P_rare", "AP_rare"):
        measure = f"{name}(alpha=1)@{cutoff}"
        part = system_count_robustness(pool, qrels_frame, measure, sizes=usable, trials=trials, seed=seed,
                                       progress=progress)
        part.insert(0, "measure", measure)
        robust_parts.append(part)
    robust = pd.concat(robust_parts, ignore_index=True)
    _write_csv(robust, out / "robustness.csv")

    steps.update()
    steps.set_postfix_str("synthetic systems")
    query = str(synthetic_query) if synthetic_query is not None else _default_query(qrels_frame)
    synthetic = synthetic_rank_curve(pool, qrels_frame, query, measure_cutoff=cutoff)
    _write_csv(synthetic, out / "synthetic.csv")
    first = (synthetic[synthetic["rank"] == 1].groupby(["system", "alpha"])["n_relevant"].min()
             .rename("relevant docs to rank first"))
    first = first.reindex(pd.MultiIndex.from_product([["rare", "common"], sorted(synthetic["alpha"].unique())],
                                                     names=["system", "alpha"])).astype("Int64").reset_index()

    steps.update()
    if plots:
        steps.set_postfix_str("plots")
        from ir_rarity.meta.plots import plot_robustness, plot_synthetic, plot_tau_alpha

        plot_tau_alpha(curve, out / "tau_alpha.png")
        plot_robustness(robust, out / "robustness.png")
        plot_synthetic(synthetic, out / "synthetic.png")
        steps.update()
    steps.close()

    robust_wide = robust.pivot_table(index="measure", columns="size", values="mean_tau", sort=False)
    robust_wide.columns = [f"N={c}" for c in robust_wide.columns]
    robust_wide = robust_wide.reset_index()
    tau_wide = curve.pivot_table(index="alpha", columns="pair", values=["tau", "tau_ap"], sort=False)
    tau_wide.columns = [f"{stat} {pair}" for stat, pair in tau_wide.columns]
    tau_wide = tau_wide.reset_index()
    tau_wide["alpha"] = [f"{a:g}" for a in tau_wide["alpha"]]
    first["alpha"] = [f"{a:g}" for a in first["alpha"]]
    stab_table = stab.assign(alpha=[f"{a:g}" for a in stab["alpha"]])

    def figure(name: str, caption: str) -> str:
        return f"![{caption}]({name})\n\n" if plots else ""

    n_queries = len(encoded.query_ids)
    text = "\n".join([
        "# Meta-evaluation of the rarity measures",
        "",
        f"Pool: {len(pool)} runs, S = {pool.num_systems} systems; {n_queries} judged queries; cutoff k = {cutoff} "
        f"(S_d counted at depth {cutoff}). Analyses of Türkmen, Lease & Kutlu, ECIR 2023. P@{cutoff} and "
        f"AP@{cutoff} are the rarity measures at alpha = 0, equal to trec_eval's values. Seed {seed}.",
        "",
        "## System rankings: rank correlation vs. alpha (Section 4.2, Figure 2)",
        "",
        "Kendall tau-b and tau_AP (base measure as the reference ranking).",
        "",
        _md_table(tau_wide),
        "",
        figure("tau_alpha.png", "tau vs alpha") + "Data: `tau_alpha.csv`.",
        "",
        "## Discriminative power (Section 4.3, Table 1)",
        "",
        f"Significantly different run pairs out of {power['total_pairs'].iloc[0]}, two-sample pooled-variance "
        "t-test per pair (`method='ttest_ind'`), whose p-values equal those of the paper's per-pair two-group "
        "Tukey HSD. No family-wise correction, as in the paper.",
        "",
        _md_table(power_wide),
        "",
        "Data: `discriminative_power.csv`.",
        "",
        "## Stability (Section 4.4, Table 2)",
        "",
        f"Buckley & Voorhees stability: {n_queries // 2} of {n_queries} topics per trial, {trials} trials, "
        f"fuzziness {fuzziness:g} (absolute).",
        "",
        _md_table(stab_table),
        "",
        "Data: `stability.csv`.",
        "",
        "## Number of systems (Section 4.5, Algorithm 1, Table 3)",
        "",
        f"Mean Kendall tau over {trials} trials between the ranking of N sampled runs with S and S_d from the "
        "sample only and their ranking in the full pool (trials where tau is undefined are left out; see "
        "`robustness.csv`).",
        "",
        _md_table(robust_wide),
        "",
        figure("robustness.png", "tau vs number of systems") + "Data: `robustness.csv`.",
        "",
        f"## Synthetic rare vs. common system (Section 3, Figure 1), query {query}",
        "",
        f"Fewest relevant documents the hypothetical system needs to rank first on P_rare@{cutoff} for query "
        f"{query} (empty: never within the range tried).",
        "",
        _md_table(first),
        "",
        figure("synthetic.png", "synthetic systems") + "Data: `synthetic.csv`.",
        "",
    ])
    return write_text(out / "report.md", text)
