"""Building a pool: the encoded rows equal an independent pandas ordering, however the runs are batched or cut."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from ir_rarity import Pool
from ir_rarity.pool.build import docnos
from ir_rarity.pool.build import runs as build

_DOCNOS = ([f"d{d:03d}" for d in range(25)]  # one width, a shared prefix
           + [f"clueweb09-en0000-{d:02d}" for d in range(8)]  # differ only past 8 bytes after the prefix
           + ["d", "d0", "é", "éa", "z\x00", "z", "Z"])  # prefixes of others, non-ASCII, a NUL byte


def _runs(seed: int) -> dict[str, pd.DataFrame]:
    """Runs with shuffled rows, query ids out of order, float32 score ties and shared documents."""
    rng = np.random.default_rng(seed)
    queries = ["10", "2", "1", "b", "a"]
    runs = {}
    for r in range(7):
        rows = []
        for q in rng.permutation(queries)[: rng.integers(1, len(queries) + 1)]:
            docs = rng.choice(40, size=rng.integers(1, 25), replace=False)
            for d in docs:
                base = float(rng.integers(0, 4))  # few distinct scores: many ties
                rows.append((q, _DOCNOS[d], base + float(rng.choice([0.0, 1e-9]))))  # 1e-9: a tie in float32
        frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]).sample(frac=1.0, random_state=r)
        twice = frame.iloc[:2].assign(score=frame["score"].iloc[:2] + 1e-12)  # duplicates tied in float32
        runs[f"run{r}"] = pd.concat([frame, twice], ignore_index=True)
    runs["empty"] = pd.DataFrame({"query_id": pd.Series([], dtype=str), "doc_id": pd.Series([], dtype=str),
                                  "score": pd.Series([], dtype=float)})
    return runs


def _reference(runs: dict[str, pd.DataFrame], depth: int | None) -> pd.DataFrame:
    """trec_eval order by pandas: query id, score as float32 descending, docno descending; first duplicate kept."""
    parts = []
    for name, frame in runs.items():
        f = frame.assign(single=frame["score"].astype(np.float32))
        f = f.sort_values(["query_id", "single", "doc_id"], ascending=[True, False, False], kind="mergesort")
        f = f.drop_duplicates(["query_id", "doc_id"], keep="first")
        f = f.assign(rank=f.groupby("query_id").cumcount(), run=name)
        parts.append(f if depth is None else f[f["rank"] < depth])
    out = pd.concat(parts, ignore_index=True)
    return out[["run", "query_id", "doc_id", "rank", "score"]].reset_index(drop=True)


def _encoded(pool: Pool) -> pd.DataFrame:
    e = pool.encoded
    return pd.DataFrame({"run": np.array(e.names, dtype=object)[e.run], "query_id": e.queries[e.query].astype(str),
                         "doc_id": e.docs[e.doc].astype(str), "rank": e.rank.astype(np.int64), "score": e.score})


@pytest.mark.parametrize("depth", [None, 3])
@pytest.mark.parametrize("batch_rows", [1 << 22, 30])
def test_encoded_rows_equal_an_independent_ordering(monkeypatch: pytest.MonkeyPatch, depth: int | None,
                                                    batch_rows: int) -> None:
    monkeypatch.setattr(docnos.DocEncoder, "BATCH_ROWS", batch_rows)  # 30: a batch every run or two
    monkeypatch.setattr(docnos.DocEncoder, "HELD_BATCH_ROWS", batch_rows)  # runs given in memory
    for seed in range(3):
        runs = _runs(seed)
        pool = Pool.from_runs(runs, duplicates="first", keep_depth=depth)
        got = _encoded(pool)
        expected = _reference(runs, depth)
        pd.testing.assert_frame_equal(got, expected, check_dtype=False, check_exact=True)
        assert list(pool.encoded.queries) == sorted(set(expected["query_id"]))
        assert list(pool.encoded.docs) == sorted(set(expected["doc_id"]))


@pytest.mark.parametrize("depth", [None, 3])
def test_duplicates_are_refused_in_any_batch(monkeypatch: pytest.MonkeyPatch, depth: int | None) -> None:
    from ir_rarity.errors import DuplicateDocumentError

    monkeypatch.setattr(docnos.DocEncoder, "BATCH_ROWS", 30)
    monkeypatch.setattr(docnos.DocEncoder, "HELD_BATCH_ROWS", 30)
    with pytest.raises(DuplicateDocumentError, match="run0"):
        Pool.from_runs(_runs(0), keep_depth=depth)


def test_top_k_is_the_cut_a_pool_makes() -> None:
    runs = _runs(2)
    cut = {name: build.top_k(frame, 3, name, "first") for name, frame in runs.items()}
    expected = _reference(runs, 3)
    for name, frame in cut.items():
        mine = expected[expected["run"] == name].drop(columns=["run", "rank"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(frame.astype({"query_id": str, "doc_id": str}),
                                      mine.astype({"query_id": str, "doc_id": str}), check_dtype=False,
                                      check_exact=True)


@pytest.mark.parametrize("block_rows", [30, 1])
def test_members_scored_block_by_block_equal_one_pass(monkeypatch: pytest.MonkeyPatch, block_rows: int) -> None:
    import ir_rarity
    from ir_rarity.engine import rule as engine

    pool = Pool.from_runs(ir_rarity.covid_round1.runs, split_by_tag=True)
    measures = ["P_rare(alpha=0.5)@20", "AP_rare", "nDCG_rare(judged_only=True)@10", "R_rare@50", "ASL",
                "ASL@g1-3", "U_novel@20", "P@10", "AP", "Bpref", "RR"]
    one_pass = pool.evaluate(ir_rarity.covid_round1.qrels, measures, by_query=True)
    monkeypatch.setattr(engine, "BLOCK_ROWS", block_rows)  # 30: a block per run (each run is longer)
    assert len(pool.member_blocks(block_rows)) == len(pool)
    blocks = pool.evaluate(ir_rarity.covid_round1.qrels, measures, by_query=True)
    pd.testing.assert_frame_equal(blocks, one_pass)


def test_member_blocks_cover_the_runs_in_order() -> None:
    pool = Pool.from_runs(_runs(1), duplicates="first")
    sizes = [int((pool.encoded.run == i).sum()) for i in range(len(pool))]
    for limit in (1, 20, 50, 10**6):
        blocks = pool.member_blocks(limit)
        assert [i for b in blocks for i in range(b.start, b.stop)] == list(range(len(pool)))
        assert all(sum(sizes[b]) <= limit or b.stop - b.start == 1 for b in blocks)


def test_a_canonical_run_frame_is_taken_as_it_is_and_others_are_checked() -> None:
    from ir_rarity.errors import InputError
    from ir_rarity.io.frames import as_run_frame

    canonical = pd.DataFrame({"query_id": pd.array(["1", "2"], dtype="string[pyarrow]"),
                              "doc_id": pd.array(["a", "b"], dtype="string[pyarrow]"), "score": [1.0, 2.0]})
    assert as_run_frame(canonical) is canonical
    missing = canonical.assign(doc_id=pd.array(["a", None], dtype="string[pyarrow]"))
    with pytest.raises(InputError, match="missing id at row 1"):
        as_run_frame(missing)
    shifted = canonical.set_axis([5, 6])  # not a default index: a new frame, positional
    out = as_run_frame(shifted)
    assert out is not shifted and list(out.index) == [0, 1] and list(out["doc_id"]) == ["a", "b"]


def test_positions_in_a_large_vocabulary_equal_pandas_get_indexer() -> None:
    from ir_rarity.engine.codes import _positions_in

    vocab = pd.Index(pd.array([f"doc{i:06d}" for i in range(70_000)], dtype="string[pyarrow]"))
    values = pd.Index(pd.array(["doc000005", "nope", "doc069999", "doc000005", "é"], dtype="string[pyarrow]"))
    got = _positions_in(vocab, values)
    assert got.tolist() == vocab.get_indexer(values).tolist() == [5, -1, 69_999, 5, -1]
    assert _positions_in(vocab, pd.Index(["doc000007"], dtype=object)).tolist() == [7]
    # Docnos alike in their first 8 bytes past the prefix (no binary search): the values are hashed instead.
    long = pd.Index(pd.array([f"clueweb09-en0000-{i % 3}-{i:06d}" for i in range(70_000)], dtype="string[pyarrow]"))
    sought = pd.Index(pd.array(["clueweb09-en0000-2-000005", "nope", "clueweb09-en0000-0-069999",
                                "clueweb09-en0000-1-069999", "clueweb09-en0000-2-000005"], dtype="string[pyarrow]"))
    assert _positions_in(long, sought).tolist() == long.get_indexer(sought).tolist() == [5, -1, 69_999, -1, 5]


def test_member_rows_read_labels_and_counts_of_the_rows_asked_as_of_all_rows() -> None:
    """What a pool's rows give for some rows (labels, keys, relevance, S_d) equals the whole arrays at those rows."""
    from ir_rarity.engine.qrels import is_relevant

    runs = _runs(1)
    pool = Pool.from_runs(runs, duplicates="first")
    frame = _reference(runs, None)
    qrels = pd.DataFrame({"query_id": frame["query_id"], "doc_id": frame["doc_id"],
                          "relevance": (frame["doc_id"].map(hash) % 3).astype(int)}).drop_duplicates(
                              ["query_id", "doc_id"]).iloc[::2]  # half of the pairs judged, graded 0-2
    encoded_qrels = pool.encode_qrels(qrels)
    some = None
    for first in ("some", "all"):  # the rows' accessors read some rows before or after all of them
        rows = pool.member_rows(encoded_qrels)
        if first == "some":
            some = np.arange(0, len(rows.run), 3)
            parts = {"labels": rows.labels(some), "keys": rows.keys(some),
                     **{depth: rows.s_d(depth, some) for depth in (None, 2)}}
        label = rows.labels()  # every row's label, gathered once
        if first == "all":
            parts = {"labels": rows.labels(some), "keys": rows.keys(some),
                     **{depth: rows.s_d(depth, some) for depth in (None, 2)}}
        expected = qrels.set_index(["query_id", "doc_id"])["relevance"]
        encoded = _encoded(pool)
        looked_up = [expected.get((q, d)) for q, d in zip(encoded["query_id"], encoded["doc_id"], strict=True)]
        assert [None if v < 0 else v for v in label.tolist()] == looked_up
        assert parts["labels"].tolist() == label[some].tolist()
        assert parts["keys"].tolist() == rows.keys()[some].tolist()
        assert pool.encoded.decode(rows.keys())[1].tolist() == encoded["doc_id"].tolist()
        for rel in (1, 2):
            assert rows.relevant(rel).tolist() == is_relevant(label, rel).tolist()
        for depth in (None, 2):
            s_d, num_systems = rows.s_d(depth)
            part, systems = parts[depth]
            assert part.tolist() == s_d[some].tolist() and systems.tolist() == num_systems.tolist()


_ONE_WIDTH = {  # docno of the i-th of _DOCNOS; whether all have one width at most 8 bytes past their prefix
    "d{:03d}": (lambda i: f"d{i * 7:03d}", True),
    "doc{:06d}": (lambda i: f"doc{i * 7:06d}", True),
    "clueweb": (lambda i: f"clueweb09-en0000-{i * 7:08d}", True),
    "NUL byte": (lambda i: f"z{i * 7:03d}\x00", True),
    "8 bytes": (lambda i: f"{i * 23456789 % 10**8:08d}", True),
    "past 8 bytes": (lambda i: f"{i % 5:02d}xxxxxxxx{i:03d}", False),  # 12 bytes past the prefix "0"
    "widths": (lambda i: str(i * 7), False),
}


@pytest.mark.parametrize("shape", list(_ONE_WIDTH))
def test_docnos_of_one_width_are_encoded_as_keys_and_equal_the_reference(monkeypatch: pytest.MonkeyPatch,
                                                                         shape: str) -> None:
    """Runs given in memory whose docnos have one width past a shared prefix: the integer-key path, same rows."""
    make, keyed = _ONE_WIDTH[shape]
    factorized = []
    real = docnos._factorize_queries
    monkeypatch.setattr(docnos, "_factorize_queries", lambda groups: factorized.append(1) or real(groups))
    for seed in range(3):
        runs = {name: frame.assign(doc_id=frame["doc_id"].map(lambda d: make(_DOCNOS.index(d))))
                for name, frame in _runs(seed).items()}
        pool = Pool.from_runs(runs, duplicates="first")
        expected = _reference(runs, None)
        pd.testing.assert_frame_equal(_encoded(pool), expected, check_dtype=False, check_exact=True)
        assert list(pool.encoded.docs) == sorted(set(expected["doc_id"]))
    assert bool(factorized) == keyed


def test_only_frames_given_in_memory_are_encoded_in_one_batch(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """Run files named in a mapping are read one by one: their docnos are encoded in batches, as for a folder."""
    held = []
    real = docnos.DocEncoder.__init__

    def spy(self: docnos.DocEncoder, held_runs: bool = False, release: bool = False) -> None:
        held.append(held_runs)
        real(self, held_runs, release)

    monkeypatch.setattr(docnos.DocEncoder, "__init__", spy)
    runs = {name: frame for name, frame in _runs(0).items() if len(frame)}  # an empty run file is refused
    paths = {}
    for name, frame in runs.items():
        paths[name] = tmp_path / name
        lines = [f"{q} Q0 {d} {i} {s!r} {name}" for i, (q, d, s) in enumerate(frame.itertuples(index=False))]
        paths[name].write_text("".join(line + "\n" for line in lines))
    by_frame = Pool.from_runs(runs, duplicates="first")
    by_path = Pool.from_runs({name: str(path) for name, path in paths.items()}, duplicates="first")
    assert held == [True, False]
    pd.testing.assert_frame_equal(_encoded(by_path), _encoded(by_frame))


@pytest.mark.parametrize("kind", ["arrow string", "string[python]", "object"])
def test_docno_columns_of_any_string_type_give_the_same_pool(kind: str) -> None:
    """32-bit Arrow offsets (parquet read with the pyarrow backend), pandas' python strings, objects: one pool."""
    import pyarrow as pa

    runs = _runs(2)  # docnos of several widths: the string path
    as_type = {"arrow string": pd.ArrowDtype(pa.string()), "string[python]": pd.StringDtype("python"),
               "object": object}[kind]
    converted = {name: frame.astype({"query_id": as_type, "doc_id": as_type}) for name, frame in runs.items()}
    pool = Pool.from_runs(converted, duplicates="first")
    expected = _reference(runs, None)
    pd.testing.assert_frame_equal(_encoded(pool), expected, check_dtype=False, check_exact=True)


@pytest.mark.parametrize("shape", ["doc{:06d}", "widths"])
def test_docno_columns_in_several_arrow_chunks_give_the_same_pool(shape: str) -> None:
    """Arrow columns in chunks (as pyarrow's CSV reader makes them), split inside a query's rows."""
    import pyarrow as pa

    make = _ONE_WIDTH[shape][0] if shape in _ONE_WIDTH else (lambda i: f"doc{i * 7:06d}")
    for seed in range(3):
        runs = {}
        for name, frame in _runs(seed).items():
            ids = [make(_DOCNOS.index(d)) for d in frame["doc_id"]]
            cut = [0, len(ids) // 3, len(ids) // 3 + 1, len(ids)]  # a chunk of one row too
            chunked = pa.chunked_array([pa.array(ids[a:b], type=pa.large_string()) for a, b in itertools.pairwise(cut)],
                                       type=pa.large_string())
            runs[name] = pd.DataFrame({"query_id": pd.array(frame["query_id"].tolist(), dtype="string[pyarrow]"),
                                       "doc_id": pd.arrays.ArrowStringArray(chunked), "score": frame["score"]})
        pool = Pool.from_runs(runs, duplicates="first")
        plain = {name: frame.assign(doc_id=frame["doc_id"].astype(object)) for name, frame in runs.items()}
        pd.testing.assert_frame_equal(_encoded(pool), _reference(plain, None), check_dtype=False, check_exact=True)


@pytest.mark.slow
def test_blocks_share_campaign_values_for_one_qrels_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """U_novel's per-query base is made once for every block of an evaluation, and again for other qrels."""
    import ir_rarity
    from ir_rarity.engine import rule as engine

    qrels = ir_rarity.read_trec_qrels(ir_rarity.covid_round1.qrels)
    fewer = qrels.assign(relevance=np.where(np.arange(len(qrels)) % 3 == 0, 0, qrels["relevance"]))
    measures = ["U_novel@20", "U_novel", "P_rare(alpha=1)@10"]
    fresh = {id(q): Pool.from_runs(ir_rarity.covid_round1.runs, split_by_tag=True).evaluate(q, measures,
                                                                                          by_query=True)
             for q in (qrels, fewer)}
    pool = Pool.from_runs(ir_rarity.covid_round1.runs, split_by_tag=True)
    monkeypatch.setattr(engine, "BLOCK_ROWS", 30)  # a block per run
    for q in (qrels, fewer, qrels):
        pd.testing.assert_frame_equal(pool.evaluate(q, measures, by_query=True), fresh[id(q)])
    encoded = pool.encode_qrels(qrels)
    first, second = pool.member_rows(encoded, slice(0, 1)), pool.member_rows(encoded, slice(1, 2))
    assert first.campaign_values is second.campaign_values
    assert pool.member_rows(pool.encode_qrels(fewer), slice(0, 1)).campaign_values is not first.campaign_values
