"""A campaign table to publish: runs, measures, significance markers, confidence intervals, composition ranges.

:func:`campaign_table` gathers, for one :class:`~ir_rarity.Evaluation`, the comparisons
(:func:`~ir_rarity.compare.significance.compare_values`), the intervals
(:mod:`~ir_rarity.compare.intervals`) and, optionally, a :func:`~ir_rarity.compare.uncertainty.composition` table,
and renders them with the one table renderer (:func:`ir_rarity.tables.render`):

* markdown and latex mark significant differences as ranx does: every compared reference run gets a letter, and a
  value carries, as a superscript, the letters of the runs it is significantly better than (in the measure's own
  direction); the best value of each measure is bold; the caption holds the legend, the pool, the test and the
  correction;
* tsv, csv and jsonl carry the numbers behind the marks as columns: per measure and reference, the queries where
  the run is better and worse, the p-value, the corrected p-value and whether the difference is significant, the
  mean difference with its paired bootstrap interval and Cohen's d_z (:mod:`ir_rarity.stats.effects`); the
  interval bounds; the composition ranges.

The caption of the marked table explains the columns that table has, and no other: the mean differences and d_z
are columns of tsv, csv and jsonl only (:meth:`CampaignTable.frame`), so the caption does not name them.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ir_rarity.compare.intervals import add_covered_intervals, add_intervals, interval_columns
from ir_rarity.compare.rests import rest_columns, rest_frame
from ir_rarity.compare.significance import TEST_NAMES, compare_values
from ir_rarity.engine import COVERS
from ir_rarity.engine.result import Evaluation
from ir_rarity.formats import format_of
from ir_rarity.measures.parse import higher_is_better
from ir_rarity.stats.ties import tie
from ir_rarity.tables import Cell, render

__all__ = ["CampaignTable", "campaign_table", "letters"]


def letters(n: int) -> list[str]:
    """``n`` short labels: a, b, ..., z, aa, ab, ... (the superscripts of a ranx-style table)."""
    out: list[str] = []
    width = 1
    while len(out) < n:
        for i in range(26 ** width):
            label, k = "", i
            for _ in range(width):
                label = string.ascii_lowercase[k % 26] + label
                k //= 26
            out.append(label)
            if len(out) == n:
                break
        width += 1
    return out


@dataclass
class CampaignTable:
    """Everything a published campaign table shows; see :func:`campaign_table`.

    Attributes:
        evaluation: The per-query values and the pool they were computed against.
        order: Runs in display order.
        comparisons: One row per measure and tested pair (:func:`compare_values`), or None.
        references: The runs others are compared with (the baselines, or every run for all pairs).
        values: One row per run: each measure (column ``str(measure)``), and its interval bounds when asked.
        composition: A :func:`~ir_rarity.compare.uncertainty.composition` table, or None.
        settings: Test, correction, alpha, interval method, level, resamples and seed.

    """

    evaluation: Evaluation
    order: list[str]
    comparisons: pd.DataFrame | None
    references: list[str]
    values: pd.DataFrame
    composition: pd.DataFrame | None = None
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def measures(self) -> list[Any]:
        """The evaluation's measures."""
        return list(self.evaluation.measures)

    def name(self, measure: Any) -> str:
        """A measure's name in the rendered table and :meth:`frame`: the name the user gave it."""
        return self.evaluation.label(measure)

    def labels(self) -> dict[str, str]:
        """Reference run -> its letter."""
        return dict(zip(self.references, letters(len(self.references)), strict=True))

    def _lookup(self) -> dict[tuple[str, str, str], dict[str, Any]]:
        """(measure, run, reference) -> the comparison, both ways round for all pairs."""
        out: dict[tuple[str, str, str], dict[str, Any]] = {}
        if self.comparisons is None:
            return out
        for record in self.comparisons.to_dict("records"):
            row = {str(k): v for k, v in record.items()}
            out[(row["measure"], row["run"], row["reference"])] = row
            flipped = {**row, "run": row["reference"], "reference": row["run"], "better": row["worse"],
                       "worse": row["better"], "difference": -row["difference"],
                       "run_better": bool(-row["difference"] > 0), "diff": -row["diff"],
                       "diff low": -row["diff high"], "diff high": -row["diff low"], "d_z": -row["d_z"]}
            out.setdefault((row["measure"], row["reference"], row["run"]), flipped)
        return out

    def beats(self) -> dict[tuple[str, str], list[str]]:
        """(measure, run) -> the references it is significantly better than, in reference order."""
        lookup = self._lookup()
        out: dict[tuple[str, str], list[str]] = {}
        for m in self.measures:
            for run in self.order:
                out[(str(m), run)] = [ref for ref in self.references if ref != run and (c := lookup.get(
                    (str(m), run, ref))) is not None and c["significant"] and c["run_better"]]
        return out

    def frame(self) -> pd.DataFrame:
        """The machine-readable table: one row per run, numbers only (p-values, bounds, ranges as columns)."""
        values = self.values.loc[self.order]
        out = pd.DataFrame(index=pd.Index(self.order, name="run"))
        lookup = self._lookup()
        corrected = self.settings.get("correction") is not None
        for m in self.measures:
            key, name = str(m), self.name(m)
            out[name] = values[key]
            for col in [*interval_columns(m), *rest_columns(m)]:
                if col in values.columns:
                    out[name + col[len(key):]] = values[col]
            for ref in self.references:
                rows = [lookup.get((key, run, ref), {}) for run in self.order]
                prefix = f"{name} vs {ref}"
                out[f"{prefix} better"] = pd.array([r.get("better") for r in rows], dtype="Int64")
                out[f"{prefix} worse"] = pd.array([r.get("worse") for r in rows], dtype="Int64")
                out[f"{prefix} p-value"] = [r.get("pvalue", np.nan) for r in rows]
                if corrected:
                    out[f"{prefix} p-value corrected"] = [r.get("pvalue_corrected", np.nan) for r in rows]
                out[f"{prefix} significant"] = pd.array([r.get("significant") for r in rows], dtype="boolean")
                for col in ("diff", "diff low", "diff high", "d_z"):
                    out[f"{prefix} {col}"] = [r.get(col, np.nan) for r in rows]
            if self.composition is not None and f"{key} rank" in self.composition.columns:
                for col in [c for c in self.composition.columns if c.startswith(f"{key} ")]:
                    out[name + col[len(key):]] = self.composition.loc[self.order, col]
        out.attrs["pool"] = self.evaluation.attrs()
        out.attrs.update(self.settings)
        return out

    def caption(self) -> str:
        """The pool, the test and correction, the letters, bold, and each column the marked table has (no other)."""
        s = self.settings
        parts = [f"Computed against the {self.evaluation.describe()}."]
        if self.comparisons is not None:
            test = TEST_NAMES.get(s["test"], str(s["test"]))
            if s["test"] == "randomization":
                test += f" ({s['trials']} trials, seed {s['seed']})"
            correction = (f"{s['correction']} correction over the {s['family']} pairs of runs compared on each "
                          "measure"
                          if s.get("correction") else "no correction for multiple comparisons")
            legend = ", ".join(f"{label} = {run}" for run, label in self.labels().items())
            parts.append(f"Superscripts: significantly better than the run of that letter (two-sided {test}, "
                         f"{correction}, alpha = {s['alpha']}; better is lower for lower-is-better measures): "
                         f"{legend}.")
            if self._shows_counts():
                parts.append("Better/worse vs a letter: the queries on which the run is better / worse than that "
                             "run.")
        lower = [self.name(m) for m in self.measures if not higher_is_better(m)]
        parts.append("Bold: the best value of each measure" + (f" (lowest for {', '.join(lower)})." if lower else "."))
        if s.get("ci") and s.get("covers", "topics") != "topics":
            parts.append("CI: range of the mean over every order of tied documents (exact)." if s["covers"] == "ties"
                         else f"CI: {s['ci']:.0%} interval of the mean covering {COVERS[s['covers']]} "
                              f"({s['draws']} draws, seed {s['seed']}; docs: What a score rests on).")
        elif s.get("ci"):
            how = (f"percentile bootstrap over queries ({s['resamples']} resamples, seed {s['seed']})"
                   if s["interval"] == "bootstrap" else "Student's t over queries")
            parts.append(f"CI: {s['ci']:.0%} confidence interval of the mean, {how}.")
        if s.get("unjudged"):
            parts.append("Unjudged: mean share of the documents each measure reads that no judgment covers; bounds: "
                         "the mean with those documents non-relevant (the value) and relevant at the lowest "
                         "relevant grade.")
        if s.get("ties"):
            parts.append("Ties: min and max of the mean over every order of documents with equal scores (the value "
                         "in trec_eval's order: score, then docno descending).")
        if self.composition is not None:
            c = self.composition.attrs
            unit = c.get("left_out", "runs")
            parts.append(f"Composition: rank (1 = best) in the whole pool; LOTO: range of score and rank over the "
                         f"pools with one other {unit[:-1]} left out of S and S_d; boot: {c['level']:.0%} interval "
                         f"of the rank over {c['resamples']} pools resampling the {unit} (seed {c['seed']}).")
        return " ".join(parts)

    def render(self, fmt: str, places: int = 4) -> str:
        """The table as text: markers in markdown, latex and html, the numbers of :meth:`frame` in tsv, csv, jsonl."""
        form = format_of(fmt)
        if not form.marks:
            frame = self.frame()
            small = [i for i, c in enumerate(frame.columns) if str(c).endswith(("p-value", "p-value corrected"))]
            rows = []
            for run, row in zip(frame.index, frame.to_numpy(dtype=object), strict=True):
                cells = [_plain(v) for v in row]
                if not form.typed and places >= 0:  # p-values keep their significant digits
                    for i in small:
                        cells[i] = f"{cells[i]:.{max(places, 1)}g}"
                rows.append((run, *cells))
            return render(["run", *frame.columns], rows, fmt, places)
        return self._render_marked(fmt, places)

    def _repr_html_(self) -> str:
        """The marked table as HTML, with its caption (a notebook shows this)."""
        return self.render("html")

    def _repr_markdown_(self) -> str:
        """The marked table as markdown, with its caption."""
        return self.render("markdown")

    def _render_marked(self, fmt: str, places: int) -> str:
        labels = self.labels()
        show_letters = bool(labels)
        columns = (["#"] if show_letters else []) + ["run"]
        rows: list[list[Any]] = [([labels.get(run, "")] if show_letters else []) + [run] for run in self.order]
        bold: set[Cell] = set()
        superscripts: dict[Cell, str] = {}
        fmt_num = f"{{:.{max(places, 0)}f}}" if places >= 0 else "{!r}"
        for m in self.measures:
            self._value_cells(m, columns, rows, bold, superscripts)
            self._interval_cells(m, columns, rows, fmt_num)
            self._rest_cells(m, columns, rows, fmt_num)
            self._count_cells(m, columns, rows)
            self._composition_cells(m, columns, rows, fmt_num)
        return render(columns, [tuple(r) for r in rows], fmt, places, caption=self.caption(), bold=bold,
                      superscripts=superscripts)

    def _value_cells(self, m: Any, columns: list[str], rows: list[list[Any]], bold: set[Cell],
                     superscripts: dict[Cell, str]) -> None:
        """The measure's column: each run's mean, the best in bold, the letters of the runs it beats."""
        labels, beats = self.labels(), self.beats()
        joiner = "," if any(len(label) > 1 for label in labels.values()) else ""  # "aa" is not "a" twice
        name, col = str(m), len(columns)
        columns.append(self.name(m))
        column = self.values.loc[self.order, name].to_numpy(dtype=float)
        defined = np.isfinite(column).any()
        best = (np.nanmax(column) if higher_is_better(m) else np.nanmin(column)) if defined else np.nan
        is_best = tie(column, best)  # every run whose mean ties the best (ir_rarity.stats.ties)
        for i, run in enumerate(self.order):
            rows[i].append(float(column[i]))
            if is_best[i]:
                bold.add((i, col))
            marks = joiner.join(labels[ref] for ref in beats[(name, run)])
            if marks:
                superscripts[(i, col)] = marks

    def _interval_cells(self, m: Any, columns: list[str], rows: list[list[Any]], fmt_num: str) -> None:
        low, high = interval_columns(m)
        if low not in self.values.columns:
            return
        values = self.values.loc[self.order]
        columns.append(f"{self.name(m)} CI")
        for i in range(len(self.order)):
            rows[i].append(_range(values[low].iloc[i], values[high].iloc[i], fmt_num))

    def _rest_cells(self, m: Any, columns: list[str], rows: list[list[Any]], fmt_num: str) -> None:
        """The unjudged share, the bounds ``[low, high]`` and the tie range ``[ties low, ties high]``, as asked."""
        key, values = str(m), self.values.loc[self.order]
        if f"{key} unjudged" in values.columns:
            columns.extend([f"{self.name(m)} unjudged", f"{self.name(m)} bounds"])
            for i in range(len(self.order)):
                rows[i].extend([fmt_num.format(values[f"{key} unjudged"].iloc[i]),
                                _range(values[f"{key} low"].iloc[i], values[f"{key} high"].iloc[i], fmt_num)])
        if f"{key} ties low" in values.columns:
            columns.append(f"{self.name(m)} ties")
            for i in range(len(self.order)):
                rows[i].append(_range(values[f"{key} ties low"].iloc[i], values[f"{key} ties high"].iloc[i], fmt_num))

    def _shows_counts(self) -> bool:
        """Whether the marked table has better/worse count columns (up to three references, not all pairs)."""
        return self.comparisons is not None and len(self.references) <= 3 and not self.settings.get("all_pairs")

    def _count_cells(self, m: Any, columns: list[str], rows: list[list[Any]]) -> None:
        """Better/worse counts against each reference (up to three, and not for all pairs)."""
        if not self._shows_counts():
            return
        labels, lookup = self.labels(), self._lookup()
        for ref in self.references:
            columns.append(f"{self.name(m)} better/worse vs {labels[ref]}")
            for i, run in enumerate(self.order):
                c = lookup.get((str(m), run, ref))
                rows[i].append("" if c is None else f"{c['better']}/{c['worse']}")

    def _composition_cells(self, m: Any, columns: list[str], rows: list[list[Any]], fmt_num: str) -> None:
        name, comp = str(m), self.composition
        if comp is None or f"{name} rank" not in comp.columns:
            return
        comp = comp.loc[self.order]
        shown = self.name(m)
        columns += [f"{shown} rank", f"{shown} LOTO", f"{shown} LOTO rank", f"{shown} boot rank"]
        for i in range(len(self.order)):
            r = comp.iloc[i]
            rows[i] += [str(int(r[f"{name} rank"])),
                        _range(r.get(f"{name} loto low"), r.get(f"{name} loto high"), fmt_num),
                        _range(r.get(f"{name} loto rank best"), r.get(f"{name} loto rank worst"), "{:.0f}"),
                        _range(r.get(f"{name} boot rank low"), r.get(f"{name} boot rank high"), "{:.0f}")]


def _plain(value: Any) -> Any:
    """A cell of :meth:`CampaignTable.frame` for :func:`render`: plain floats, ints and bools; missing as NaN."""
    if value is pd.NA or value is None:
        return float("nan")  # printed nan, and null in jsonl
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _range(low: Any, high: Any, number: str) -> str:
    if low is None or high is None or pd.isna(low) or pd.isna(high):
        return ""
    return f"[{number.format(float(low))}, {number.format(float(high))}]"


def campaign_table(evaluation: Evaluation, *, baselines: Sequence[str] | None = None, all_pairs: bool = False,
                   test: str = "t", correction: str | None = None, alpha: float = 0.05, trials: int = 10_000,
                   ci: float | None = None, interval: str = "bootstrap", resamples: int = 10_000,
                   seed: int | None = 0, composition: pd.DataFrame | None = None,
                   order: Sequence[str] | None = None, diff_interval: str = "percentile",
                   covers: str = "topics", draws: int = 1000, diff_level: float | None = None,
                   unjudged: bool = False, ties: bool = False) -> CampaignTable:
    """A table to publish from an evaluation: comparisons, intervals and composition ranges, as asked.

    Args:
        evaluation: The evaluation (any entry point's).
        baselines: Compare every run with these runs.
        all_pairs: Compare every pair of runs (each run gets a letter).
        test: ``"t"``, ``"wilcoxon"`` or ``"randomization"`` (see :func:`compare_values`).
        correction: A statsmodels ``multipletests`` method applied per measure, or None.
        alpha: Significance level.
        trials: Randomization test trials.
        ci: Confidence level of the per-run intervals (None: no intervals).
        interval: ``"bootstrap"`` or ``"t"``.
        resamples: Bootstrap resamples of the queries.
        seed: Seed of the randomization test and the bootstrap (queries are put in natural order of their ids
            before any seeded draw, so the result does not depend on the order the data came in).
        composition: A :func:`~ir_rarity.compare.uncertainty.composition` table of the same runs, or None.
        order: Display order of the runs (default: the evaluation's).
        diff_interval: ``"percentile"`` or ``"bca"``: the paired bootstrap interval of each comparison's mean
            difference (``resamples`` resamples, ``seed``; see :func:`compare_values`).
        diff_level: Its confidence level (default: ``ci``, else 0.95).
        unjudged: Add each measure's unjudged share and bounds (:mod:`ir_rarity.compare.rests`; the evaluation
            made with ``unjudged=True``).
        ties: Add each measure's range over tie orders (the evaluation made with ``ties=True``).

        covers: What the per-run intervals account for (``Evaluation.interval``): ``"topics"`` (default, the
            bootstrap or t-interval over queries), ``"unjudged"``, ``"ties"`` or ``"all"``.
        draws: Draws of the unjudged documents' judgments (``covers="unjudged"`` or ``"all"``).
    """
    names = list(evaluation.names)
    order_list = list(order) if order is not None else names
    values = evaluation.table().rename(columns={evaluation.label(m): str(m) for m in evaluation.measures})
    comparisons = references = None
    level = diff_level if diff_level is not None else (ci if ci is not None else 0.95)
    if baselines or all_pairs:
        comparisons = compare_values(evaluation.values, names, baselines, all_pairs=all_pairs, test=test,
                                     correction=correction, alpha=alpha, trials=trials, seed=seed,
                                     query_ids=evaluation.query_ids, diff_level=level,
                                     diff_interval=diff_interval, resamples=resamples)
        references = list(order_list) if all_pairs else [str(b) for b in dict.fromkeys(baselines or [])]
    if ci is not None and covers != "topics":
        values = add_covered_intervals(values, evaluation, ci, covers, draws=draws, seed=seed)
    elif ci is not None:
        values = add_intervals(values, evaluation.values, evaluation.measures, ci, interval, resamples, seed,
                               evaluation.query_ids)
    if unjudged or ties:
        values = pd.concat([values, *(rest_frame(evaluation, m, unjudged, ties, key=str(m))
                                      for m in evaluation.measures)], axis=1)
    family = 0 if comparisons is None else int(comparisons.attrs["family"])  # distinct unordered pairs
    settings = {"test": test, "correction": correction, "alpha": alpha, "trials": trials, "ci": ci,
                "interval": interval, "resamples": resamples, "seed": seed, "all_pairs": all_pairs,
                "family": family, "diff_interval": diff_interval, "diff_level": level, "unjudged": unjudged,
                "ties": ties}
    settings.update(covers=covers, draws=draws)
    return CampaignTable(evaluation=evaluation, order=order_list, comparisons=comparisons,
                         references=references or [], values=values, composition=composition, settings=settings)
