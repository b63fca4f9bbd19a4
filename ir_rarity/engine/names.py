"""The choices of the engine's options, and their one help text (no heavy imports: command-line options use them)."""

from __future__ import annotations

__all__ = ["COVERS", "COVERS_CHOICES", "DUPLICATES", "DUPLICATES_HELP"]

DUPLICATES = ("error", "first")
"""What to do with a document a run lists twice for a query (:data:`ir_rarity.engine.runs.Duplicates`)."""

DUPLICATES_HELP = ("a document listed twice for a query: error refuses the run (default, as trec_eval); first keeps "
                   "the occurrence trec_eval ranks first, the highest-scored")
"""The help of every ``--duplicates`` option (:func:`ir_rarity.engine.runs.check_duplicates` does what it says)."""

COVERS = {
    "topics": "topic sampling (bootstrap over queries)",
    "unjudged": "the unjudged documents' judgments (drawn from the judged documents at the same S_d and rank)",
    "ties": "every order of tied documents (exact range)",
    "all": "topics and unjudged documents drawn together, widened by the tie range",
}
"""What each choice of ``Evaluation.interval(covers=...)`` (``--covers``) accounts for, as its outputs state it
(:mod:`ir_rarity.engine.score_intervals`)."""

COVERS_CHOICES = tuple(COVERS)
"""The choices of ``--covers``."""
