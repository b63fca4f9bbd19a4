"""Which standard measure each rarity measure of the report is shown against: its base measure AT THE SAME CUTOFF.

A rarity measure weighs each relevant document of a standard measure (Türkmen, Lease & Kutlu, ECIR 2023, eqs. 2-3):
``P_rare(alpha=0.5)@100`` weighs ``P@100``, ``AP_rare@100`` weighs ``AP@100``, ``U_novel@k`` weighs ``P@k``. Comparing
``AP_rare@100`` with full-depth ``AP`` would mix the cutoff's effect with the rarity effect, so the report pairs a
rarity measure only with its base measure at its own cutoff (no cutoff: the base without one, :func:`base_name`),
and :func:`with_bases` adds that measure to the ones evaluated when it is missing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ir_rarity.compare.uncertainty import depends_on_pool
from ir_rarity.measures import FAMILIES
from ir_rarity.measures.parse import MeasureLabels, measure_labels, parse_measure

if TYPE_CHECKING:
    from ir_rarity.report.data import ReportData

__all__ = ["BASES", "base_name", "pair_label", "pair_title", "with_bases"]

BASES = {str(m.NAME): str(m.BASE_MEASURE) for m in FAMILIES if m.BASE_MEASURE}
"""Rarity measure name -> the name of the standard measure it weighs (each family's ``BASE_MEASURE``)."""


def base_name(measure: Any) -> str | None:
    """The standard measure ``measure`` weighs at its cutoff, as ir_measures writes it (``AP_rare@100``: ``AP@100``).

    None for a measure that weighs none. Nothing is parsed.
    """
    base = BASES.get(str(getattr(measure, "NAME", "")))
    if base is None:
        return None
    cutoff = getattr(measure, "params", {}).get("cutoff")
    return f"{base}@{cutoff}" if cutoff is not None else base


def with_bases(measures: Any) -> MeasureLabels:
    """``measures`` (parsed once), then each missing base measure at the same cutoff of a rarity measure.

    A base measure added is parsed once and labelled as ir_measures writes it (``AP@100``).

    Args:
        measures: Measures as :func:`~ir_rarity.measures.parse.measure_labels` takes them.

    Returns:
        The measures and their column names, for :func:`ir_rarity.evaluate`.

    """
    labels = measure_labels(measures)
    have = {str(m) for m in labels}
    for m in list(labels):
        name = base_name(m) if depends_on_pool(m) else None
        if name is not None and name not in have:
            have.add(name)
            labels[parse_measure(name)] = name
    return labels


def pair_label(rare: str, base: str, cutoff: Any) -> str:
    """The label every view of a pair carries: ``AP_rare@100 against AP@100 (both at cutoff 100)``."""
    at = f"both at cutoff {cutoff}" if cutoff is not None else "both over the whole ranking"
    return f"{rare} against {base} ({at})"


def pair_title(data: ReportData, pair: tuple[str, str]) -> dict[str, str]:
    """A pair's names and its label (:func:`pair_label`), for the report's templates and charts."""
    rare, base = pair
    cutoff = getattr(data.evaluation.measure(rare), "params", {}).get("cutoff")
    return {"rare": rare, "base": base, "label": pair_label(rare, base, cutoff)}
