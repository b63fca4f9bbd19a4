r"""The one rule every entry point uses to score runs against a campaign.

* **No separate runs**: the campaign's own runs are evaluated, all as members (S and S_d as counted).
* **Runs given**: each run is scored against the campaign on its own. A run whose ranked lists equal a member's
  (to the depth S_d is counted at) *is* that member and scores its campaign value (a :class:`MemberNotice`
  names the member). Any other run is scored as if it alone had joined: :math:`S + 1` systems, and its own
  documents counted in :math:`S_d`. A run's score therefore never depends on which other runs are evaluated
  beside it.
* **Joint** (``joint=True``): the given runs join the campaign together (:math:`S + k`, each newcomer's
  documents counted for all), as :class:`~ir_rarity.engine.joined.JoinedCampaign` defines it.

Every entry point reaches :func:`apply_rule` through one door, :func:`ir_rarity.evaluate` (or, for a campaign
already in hand, :func:`ir_rarity.evaluation.evaluate_campaign`, which ``Pool.evaluate`` and ``CountTable.evaluate``
are): the command line, the ir_measures provider (and so ``pt.Experiment``), ``ir_rarity.Experiment``, tables,
meta-evaluation and pooling analyses.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import ir_measures
import numpy as np
import pandas as pd

from ir_rarity.engine.against import query_positions, rows_against
from ir_rarity.engine.codes import ScorePrecision
from ir_rarity.engine.compute import compute, is_engine_measure, s_d_depth
from ir_rarity.engine.contract import Campaign, MemberCampaign
from ir_rarity.engine.joined import JoinedCampaign
from ir_rarity.engine.judgments import Judgments
from ir_rarity.engine.members import report_members as _report_members
from ir_rarity.engine.pages import without_hugepage_advice
from ir_rarity.engine.qrels import EncodedQrels, encode_qrels
from ir_rarity.engine.rests import Rests
from ir_rarity.engine.result import Evaluation
from ir_rarity.engine.rows import Rows
from ir_rarity.engine.runs import Duplicates, rank_runs, ranked_as_scores, without_duplicates
from ir_rarity.engine.standard import compute_standard, covers
from ir_rarity.errors import DegeneratePoolWarning, ParameterError, warn
from ir_rarity.measures.asl import RankingLengthWarning
from ir_rarity.measures.parse import measure_labels
from ir_rarity.progress import progress as bar

__all__ = ["BLOCK_ROWS", "apply_rule", "query_positions", "rows_against", "rows_for_runs"]


def rows_for_runs(campaign: Campaign, frames: Mapping[str, pd.DataFrame], qrels: EncodedQrels,
                  duplicates: Duplicates = "error") -> tuple[Rows, dict[int | None, list[str | None]]]:
    """Rank and encode ``frames`` against the campaign and the qrels, then :func:`rows_against`."""
    query_vocab, doc_vocab = campaign.vocabularies()
    ranked = rank_runs(frames, [query_vocab, qrels.query_extra], [doc_vocab, qrels.doc_extra], duplicates,
                       scores=campaign.scores)
    return rows_against(campaign, ranked, qrels)


@without_hugepage_advice
def apply_rule(
    campaign: Campaign,
    qrels: pd.DataFrame | Judgments,
    measures: Sequence[ir_measures.Measure] | Any,
    runs: Mapping[str, pd.DataFrame] | None = None,
    *,
    joint: bool = False,
    duplicates: Duplicates = "error",
    progress: bool | None = None,
    encoded_qrels: EncodedQrels | None = None,
    unjudged: bool = False,
    ties: bool = False,
) -> Evaluation:
    """Score runs against a campaign by the one rule of this module.

    Args:
        campaign: What the runs are scored against.
        qrels: The :class:`~ir_rarity.engine.judgments.Judgments` (encoded here once per campaign vocabulary, and
            carried by the result), or a canonical qrels frame (``query_id, doc_id, relevance``).
        measures: Measures (objects or ir_measures strings), ir_rarity's and standard ones, or a mapping
            ``measure -> column name`` (:func:`~ir_rarity.measures.parse.measure_labels`; the
            :class:`~ir_rarity.measures.parse.MeasureLabels` it made is taken as it is).
        runs: Run name -> canonical run frame; None evaluates the campaign's own runs (a
            :class:`~ir_rarity.engine.contract.MemberCampaign`).
        joint: Score the given runs as joining the campaign together.
        duplicates: For given runs: ``"error"`` or ``"first"`` (see :func:`~ir_rarity.engine.runs.rank_runs`).
        progress: Progress bar over the runs measures outside the engine go through ir_measures for (None:
            :mod:`ir_rarity.progress`'s default, on a terminal only).
        encoded_qrels: ``qrels`` (a frame) already encoded against the campaign's vocabularies (by a caller that
            scores many runs against one campaign), or None to encode them here.
        unjudged: Also gather, per measure the engine scores, the unjudged share and the bounds
            (:mod:`~ir_rarity.engine.unjudged`), carried by the result.
        ties: Also gather the range and expected value over tie orders (:mod:`~ir_rarity.engine.ties`).

    Returns:
        An :class:`Evaluation`, carrying the qrels as :class:`~ir_rarity.engine.judgments.Judgments` (with their
        encoding against the campaign) for the analyses that go on from it.

    Raises:
        ParameterError: no runs to evaluate, ``joint`` without runs, or a measure the campaign cannot compute.

    """
    labels = measure_labels(measures)
    measure_list = list(labels)
    engine = [m for m in measure_list if is_engine_measure(m)]
    # trec_eval's measures that the engine computes itself, and every other measure, through ir_measures
    standard_in_engine = [m for m in measure_list if not is_engine_measure(m) and covers(m)]
    through_ir_measures = [m for m in measure_list if not is_engine_measure(m) and not covers(m)]
    depths = list(dict.fromkeys(s_d_depth(m) for m in engine if getattr(m, "NEEDS_POOL", True)))
    campaign, members_of, names, mode = _what_is_scored(campaign, runs, joint, duplicates)
    if isinstance(qrels, Judgments):  # encoded once per vocabulary (a joined campaign has its own)
        judgments, encoded = qrels, qrels.encoded_for(campaign)
    else:
        if encoded_qrels is None or joint:  # a joined campaign has vocabularies of its own
            encoded_qrels = encode_qrels(qrels, *campaign.vocabularies())
        judgments, encoded = Judgments.from_encoded(qrels, campaign, encoded_qrels), encoded_qrels
    qrels = judgments.frame
    _warn_if_degenerate(campaign, engine)
    values: dict[Any, np.ndarray] = {}
    members: dict[str, str] = {}
    asl = [m for m in engine if str(getattr(m, "NAME", "")) == "ASL"]
    longest: list[np.ndarray] = []
    rests = Rests(measure_list, unjudged, ties, campaign.scores) if unjudged or ties else None
    if engine or standard_in_engine:
        if members_of is not None:  # a block of members at a time: what the kernels hold stays bounded
            blocks: Iterable[Rows] = (members_of.member_rows(encoded, block)
                                      for block in members_of.member_blocks(BLOCK_ROWS))
        else:
            assert runs is not None
            rows, membership = rows_for_runs(campaign, runs, encoded, duplicates)
            blocks = [rows]
        values.update(_compute_blocks(engine, standard_in_engine, _longest_rankings(blocks, longest) if asl
                                      else blocks, rests))
        if members_of is None and engine:
            members = _report_members(names, membership)
    if through_ir_measures:
        source = members_of
        frames: Iterable[tuple[str, pd.DataFrame]] = (
            ((n, source.run(n)) for n in names) if source is not None
            else ((str(n), without_duplicates(str(n), f, duplicates, campaign.scores))
                  for n, f in (runs or {}).items()))
        values.update(_with_ir_measures(through_ir_measures, qrels, encoded, frames, len(names), progress,
                                        campaign.scores))
    run_lengths = _warn_if_lengths_differ(names, longest, asl) if asl else {}
    return Evaluation(names=names, query_ids=encoded.query_ids, measures=measure_list, values=values,
                      info=campaign.info(), depths=depths, members=members, mode=mode, campaign=campaign,
                      qrels=qrels, judgments=judgments, run_lengths=run_lengths, labels=labels,
                      rests=rests.values(len(names), len(encoded.query_ids)) if rests is not None else {})


def _what_is_scored(campaign: Campaign, runs: Mapping[str, pd.DataFrame] | None, joint: bool,
                    duplicates: Duplicates) -> tuple[Campaign, MemberCampaign | None, list[str], str]:
    """``(campaign to score against, the campaign whose members are scored or None, run names, mode)``.

    Raises:
        ParameterError: no runs and a campaign that does not keep its own, ``joint`` without runs, or no runs.

    """
    if runs is None:
        if joint:
            raise ParameterError("joint=True needs runs to join the campaign")
        if not isinstance(campaign, MemberCampaign):
            raise ParameterError(f"{campaign!r} does not keep its runs: give the runs to evaluate against it")
        return campaign, campaign, list(campaign.names), "members"
    if not runs:
        raise ParameterError("no runs to evaluate")
    names, mode = [str(n) for n in runs], "joint" if joint else "alone"
    if joint:
        campaign = JoinedCampaign(campaign, runs, duplicates=duplicates)
    return campaign, None, names, mode


BLOCK_ROWS = 1 << 19
"""Rows of campaign members the engine scores in one pass (about half a million): every cell's value depends only
on its own rows and the campaign's counts, so scoring the members block by block gives the same values with the
kernels' temporaries bounded by one block (about 40 bytes a row for the bench's ten measures: 20 MB). Blocks of
1 M rows score round 1's 3.5 M rows a fifth faster than blocks of 4 M (their temporaries stay in cache), and
blocks of half a million as fast; they take 10-15 MB off the peak of ``ir-rarity eval`` on a 6.3 M-row campaign."""


def _compute_blocks(engine: Sequence[Any], standard_in_engine: Sequence[Any], blocks: Iterable[Rows],
                    rests: Rests | None = None) -> dict[Any, np.ndarray]:
    """Each measure's runs x queries matrix, computed block of runs by block and stacked in run order.

    ``rests`` (if given) gathers what each block's scores rest on before the block is released.
    """
    parts: dict[Any, list[np.ndarray]] = {m: [] for m in [*engine, *standard_in_engine]}
    for rows in blocks:
        for m in engine:
            parts[m].append(compute(m, rows))
        for m in standard_in_engine:
            parts[m].append(compute_standard(m, rows))
        if rests is not None:
            rests.add(rows)
        rows.release()
    return {m: p[0] if len(p) == 1 else np.vstack(p) for m, p in parts.items()}


def _warn_if_degenerate(campaign: Campaign, engine: Sequence[Any]) -> None:
    pooled = [str(m) for m in engine if getattr(m, "NEEDS_POOL", True)]
    if pooled and campaign.info().num_systems == 1:
        warn(f"the pool holds a single system (S = 1): {', '.join(pooled)} cannot tell rare documents from "
             "common ones (every document a member retrieved has S_d = S); score the run against a campaign of "
             "several systems (give the campaign's runs, or pool= / --pool)", DegeneratePoolWarning)


def _longest_rankings(blocks: Iterable[Rows], longest: list[np.ndarray]) -> Iterator[Rows]:
    """``blocks`` as they are, recording each block's per-run longest ranking over the qrels' queries.

    The lengths are appended to ``longest`` before the block is scored and released.
    """
    for rows in blocks:
        sizes = np.asarray(rows.cell_sizes()).reshape(rows.n_runs, rows.n_queries)
        longest.append(sizes.max(axis=1, initial=0).astype(np.int64))
        yield rows


def _warn_if_lengths_differ(names: list[str], longest: list[np.ndarray], asl: Sequence[Any]) -> dict[str, int]:
    """Run -> its longest ranking over the qrels' queries, with one warning when they differ.

    The :class:`RankingLengthWarning` is given when an ASL measure without ``length`` is evaluated (eq. 3
    rewards the shorter runs) and names the shorter runs.
    """
    lengths = np.concatenate(longest) if longest else np.zeros(0, dtype=np.int64)
    run_lengths = {name: int(n) for name, n in zip(names, lengths, strict=True)}
    unpadded = [str(m) for m in asl if m["length"] is None]
    if not unpadded or len(set(run_lengths.values())) < 2:
        return run_lengths
    top = max(run_lengths.values())
    shorter = [f"{name!r} ({n})" for name, n in sorted(run_lengths.items(), key=lambda item: item[1]) if n < top]
    named = ", ".join(shorter[:5]) + (f" and {len(shorter) - 5} more" if len(shorter) > 5 else "")
    warn(f"{', '.join(unpadded)}: the runs return rankings of different lengths (longest per run over the qrels' "
         f"queries: {min(run_lengths.values())} to {top}); shorter runs score lower (better) ASL, a relevant "
         f"document they miss counting only the non-relevant documents they returned: {named}; compare them with "
         f"ASL(length={top})", RankingLengthWarning)
    return run_lengths


def _with_ir_measures(measures: list[Any], qrels: pd.DataFrame, encoded: EncodedQrels,
                      frames: Iterable[tuple[str, pd.DataFrame]], n_runs: int, progress: bool | None = None,
                      scores: ScorePrecision = "float32") -> dict[Any, np.ndarray]:
    """Standard measures through ir_measures, run by run (they do not depend on the campaign).

    With ``scores="float64"``, trec_eval's measures (those pytrec_eval computes) are given each run with its
    scores replaced by its ranks in trec_eval 10.0's order (:func:`~ir_rarity.engine.runs.ranked_as_scores`), so
    that pytrec_eval, which compares scores as C floats, sees trec_eval 10.0's rankings. Other measures (e.g.
    ir_measures' ``Judged@k``) keep the run as it is: their provider's order is theirs.
    """
    rewritten = [m for m in measures if scores == "float64" and ir_measures.pytrec_eval.supports(m)]
    rest = [m for m in measures if m not in rewritten]
    evaluators = [(ir_measures.evaluator(ms, qrels), rank_scores, ms) for ms, rank_scores in ((rewritten, True),
                                                                                               (rest, False)) if ms]
    scripted = [m for m in measures if _by_gdeval(m)]
    if scripted and any(not str(q).isdigit() for q in encoded.query_ids):  # refused before the script prints
        raise ParameterError(_provider_failed(scripted, encoded.query_ids, None))
    column = {q: i for i, q in enumerate(encoded.query_ids)}
    out = {m: np.full((n_runs, len(column)), np.nan) for m in measures}
    for r, (_, frame) in enumerate(bar(frames, desc="ir_measures", total=n_runs, unit="run", enabled=progress)):
        for evaluator, rank_scores, ms in evaluators:
            try:
                for metric in evaluator.iter_calc(ranked_as_scores(frame) if rank_scores else frame):
                    if metric.query_id in column:
                        out[metric.measure][r, column[metric.query_id]] = metric.value
            except subprocess.CalledProcessError as error:  # a provider that runs a script (gdeval.pl for ERR)
                raise ParameterError(_provider_failed(ms, encoded.query_ids, error)) from None
    for m in measures:  # a query the run lacks scores the measure's default, as in ir_measures' calc_aggregate
        default = getattr(m, "DEFAULT", 0.0)
        out[m] = np.where(np.isnan(out[m]), default, out[m]) if not np.isnan(default) else out[m]
    return out


def _by_gdeval(measure: Any) -> bool:
    """Whether ir_measures computes ``measure`` with trec's ``gdeval.pl`` (``ERR@k``): no other provider has it."""
    gdeval = getattr(ir_measures, "gdeval", None)
    return bool(gdeval is not None and gdeval.supports(measure) and not ir_measures.pytrec_eval.supports(measure))


def _provider_failed(measures: Sequence[Any], query_ids: Iterable[Any],
                     error: subprocess.CalledProcessError | None) -> str:
    """One line for measures whose provider script cannot score these queries, or failed.

    trec's ``gdeval.pl`` (ir_measures' provider of ``ERR@k``) reads numeric query ids only and stops at another.
    """
    named = ", ".join(str(m) for m in measures)
    text = [str(q) for q in query_ids if not str(q).isdigit()]
    if error is None or text:
        return (f"{named}: ir_measures computes it with trec's gdeval.pl, which reads numeric query ids only, and "
                f"query {text[0]!r} is not one (leave {named} out, or number the queries)")
    return f"{named}: ir_measures' provider script exited with status {error.returncode}"
