"""The front door: :func:`evaluate` scores runs with rarity and standard measures and returns an :class:`Evaluation`.

Every way in goes through here or through :func:`evaluate_campaign` (the same door with the campaign already in
hand): ``ir-rarity eval``, the ir_measures provider, ``ir_rarity.Experiment``, the Dask partitions, campaign tables,
meta-evaluation, judging analyses (and the deprecated ``Pool.evaluate`` and ``CountTable.evaluate``). Both apply
the one rule of :mod:`ir_rarity.engine.rule`, so a run and a campaign give one number whichever way they are
evaluated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import ir_measures

from ir_rarity.engine import Campaign, Duplicates, Evaluation, Judgments, MemberCampaign, ScorePrecision, apply_rule
from ir_rarity.errors import ParameterError
from ir_rarity.io.datasets import expand_official
from ir_rarity.measures.base import warn_large_alpha
from ir_rarity.measures.parse import measure_labels
from ir_rarity.pool import (
    Origin,
    block_rows,
    pass_two_rows,
    path_specs,
    read_runs,
    read_teams,
    required_depth,
    required_rows,
    resolve_campaign,
    should_stream,
    spec_origin,
    stream_campaign,
    streamable,
)

if TYPE_CHECKING:
    from ir_rarity.typing import CampaignLike, MeasuresLike, QrelsLike, RunsLike, TeamsLike

__all__ = ["Evaluation", "check_measure_pools", "evaluate", "evaluate_campaign", "measure_pool",
           "reads_in_two_passes"]


def evaluate(
    runs: RunsLike,
    qrels: QrelsLike,
    measures: MeasuresLike,
    *,
    pool: CampaignLike | None = None,
    joint: bool = False,
    teams: TeamsLike | None = None,
    duplicates: Duplicates = "error",
    split_by_tag: bool | None = None,
    scores: ScorePrecision | None = None,
    progress: bool | None = None,
    stream: bool | None = None,
    memory_limit: int | str | None = None,
    unjudged: bool = False,
    ties: bool = False,
) -> Evaluation:
    r"""Score runs with rarity and standard measures, by the one evaluation rule.

    Rarity measures weigh each relevant document d by how few of the campaign's S systems retrieved it:
    :math:`w(d) = 1 + \alpha\,(1 - S_d/S)` (Türkmen, Lease & Kutlu, ECIR 2023, eqs. 2-3); standard measures
    (``P@10``, ``AP``, ``nDCG@10``...) give ir_measures' values.

    * ``pool=None``: ``runs`` are the campaign. S counts them (or their teams) and S_d is counted from them.
    * ``pool`` given: each run is scored against that campaign on its own: a run whose ranked lists equal a
      member's (to the depth S_d is counted at) scores as that member; any other as if it alone had joined
      (:math:`S + 1`, its own documents counted in :math:`S_d`). With ``joint=True`` the runs join it together
      (:math:`S + k`).

    Measures are parsed once, the campaign is resolved once (files are listed once and read once), and each
    measure's own ``pool=`` must name that campaign.

    Args:
        runs: A dict ``name -> run`` (DataFrames with ir_measures or PyTerrier columns, dicts of dicts, or run
            files), run files, a folder, a glob, or a list of them; a file is one run named by its file name
            (``split_by_tag=True`` splits a file of several runs by its tag column). With ``pool=None`` also a
            saved pool (``.npz``).
        qrels: A qrels DataFrame, a TREC qrels file, an ir_measures qrels iterable or an ir_datasets id.
        measures: A measure or a list, as objects or strings in ir_measures syntax
            (``'P_rare(alpha=0.5)@100'``, ``'ASL@g1-10'``, ``'nDCG@10'``). A string names its measure's column as
            given, its whitespace outside quotes dropped: ``'P_rare(alpha=0)@100'``, not
            ``'P_rare(alpha=0.0)@100'``; an object is named ``str(measure)``; a measure given twice is kept once,
            under its first name. ``"official"`` stands for the official measures ir_datasets documents for the
            benchmark whose id ``qrels`` is.
        pool: The campaign to score ``runs`` against: a :class:`~ir_rarity.Pool`, a :class:`~ir_rarity.CountTable`,
            run files, a folder, a glob, a saved ``.npz`` or a ``.parquet`` count table.
        joint: With ``pool``: the runs join it together instead of each on its own.
        teams: S counts teams, not runs: a mapping ``run -> team`` or a leaderboard CSV (``'path:team_column'``,
            ``'path:run_column:team_column'``); for the runs being pooled (``runs`` without ``pool``, or ``pool``
            given as runs).
        duplicates: A document listed twice for a query: ``"error"`` (as trec_eval) or ``"first"``.
        split_by_tag: For run files: True splits every file into one run per tag; by default a file is one run.
        scores: How scores are compared when rankings are ordered. ``"float32"`` (the default for runs being
            pooled) gives pytrec_eval's and ir_measures' values, whose trec_eval compares scores as C floats;
            ``"float64"`` gives trec_eval 10.0's, which compares them as doubles (two scores that differ only
            beyond float precision are then not a tie). Standard measures computed by pytrec_eval are given
            trec_eval 10.0's rankings too. None: the pool's own (a saved pool or count table records it); a
            value that contradicts a built pool's is an error.
        progress: Progress bars; None shows them on a terminal only.
        stream: For run files without ``pool``: True reads them in two passes (:mod:`ir_rarity.pool.stream`:
            S_d counted first, then a block of runs at a time read, scored and dropped; the same values, memory
            independent of the number of runs); False never; None when they would not fit ``memory_limit``.
        memory_limit: A memory budget (bytes, or ``'4G'``): run files whose rows, estimated from their sizes,
            would not fit it held at once are read in two passes (when ``stream`` is None).
        unjudged: Also gather what each score leaves to unjudged documents: ``Evaluation.unjudged(m)`` and
            ``.bounds(m)`` (:mod:`ir_rarity.engine.unjudged`); run files are then read whole.
        ties: Also gather the range and mean over orders of tied scores: ``Evaluation.ties(m)``
            (:mod:`ir_rarity.engine.ties`); run files are then read whole.

    Returns:
        An :class:`~ir_rarity.Evaluation`: ``table()`` (one row per run), ``long()``, ``matrix(measure)`` (runs x
        queries), ``describe()`` and ``attrs()`` (what it was computed against).

    Raises:
        ParameterError: a bad measure, ``joint`` without ``pool``, or a measure naming another pool.
        InputError: unreadable runs, qrels or pool.

    Example:
        >>> import ir_rarity
        >>> from ir_rarity import covid_round1
        >>> result = ir_rarity.evaluate(covid_round1.runs, covid_round1.qrels, ["P@10", "P_rare(alpha=0.5)@10"],
        ...                             split_by_tag=True)
        >>> result.info.num_systems
        143

    """
    # "official": the benchmark's official measures, when the qrels are an ir_datasets id
    labels = measure_labels(expand_official(measures, qrels))  # each parsed measure under the string given
    measure_list = list(labels)
    team_map = read_teams(teams) if teams is not None else None
    whole = unjudged or ties  # what a score rests on reads every document of a ranking
    keep = None if whole else required_depth(measure_list)  # a campaign from files keeps what the measures read
    judgments = Judgments(qrels)
    if pool is None:
        if joint:
            raise ParameterError("joint=True needs a pool to join: without one, the runs are the campaign")
        # runs read from files keep only the rows the measures read (their judged rows with their ranks...)
        retention = required_rows(measure_list, judgments) if path_specs(runs) is not None and not whole else None
        if not whole and reads_in_two_passes(runs, measure_list, team_map, stream, memory_limit):
            streamed = stream_campaign(runs, measure_list, pass_two_rows(measure_list, judgments), keep_depth=keep,
                                       duplicates=duplicates, split_by_tag=split_by_tag, scores=scores,
                                       rows=block_rows(memory_limit))
            streamed_evaluation = evaluate_campaign(streamed, judgments, labels, progress=progress)
            streamed_evaluation.whole_runs = False  # read for these measures only
            return streamed_evaluation
        campaign = resolve_campaign(runs, teams=team_map, duplicates=duplicates, keep_depth=None if retention
                                    else keep, split_by_tag=split_by_tag, progress=progress, cache=False,
                                    scores=scores, retention=retention)
        if not isinstance(campaign, MemberCampaign):
            raise ParameterError(f"{campaign!r} does not keep its runs: give it as pool= and the runs to score")
        evaluation = evaluate_campaign(campaign, judgments, labels, progress=progress, unjudged=unjudged,
                                       ties=ties)
        given: object = runs  # a campaign given as the runs is taken as it is
        evaluation.whole_runs = campaign is given or (retention is None and keep is None)  # else cut for them
        return evaluation
    campaign = resolve_campaign(pool, teams=team_map, duplicates=duplicates, keep_depth=keep,
                                split_by_tag=split_by_tag, progress=progress, scores=scores)
    return evaluate_campaign(campaign, judgments, labels, runs, joint=joint, duplicates=duplicates,
                             split_by_tag=split_by_tag, progress=progress, unjudged=unjudged, ties=ties)


def reads_in_two_passes(runs: RunsLike, measures: Sequence[ir_measures.Measure], teams: TeamsLike | None,
                        stream: bool | None, memory_limit: int | str | None) -> bool:
    """Whether a campaign of ``runs`` is read in two passes (:mod:`ir_rarity.pool.stream`): :func:`evaluate`'s rule.

    ``stream`` False never; True always (or refused); None when the runs' rows would not fit ``memory_limit``
    (:func:`~ir_rarity.pool.stream.should_stream`) and the campaign can be
    (:func:`~ir_rarity.pool.stream.streamable`). Commands that read a campaign apply this one rule.

    Raises:
        ParameterError: ``stream=True`` for a campaign that cannot be (the reason named).

    """
    if stream is False or (stream is None and memory_limit is None):
        return False
    reason = streamable(measures, teams, runs)
    if stream:
        if reason is not None:
            raise ParameterError(f"cannot read the campaign in two passes (stream=True): {reason}")
        return True
    return reason is None and should_stream(runs, memory_limit)


def measure_pool(measure: ir_measures.Measure) -> str | None:
    """The pool a measure names with its own ``pool`` parameter (``P_rare(pool='runs/')@100``), or None."""
    params = getattr(measure, "params", {})
    spec = params.get("pool") if isinstance(params, dict) else None
    return str(spec) if spec else None


def check_measure_pools(campaign: Campaign, measures: Sequence[ir_measures.Measure]) -> None:
    """Refuse a measure whose own ``pool=`` names other files than the campaign it is evaluated against.

    A measure string carries its pool where ir_measures is the entry point (the stock command); where the
    campaign is given otherwise (``Pool.evaluate``, ``ir_rarity.evaluate(pool=...)``, ``ir-rarity eval``), a
    ``pool=`` naming the files the campaign was read from (unchanged since) is fine, and any other is an error,
    never a number computed against the wrong pool.

    Raises:
        ParameterError: a measure names another pool.

    """
    base = getattr(campaign, "campaign", campaign)  # a joined campaign: the campaign it extends
    origins: list[Origin] = [o for c in (campaign, base) if isinstance(o := getattr(c, "origin", None), Origin)]
    for measure in measures:
        spec = measure_pool(measure)
        named = None if spec is None else spec_origin(spec)
        if spec is not None and (named is None or not any(named.same_campaign(o) for o in origins)):
            raise ParameterError(f"{measure} names its own pool ({spec!r}), but is evaluated against another "
                                 f"({campaign.info().describe()}): drop pool= from the measure, or evaluate against "
                                 "that pool (--pool, ir_rarity.evaluate(pool=...))")


def evaluate_campaign(campaign: Campaign, qrels: QrelsLike | Judgments, measures: MeasuresLike,
                      runs: RunsLike | None = None, *, joint: bool = False,
                      duplicates: Duplicates = "error", split_by_tag: bool | None = None,
                      progress: bool | None = None, unjudged: bool = False, ties: bool = False) -> Evaluation:
    """Score runs against ``campaign`` by the one rule (:mod:`ir_rarity.engine.rule`).

    Args:
        campaign: What the runs are scored against (a :class:`~ir_rarity.Pool`, a :class:`~ir_rarity.CountTable`
            or any :class:`~ir_rarity.engine.contract.Campaign`).
        qrels: Qrels in any shape :func:`ir_rarity.io.frames.as_qrels_frame` accepts, or :class:`Judgments`
            (read once, encoded once per campaign vocabulary; the evaluation carries them as
            ``Evaluation.judgments``).
        measures: A measure or a list of them, as objects or strings in ir_measures syntax; a string given names
            its measure's column in every table (``Evaluation.labels``). The
            :class:`~ir_rarity.measures.parse.MeasureLabels` of a call is taken as it is (not parsed again).
        runs: Runs to score against the campaign, each on its own (see :func:`read_runs`); None scores the
            campaign's own runs (a pool).
        joint: The given runs join the campaign together (S + k).
        duplicates: For given runs: ``"error"`` (as trec_eval) or ``"first"``.
        split_by_tag: For run files: True splits every file into one run per tag; by default a file is one run.
        progress: Progress bars (reading, measures through ir_measures); None: on a terminal only.
        unjudged: Also gather the unjudged shares and bounds (given runs are then read whole).
        ties: Also gather the range and mean over tie orders (given runs are then read whole).

    Returns:
        The :class:`~ir_rarity.Evaluation`.

    Raises:
        ParameterError: a bad measure, a measure naming another pool, ``joint`` without runs, no runs.
        InputError: unreadable qrels or runs.

    """
    labels = measure_labels(measures)
    measure_list = list(labels)
    check_measure_pools(campaign, measure_list)
    warn_large_alpha(measure_list, labels)
    judgments = qrels if isinstance(qrels, Judgments) else Judgments(qrels)
    depth = None if unjudged or ties else required_depth(measure_list)
    frames = None if runs is None else read_runs(runs, depth=depth, duplicates=duplicates,
                                                 split_by_tag=split_by_tag, progress=progress,
                                                 scores=campaign.scores)
    return apply_rule(campaign, judgments, labels, frames, joint=joint, duplicates=duplicates, progress=progress,
                      unjudged=unjudged, ties=ties)
