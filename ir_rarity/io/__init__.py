"""Reading runs and qrels from files and in-memory shapes."""

from ir_rarity.io.frames import as_qrels_frame, as_run_frame
from ir_rarity.io.trec import read_trec_qrels, read_trec_run

__all__ = ["as_qrels_frame", "as_run_frame", "read_trec_qrels", "read_trec_run"]
