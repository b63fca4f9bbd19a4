"""The value every layer above the engine reads: :class:`Evaluation`.

An :class:`Evaluation` holds, for every evaluated run, query and measure, the per-query value, and says what the
values were computed against (the campaign: S, what S counts, the depths S_d was counted at, how the runs were
scored). Tables, significance tests, meta-evaluation, pooling analyses, the command line, the ir_measures provider
and ``ir_rarity.Experiment`` all take one; none of them looks below it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import ir_measures
import numpy as np
import pandas as pd

from ir_rarity.display import best_first, shown_rows
from ir_rarity.engine.contract import CampaignInfo
from ir_rarity.engine.means import aggregate
from ir_rarity.engine.members import members_caption
from ir_rarity.engine.rests import UNJUDGED_KINDS
from ir_rarity.engine.score_intervals import score_interval
from ir_rarity.errors import ParameterError, did_you_mean
from ir_rarity.measures.parse import higher_is_better, measure_label, parse_measure
from ir_rarity.tables import render

if TYPE_CHECKING:
    from ir_rarity.engine.contract import Campaign
    from ir_rarity.engine.judgments import Judgments

__all__ = ["MODES", "Evaluation"]

MODES = {
    "members": "its own runs scored",
    "alone": "each run scored as if it alone joined (or as the member it equals)",
    "joint": "the evaluated runs joined it together",
}
"""How the runs of an evaluation were scored against the campaign, and how :meth:`Evaluation.describe` says it."""


@dataclass
class Evaluation:
    """Per-query values of every evaluated run, and what they were computed against.

    Attributes:
        names: The evaluated runs (rows of every matrix).
        query_ids: The qrels' queries (columns of every matrix), sorted.
        measures: The measures, parsed, in the order asked.
        values: Measure -> ``(n_runs, n_queries)`` array of per-query values.
        info: The campaign.
        depths: Depths S_d was counted at for these measures (None: whole runs).
        members: Evaluated run -> the campaign member it was recognised as (runs given apart from the campaign).
        mode: ``"members"``, ``"alone"`` or ``"joint"`` (see :data:`MODES`).
        campaign: The campaign itself, for analyses that go on from these values (composition intervals).
        qrels: The qrels the values were computed with (``query_id, doc_id, relevance``).
        judgments: The same qrels as :class:`~ir_rarity.engine.judgments.Judgments`, holding their encoding
            against the campaign: analyses that go on from this evaluation (the report's) take them instead of
            the qrels, so one call encodes the qrels once per campaign vocabulary.
        labels: Measure -> the name the user gave it (the string passed, its whitespace outside quotes
            dropped): the column of every table. A measure without a label is named ``str(measure)``.
        run_lengths: Evaluated run -> its longest ranking over the qrels' queries, recorded when ASL measures
            are evaluated (ASL rewards shorter runs); ``attrs()["asl_lengths"]`` says whether they differ.
        whole_runs: Whether the campaign holds its runs whole: False when the front door read them for these
            measures only (to the depth they read); the judgments drawn by ``interval(covers="unjudged")`` need
            whole runs.
        rests: ``(measure, kind) -> (n_runs, n_queries)`` values of what each score rests on (kinds of
            :data:`~ir_rarity.engine.rests.UNJUDGED_KINDS` and :data:`~ir_rarity.engine.rests.TIE_KINDS`), gathered
            by ``evaluate(..., unjudged=True, ties=True)``, which reads whole runs for them (a campaign read for
            its measures alone may hold a cut of each ranking, so they are not derived after the fact).

    """

    names: list[str]
    query_ids: pd.Index
    measures: list[ir_measures.Measure]
    values: dict[ir_measures.Measure, np.ndarray]
    info: CampaignInfo
    depths: list[int | None] = field(default_factory=list)
    members: dict[str, str] = field(default_factory=dict)
    mode: str = "members"
    campaign: Campaign | None = field(default=None, repr=False, compare=False)
    qrels: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    judgments: Judgments | None = field(default=None, repr=False, compare=False)
    labels: dict[ir_measures.Measure, str] = field(default_factory=dict)
    run_lengths: dict[str, int] = field(default_factory=dict)
    whole_runs: bool = True
    rests: dict[tuple[ir_measures.Measure, str], np.ndarray] = field(default_factory=dict, repr=False,
                                                                      compare=False)

    # ------------------------------------------------------------------ what it was computed against
    def attrs(self) -> dict[str, object]:
        """What the campaign is, for ``DataFrame.attrs["pool"]``.

        With ASL measures, ``"asl_lengths"``: ``{"differ", "min", "max", "shorter"}`` over the runs' longest
        rankings (``shorter``: the runs whose longest ranking is below ``max``, which ASL without ``length``
        rewards). With runs scored each as if it alone joined (``scored == "alone"``), ``"S_newcomer"``: the S a
        run that is not a member was scored with (``S + 1``; a member's copy is scored with ``S``). A joined
        campaign's ``"S"`` counts the joined runs, ``"joined"`` says how many.
        """
        attrs = {**self.info.as_dict(self.depths), "scored": self.mode, "members": dict(self.members)}
        if self.mode == "alone":  # S above is the campaign's; a run that is not a member was scored with S + 1
            attrs["S_newcomer"] = self.info.num_systems + 1
        if self.run_lengths:
            low, high = min(self.run_lengths.values()), max(self.run_lengths.values())
            attrs["asl_lengths"] = {"differ": low != high, "min": low, "max": high,
                                    "shorter": [n for n, v in self.run_lengths.items() if v < high]}
        return attrs

    def describe(self) -> str:
        """One line naming the campaign, the depths and how the runs were scored."""
        return f"{self.info.describe(self.depths, alone=self.mode == 'alone')}; {MODES[self.mode]}"

    # ------------------------------------------------------------------ values
    def label(self, measure: ir_measures.Measure) -> str:
        """The column name of an evaluated measure: the string the user gave, else ``str(measure)``."""
        return self.labels.get(measure, str(measure))

    def measure(self, measure: ir_measures.Measure | str) -> ir_measures.Measure:
        """The evaluated measure that ``measure`` (an object, its string or the name the user gave it) names.

        Raises:
            ParameterError: the evaluation holds no such measure.

        """
        if isinstance(measure, str):
            given = measure_label(measure)
            for m in self.measures:
                if self.label(m) == given:
                    return m
        wanted = parse_measure(measure)
        for m in self.measures:
            if m == wanted or str(m) == str(wanted):
                return m
        raise ParameterError(f"{measure} was not evaluated; the evaluation holds "
                             f"{', '.join(self.label(m) for m in self.measures)}")

    def matrix(self, measure: ir_measures.Measure | str) -> pd.DataFrame:
        """Per-query values of one measure: one row per run (index ``run``), one column per query (``query_id``).

        ``attrs`` carries ``measure``, ``higher_is_better`` and ``pool`` (what it was computed against).
        """
        m = self.measure(measure)
        frame = pd.DataFrame(self.values[m], index=pd.Index(self.names, name="run"),
                             columns=pd.Index([str(q) for q in self.query_ids], name="query_id"))
        frame.attrs.update(measure=self.label(m), higher_is_better=higher_is_better(m), pool=self.attrs())
        return frame

    def means(self, measure: ir_measures.Measure | str) -> pd.Series:
        """Each run's aggregate of one measure (its mean over the qrels' queries), indexed by run."""
        m = self.measure(measure)
        return pd.Series(aggregate(m, self.values[m]), index=pd.Index(self.names, name="run"),
                         name=self.label(m))

    def table(self) -> pd.DataFrame:
        """One row per run (index ``run``), one column per measure (:meth:`label`), aggregated per measure."""
        table = pd.DataFrame({self.label(m): aggregate(m, self.values[m]) for m in self.measures},
                             index=pd.Index(self.names, name="run"))
        table.attrs["pool"] = self.attrs()
        return table

    def interval(self, measure: ir_measures.Measure | str, covers: str = "topics", level: float = 0.95, *,
                 method: str = "bootstrap", draws: int = 1000, resamples: int = 10_000, seed: int | None = 0
                 ) -> pd.DataFrame:
        """Each run's score and an interval that says what it covers (:mod:`ir_rarity.engine.score_intervals`).

        ``covers``: ``"topics"`` (the bootstrap over queries, or ``method="t"``: ``--ci`` as before),
        ``"unjudged"`` (what the judgments left open: drawn judgments of the unjudged documents,
        :mod:`ir_rarity.engine.judgment_draws`), ``"ties"`` (the exact range over the orders of tied documents)
        or ``"all"`` (topics and judgments drawn together, widened by the tie range).

        Returns:
            One row per run (index ``run``): the score, ``low``, ``high``; ``attrs`` says what it covers.

        """
        return score_interval(self, measure, covers, level, method=method, draws=draws, resamples=resamples,
                              seed=seed)

    def long(self) -> pd.DataFrame:
        """Per-query values, long: ``run, query_id, measure, value``."""
        n_runs, n_queries = len(self.names), len(self.query_ids)
        parts = [pd.DataFrame({
            "run": np.repeat(np.asarray(self.names, dtype=object), n_queries),
            "query_id": np.tile(self.query_ids.to_numpy(dtype=object), n_runs),
            "measure": self.label(m),
            "value": self.values[m].reshape(-1),
        }) for m in self.measures]
        long = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
            columns=["run", "query_id", "measure", "value"])
        long.attrs["pool"] = self.attrs()
        return long

    def select(self, names: Sequence[str]) -> Evaluation:
        """The same evaluation restricted to the runs ``names`` (in that order).

        Raises:
            KeyError: a name is not an evaluated run.

        """
        index = {n: i for i, n in enumerate(self.names)}
        missing = [n for n in names if n not in index]
        if missing:
            raise KeyError(f"no evaluated run named {missing[0]!r}{did_you_mean(missing[0], self.names)}")
        rows = np.array([index[n] for n in names], dtype=np.int64)
        return Evaluation(names=list(names), query_ids=self.query_ids, measures=list(self.measures),
                          values={m: v[rows] for m, v in self.values.items()}, info=self.info,
                          depths=list(self.depths), members={n: self.members[n] for n in names if n in self.members},
                          mode=self.mode, campaign=self.campaign, qrels=self.qrels, judgments=self.judgments,
                          labels=dict(self.labels), whole_runs=self.whole_runs,
                          run_lengths={n: self.run_lengths[n] for n in names if n in self.run_lengths},
                          rests={k: v[rows] for k, v in self.rests.items()})

    # ------------------------------------------------------------------ what a score rests on
    def _rest(self, measure: ir_measures.Measure, kind: str) -> np.ndarray:
        """The ``(n_runs, n_queries)`` values of one kind for an evaluated measure.

        Raises:
            ParameterError: they were not gathered (the evaluation was made without ``unjudged=`` / ``ties=``).

        """
        if (measure, kind) not in self.rests:
            option = "unjudged" if kind in UNJUDGED_KINDS else "ties"
            raise ParameterError(f"{self.label(measure)}: its {kind!r} values were not gathered; evaluate with "
                                 f"{option}=True (ir-rarity eval --{option})")
        return self.rests[(measure, kind)]

    def _rest_frame(self, measure: ir_measures.Measure | str, columns: dict[str, tuple[np.ndarray, bool]],
                    per_query: bool, what: str) -> pd.DataFrame:
        """Per run (means) or per query (long) frame of ``column -> (values, is a score)``.

        Scores are averaged as the measure aggregates; shares over the queries where they are defined.
        """
        m = self.measure(measure)
        if per_query:
            n_runs, n_queries = len(self.names), len(self.query_ids)
            frame = pd.DataFrame({"run": np.repeat(np.asarray(self.names, dtype=object), n_queries),
                                  "query_id": np.tile(self.query_ids.to_numpy(dtype=object), n_runs),
                                  **{c: v.reshape(-1) for c, (v, _) in columns.items()}})
        else:
            frame = pd.DataFrame({c: aggregate(m, v) if is_score else _nanmean(v) for c, (v, is_score)
                                  in columns.items()}, index=pd.Index(self.names, name="run"))
        frame.attrs.update(measure=self.label(m), what=what, pool=self.attrs())
        return frame

    def unjudged(self, measure: ir_measures.Measure | str, per_query: bool = False) -> pd.DataFrame:
        """The share of the documents ``measure`` reads that are unjudged (:mod:`~ir_rarity.engine.unjudged`).

        Columns ``unjudged`` (per run: the mean over queries with a ranking), ``rare judged`` (rarity measures:
        the judged share of the rare documents read, S_d <= 2; NaN otherwise), and for RBP ``residual``
        (Moffat & Zobel, TOIS 2008). ``per_query``: one row per run and query (``run, query_id, ...``).
        """
        m = self.measure(measure)
        columns = {"unjudged": (self._rest(m, "unjudged"), False), "rare judged": (self._rest(m, "rare judged"), False)}
        if (m, "residual") in self.rests:
            columns["residual"] = (self._rest(m, "residual"), True)
        return self._rest_frame(m, columns, per_query, "share of the documents read that are unjudged")

    def bounds(self, measure: ir_measures.Measure | str, per_query: bool = False) -> pd.DataFrame:
        """The bounds over unjudged documents: ``low`` and ``high``, per run (means) or per query.

        ``low``: unjudged documents non-relevant (the value itself); ``high``: the run's unjudged documents read
        judged relevant at the lowest relevant grade (:func:`~ir_rarity.engine.unjudged.high_values`).
        """
        m = self.measure(measure)
        return self._rest_frame(m, {"low": (self.values[m], True), "high": (self._rest(m, "high"), True)},
                                per_query, "value with unjudged documents non-relevant (low) and relevant (high)")

    def ties(self, measure: ir_measures.Measure | str, per_query: bool = False) -> pd.DataFrame:
        """The value over the orders of tied documents, per run (means) or per query.

        ``value`` (trec_eval's order), ``ties low`` and ``ties high`` (min and max over every order of tied
        documents), ``ties expected`` (their mean, McSherry & Najork, ECIR 2008; :mod:`~ir_rarity.engine.ties`).
        """
        m = self.measure(measure)
        return self._rest_frame(m, {"value": (self.values[m], True), "ties low": (self._rest(m, "ties low"), True),
                                    "ties expected": (self._rest(m, "ties expected"), True),
                                    "ties high": (self._rest(m, "ties high"), True)},
                                per_query, "value over the orders of tied documents (trec_eval's order: value)")

    def _shown(self) -> pd.DataFrame:
        """The table of means best first by the first measure (:func:`~ir_rarity.display.best_first`)."""
        first = self.measures[0]
        return best_first(self.table(), self.label(first), higher_is_better(first))

    def _rendered(self, fmt: str) -> str:
        """The means best first, as many rows as pandas would show (:mod:`ir_rarity.display`), captioned."""
        table = self._shown()
        rows: list[tuple[object, ...]] = [(str(run), *(float(v) for v in values)) for run, values in
                                          zip(table.index, table.to_numpy(), strict=True)]
        shown, cut = shown_rows(len(rows)), ""
        if shown is not None:
            head, tail = shown
            rows = [*rows[:head], ("...",) * (1 + table.shape[1]), *(rows[-tail:] if tail else [])]
            cut = (f" (rows shown: the first {head}{f' and the last {tail}' if tail else ''} of {len(table)}, as "
                   "pandas' display.max_rows and display.min_rows say)")
        members = members_caption(self.members)
        return render(["run", *map(str, table.columns)], rows, fmt, 4,
                      caption=f"{len(self.names)} runs x {len(self.query_ids)} queries; best first by "
                              f"{self.label(self.measures[0])}{cut}; {self.describe()}"
                              + (f"; {members}" if members else ""))

    def _repr_html_(self) -> str:
        """The table of means as HTML, captioned with what it was computed against (a notebook shows this)."""
        return self._rendered("html")

    def _repr_markdown_(self) -> str:
        """The table of means as markdown, captioned likewise."""
        return self._rendered("markdown")

    def __repr__(self) -> str:
        """One line saying what the values are, then the means best first, as pandas prints (and cuts) a frame."""
        members = members_caption(self.members)
        return (f"Evaluation({len(self.names)} runs x {len(self.query_ids)} queries, "
                f"measures [{', '.join(self.label(m) for m in self.measures)}]; {self.describe()}"
                + (f"; {members}" if members else "") + f")\n{self._shown().round(4)!r}")


def _nanmean(values: np.ndarray) -> np.ndarray:
    """Row means over the defined (non-NaN) entries; NaN for a row without one."""
    defined = ~np.isnan(values)
    counts = defined.sum(axis=1)
    sums = np.where(defined, values, 0.0).sum(axis=1)
    return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
