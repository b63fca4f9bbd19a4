r"""A campaign of run files scored in two passes, so memory does not grow with the number of runs.

Only the rarity measures need the campaign at once, and only through :math:`S_d` at their depth (Türkmen, Lease &
Kutlu, ECIR 2023, eq. 2: :math:`w(d) = 1 + \alpha (1 - S_d / S)`); every other value of a run depends on that run,
the qrels and :math:`S_d` alone. A :class:`StreamedCampaign` therefore reads its run files twice:

* **pass 1** (:func:`stream_campaign`) reads the files a block at a time, each run cut while it is read to the
  deepest rank :math:`S_d` is counted at (:meth:`Pool.from_runs <ir_rarity.Pool.from_runs>` with ``keep_depth``;
  whole runs when a measure counts :math:`S_d` over whole rankings), and adds the block's counts at every depth
  the measures need to the campaign's: one sorted array of (query, document) pair keys and their counts per depth,
  over sorted query and docno vocabularies that grow as blocks bring new strings (a block's codes are merged in
  order, so no key is ever sorted again);
* **pass 2** is the rule's own member path (:func:`~ir_rarity.engine.rule.apply_rule` over a
  :class:`~ir_rarity.engine.contract.MemberCampaign`): each block of runs is read again with exactly the rows the
  measures read (:func:`~ir_rarity.pool.build.retention.required_rows`), as the in-memory campaign reads them,
  scored as members with the campaign's S and :math:`S_d` in place of the block's, and dropped.

Peak memory is the counts (distinct pairs within the depths) plus one block of runs, whatever the number of runs.
Every cell of the runs x queries matrices is computed from the same rows, labels, S and :math:`S_d` as in memory, by
the same kernels, so the values are the same to the last bit (tests compare them).
"""

from __future__ import annotations

import copy
import gzip
import math
import os
import re
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from ir_rarity.engine.codes import KEY_SHIFT, ScorePrecision, pair_keys, sorted_lookup
from ir_rarity.engine.compute import is_engine_measure, s_d_depth
from ir_rarity.engine.contract import CampaignInfo
from ir_rarity.engine.judgments import Judgments
from ir_rarity.engine.pages import release_freed_memory
from ir_rarity.engine.qrels import EncodedQrels, encode_qrels
from ir_rarity.engine.rows import Rows
from ir_rarity.engine.runs import Duplicates, RankedRuns
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.io.raw import is_plain_file
from ir_rarity.pool.build.retention import Retention, required_depth, required_rows
from ir_rarity.pool.build.sources import origin_of, path_specs, run_files, run_name_from_path
from ir_rarity.pool.judged import judged_pool
from ir_rarity.pool.pool import Pool
from ir_rarity.pool.spill import Spill, kept_rows
from ir_rarity.pool.vocabulary import Vocabulary

__all__ = ["BYTES_PER_ROW", "TWO_PASSES", "Counts", "StreamedCampaign", "block_rows", "count_depths", "count_files",
           "estimate_rows", "file_blocks", "parse_memory", "pass_two_rows", "reading_facts", "reading_note",
           "should_stream", "stream_campaign", "streamable"]

BYTES_PER_ROW = 56
"""Bytes an in-memory campaign holds per row it reads (44-56 measured at 500 and 1,000 synthetic runs, whole-ranking
measures): with :func:`estimate_rows`, what :func:`should_stream` compares with a memory budget."""

_BLOCK_ROWS = 1 << 18
"""Rows (estimated from file sizes) of the runs one block of either pass reads: about 260,000 (five runs of 50,000).
A block of a million rows costs 160 MB more at the peak (the pool of a block is built with its transients) and
saves little time. The smallest block: a memory budget gives larger ones (:func:`block_rows`)."""

_BLOCK_BYTES_PER_ROW = 200
"""Bytes a block's pool costs per row at its peak, while it is built with its transients (about 160 measured)."""

_MAX_BLOCK_ROWS = 1 << 21
"""The largest block a budget gives: about two million rows (beyond, a block saves no measurable time)."""

_MASK = (1 << KEY_SHIFT) - 1
_UNITS = {"": 1, "B": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_memory(value: int | str) -> int:
    """Bytes of a memory budget: an integer, or a number with a unit (``'4G'``, ``'512M'``, ``'1.5GB'``).

    Raises:
        ParameterError: not a positive size.

    """
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        number, unit = float(value), ""
    else:
        match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([KMGT]?)(?:I?B)?\s*", str(value), flags=re.IGNORECASE)
        if match is None:
            raise ParameterError(f"a memory budget is bytes or a number with K, M, G or T (e.g. '4G'), got {value!r}")
        number, unit = float(match.group(1)), match.group(2).upper()
    size = int(number * _UNITS[unit])
    if size <= 0:
        raise ParameterError(f"a memory budget must be positive, got {value!r}")
    return size


def _uncompressed_size(path: Path) -> int:
    """Bytes of ``path`` once decompressed.

    A gzip file's trailer (its size modulo 4 GiB, grown to the next wrap above its compressed size), five times the
    size of other compressed files, the size of plain ones.
    """
    size = path.stat().st_size
    if path.suffix == ".gz" and size >= 18:
        with open(path, "rb") as f:
            f.seek(-4, os.SEEK_END)
            tail = int.from_bytes(f.read(4), "little")
        while tail < size:  # ISIZE wraps at 4 GiB; text compresses, so the true size is above the compressed one
            tail += 1 << 32
        return tail
    return size if is_plain_file(path) or path.suffix not in (".bz2", ".xz", ".zst", ".zip") else 5 * size


def _line_length(path: Path) -> float:
    """Mean bytes of a line among the first 64 KiB of a run file (60 when it cannot be sampled)."""
    try:
        opener: Any = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rb") as f:
            head = f.read(1 << 16)
    except (OSError, EOFError):
        return 60.0
    lines = head.count(b"\n")
    return len(head) / lines if lines else 60.0


def estimate_rows(files: Sequence[Path]) -> list[int]:
    """Rows of each run file, estimated from its (uncompressed) size and the mean line of the first file's head."""
    if not files:
        return []
    line = _line_length(files[0])
    return [max(1, math.ceil(_uncompressed_size(p) / line)) for p in files]


def streamable(measures: Sequence[Any], teams: Any, runs: Any) -> str | None:
    """Why the campaign cannot be scored in two passes (None: it can).

    Run files are needed (runs in memory are held already), S must count runs (a team's runs may fall in two
    blocks), and every measure must read S_d alone of the campaign (``U_novel`` sums its runs' reading
    probabilities).
    """
    if path_specs(runs) is None:
        return "runs held in memory are scored in memory (two passes read run files)"
    if teams is not None:
        return "S counts teams: a team's runs are counted together, which two passes over blocks of runs do not do"
    needs_runs = [str(m) for m in measures if is_engine_measure(m) and getattr(m, "NAME", "") == "U_novel"]
    if needs_runs:
        return f"{', '.join(needs_runs)} reads every run's reading probabilities, not S_d alone"
    return None


def should_stream(runs: Any, memory_limit: int | str | None) -> bool:
    """Whether the rows of ``runs`` (files) would not fit ``memory_limit`` held at once (:data:`BYTES_PER_ROW`)."""
    if memory_limit is None:
        return False
    budget = parse_memory(memory_limit)
    return sum(estimate_rows(run_files(runs))) * BYTES_PER_ROW > budget


class Counts:
    """S_d at several depths of consecutive run files, counted block by block (pass 1), and their runs' names.

    Strings get codes in the order they first appear (:class:`~ir_rarity.pool.vocabulary.Vocabulary`), so a code
    never changes and the counts are merged into one sorted key array per depth as blocks come. The counts of later
    files are added with :meth:`merge` (what Dask's tasks reduce). :meth:`finish` sorts the vocabularies once and the
    keys with them.

    Attributes:
        depths: The depths S_d is counted at (None: whole runs).
        file_runs: The runs of each file counted, in order.

    """

    def __init__(self, depths: Sequence[int | None]) -> None:
        self.depths = list(depths)
        self.queries = Vocabulary()
        self.docs = Vocabulary()
        self.tables: dict[int | None, tuple[np.ndarray, np.ndarray]] = {
            d: (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)) for d in self.depths}
        self.file_runs: list[list[str]] = []
        self._seen: set[str] = set()

    def add_runs(self, file_runs: list[list[str]]) -> None:
        """Record the runs of the next files.

        Raises:
            InputError: a run named as one counted before.

        """
        for runs in file_runs:
            for name in runs:
                if name in self._seen:
                    raise InputError(f"two runs are named {name!r}; run names must be unique")
                self._seen.add(name)
            self.file_runs.append(list(runs))

    def add(self, pool: Pool) -> None:
        """Add the counts of one block's pool (runs cut at the deepest depth) at every depth."""
        query_codes, doc_codes = self.queries.coded(pool.encoded.queries), self.docs.coded(pool.encoded.docs)
        for depth in self.tables:
            keys, found = pool.pair_counts(depth)
            self._add_keys(depth, pair_keys(query_codes[keys >> KEY_SHIFT], doc_codes[keys & _MASK]), found)

    def merge(self, other: Counts) -> Counts:
        """These counts with those of the files after them added (``other`` is left as it is); returns self."""
        if other.depths != self.depths:
            raise ValueError("counts of other depths cannot be merged")
        self.add_runs(other.file_runs)
        query_codes = self.queries.coded(other.queries.strings())
        doc_codes = self.docs.coded(other.docs.strings())
        for depth, (keys, counts) in other.tables.items():
            self._add_keys(depth, pair_keys(query_codes[keys >> KEY_SHIFT], doc_codes[keys & _MASK]), counts)
        return self

    def _add_keys(self, depth: int | None, added: np.ndarray, number: np.ndarray) -> None:
        """Add ``number`` to the count of each pair key ``added`` (in this vocabulary's codes) at ``depth``."""
        keys, counts = self.tables[depth]
        order = np.argsort(added)
        added, number = added[order], np.asarray(number)[order].astype(np.int64)
        at = np.searchsorted(keys, added)
        known = at < len(keys)
        known[known] = keys[at[known]] == added[known]
        counts = counts.copy()
        counts[at[known]] += number[known]
        fresh = ~known
        self.tables[depth] = (np.insert(keys, at[fresh], added[fresh]), np.insert(counts, at[fresh], number[fresh]))

    def finish(self) -> tuple[pd.Index, pd.Index, np.ndarray, np.ndarray]:
        """The sorted query-id and docno vocabularies, and the sorted position of each first-seen code of each.

        Each depth's keys are moved to the sorted codes (and sorted again) in place.
        """
        queries, query_rank = _sorted(self.queries.strings())
        docs, doc_rank = _sorted(self.docs.strings())
        for depth, (keys, counts) in self.tables.items():
            moved = pair_keys(query_rank[keys >> KEY_SHIFT], doc_rank[keys & _MASK])
            order = np.argsort(moved)
            self.tables[depth] = (moved[order], counts[order])
        return queries, docs, query_rank, doc_rank


def _ranked(rank: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Sorted positions of first-seen codes (-1 stays -1)."""
    return np.where(codes >= 0, rank[np.maximum(codes, 0)] if len(rank) else -1, -1)


def _sorted(strings: pd.Index) -> tuple[pd.Index, np.ndarray]:
    """The strings sorted (as pandas orders them: by code point) and the sorted position of each."""
    order = strings.argsort()
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return strings[order], rank


class _BlockPool(Pool):
    """One block of a streamed campaign's runs: their rows, scored with the whole campaign's S and S_d."""

    campaign: StreamedCampaign
    _to_global: np.ndarray | None = None
    extra: tuple[pd.Index, pd.Index] | None = None
    """The query ids and docnos the block's encoded qrels add to its vocabularies (their codes follow them)."""

    @property
    def num_systems(self) -> int:
        """The whole campaign's S."""
        return self.campaign.num_systems

    def _count_table(self, depth: int | None) -> np.ndarray:
        """The whole campaign's S_d of each of this block's pair keys (0 where no run retrieved it within depth)."""
        if depth not in self._counts:
            if self._to_global is None:
                self._to_global = self.campaign.global_keys(self.encoded.queries, self.encoded.docs,
                                                            self._unique_keys)
            self._counts[depth] = self.campaign.count_keys(self._to_global, depth).astype(np.int32)
        return self._counts[depth]

    def count_keys(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        """The whole campaign's S_d of pair keys of this block's vocabularies and its qrels' extensions.

        R_rare reads S_d of judged documents that the block's runs never retrieved.
        """
        queries, docs = self.encoded.queries, self.encoded.docs
        if self.extra is not None:
            queries, docs = queries.append(self.extra[0]), docs.append(self.extra[1])
        return self.campaign.count_keys(self.campaign.global_keys(queries, docs, keys), depth)


class StreamedCampaign:
    """A campaign of run files counted in pass 1 and read again a block of runs at a time (see the module).

    A :class:`~ir_rarity.engine.contract.MemberCampaign`: :func:`~ir_rarity.engine.rule.apply_rule` scores its
    members block by block (:meth:`member_blocks`, :meth:`member_rows`), each block read from its files when the
    engine asks for it. Made by :func:`stream_campaign`.
    """

    def __init__(self, files: list[Path], counts: Counts, retention: Retention | None, *, duplicates: Duplicates,
                 split_by_tag: bool | None, scores: ScorePrecision, blocks: Sequence[tuple[int, int]],
                 spill: Spill | None = None) -> None:
        file_runs = counts.file_runs
        if len(file_runs) != len(files):
            raise ValueError("counts of other files")
        self._files, self._file_runs, self._blocks = list(files), file_runs, list(blocks)
        self._queries, self._docs, self._query_rank, self._doc_rank = counts.finish()
        self._tables, self._counted = counts.tables, counts
        self._retention, self._duplicates, self._split_by_tag = retention, duplicates, split_by_tag
        self._scores: ScorePrecision = scores
        self._names = [n for runs in file_runs for n in runs]
        self._num_systems = len(self._names)
        self._first_run = np.cumsum([0, *(len(r) for r in file_runs)])
        self._index = {n: i for i, n in enumerate(self._names)}
        self._qrels: dict[int, tuple[EncodedQrels, pd.DataFrame]] = {}
        self._last: tuple[slice, _BlockPool] | None = None
        self._spill = spill  # each block's rows as pass 1 wrote them (named by its first file), when it did
        self.origin = origin_of(files, "runs")  # what a measure's own pool= is checked against, as a pool's

    @property
    def names(self) -> list[str]:
        """The runs, in the order the in-memory campaign holds them."""
        return list(self._names)

    @property
    def scores(self) -> ScorePrecision:
        """How scores were compared when the rankings were ordered."""
        return self._scores

    @property
    def num_systems(self) -> int:
        """S: the number of runs (of the whole campaign, in a :meth:`part` too)."""
        return self._num_systems

    def part(self, first: int, stop: int, spill: Spill | None = None) -> StreamedCampaign:
        """The campaign's files ``first:stop`` (whole blocks), scored with the whole campaign's S and S_d.

        ``spill``: where pass 1 wrote these blocks' rows (a Dask task's own), instead of the campaign's.

        What one Dask task scores (:func:`ir_rarity.integrations.dask_stream.evaluate_two_passes_with_dask`); the
        counts are shared, not copied.
        """
        part = copy.copy(self)
        part._files, part._file_runs = self._files[first:stop], self._file_runs[first:stop]
        part._blocks = [(a - first, b - first) for a, b in self._blocks if first <= a and b <= stop]
        part._names = [n for runs in part._file_runs for n in runs]
        part._first_run = np.cumsum([0, *(len(r) for r in part._file_runs)])
        part._index = {n: i for i, n in enumerate(part._names)}
        part._qrels, part._last = {}, None
        if spill is not None:
            part._spill = spill
        return part

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"StreamedCampaign({len(self)} runs from {len(self._files)} files, two passes)"

    def info(self) -> CampaignInfo:
        """What the in-memory pool of these runs states (a pool of them, S = their number)."""
        return CampaignInfo(num_systems=self.num_systems, systems="runs", n_runs=self._num_systems,
                            scores=self._scores)

    def vocabularies(self) -> tuple[pd.Index, pd.Index]:
        """The sorted query ids and docnos of the rows counted in pass 1."""
        return self._queries, self._docs

    def num_systems_at(self, depth: int | None) -> int:
        """S (at every depth counted)."""
        self._table(depth)
        return self.num_systems

    def _table(self, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
        if depth not in self._tables:
            counted = ", ".join("whole runs" if d is None else str(d) for d in self._tables) or "none"
            raise ParameterError(f"the campaign's S_d was counted at depths {counted} in the first pass, not "
                                 f"{'whole runs' if depth is None else depth}")
        return self._tables[depth]

    def count_keys(self, keys: np.ndarray, depth: int | None) -> np.ndarray:
        """S_d at ``depth`` of pair keys in :meth:`vocabularies` (0 where no run retrieved the pair; key -1 too)."""
        table_keys, counts = self._table(depth)
        return sorted_lookup(table_keys, counts, keys, 0)

    def global_keys(self, queries: pd.Index, docs: pd.Index, keys: np.ndarray) -> np.ndarray:
        """Pair keys of a block's vocabularies in the campaign's (-1 for a pair of a string not counted).

        Strings are found by their keys (:class:`~ir_rarity.pool.vocabulary.Vocabulary`), so a block costs its own
        strings, never a table of the campaign's built again.
        """
        query_codes = _ranked(self._query_rank, self._counted.queries.coded(queries, add=False))
        doc_codes = _ranked(self._doc_rank, self._counted.docs.coded(docs, add=False))
        query, doc = query_codes[keys >> KEY_SHIFT], doc_codes[keys & _MASK]
        out = pair_keys(query, doc)
        out[(query < 0) | (doc < 0)] = -1
        return out

    def find_members(self, runs: RankedRuns, depth: int | None) -> list[str | None]:
        """Not available: a streamed campaign scores its own runs only."""
        raise ParameterError("a campaign read in two passes scores its own runs; give other runs against a pool")

    def reading_probabilities(self, cutoff: int | None) -> tuple[np.ndarray, np.ndarray, int]:
        """Not available: pass 1 counts S_d only."""
        raise ParameterError("a campaign read in two passes counts S_d only; U_novel needs its runs in memory")

    def member_blocks(self, max_rows: int) -> list[slice]:
        """Runs in blocks of whole files of about :data:`_BLOCK_ROWS` rows (estimated), the same as pass 1 read."""
        return [slice(int(self._first_run[a]), int(self._first_run[b])) for a, b in self._blocks]

    def _block(self, runs: slice) -> _BlockPool:
        """The pool of one block of runs (consecutive files), read as the in-memory campaign reads them."""
        if self._last is not None and self._last[0] == runs:
            return self._last[1]
        first = int(np.searchsorted(self._first_run, runs.start, side="right")) - 1
        stop = int(np.searchsorted(self._first_run, runs.stop, side="left"))
        if self._first_run[first] != runs.start or self._first_run[stop] != runs.stop:
            raise ValueError("a block of a streamed campaign is whole files")
        self._last = None  # the previous block is dropped before the next is read, its freed pages handed back
        release_freed_memory()
        encoded = None if self._spill is None else self._spill.read(str(self._files[first]))
        if encoded is not None and len(encoded.names) == int(self._first_run[stop] - self._first_run[first]):
            block = _BlockPool(encoded, origin=origin_of(self._files[first:stop], "runs"))
        else:  # not written in pass 1 (a full disk): the files are read again
            block = cast("_BlockPool", _BlockPool.from_runs(self._files[first:stop], duplicates=self._duplicates,
                                                            split_by_tag=self._split_by_tag, progress=False,
                                                            scores=self._scores, retention=self._retention))
        block.campaign = self
        self._last = (runs, block)
        return block

    def member_rows(self, qrels: EncodedQrels, runs: slice | None = None) -> Rows:
        """Rows of a block of runs (whole files; all runs if None), read again, with the campaign's S and S_d.

        The qrels are encoded again against the block's own vocabularies.
        """
        block = self._block(runs if runs is not None else slice(0, len(self)))
        frame = self._qrels_frame(qrels)
        encoded = encode_qrels(frame, block.encoded.queries, block.encoded.docs)
        block.extra = (encoded.query_extra, encoded.doc_extra)
        rows = block.member_rows(encoded)
        self._last = None  # the engine holds the block's rows; the pool goes with them
        return rows

    def _qrels_frame(self, qrels: EncodedQrels) -> pd.DataFrame:
        """The judgments of qrels encoded against :meth:`vocabularies`, as a canonical frame again."""
        held = self._qrels.get(id(qrels))
        if held is None or held[0] is not qrels:
            queries = np.concatenate([self._queries.to_numpy(dtype=object),
                                      np.asarray(qrels.query_extra, dtype=object)])
            docs = np.concatenate([self._docs.to_numpy(dtype=object), np.asarray(qrels.doc_extra, dtype=object)])
            frame = pd.DataFrame({"query_id": queries[qrels.keys >> KEY_SHIFT], "doc_id": docs[qrels.keys & _MASK],
                                  "relevance": qrels.labels})
            self._qrels = {id(qrels): (qrels, frame)}
            return frame
        return held[1]

    def run(self, name: str) -> pd.DataFrame:
        """One run, read again from its file (as the in-memory pool holds it)."""
        if name not in self._index:
            raise KeyError(f"no run named {name!r} in {self!r}")
        i = self._index[name]
        file = int(np.searchsorted(self._first_run, i, side="right")) - 1
        return self._block(slice(int(self._first_run[file]), int(self._first_run[file + 1]))).run(name)

    def judged_pool(self, qrels: Any, depth: int = 1, judged_depth: float = math.inf) -> Pool:
        """The pool of these runs' judged rows, read again from the files (:mod:`ir_rarity.pool.judged`).

        Its S_d of every pair ``qrels`` judges is the campaign's down to ``judged_depth``, and every run's judged
        rows there and rankings' lengths are those pass 2 reads: what composition intervals and samples of the runs
        re-score. Memory: those judged rows of all runs (and every row above ``depth``, when above 1).
        """
        if len(self._names) != self._num_systems:
            raise ParameterError(f"{self!r} is a part of a campaign: its judged rows are the whole campaign's")
        return judged_pool(self._files, qrels, depth=depth, judged_depth=judged_depth, duplicates=self._duplicates,
                           split_by_tag=self._split_by_tag, scores=self._scores)

    def for_measures(self, measures: Sequence[Any], judgments: Judgments) -> StreamedCampaign:
        """These runs' files read in two passes again, for other measures (the rows they read, as the blocks here).

        What scores measures whose rows the first reading did not keep (``Judged@k`` reads every row of the top k,
        its ties too), a block at a time: memory stays one block, whatever the number of runs.

        Raises:
            ParameterError: a part of a campaign (its S_d would be its own).

        """
        if len(self._names) != self._num_systems:
            raise ParameterError(f"{self!r} is a part of a campaign: read the whole campaign for other measures")
        return _two_passes(self._files, self._blocks, measures, pass_two_rows(measures, judgments),
                           duplicates=self._duplicates, split_by_tag=self._split_by_tag, scores=self._scores)


TWO_PASSES = "runs read in two passes"
"""What an output computed against a campaign read in two passes says beside the campaign's description (S, depth,
runs): the values are the in-memory campaign's, read as :class:`StreamedCampaign` reads them."""


def reading_note(campaign: object) -> str:
    """``'; runs read in two passes'`` for a :class:`StreamedCampaign` (else ``''``), to follow its description."""
    return f"; {TWO_PASSES}" if isinstance(campaign, StreamedCampaign) else ""


def reading_facts(campaign: object) -> dict[str, str]:
    """``{'read': 'two passes'}`` for a :class:`StreamedCampaign` (else none): the provenance's pool facts add it."""
    return {"read": "two passes"} if isinstance(campaign, StreamedCampaign) else {}


def block_rows(memory_limit: int | str | None) -> int:
    """Rows of a block of either pass for a memory budget: a quarter of the budget held by a block's pool.

    ``min(max(B / (4 * 200), 262,144), 2,097,152)`` for a budget of B bytes (200 bytes a row: a block's pool at its
    peak); 262,144 without a budget. Larger blocks pay a block's fixed costs (its reading pipeline started, the
    qrels encoded against its vocabularies) fewer times; the counts and one block stay well within the budget.
    """
    if memory_limit is None:
        return _BLOCK_ROWS
    return int(min(max(parse_memory(memory_limit) // (4 * _BLOCK_BYTES_PER_ROW), _BLOCK_ROWS), _MAX_BLOCK_ROWS))


def _file_blocks(rows: Sequence[int], most: int | None = None) -> list[tuple[int, int]]:
    """Consecutive files in blocks of about ``most`` (:data:`_BLOCK_ROWS`) estimated rows (a larger file alone)."""
    most = _BLOCK_ROWS if most is None else most
    blocks, start, held = [], 0, 0
    for i, size in enumerate(rows):
        if i > start and held + size > most:
            blocks.append((start, i))
            start, held = i, 0
        held += size
    if len(rows):
        blocks.append((start, len(rows)))
    return blocks


def count_depths(measures: Sequence[Any]) -> list[int | None]:
    """The depths S_d is counted at for ``measures`` (None: whole runs), each once."""
    return list(dict.fromkeys(s_d_depth(m) for m in measures
                              if is_engine_measure(m) and getattr(m, "NEEDS_POOL", True)))


def file_blocks(files: Sequence[Path], split_by_tag: bool | None = None, rows: int | None = None
                ) -> list[tuple[int, int]]:
    """The blocks of files both passes read: about ``rows`` rows each (None: :data:`_BLOCK_ROWS`).

    A file of several runs split by tag is a block of its own.
    """
    return [(i, i + 1) for i in range(len(files))] if split_by_tag else _file_blocks(estimate_rows(files), rows)


def count_files(files: Sequence[Path], depths: Sequence[int | None], *, duplicates: Duplicates = "error",
                split_by_tag: bool | None = None, scores: ScorePrecision = "float32",
                blocks: Sequence[tuple[int, int]] | None = None, keep: Retention | None = None,
                spill: Spill | None = None) -> Counts:
    """Pass 1 over run files: S_d at ``depths`` and the runs' names, a block of files at a time.

    Each block is read by :meth:`Pool.from_runs <ir_rarity.Pool.from_runs>` cut at the deepest of the depths
    (whole runs if one is None; the first row of each ranking when there is none) and its counts added. With a
    ``spill``, the block is read keeping also the rows pass 2 reads (``keep``), and those are written to the spill
    (:func:`~ir_rarity.pool.spill.kept_rows`), so pass 2 does not parse the files again.

    Raises:
        InputError: unreadable runs, or two runs of one name (the ``spill`` is then removed).

    """
    cut = None if None in depths else max([d for d in depths if d is not None], default=1)
    read = _pass_one_rows(cut, keep) if spill is not None else None
    counts = Counts(depths)

    def counted(block: Pool, key: str) -> None:  # on the thread that counts and spills, one block after another
        if depths:
            counts.add(block)
        if spill is not None and keep is not None:
            spill.write(key, kept_rows(block.encoded, keep))
        del block
        release_freed_memory()  # the block's freed pages handed back: what stays is the counts

    # a block is counted and spilled while the next is read: at most two blocks are held
    try:
        with ThreadPoolExecutor(1, thread_name_prefix="ir_rarity-count") as counter:
            pending: Future[None] | None = None
            for a, b in (file_blocks(files, split_by_tag) if blocks is None else blocks):
                block = Pool.from_runs(list(files[a:b]), duplicates=duplicates, split_by_tag=split_by_tag,
                                       progress=False, scores=scores, keep_depth=None if read is not None else cut,
                                       retention=read)
                counts.add_runs([block.names] if split_by_tag else [[run_name_from_path(p)] for p in files[a:b]])
                if pending is not None:
                    pending.result()
                pending = counter.submit(counted, block, str(files[a]))
                del block
            if pending is not None:
                pending.result()
    except BaseException:  # the spill goes now, not when the error (which holds it) is dropped; the thread is done
        if spill is not None:
            spill.close()
        raise
    return counts


def _pass_one_rows(cut: int | None, keep: Retention | None) -> Retention | None:
    """What pass 1 keeps of each run to count S_d down to ``cut`` and to spill the rows ``keep`` keeps.

    None: whole runs (S_d over whole rankings, or pass 2 reads whole runs).
    """
    if cut is None or keep is None:
        return None
    depth = max(cut, keep.depth, *keep.ties)  # rows within the largest tie cutoff: their positions are ranks
    return Retention(depth=depth, judged_depth=keep.judged_depth if keep.judged_depth > depth else 0.0,
                     ties=keep.ties, returned=True, qrels=keep.qrels)


def pass_two_rows(measures: Sequence[Any], judgments: Judgments) -> Retention | None:
    """What pass 2 keeps of each run (None: whole runs).

    What the in-memory campaign of run files keeps, less the rows kept only to count S_d (pass 1 counted it): the
    rarity-weighted measures read their judged rows alone.
    """
    retention = required_rows(measures, judgments, s_d_given=True)
    depth = required_depth(measures)
    return retention if retention is not None or depth is None else Retention(depth=depth)


def stream_campaign(runs: Any, measures: Sequence[Any], retention: Retention | None, *,
                    keep_depth: int | None = None, duplicates: Duplicates = "error", split_by_tag: bool | None = None,
                    scores: ScorePrecision | None = None, rows: int | None = None) -> StreamedCampaign:
    """A campaign of run files read in two passes: pass 1 here (:func:`count_files`), pass 2 when scored.

    Args:
        runs: Run files, folders or globs.
        measures: The parsed measures.
        retention: What pass 2 keeps of each run (:func:`~ir_rarity.pool.build.retention.required_rows`; None:
            whole runs).
        keep_depth: Without ``retention``: what pass 2 keeps of each run is its top ``keep_depth`` rows (None:
            whole runs).
        duplicates: ``"error"`` or ``"first"``.
        split_by_tag: True: one run per tag of each file.
        scores: ``"float32"`` (None) or ``"float64"``.
        rows: Rows of a block of either pass (None: :data:`_BLOCK_ROWS`; :func:`block_rows` of a budget).

    Raises:
        InputError: unreadable runs, or two runs of one name.

    """
    files = run_files(runs)
    kept = retention if retention is not None or keep_depth is None else Retention(depth=keep_depth)
    return _two_passes(files, file_blocks(files, split_by_tag, rows), measures, kept, duplicates=duplicates,
                       split_by_tag=split_by_tag, scores=scores or "float32")


def _two_passes(files: list[Path], blocks: Sequence[tuple[int, int]], measures: Sequence[Any],
                kept: Retention | None, *, duplicates: Duplicates, split_by_tag: bool | None,
                scores: ScorePrecision) -> StreamedCampaign:
    """Pass 1 over ``files`` in ``blocks`` (S_d at the measures' depths, pass 2's rows ``kept`` spilled)."""
    spill = Spill() if kept is not None else None  # pass 2 reads what pass 1 wrote, not the files again
    counts = count_files(files, count_depths(measures), duplicates=duplicates, split_by_tag=split_by_tag,
                         scores=scores, blocks=blocks, keep=kept, spill=spill)
    return StreamedCampaign(files, counts, kept, duplicates=duplicates, split_by_tag=split_by_tag, scores=scores,
                            blocks=blocks, spill=spill)
