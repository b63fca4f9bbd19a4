"""Two passes (``stream=True``, ``memory_limit=``): the values of the in-memory campaign, to the last bit.

Pass 1's counts are checked against S_d counted by brute force from the files (pandas' reader, a ``groupby``
of the rows within the depth), and every value of pass 2 against the in-memory path (itself checked against
trec_eval, hand-worked values and brute force elsewhere), over the measure families and the reliability cases:
ties, duplicates, odd docnos, gzip, many runs per file, queries some runs lack, several blocks.
"""

from __future__ import annotations

import csv
import gzip
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import covid_round1
from ir_rarity.engine.judgments import Judgments
from ir_rarity.errors import InputError, ParameterError
from ir_rarity.measures.asl import RankingLengthWarning
from ir_rarity.measures.parse import parse_measure
from ir_rarity.pool import spill as spill_module
from ir_rarity.pool import stream as stream_module
from ir_rarity.pool import vocabulary as vocabulary_module
from ir_rarity.pool.pool import Pool
from ir_rarity.pool.spill import kept_rows
from ir_rarity.pool.stream import StreamedCampaign, estimate_rows, parse_memory, pass_two_rows, stream_campaign
from tests.run_files import write_campaign

FAMILIES = ["P@10", "AP", "RR", "nDCG@10", "R@50", "Rprec", "Bpref", "NumRet", "P_rare@20", "AP_rare",
            "AP_rare@10", "nDCG_rare@15", "R_rare(alpha=0.5)@30", "P_rare(alpha=2,depth=25)@5", "ASL",
            "ASL@g1-5", "ASL(length=40)", "nDCG_rare(gain='binary')@10"]
"""Every family the engine scores (standard, P_rare, AP_rare, nDCG_rare, R_rare, ASL) at several depths."""


def _campaign(folder: Path, n_runs: int = 9, seed: int = 3, gz: bool = False) -> tuple[list[Path], Path]:
    """:func:`tests.run_files.write_campaign`: ties, odd docnos (longer in later runs), queries some runs lack."""
    return write_campaign(folder, n_runs=n_runs, seed=seed, gz=gz)


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of one or two files, so every count is merged across blocks (a budget's blocks too)."""
    monkeypatch.setattr(stream_module, "_BLOCK_ROWS", 150)
    monkeypatch.setattr(stream_module, "_MAX_BLOCK_ROWS", 300)


def _same(a: ir_rarity.Evaluation, b: ir_rarity.Evaluation) -> None:
    assert a.names == b.names
    assert list(a.query_ids) == list(b.query_ids)
    assert list(a.values) == list(b.values)
    for m in a.values:
        assert a.values[m].dtype == b.values[m].dtype
        assert a.values[m].tobytes() == b.values[m].tobytes(), m
    assert a.table().equals(b.table())
    assert a.describe() == b.describe()
    assert a.run_lengths == b.run_lengths


@pytest.mark.usefixtures("small_blocks")
@pytest.mark.parametrize("gz", [False, True])
def test_every_family_equals_the_in_memory_values(tmp_path: Path, gz: bool) -> None:
    files, qrels = _campaign(tmp_path / "c", gz=gz)
    with warnings.catch_warnings(record=True) as memory_warnings:
        warnings.simplefilter("always")
        expected = ir_rarity.evaluate(files, qrels, FAMILIES)
    with warnings.catch_warnings(record=True) as stream_warnings:
        warnings.simplefilter("always")
        got = ir_rarity.evaluate(files, qrels, FAMILIES, stream=True)
    assert isinstance(got.campaign, StreamedCampaign)
    assert len(got.campaign.member_blocks(0)) > 3  # several blocks, counts merged across them
    _same(expected, got)
    # the warnings of the whole campaign, once (ASL: rankings of different lengths), as in memory
    assert ([str(w.message) for w in stream_warnings if w.category is RankingLengthWarning]
            == [str(w.message) for w in memory_warnings if w.category is RankingLengthWarning] != [])


@pytest.mark.usefixtures("small_blocks")
def test_pass_one_counts_equal_brute_force(tmp_path: Path) -> None:
    files, _ = _campaign(tmp_path / "c", n_runs=7)
    measures = [parse_measure(m) for m in ["P_rare@20", "AP_rare", "P_rare(depth=7)@3"]]
    campaign = stream_campaign(files, measures, None)
    rows = []
    for p in files:  # pandas' reader, trec_eval's order by hand: score (as float32) descending, then docno descending
        f = pd.read_csv(p, sep=" ", header=None, names=["q", "q0", "d", "rank", "s", "tag"], dtype={"q": str, "d": str},
                        keep_default_na=False, quoting=csv.QUOTE_NONE)
        f["s32"] = f["s"].astype(np.float32)
        f = f.sort_values(["q", "s32", "d"], ascending=[True, False, False], kind="mergesort")
        f["r"] = f.groupby("q").cumcount()
        f["run"] = p.name
        rows.append(f)
    every = pd.concat(rows)
    queries, docs = campaign.vocabularies()
    for depth in (20, None, 7):
        within = every if depth is None else every[every["r"] < depth]
        s_d = within.groupby(["q", "d"])["run"].nunique()
        keys = ((queries.get_indexer(s_d.index.get_level_values(0)).astype(np.int64) << 32)
                | docs.get_indexer(s_d.index.get_level_values(1)))
        assert (campaign.count_keys(keys, depth) == s_d.to_numpy()).all()
        assert int(campaign._table(depth)[1].sum()) == int(s_d.sum())  # nothing else counted
    assert campaign.num_systems == 7


@pytest.mark.usefixtures("small_blocks")
def test_many_runs_per_file_split_by_tag() -> None:
    # R_rare reads S_d of judged documents no run of a block retrieved (vocabularies extended by the qrels')
    measures = ["P@10", "AP", "P_rare@100", "AP_rare", "nDCG_rare@20", "ASL", "R_rare(alpha=0.5)@50"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankingLengthWarning)
        expected = ir_rarity.evaluate(covid_round1.runs, covid_round1.qrels, measures, split_by_tag=True)
        got = ir_rarity.evaluate(covid_round1.runs, covid_round1.qrels, measures, split_by_tag=True, stream=True)
    _same(expected, got)


@pytest.mark.usefixtures("small_blocks")
def test_duplicates_first_and_error(tmp_path: Path) -> None:
    files, qrels = _campaign(tmp_path / "c", n_runs=4)
    twice = files[2].read_text() + "q1 Q0 d3 99 0.5 run2\n" + "q1 Q0 d3 98 0.7 run2\n"
    files[2].write_text(twice)
    measures = ["P@5", "AP", "P_rare@10", "AP_rare"]
    _same(ir_rarity.evaluate(files, qrels, measures, duplicates="first"),
          ir_rarity.evaluate(files, qrels, measures, duplicates="first", stream=True))
    with pytest.raises(InputError) as memory:
        ir_rarity.evaluate(files, qrels, measures)
    with pytest.raises(InputError) as streamed:
        ir_rarity.evaluate(files, qrels, measures, stream=True)
    assert str(streamed.value) == str(memory.value)


@pytest.mark.usefixtures("small_blocks")
def test_float64_scores_and_measures_through_ir_measures(tmp_path: Path) -> None:
    files, qrels = _campaign(tmp_path / "c", n_runs=4)
    measures = ["P@5", "AP_rare", "infAP", "SetP", "Success@5"]  # the last three: ir_measures, run by run
    _same(ir_rarity.evaluate(files, qrels, measures, scores="float64"),
          ir_rarity.evaluate(files, qrels, measures, scores="float64", stream=True))


def test_two_runs_of_one_name_in_two_blocks(tmp_path: Path, small_blocks: None) -> None:
    files, qrels = _campaign(tmp_path / "a", n_runs=3)
    other, _ = _campaign(tmp_path / "b", n_runs=3)
    with pytest.raises(InputError, match="two runs are named 'run0'"):
        ir_rarity.evaluate([*files, other[0]], qrels, ["AP_rare"], stream=True)


def test_what_cannot_stream_says_why(tmp_path: Path) -> None:
    files, qrels = _campaign(tmp_path / "c", n_runs=3)
    with pytest.raises(ParameterError, match="U_novel"):
        ir_rarity.evaluate(files, qrels, ["U_novel@10"], stream=True)
    with pytest.raises(ParameterError, match="teams"):
        ir_rarity.evaluate(files, qrels, ["AP_rare"], teams={"run0": "t", "run1": "t"}, stream=True)
    runs = {p.name: p for p in files}
    with pytest.raises(ParameterError, match="in memory"):
        ir_rarity.evaluate(runs, qrels, ["AP_rare"], stream=True)
    # a budget alone never refuses: what cannot stream is evaluated in memory
    result = ir_rarity.evaluate(files, qrels, ["U_novel@10", "AP_rare"], memory_limit=1)
    assert not isinstance(result.campaign, StreamedCampaign)


def test_a_memory_budget_chooses_two_passes(tmp_path: Path) -> None:
    files, qrels = _campaign(tmp_path / "c", n_runs=3)
    n_rows = sum(len(p.read_text().splitlines()) for p in files)
    small = ir_rarity.evaluate(files, qrels, ["AP_rare"], memory_limit=n_rows * stream_module.BYTES_PER_ROW // 2)
    large = ir_rarity.evaluate(files, qrels, ["AP_rare"], memory_limit="1G")
    assert isinstance(small.campaign, StreamedCampaign)
    assert not isinstance(large.campaign, StreamedCampaign)
    _same(large, small)
    assert not isinstance(ir_rarity.evaluate(files, qrels, ["AP_rare"], memory_limit=1, stream=False).campaign,
                          StreamedCampaign)


@pytest.mark.parametrize(("budget", "rows"), [(None, 262144), ("100M", 262144), ("1G", 2**30 // 800),
                                             (4 * 10**8, 500000), ("8G", 2**21)])
def test_block_rows_of_a_budget(budget: str | int | None, rows: int) -> None:
    """A quarter of the budget at 200 bytes a row, hand-worked: at least 2**18 rows, at most 2**21."""
    assert stream_module.block_rows(budget) == rows


def test_a_budget_gives_larger_blocks_and_the_same_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream_module, "_BLOCK_ROWS", 150)
    monkeypatch.setattr(stream_module, "_MAX_BLOCK_ROWS", 10**6)
    files, qrels = _campaign(tmp_path / "c", n_runs=9)
    measures = ["P@10", "AP", "AP_rare", "P_rare@20", "nDCG_rare@15"]
    expected = ir_rarity.evaluate(files, qrels, measures)
    small = ir_rarity.evaluate(files, qrels, measures, stream=True)
    budget = 600 * 800  # blocks of about 600 estimated rows
    large = ir_rarity.evaluate(files, qrels, measures, stream=True, memory_limit=budget)
    assert isinstance(large.campaign, StreamedCampaign) and isinstance(small.campaign, StreamedCampaign)
    sizes = estimate_rows(files)
    blocks = large.campaign.member_blocks(0)
    assert 1 < len(blocks) < len(small.campaign.member_blocks(0))
    # each block holds whole files of at most 600 estimated rows, unless one file alone; blocks cover every run
    first = np.cumsum([0] + [1] * len(files))  # one run a file
    for b in blocks:
        held = sum(sizes[int(np.searchsorted(first, b.start)):int(np.searchsorted(first, b.stop))])
        assert held <= 600 or b.stop - b.start == 1
    assert [b.start for b in blocks][1:] == [b.stop for b in blocks][:-1] and blocks[-1].stop == len(files)
    _same(expected, large)
    _same(small, large)


@pytest.mark.parametrize(("text", "size"), [("4G", 4 * 2**30), ("512M", 512 * 2**20), ("1.5GB", 3 * 2**29),
                                            ("100", 100), (2048, 2048), ("2k", 2048), ("3 GiB", 3 * 2**30)])
def test_parse_memory(text: str | int, size: int) -> None:
    assert parse_memory(text) == size


@pytest.mark.parametrize("text", ["", "four", "-1G", "0", "1X"])
def test_parse_memory_refuses(text: str) -> None:
    with pytest.raises(ParameterError):
        parse_memory(text)


def test_rows_estimated_from_sizes(tmp_path: Path) -> None:
    plain, _ = _campaign(tmp_path / "p", n_runs=4)
    packed, _ = _campaign(tmp_path / "g", n_runs=4, gz=True)
    for files in (plain, packed):
        true = sum(len(gzip.decompress(p.read_bytes()).splitlines()) if p.suffix == ".gz"
                   else len(p.read_text().splitlines()) for p in files)
        assert 0.8 * true <= sum(estimate_rows(files)) <= 1.25 * true  # gzip's trailer: the uncompressed size


def test_command_line_stream_and_memory(tmp_path: Path, small_blocks: None) -> None:
    from ir_rarity.cli.commands import main

    files, qrels = _campaign(tmp_path / "c", n_runs=4)
    outs: list[str] = []
    for extra in ([], ["--stream"], ["--memory", "1K"]):
        out = tmp_path / f"out{len(outs)}.tsv"
        assert main(["eval", str(qrels), *map(str, files), "-m", "P@10", "AP_rare", "P_rare@20", "-p", "-1",
                     "--output", str(out), *extra]) == 0
        outs.append(out.read_text())
    assert outs[0] == outs[1] == outs[2]


@pytest.mark.usefixtures("small_blocks")
def test_meta_reads_the_matrices_alike(tmp_path: Path) -> None:
    """What needs all runs at once but reads only the runs x queries matrices: the same on either path."""
    from ir_rarity.meta import discriminative_power, stability
    from ir_rarity.stats.correlation import kendall_tau

    files, qrels = _campaign(tmp_path / "c", n_runs=8)
    measures = ["AP", "AP_rare", "P_rare@20"]
    memory, streamed = (ir_rarity.evaluate(files, qrels, measures, stream=s) for s in (False, True))
    for m in measures:
        a, b = memory.matrix(m), streamed.matrix(m)
        pd.testing.assert_frame_equal(a, b, check_exact=True)
        power_a, power_b = (discriminative_power(x, method="ttest_rel") for x in (a, b))
        assert power_a.significant_pairs == power_b.significant_pairs
        pd.testing.assert_frame_equal(power_a.pvalues, power_b.pvalues, check_exact=True)
        assert stability(a, trials=50, seed=1) == stability(b, trials=50, seed=1)
    assert (kendall_tau(memory.matrix("AP"), memory.matrix("AP_rare"))
            == kendall_tau(streamed.matrix("AP"), streamed.matrix("AP_rare")))


def test_strings_of_one_hash_are_an_error_never_a_wrong_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pass 1 codes strings by their 64-bit hashes: two strings of one hash must stop it, never merge two counts.

    The hash is replaced by one that sends every string to a chosen value, so collisions happen on purpose: two new
    strings of one hash in a block, and a new string with the hash of one seen in an earlier block.
    """
    def first_letter(strings: pd.Index) -> np.ndarray:
        return np.array([ord(str(s)[0]) for s in strings], dtype=np.uint64)

    monkeypatch.setattr(vocabulary_module, "string_hashes", first_letter)
    vocabulary = vocabulary_module.Vocabulary(exact=False)
    assert vocabulary.coded(pd.Index(["b1", "a1", "c1"])).tolist() == [0, 1, 2]  # first seen, first coded
    assert vocabulary.coded(pd.Index(["c1", "d1", "a1"])).tolist() == [2, 3, 1]  # known ones keep their codes
    assert vocabulary.coded(pd.Index(["e1", "b1"]), add=False).tolist() == [-1, 0]
    assert vocabulary.strings().tolist() == ["b1", "a1", "c1", "d1"]
    with pytest.raises(InputError, match="hash"):
        vocabulary_module.Vocabulary(exact=False).coded(pd.Index(["x1", "y1", "x2"]))  # two new strings of one hash
    with pytest.raises(InputError, match="hash"):
        vocabulary.coded(pd.Index(["a2"]))  # the hash of a1, seen before


def test_exact_keys_code_strings_and_give_way_to_hashes() -> None:
    """Short strings past a shared prefix are coded by their own bytes; a longer one moves the vocabulary to hashes."""
    vocabulary = vocabulary_module.Vocabulary()
    assert vocabulary.coded(pd.Index(["doc000638", "doc000001", "doc100000"])).tolist() == [0, 1, 2]
    assert vocabulary.exact
    assert vocabulary.coded(pd.Index(["doc000001", "dzz", "d", "doc999999"])).tolist() == [1, 3, 4, 5]
    assert vocabulary.exact  # "d" and "dzz" share the prefix "d" and are distinct keys
    assert vocabulary.coded(pd.Index(["doc000638", "other-long-docno-x"])).tolist() == [0, 6]
    assert not vocabulary.exact  # a string of another prefix: hashes from now on, codes kept
    assert vocabulary.coded(pd.Index(["d", "doc100000", "nope"]), add=False).tolist() == [4, 2, -1]
    assert vocabulary.strings().tolist() == ["doc000638", "doc000001", "doc100000", "dzz", "d", "doc999999",
                                             "other-long-docno-x"]


def test_kept_rows_equal_the_runs_read_for_pass_two(tmp_path: Path) -> None:
    """Pass 2's rows taken out of whole runs (what pass 1 spills) equal the runs read with pass 2's retention."""
    files, qrels = _campaign(tmp_path / "c", n_runs=5)
    judgments = Judgments(str(qrels))
    for measures in (FAMILIES, ["P@10", "AP", "P_rare@20"], ["Judged@10", "P_rare@5", "NumRet"]):
        keep = pass_two_rows([parse_measure(m) for m in measures], judgments)
        assert keep is not None
        read = Pool.from_runs(files, retention=keep, progress=False).encoded
        taken = kept_rows(Pool.from_runs(files, progress=False).encoded, keep)
        assert taken.names == read.names and taken.kept_depth == read.kept_depth
        assert taken.queries.tolist() == read.queries.tolist() and taken.docs.tolist() == read.docs.tolist()
        for field in ("run", "query", "doc", "score", "rank", "returned", "system"):
            assert np.array_equal(getattr(taken, field), getattr(read, field)), field


@pytest.mark.usefixtures("small_blocks")
def test_a_block_the_spill_could_not_keep_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files, qrels = _campaign(tmp_path / "c")
    expected = ir_rarity.evaluate(files, qrels, FAMILIES)
    written = spill_module.Spill.write
    refused = []

    def full_disk(self: spill_module.Spill, block: str, encoded: object) -> bool:
        if len(refused) <= len(self._held):  # every other block: the disk refuses it
            def refuse(*args: object, **kwargs: object) -> None:
                raise OSError(28, "No space left on device")
            with monkeypatch.context() as patch:
                patch.setattr(np, "savez", refuse)
                kept = written(self, block, encoded)  # type: ignore[arg-type]
            refused.append((block, kept))
            return kept
        return written(self, block, encoded)  # type: ignore[arg-type]

    monkeypatch.setattr(spill_module.Spill, "write", full_disk)
    got = ir_rarity.evaluate(files, qrels, FAMILIES, stream=True)
    assert len(refused) > 1 and not any(kept for _, kept in refused)
    _same(expected, got)


def test_the_spill_is_removed_with_the_campaign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files, qrels = _campaign(tmp_path / "c", n_runs=3)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR is read again
    got = ir_rarity.evaluate(files, qrels, ["AP", "P_rare@10"], stream=True)
    assert len(list((tmp_path / "tmp").iterdir())) == 1  # pass 2's rows, written by pass 1
    del got
    import gc
    gc.collect()
    assert list((tmp_path / "tmp").iterdir()) == []
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == sorted(["qrels.txt", *(f.name for f in files)])


def test_pair_counts_are_the_counts_table(tmp_path: Path) -> None:
    files, _ = _campaign(tmp_path / "c", n_runs=4)
    pool = Pool.from_runs(files, progress=False)
    for depth in (None, 5):
        keys, s_d = pool.pair_counts(depth)
        table = pool.counts(depth)
        queries, docs = pool.vocabularies()
        assert (np.diff(keys) > 0).all()
        assert list(zip(queries[keys >> 32], docs[keys & ((1 << 32) - 1)], s_d.tolist(), strict=True)) == list(
            zip(table["query_id"], table["doc_id"], table["S_d"], strict=True))



def test_lookups_leave_the_vocabulary_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lookup (``add=False``) of strings the exact keys do not cover finds none of them and moves nothing to hashes.

    Pass 2 looks the qrels' query ids up (``R_rare``), on several of Dask's threads at once: a lookup that moved the
    keys to hashes let another see the keys half moved (its strings not found: S_d of 0). Here a lookup that hashes
    waits until the other lookup has run.
    """
    import threading

    vocabulary = vocabulary_module.Vocabulary()
    assert vocabulary.coded(pd.Index(["q0", "q1", "q2"])).tolist() == [0, 1, 2]
    assert vocabulary.exact
    inside, done = threading.Event(), threading.Event()
    real = vocabulary_module.string_hashes

    def held(strings: pd.Index) -> np.ndarray:
        if not inside.is_set():  # the first lookup that hashes waits for the other
            inside.set()
            done.wait(5)
        return real(strings)

    monkeypatch.setattr(vocabulary_module, "string_hashes", held)
    found: dict[str, list[int]] = {}

    def long_ids() -> None:
        found["long"] = vocabulary.coded(pd.Index(["q1", "q-unretrieved", "q\x00", "é"]), add=False).tolist()

    thread = threading.Thread(target=long_ids)
    thread.start()
    inside.wait(0.5)
    found["short"] = vocabulary.coded(pd.Index(["q2", "q0", "q3"]), add=False).tolist()
    done.set()
    thread.join()
    assert found == {"long": [1, -1, -1, -1], "short": [2, 0, -1]}
    assert vocabulary.exact and vocabulary.size == 3
    assert vocabulary.coded(pd.Index(["q-unretrieved", "q2"])).tolist() == [3, 2]  # an addition moves to hashes
    assert not vocabulary.exact


@pytest.mark.usefixtures("small_blocks")
def test_an_error_of_pass_one_removes_the_spill_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad line in a later file, two runs of one name, two strings of one hash (raised on the counting thread):
    the in-memory path's one-line error, and no spill left, even while the error is held (a notebook keeps it)."""
    import tempfile

    spills = tmp_path / "tmp"
    spills.mkdir()
    monkeypatch.setenv("TMPDIR", str(spills))
    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR is read again
    files, qrels = _campaign(tmp_path / "c", n_runs=6)
    measures = ["P@10", "AP_rare", "P_rare@20"]
    bad = [*files[:5], tmp_path / "c" / "late"]
    bad[5].write_text(files[5].read_text() + "q1 Q0 d3 1\n")  # a line of 4 fields, in the last block
    other, _ = _campaign(tmp_path / "o", n_runs=1)
    with pytest.raises(InputError) as memory:
        ir_rarity.evaluate(bad, qrels, measures)
    with pytest.raises(InputError) as streamed:
        ir_rarity.evaluate(bad, qrels, measures, stream=True)
    assert str(streamed.value) == str(memory.value) and "late:" in str(memory.value)
    assert list(spills.iterdir()) == []
    with pytest.raises(InputError, match="two runs are named 'run0'"):
        ir_rarity.evaluate([*files, other[0]], qrels, measures, stream=True)
    assert list(spills.iterdir()) == []

    def one_hash(strings: pd.Index) -> np.ndarray:  # every string one hash: the docnos' vocabulary refuses a block
        return np.zeros(len(strings), dtype=np.uint64)

    monkeypatch.setattr(vocabulary_module, "string_hashes", one_hash)
    long_docnos = tmp_path / "c" / "long"  # no shared prefix of 8 bytes: hashed, on the thread that counts
    long_docnos.write_text("q1 Q0 a-long-docno-1 1 2.0 long\nq1 Q0 b-long-docno-2 2 1.0 long\n")
    with pytest.raises(InputError, match="hash"):
        ir_rarity.evaluate([*files, long_docnos], qrels, measures, stream=True)
    assert list(spills.iterdir()) == []
