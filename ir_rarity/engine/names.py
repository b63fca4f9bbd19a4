"""The choices of the engine's options, and their one help text (no heavy imports: command-line options use them)."""

from __future__ import annotations

__all__ = ["DUPLICATES", "DUPLICATES_HELP"]

DUPLICATES = ("error", "first")
"""What to do with a document a run lists twice for a query (:data:`ir_rarity.engine.runs.Duplicates`)."""

DUPLICATES_HELP = ("a document listed twice for a query: error refuses the run (default, as trec_eval); first keeps "
                   "the occurrence trec_eval ranks first, the highest-scored")
"""The help of every ``--duplicates`` option (:func:`ir_rarity.engine.runs.check_duplicates` does what it says)."""
