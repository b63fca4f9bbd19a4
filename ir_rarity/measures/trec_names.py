"""trec_eval's names for measures (``P.10``, ``P_5,10``, ``map``, ``ndcg_cut.10``, ``recip_rank``, ``all_trec``).

trec_eval users name measures as ``-m P.10 -m map``; ir_measures' syntax is ``P@10 AP``. A text that ir_measures'
own syntax does not read is read here by ir_measures' own trec_eval parser (:func:`ir_measures.parse_trec_measure`),
so both tools agree on what each name means:

* ``map`` is ``AP``, ``recip_rank`` ``RR``, ``ndcg_cut.10`` ``nDCG@10``, ``P.10`` ``P@10``, ``recall.100``
  ``R@100``, ``num_rel_ret`` ``NumRelRet``...;
* ``base.v1,v2`` and ``base_v1,v2`` give one measure per value (``P.5,10``: ``P@5`` and ``P@10``);
* a parameterised name alone gives trec_eval's default values (``ndcg_cut``: nDCG at 5, 10, 15, 20, 30, 100, 200,
  500 and 1000);
* ``all_trec`` (and the other pytrec_eval nicknames: ``set``, ``all_prefs``...) gives every measure of the group
  that ir_measures supports; those it does not (``gm_map``, ``utility``, ...) are named in one notice.

A name ir_measures' syntax reads keeps that meaning: ``P`` is ``P`` (all retrieved), not trec_eval's nine cutoffs.

Each measure is labelled with the name given: ``P.10`` stays ``P.10``; a text giving several measures labels each
with its value in the form given (``P.5,10``: ``P.5`` and ``P.10``), or as trec_eval prints it when the values are
trec_eval's defaults (``ndcg_cut``: ``ndcg_cut_5``... ``ndcg_cut_1000``).
"""

from __future__ import annotations

import re
from typing import Any

import ir_measures

from ir_rarity.errors import Notice, ParameterError, warn

__all__ = ["TREC_NICKNAMES", "read_trec_measures", "with_trec_options"]

TREC_NICKNAMES = ("all_trec", "set", "all_prefs", "prefs", "qrels_jg")
"""trec_eval's names of groups of measures (``-m all_trec``); ``official`` is ir_rarity's (the benchmark's own)."""

_VALUES = re.compile(r"^(?P<base>.+?)(?P<sep>[._])(?P<values>[0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)$")


def _value_text(value: Any) -> str:
    """A default parameter value as trec_eval prints it in a measure's name (``5``; recall levels ``0.10``)."""
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def _one(text: str) -> list[tuple[ir_measures.Measure, str]]:
    """The measures of one trec_eval name (not a group), each with its label. Raises ValueError as ir_measures."""
    measures = list(ir_measures.parse_trec_measure(text))
    if len(measures) == 1:
        return [(measures[0], text)]
    written = _VALUES.match(text)
    if written is not None and ir_measures.parse_trec_measure(written["base"]) != measures:  # base.v1,v2
        values = written["values"].split(",")
        return [(m, f"{written['base']}{written['sep']}{v}") for m, v in zip(measures, values, strict=True)]
    return [(m, f"{text}_{_value_text(next(iter(m.params.values())))}") for m in measures]  # defaults


def read_trec_measures(text: str) -> list[tuple[ir_measures.Measure, str]] | None:
    """The measures trec_eval's name ``text`` stands for, each with its label; None if it is not such a name.

    Args:
        text: A trec_eval measure name as given to ``trec_eval -m`` (``P.10``, ``map``, ``all_trec``).

    Returns:
        ``[(measure, label), ...]`` in trec_eval's order, or None when ``text`` is no trec_eval name.

    Raises:
        ParameterError: a trec_eval measure ir_measures does not support (``gm_map``), or a group none of whose
            measures it supports.

    """
    text = text.strip()
    if text in TREC_NICKNAMES:
        import pytrec_eval  # ir_measures' dependency: its groups are trec_eval's (read here, not through
        # ir_measures.parse_trec_measure(group), which prints the measures it skips on stdout, where data goes)

        found: list[tuple[ir_measures.Measure, str]] = []
        skipped = []
        for name in sorted(pytrec_eval.supported_nicknames[text]):
            try:
                found += _one(name)
            except ValueError:
                if name != "runid":
                    skipped.append(name)
        if not found:
            raise ParameterError(f"-m {text}: none of its measures is supported by ir_measures")
        if skipped:
            warn(f"-m {text}: {len(skipped)} of trec_eval's measures are not supported by ir_measures and left out "
                 f"({', '.join(skipped)})", Notice)
        return found
    try:
        return _one(text)
    except ValueError as e:
        message = " ".join(str(e).split())
        if "not yet supported" in message or "unknown argument" in message:
            raise ParameterError(f"trec_eval measure {text!r}: {message.replace('known trec name', 'known')} by "
                                 "ir_measures") from None
        return None


def with_trec_options(measure: ir_measures.Measure, judged_only: bool = False, rel: int | None = None
                      ) -> ir_measures.Measure:
    """``measure`` under trec_eval's ``-J`` (``judged_only``) and ``-l`` (``rel``), where it takes them.

    A parameter the measure sets itself is kept (``P(rel=1)@10`` stays at 1 under ``-l 2``); a measure without the
    parameter is returned as it is, as trec_eval leaves it (``-l`` does not change ``ndcg_cut``, whose gains are the
    labels).
    """
    params: dict[str, Any] = {}
    supported = getattr(measure, "SUPPORTED_PARAMS", {})
    if judged_only and "judged_only" in supported and "judged_only" not in measure.params:
        params["judged_only"] = True
    if rel is not None and "rel" in supported and "rel" not in measure.params:
        params["rel"] = rel
    return measure(**params) if params else measure
