"""The rows pass 2 of a streamed campaign scores, kept on disk from pass 1, so that no run file is parsed twice.

Pass 1 of :mod:`ir_rarity.pool.stream` reads every row of a block of runs anyway (to count S_d). The rows the
measures then read (:func:`~ir_rarity.pool.stream.pass_two_rows`: the judged rows with their ranks, the rows within a
cutoff, each ranking's length) are a small part of them; :func:`kept_rows` takes them out of the block's encoded
runs and a :class:`Spill` writes them to a temporary folder (an ``.npz`` of the arrays, without pickles, and an
Arrow IPC file of the query ids and docnos). Pass 2 reads them back instead of
decompressing and parsing the files again.

The folder is made with :func:`tempfile.mkdtemp` (under ``TMPDIR``, or the system's temporary folder) and removed
when the campaign is dropped or the process ends; no file of the user's is written. A block that cannot be written
(a full disk) is read again from its run files, as without a spill.
"""

from __future__ import annotations

import shutil
import socket
import tempfile
import weakref
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from ir_rarity.engine.codes import block_starts
from ir_rarity.pool.build.encoded import EncodedRuns
from ir_rarity.pool.build.retention import Retention

__all__ = ["Spill", "kept_rows"]

_ROWS = ("run", "query", "doc", "score", "rank")


def kept_rows(encoded: EncodedRuns, keep: Retention) -> EncodedRuns:
    """The rows of ``encoded`` that runs read with ``keep`` hold, with their whole-run ranks and lengths.

    ``encoded`` holds whole runs, or runs read with a retention that keeps at least every row ``keep`` keeps and
    every row within the largest ``keep.ties`` (then its row positions within a ranking are its ranks there); its
    rankings are contiguous, in trec_eval order. The result equals what reading the runs with ``keep`` gives
    (the docno vocabulary reduced to the docnos of the rows kept), so its values are the same to the last bit.
    """
    import pyarrow as pa

    n_queries = len(encoded.queries)
    cell = encoded.run.astype(np.int64) * n_queries + encoded.query
    with np.errstate(over="ignore"):
        single = encoded.score.astype(np.float32)
    qrels = keep.qrels
    judged = None
    if qrels is not None:
        query_ids = [str(q) for q in encoded.queries]
        doc_ids = pa.array(encoded.docs.array)
        judged = lambda: qrels.rows(query_ids, encoded.query, doc_ids, encoded.doc)  # noqa: E731
    kept = np.flatnonzero(keep.keep(cell, encoded.rank, single, judged))
    if encoded.returned is not None:
        returned = encoded.returned
    else:  # whole runs: a ranking's length is its rows
        starts = np.flatnonzero(block_starts(cell))
        returned = np.diff(np.append(starts, len(cell)))
    used, doc = np.unique(encoded.doc[kept], return_inverse=True)
    return EncodedRuns(names=encoded.names, queries=encoded.queries, docs=encoded.docs[used], run=encoded.run[kept],
                       query=encoded.query[kept], doc=doc.reshape(-1).astype(encoded.doc.dtype),
                       score=encoded.score[kept], rank=encoded.rank[kept], system=encoded.system,
                       system_names=encoded.system_names, scores=encoded.scores, returned=returned,
                       kept_depth=keep.depth)


class Spill:
    """Encoded runs of blocks (each named by a key), written to a temporary folder and read back.

    The arrays go to an ``.npz`` (no pickle), the query ids and docnos to an Arrow IPC file. A spill can be sent to
    another process (a Dask task): it reads the blocks only on the machine that wrote them, and otherwise says it
    has none (the runs are read again from their files).

    Args:
        folder: Where the temporary folder is made (None: ``TMPDIR`` or the system's).
        owned: Remove the folder when this object is dropped (False: :meth:`close` removes it; what a Dask task that
            hands its spill to the task of pass 2 uses).

    """

    def __init__(self, folder: str | None = None, owned: bool = True) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="ir_rarity_pass2_", dir=folder))
        self.host = socket.gethostname()
        self._remove: Any = weakref.finalize(self, shutil.rmtree, str(self.folder), True) if owned else None
        self._held: dict[str, tuple[Any, ...]] = {}

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_remove"] = None  # a copy sent elsewhere never removes the folder
        return state

    def write(self, key: str, encoded: EncodedRuns) -> bool:
        """Write one block's encoded runs; False (nothing kept) when the disk refuses them."""
        import pyarrow as pa

        number = len(self._held)
        arrays = {name: np.ascontiguousarray(getattr(encoded, name)) for name in _ROWS}
        arrays["returned"] = np.asarray(encoded.returned)
        vocabularies = pa.table({"string": pa.chunked_array([pa.array(encoded.queries.array, type=pa.large_string()),
                                                             pa.array(encoded.docs.array, type=pa.large_string())],
                                                            type=pa.large_string())})
        try:
            with open(self.folder / f"{number}.npz", "wb") as f:  # a file object: np.savez would add ".npz"
                np.savez(f, **cast("dict[str, Any]", arrays))
            path = self.folder / f"{number}.arrow"
            with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, vocabularies.schema) as writer:
                writer.write_table(vocabularies)
        except OSError:
            self._unlink(number)
            return False
        self._held[key] = (number, encoded.names, encoded.system, encoded.system_names, encoded.scores,
                           encoded.kept_depth, len(encoded.queries))
        return True

    def read(self, key: str) -> EncodedRuns | None:
        """The encoded runs of a block written (None: it was not, or not on this machine)."""
        import pyarrow as pa

        if key not in self._held or socket.gethostname() != self.host:
            return None
        number, names, system, system_names, scores, kept_depth, n_queries = self._held[key]
        try:
            with np.load(self.folder / f"{number}.npz", allow_pickle=False) as archive:
                arrays = {name: archive[name] for name in archive.files}
            with pa.OSFile(str(self.folder / f"{number}.arrow")) as source:
                strings = pa.ipc.open_file(source).read_all().column("string")
        except OSError:  # removed meanwhile: the files are read again
            return None
        vocabulary = pd.Index(strings.to_pandas(types_mapper=pd.ArrowDtype).astype("str"))
        return EncodedRuns(names=names, queries=vocabulary[:n_queries], docs=vocabulary[n_queries:], system=system,
                           system_names=system_names, scores=scores, returned=arrays.pop("returned"),
                           kept_depth=kept_depth, **arrays)

    def _unlink(self, number: int) -> None:
        for suffix in (".npz", ".arrow"):
            (self.folder / f"{number}{suffix}").unlink(missing_ok=True)

    def close(self) -> None:
        """Remove the folder and everything in it."""
        self._held.clear()
        if self._remove is not None:
            self._remove()
        else:
            shutil.rmtree(self.folder, ignore_errors=True)
