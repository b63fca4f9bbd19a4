"""``ir_rarity.Experiment``: ``pt.Experiment``'s tables, computed from one :func:`ir_rarity.evaluate` call.

PyTerrier evaluates each system on its own; rarity measures need the other systems. :func:`Experiment` runs every
system once, scores all the results in one :func:`ir_rarity.evaluate` call (rarity and standard measures in the
vectorized engine, any other measure through ir_measures once per system), and builds ``pt.Experiment``'s tables
from those per-query matrices: means, baseline counts, significance tests (scipy) and multiple-testing corrections
(statsmodels), in ``pt.Experiment``'s columns, order, dtypes and formats.

The module holds the public entry points; the machinery is in the subpackage ``ir_rarity.integrations.experiment``,
one concern a module, computing apart from rendering: ``inputs`` converts and checks the arguments (``validate=`` on
PyTerrier's public inspection API) and parses the measures once into the ``{measure: column}`` mapping every later
step reads, ``execution`` runs the systems, ``scores`` evaluates them in one call and computes means, significance
tests and corrections, and ``rendering`` renders the tables, per-query frames and dicts (``perquery="both"``: an
:class:`~ir_rarity.integrations.experiment.rendering.ExperimentResults` pair).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ir_measures
import pandas as pd

from ir_rarity.engine import COVERS
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.integrations.experiment.execution import Saving, check_save_dir, run_systems
from ir_rarity.integrations.experiment.inputs import (
    backfill_topics,
    checked_options,
    convert_measures,
    filtered,
    qrels_for_pyterrier,
    systems_and_names,
    validate_systems,
)
from ir_rarity.integrations.experiment.rendering import ExperimentResults, Interval, render
from ir_rarity.integrations.experiment.scores import score
from ir_rarity.io.datasets import fetch

__all__ = ["Experiment", "ExperimentResults", "as_topics_frame"]

MeasureLike = ir_measures.Measure | str


# ---------------------------------------------------------------------------------------------------- inputs
def as_topics_frame(topics: Any) -> pd.DataFrame:
    """Topics as a PyTerrier frame (``qid, query``) from a DataFrame, a topics file, or an ir_datasets dataset/id.

    For an ir_datasets dataset the query text is ``query.default_text()`` (the title for TREC topics).
    """
    if isinstance(topics, pd.DataFrame):
        return topics
    if isinstance(topics, str):
        if os.path.isfile(topics):
            import pyterrier as pt

            return pt.io.read_topics(topics)
        return fetch(topics, "topics", _topics_of)
    if hasattr(topics, "queries_iter"):
        return _topics_of(topics)
    raise InputError(f"unsupported topics type {type(topics).__name__}: give a DataFrame, a topics file or an "
                     "ir_datasets dataset or id")


def _topics_of(dataset: Any) -> pd.DataFrame:
    rows = [(q.query_id, q.default_text()) for q in dataset.queries_iter()]
    return pd.DataFrame(rows, columns=["qid", "query"])



# ---------------------------------------------------------------------------------------------------- the entry point
def Experiment(
    retr_systems: Sequence[Any] | Mapping[str, Any],
    topics: Any,
    qrels: Any,
    eval_metrics: Sequence[MeasureLike] | MeasureLike,
    names: Sequence[str] | None = None,
    perquery: bool | str = False,
    dataframe: bool = True,
    batch_size: int | None = None,
    filter_by_qrels: bool = False,
    filter_by_topics: bool = True,
    baseline: int | str | list[int | str] | None = None,
    test: str | Callable[..., Any] = "t",
    correction: str | None = None,
    correction_alpha: float = 0.05,
    highlight: str | None = None,
    round: int | Mapping[str, int] | None = None,
    verbose: bool | str = "auto",
    validate: str = "warn",
    save_dir: str | None = None,
    save_mode: str = "warn",
    save_format: Any = "trec",
    precompute_prefix: bool = False,
    plan: str = "linear",
    *,
    pool: Any = None,
    joint: bool = False,
    teams: Mapping[str, str] | str | tuple[str, str] | None = None,
    ci: float | None = None,
    unjudged: bool = False,
    ties: bool = False,
    covers: str = "topics",
    draws: int = 1000,
    seed: int | None = 0,
) -> Any:
    r"""Compare systems as ``pt.Experiment`` does, with rarity measures computed against all of them.

    Rarity measures weigh each relevant document :math:`d` by how few of the campaign's :math:`S` systems
    retrieved it, :math:`w(d) = 1 + \alpha\,(1 - S_d/S)` (Türkmen, Lease & Kutlu, ECIR 2023). Each system (a
    transformer, or a DataFrame of results) is run once on ``topics``; then one :func:`ir_rarity.evaluate` call gives
    every per-query value, by the one evaluation rule: without ``pool``, the systems compared are the campaign;
    with ``pool`` (an existing campaign: a :class:`~ir_rarity.Pool`, a :class:`~ir_rarity.CountTable`, run files, a
    folder, a glob, a saved ``.npz`` or a ``.parquet`` count table), each system is scored against it on its own
    (as the member it equals, or as if it alone had joined, :math:`S + 1`), or, with ``joint=True``, as joining it
    together (:math:`S + k`).

    From those values the tables are ``pt.Experiment``'s (PyTerrier 1.1), column for column, with its dtypes and
    row order: a measure ir_measures computes is added up query after query in the order ``pt.Experiment`` meets
    the queries (so the means equal its to the last digit); counts (``NumRet``, ``num_rel``...) are summed;
    ``round`` rounds as Python's :func:`round`; per-query rows come in its order; string measures are read as
    trec_eval names first (``"map"``, ``"ndcg_cut_10"``, column named as given), else in ir_measures syntax
    (``"P_rare(alpha=0.5)@100"``, ``"ASL@g1-10"``, column named as given, whitespace outside quotes dropped; an object:
    ``str(measure)``). ir_rarity's measures are averaged by their own aggregator, as :func:`ir_rarity.evaluate`'s
    table: measures that skip undefined queries (ASL) average over the queries with a value and are tested on the
    queries defined for both systems. For lower-is-better measures (ASL), ``"<m> +"`` counts the queries where a
    system is better (lower) than the baseline, and ``highlight`` marks the lowest value. ``'mrt'`` is the mean
    response time, ms per qrels query (0 for DataFrames); as ``pt.Experiment``, ``perquery="both"`` leaves it out of
    the means.

    Beyond ``pt.Experiment``: ``baseline`` may be a name for a list of systems too, and a list of baselines
    (PyTerrier's proposal, terrier-org/pyterrier#597) gives one block of columns per baseline, each equal to
    ``pt.Experiment``'s block for that baseline, with the baseline's name appended to every column
    (``"P@10 +(BM25)"``, ``"P@10 p-value(BM25)"``, ``"P@10 p-value corrected(BM25)"``); ``correction`` then runs once
    per measure over all the blocks' p-values together. ``baseline`` with ``perquery="both"`` is allowed.

    Args:
        retr_systems: Transformers or result DataFrames (PyTerrier or ir_measures columns), as a list or a dict
            ``name -> system``.
        topics: A DataFrame ``qid, query``, a topics file, or an ir_datasets dataset or id.
        qrels: A DataFrame (PyTerrier or ir_measures columns), a qrels file, or an ir_datasets dataset or id.
        eval_metrics: The measures (objects or strings), and ``'mrt'``.
        names: System names (default: ``str(system)``); ignored for a dict, whose keys are the names.
        perquery: False (means), True (per-query frame ``name, qid, measure, value``) or ``"both"``.
        dataframe: DataFrames (True) or ``pt.Experiment``'s dicts (False).
        batch_size: Run transformers on batches of this many topics.
        filter_by_qrels: Drop topics without qrels.
        filter_by_topics: Drop qrels of queries not in the topics.
        baseline: Index or name of the baseline system, or a list of them.
        test: ``"t"`` (:func:`scipy.stats.ttest_rel`), ``"wilcoxon"`` (:func:`scipy.stats.wilcoxon`) or a function
            ``(system, baseline) -> (statistic, p-value)``.
        correction: A :func:`statsmodels.stats.multitest.multipletests` method (``"holm"``, ``"fdr_bh"``...): adds
            ``"<m> reject"`` and ``"<m> p-value corrected"``.
        correction_alpha: The family-wise error rate or false discovery rate of ``correction``.
        highlight: ``"bold"`` or ``"color"``/``"colour"``: a Styler marking the best value of each column.
        round: Digits to round the means to (an int, or a dict ``column -> digits``).
        verbose: Show progress while systems run (``"auto"``: no).
        validate: ``"warn"``, ``"error"`` or ``"ignore"``: check that transformers give the columns measures need
            (``pt.Experiment``'s "Experiment Pipeline Validation Report", warned or raised as ``ValueError``).
        save_dir: Cache each transformer's results in this directory (``<name>.res.gz``) and write
            ``aggregated.csv`` and ``perquery.csv`` there, as ``pt.Experiment``.
        save_mode: For a results file already there: ``"warn"``, ``"error"``, ``"reuse"`` or ``"overwrite"``.
        save_format: ``"trec"``, a module with ``dump``/``load`` (``pickle``) or a pair ``(read, write)``.
        precompute_prefix: Only False (each system runs on its own).
        plan: Only ``"linear"``.
        pool: An existing campaign to score the systems against.
        joint: With ``pool``: the systems join it together instead of each on its own.
        teams: S counts teams, not systems: a mapping ``name -> team`` or a leaderboard CSV (as in
            :func:`ir_rarity.evaluate`).
        ci: Add an interval of each mean at this level (e.g. 0.95): columns ``"<m> ci low"`` and
            ``"<m> ci high"`` after each measure, covering what ``covers`` names; the table's
            ``attrs["interval"]`` says what (``covers``, ``"what"`` in words, level, draws, seed).
        covers: What the intervals account for, as ``campaign_table(covers=)`` and ``ir-rarity eval --covers``
            (:meth:`ir_rarity.Evaluation.interval`): ``"topics"`` (default: a percentile bootstrap over queries,
            :func:`ir_rarity.compare.intervals.add_intervals`), ``"unjudged"`` (draws of the unjudged documents'
            judgments), ``"ties"`` (the exact range over orders of tied documents; the level does not apply) or
            ``"all"`` (topics and judgments drawn together, widened by the tie range). Needs ``ci``; anything but
            ``"topics"`` evaluates the systems' whole results (and gathers the unjudged documents or ties without
            adding their columns, unless ``unjudged``/``ties`` ask for them).
        draws: Draws of the unjudged documents' judgments (``covers="unjudged"`` or ``"all"``).
        seed: Seed of the bootstrap and of the draws.
        unjudged: Add each measure's ``"<m> unjudged"`` (mean share of the documents it reads that are unjudged),
            ``"<m> low"`` and ``"<m> high"`` (unjudged documents non-relevant, and relevant at the lowest relevant
            grade; :meth:`ir_rarity.Evaluation.bounds`), after the other columns.
        ties: Add each measure's ``"<m> ties low"`` and ``"<m> ties high"``: its min and max over every order of
            documents with equal scores (:meth:`ir_rarity.Evaluation.ties`); results with a ``rank`` column that
            orders otherwise than their scores are named in one warning
            (:func:`~ir_rarity.compare.rank_column.rank_column_check`).

    Returns:
        What ``pt.Experiment`` returns: the means table (a Styler with ``highlight``), the per-query frame, or both
        (an :class:`ExperimentResults` pair ``averages, perquery``, as PyTerrier's ``EvaluationDataTuple``); dicts
        with ``dataframe=False``.

    Raises:
        ParameterError: an argument ``pt.Experiment`` refuses or that cannot be reproduced (``plan="tree"``), an
            unknown, out-of-range or badly typed ``baseline``, a bad measure, a ``validate`` other than ``"warn"``,
            ``"error"`` or ``"ignore"``.
        ValueError: ``validate="error"`` and a pipeline refuses the topics or does not give a column the measures
            need.
        InputError: unreadable systems, topics or qrels, or a system without results.

    Example:
        >>> import pandas as pd, ir_rarity
        >>> from ir_rarity import covid_round1
        >>> pool = ir_rarity.Pool.from_runs(covid_round1.runs, split_by_tag=True)
        >>> systems = {n: pool.run(n).rename(columns={"query_id": "qid", "doc_id": "docno"}) for n in ["BERT", "run1"]}
        >>> qrels = ir_rarity.read_trec_qrels(covid_round1.qrels)
        >>> topics = pd.DataFrame({"qid": sorted(qrels["query_id"].unique()), "query": ""})
        >>> table = ir_rarity.Experiment(systems, topics, qrels, ["P@10", "AP_rare"], baseline="BERT")
        >>> list(table.columns)
        ['name', 'P@10', 'AP_rare', 'P@10 +', 'P@10 -', 'P@10 p-value', 'AP_rare +', 'AP_rare -', 'AP_rare p-value']

    .. versionadded:: 0.1.0
    """
    interval = checked_interval(ci, covers, draws, seed)
    systems, names = systems_and_names(retr_systems, names)
    options = checked_options(names, baseline, test, correction, correction_alpha, round, perquery, plan,
                              precompute_prefix)
    if save_dir is not None:
        check_save_dir(save_dir, names)
    measures = convert_measures(eval_metrics)
    topics_frame, qrels_frame = filtered(as_topics_frame(topics), qrels_for_pyterrier(qrels), filter_by_qrels,
                                          filter_by_topics)
    validate_systems(systems, topics_frame, measures, names, validate)
    saving = None if save_dir is None else Saving(save_dir, save_mode, save_format)
    runs = run_systems(systems, names, topics_frame, batch_size, saving, verbose is True)
    backfill = [] if perquery is False else backfill_topics(topics_frame, qrels_frame)
    drawn, tied = covers in ("unjudged", "all"), covers in ("ties", "all")  # what the interval needs gathered
    scores = score(runs, names, qrels_frame, measures, backfill,
                    {"pool": pool, "joint": joint, "teams": teams, "progress": verbose is True,
                     "unjudged": unjudged or drawn, "ties": ties or tied}, shown=(unjudged, ties))
    return render(scores, options, perquery, dataframe, highlight, interval, save_dir)


def checked_interval(ci: float | None, covers: str, draws: int, seed: int | None) -> Interval | None:
    """The intervals ``ci``, ``covers``, ``draws`` and ``seed`` ask for, or None without ``ci``.

    Raises:
        ParameterError: an unknown ``covers``, ``covers`` other than ``"topics"`` without ``ci``, a level outside
            (0, 1), or fewer than one draw.
    """
    if covers not in COVERS:
        raise ParameterError(f"unknown covers={covers!r}; choose from {', '.join(COVERS)}")
    if ci is None:
        if covers != "topics":
            raise ParameterError(f"covers={covers!r} needs ci=LEVEL (the level of the interval, e.g. ci=0.95)")
        return None
    if not 0.0 < ci < 1.0:
        raise ParameterError(f"ci={ci!r}: the level must be in (0, 1)")
    if draws < 1:
        raise ParameterError(f"draws={draws!r}: give at least one draw")
    return Interval(ci, covers, draws, seed)
