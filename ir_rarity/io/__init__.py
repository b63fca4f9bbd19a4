"""Reading runs and qrels from files and in-memory shapes; writing files atomically.

Exports load on first use: importing ``ir_rarity.io.files`` or ``ir_rarity.io.guard`` does not load pandas.
"""

from typing import TYPE_CHECKING

from ir_rarity.lazy import lazy_exports

if TYPE_CHECKING:
    from ir_rarity.io.frames import as_qrels_frame, as_run_frame
    from ir_rarity.io.trec import read_trec_qrels, read_trec_run

__all__ = ["as_qrels_frame", "as_run_frame", "read_trec_qrels", "read_trec_run"]

__getattr__, __dir__ = lazy_exports(__name__, {
    "as_qrels_frame": "ir_rarity.io.frames", "as_run_frame": "ir_rarity.io.frames",
    "read_trec_qrels": "ir_rarity.io.trec", "read_trec_run": "ir_rarity.io.trec"}, globals())
