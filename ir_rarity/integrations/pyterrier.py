"""``ir_rarity.Experiment``: ``pt.Experiment`` with rarity measures computed against a campaign.

PyTerrier evaluates each system on its own; rarity measures need the other systems. :func:`Experiment` runs
every system once, then lets ``pt.Experiment`` evaluate the results with a campaign active, by the one
evaluation rule (:mod:`ir_rarity.engine.evaluate`): without ``pool``, the systems compared are the campaign;
with ``pool``, each system is scored against that campaign on its own (as the member it equals, or as if it
alone had joined), or, with ``joint=True``, as joining it together. Afterwards it fixes what ``pt.Experiment``
cannot know: measures where lower is better (baseline win/loss counts and highlighting) and measures whose mean
skips undefined queries.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import ir_measures
import numpy as np
import pandas as pd

from ir_rarity.engine.aggregate import aggregate, skips_undefined
from ir_rarity.errors import InputError, MemberNotice
from ir_rarity.io.frames import as_qrels_frame
from ir_rarity.measures.parse import higher_is_better, parse_measures
from ir_rarity.pool.pool import Pool

__all__ = ["Experiment", "as_topics_frame"]

MeasureLike = ir_measures.Measure | str


def as_topics_frame(topics: Any) -> pd.DataFrame:
    """Topics as a PyTerrier frame (``qid, query``) from a DataFrame, a topics file, or an ir_datasets dataset/id.

    For an ir_datasets dataset the query text is ``query.default_text()`` (the title for TREC topics).
    """
    if isinstance(topics, pd.DataFrame):
        return topics
    if isinstance(topics, str):
        import os

        if os.path.isfile(topics):
            import pyterrier as pt

            return pt.io.read_topics(topics)
        from ir_rarity.io.datasets import fetch

        return fetch(topics, "topics", _topics_of)
    if hasattr(topics, "queries_iter"):
        return _topics_of(topics)
    raise InputError(f"unsupported topics type {type(topics).__name__}: give a DataFrame, a topics file or an "
                     "ir_datasets dataset or id")


def _topics_of(dataset: Any) -> pd.DataFrame:
    rows = [(q.query_id, q.default_text()) for q in dataset.queries_iter()]
    return pd.DataFrame(rows, columns=["qid", "query"])


def _qrels_for_pyterrier(qrels: Any) -> pd.DataFrame:
    frame = as_qrels_frame(qrels)
    return frame.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})


def _run_systems(systems: Sequence[Any], names: Sequence[str], topics: pd.DataFrame, verbose: bool
                 ) -> tuple[list[pd.DataFrame], list[float]]:
    from ir_rarity.progress import progress

    results: list[pd.DataFrame] = []
    seconds: list[float] = []
    for system, name in progress(list(zip(systems, names, strict=True)), desc="systems", unit="system",
                                 enabled=verbose):
        start = time.perf_counter()
        result = system if isinstance(system, pd.DataFrame) else system.transform(topics)
        seconds.append(time.perf_counter() - start)
        if {"query_id", "doc_id"} <= set(result.columns) and not {"qid", "docno"} & set(result.columns):
            result = result.rename(columns={"query_id": "qid", "doc_id": "docno"})  # ir_measures columns
        if not {"qid", "docno", "score"} <= set(result.columns):
            raise InputError(f"system {name!r} returned columns {list(result.columns)}; expected qid, docno, score")
        results.append(result)
    return results, seconds


def _campaign(results: Sequence[pd.DataFrame], names: Sequence[str], pool: Any, teams: Mapping[str, str] | None,
              joint: bool) -> Any:
    """What the systems are scored against: themselves, the campaign ``pool``, or ``pool`` joined by them."""
    from ir_rarity.io.frames import as_run_frame
    from ir_rarity.pool.resolve import resolve_campaign

    if pool is None:
        if joint:
            raise ValueError("joint=True needs a pool to join; without one the systems are the campaign already")
        return Pool.from_runs(dict(zip(names, results, strict=True)),
                              teams=None if teams is None else {n: teams.get(n, n) for n in names})
    campaign = resolve_campaign(pool, teams=teams)
    if not joint:
        return campaign
    from ir_rarity.engine.joined import JoinedCampaign

    return JoinedCampaign(campaign, {n: as_run_frame(r, n) for n, r in zip(names, results, strict=True)})


def _directional_fixes(table: pd.DataFrame, measures: Sequence[ir_measures.Measure]) -> pd.DataFrame:
    """Swap the baseline win (+) and loss (-) counts of lower-is-better measures, so that + means better."""
    table = table.copy()
    for m in measures:
        name = str(m)
        plus, minus = f"{name} +", f"{name} -"
        if not higher_is_better(m) and plus in table.columns and minus in table.columns:
            table[[plus, minus]] = table[[minus, plus]].to_numpy()
    return table


def _highlight(table: pd.DataFrame, measures: Sequence[ir_measures.Measure], how: str) -> Any:
    best_is_max = {str(m): higher_is_better(m) for m in measures}
    best_is_max.update({f"{m!s} +": True for m in measures})
    best_is_max.update({f"{m!s} -": False for m in measures})
    if "mrt" in table.columns:
        best_is_max["mrt"] = False
    style = "font-weight: bold" if how == "bold" else "background-color: lightgreen"

    def mark(column: pd.Series) -> list[str]:
        if column.name not in best_is_max or not pd.api.types.is_numeric_dtype(column):
            return [""] * len(column)
        best = column.max() if best_is_max[column.name] else column.min()
        return [style if v == best else "" for v in column]

    return table.style.apply(mark, axis=0)


def Experiment(
    retr_systems: Sequence[Any] | Mapping[str, Any],
    topics: Any,
    qrels: Any,
    eval_metrics: Sequence[MeasureLike],
    names: Sequence[str] | None = None,
    *,
    pool: Any = None,
    joint: bool = False,
    teams: Mapping[str, str] | None = None,
    perquery: bool | str = False,
    dataframe: bool = True,
    baseline: int | str | None = None,
    highlight: str | None = None,
    round: int | Mapping[str, int] | None = None,
    ci: float | None = None,
    verbose: bool = False,
    **kwargs: Any,
) -> Any:
    """Compare systems like ``pt.Experiment``, with rarity measures computed against all of them.

    Each system (a transformer, or a DataFrame of results) is run once on ``topics``. Without ``pool``, the
    systems compared are the campaign (S = the number of systems). With ``pool`` (an existing campaign: a
    :class:`~ir_rarity.Pool`, a :class:`~ir_rarity.CountTable`, run files, a folder, a glob, a saved ``.npz`` or
    a ``.parquet`` count table), each system is scored against it on its own: a system whose results equal a
    campaign run (to the depth S_d is counted at) scores as that run, any other as if it alone had joined
    (S + 1); ``joint=True`` scores the systems as joining the campaign together. Then ``pt.Experiment``
    evaluates the results with that campaign active, and every argument it knows (``baseline``, ``test``,
    ``correction``, ``perquery``, ``round``, ``filter_by_qrels``, ``save_dir``...) means what it means there.

    Measures may be ``ir_measures`` objects or strings in ir_measures syntax (``'P_rare(alpha=0.5)@100'``,
    ``'ASL@g1-10'``, ``'nDCG@10'``); ``'mrt'`` (mean response time, ms per query) is measured here.
    For measures where lower is better, the baseline columns ``"<measure> +"`` count queries where the
    system is *better* (lower) than the baseline, and ``highlight`` marks the lowest value. Measures whose
    aggregate skips undefined (NaN) queries are averaged that way.

    Args:
        retr_systems: Transformers or result DataFrames, as a list or a dict ``name -> system``.
        topics: A DataFrame ``qid, query``, a topics file, or an ir_datasets dataset or id.
        qrels: A DataFrame (PyTerrier or ir_measures columns), a qrels file, or an ir_datasets dataset or id.
        eval_metrics: The measures.
        names: System names (default: the dict keys, or ``str(system)``).
        pool: An existing campaign to score the systems against.
        joint: With ``pool``: the systems join it together (S + k) instead of each on its own.
        teams: Optional ``run name -> team`` mapping for the pool (S then counts teams).
        perquery: As in ``pt.Experiment``: False, True or ``"both"``.
        dataframe: Return DataFrames (True) or dicts (False).
        baseline: Index or name of the baseline system.
        highlight: ``"bold"`` or ``"color"``: mark the best value of each measure column.
        round: Round measure means to this many digits (or a dict per measure name).
        ci: Add a confidence interval of each mean at this level (e.g. 0.95): columns ``"<measure> ci low"`` and
            ``"<measure> ci high"``, a percentile bootstrap over queries (seed 0,
            :func:`ir_rarity.compare.intervals.add_intervals`).
        verbose: Show progress while systems run.
        **kwargs: Passed to ``pt.Experiment``.

    Returns:
        What ``pt.Experiment`` returns for these arguments.

    .. versionadded:: 0.1.0
    """
    import pyterrier as pt

    if isinstance(retr_systems, Mapping):
        if names is not None:
            raise ValueError("give names either as dict keys or as names=, not both")
        names = [str(n) for n in retr_systems]
        retr_systems = list(retr_systems.values())
        if isinstance(baseline, str):
            baseline = names.index(baseline)
    systems = list(retr_systems)
    names = [str(s) for s in systems] if names is None else [str(n) for n in names]
    if len(names) != len(systems):
        raise ValueError("names should be the same length as retr_systems")
    if len(set(names)) != len(names):
        raise ValueError(f"system names must be unique, got {names}")
    want_mrt = "mrt" in eval_metrics
    measures = parse_measures([m for m in eval_metrics if m != "mrt"])
    topics_frame = as_topics_frame(topics)
    qrels_frame = _qrels_for_pyterrier(qrels)

    results, seconds = _run_systems(systems, names, topics_frame, verbose)
    the_pool = _campaign(results, names, pool, teams, joint)
    from ir_rarity.pool.context import activated

    with activated(the_pool), warnings.catch_warnings():
        if pool is None:  # the systems are the campaign: each is its own member, nothing to say
            warnings.simplefilter("ignore", MemberNotice)
        # pt.Experiment refuses per-query output together with a baseline: two calls, on results only.
        per_query = pt.Experiment(results, topics_frame, qrels_frame, measures, names=names, perquery=True,
                                  **{k: v for k, v in kwargs.items() if k not in ("test", "correction",
                                                                                   "correction_alpha")})
        averages = pt.Experiment(results, topics_frame, qrels_frame, measures, names=names, baseline=baseline,
                                 **kwargs)
    skipping = [m for m in measures if skips_undefined(m)]
    if skipping:
        matrices = _matrices(per_query, skipping, names)
        averages = _recompute_means(averages, matrices, names)
        if baseline is not None:
            averages = _recompute_tests(averages, matrices, names, baseline, kwargs)
    averages = _directional_fixes(averages, measures)
    if want_mrt:
        n_topics = max(len(topics_frame), 1)
        averages.insert(len(measures) + 1, "mrt", [1000.0 * s / n_topics for s in seconds])
    if ci is not None:
        from ir_rarity.compare.intervals import add_intervals

        averages = add_intervals(averages, _matrices(per_query, measures, names), measures, ci)
    if round is not None:
        for m in [str(m) for m in measures] + (["mrt"] if want_mrt else []):
            digits = round if isinstance(round, int) else round.get(m)
            if digits is not None:
                averages[m] = averages[m].round(digits)
    if perquery is True:
        return per_query if dataframe else _perquery_dict(per_query)
    shown: Any = averages
    if not dataframe:
        shown = {row["name"]: {c: row[c] for c in averages.columns if c != "name"} for _, row in averages.iterrows()}
    elif highlight in ("bold", "color", "colour"):
        shown = _highlight(averages, measures, "bold" if highlight == "bold" else "color")
    if perquery == "both":
        return shown, (per_query if dataframe else _perquery_dict(per_query))
    return shown


def _recompute_means(averages: pd.DataFrame, matrices: Mapping[ir_measures.Measure, np.ndarray],
                     names: Sequence[str]) -> pd.DataFrame:
    """Re-aggregate measures that skip undefined (NaN) queries from their systems x queries matrices."""
    averages = averages.copy()
    rows = [list(names).index(str(n)) for n in averages["name"]]
    for m, values in matrices.items():
        averages[str(m)] = aggregate(m, values[rows])
    return averages


def _recompute_tests(averages: pd.DataFrame, matrices: Mapping[ir_measures.Measure, np.ndarray],
                     names: Sequence[str], baseline: int | str, kwargs: Mapping[str, Any]) -> pd.DataFrame:
    """Baseline tests of NaN-skipping measures, in ``pt.Experiment``'s columns.

    Each pair is tested on the queries defined for both systems, by :func:`ir_rarity.compare.compare_values`.
    """
    from ir_rarity.compare.significance import compare_values

    base = names.index(baseline) if isinstance(baseline, str) else int(baseline)
    correction = kwargs.get("correction")
    tests = compare_values(dict(matrices), names, [names[base]],
                           test=kwargs.get("test", "t"), correction=correction,
                           alpha=kwargs.get("correction_alpha", 0.05))
    averages = averages.copy()
    rows = {name: averages.index[i] for i, name in enumerate(names)}
    for row in tests.to_dict("records"):
        at, measure = rows[str(row["run"])], str(row["measure"])
        averages.loc[at, f"{measure} p-value"] = float(row["pvalue"])
        if correction is not None:
            averages.loc[at, f"{measure} reject"] = bool(row["significant"])
            averages.loc[at, f"{measure} p-value corrected"] = float(row["pvalue_corrected"])
    return averages


def _matrices(per_query: pd.DataFrame, measures: Sequence[ir_measures.Measure], names: Sequence[str]
              ) -> dict[ir_measures.Measure, np.ndarray]:
    """Measure -> systems x queries matrix (rows in ``names`` order) from ``pt.Experiment``'s per-query frame."""
    out = {}
    for m in measures:
        wide = per_query[per_query["measure"] == str(m)].pivot_table(index="name", columns="qid", values="value",
                                                                     dropna=False)
        out[m] = wide.reindex(list(names)).to_numpy(np.float64)
    return out


def _perquery_dict(per_query: pd.DataFrame) -> dict[str, dict[str, dict[str, float]]]:
    out: dict[str, dict[str, dict[str, float]]] = {}
    for row in per_query.itertuples(index=False):
        out.setdefault(str(row.name), {}).setdefault(str(row.qid), {})[str(row.measure)] = float(row.value)  # type: ignore[arg-type]
    return out
