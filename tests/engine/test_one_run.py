"""The engine's one-run path (:mod:`ir_rarity.engine.one_run`, reached by :mod:`ir_rarity.integrations.tuples`).

Once a campaign's counts are in the disk cache, ``ir_measures.calc_aggregate`` (and so the stock command) scores a
run with numpy alone, through the engine's rule; every value must equal the ordinary path's
(``IR_RARITY_CACHE=off``, through :func:`ir_rarity.evaluation.evaluate_campaign`) and an independent computation
(``Pool.evaluation``, the campaign's runs in memory), for members and newcomers, runs with documents beyond the
depth, ties, odd strings and runs and qrels that do not cover each other. What it does not handle goes the ordinary
way, with the ordinary errors.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import ir_measures
import numpy as np
import pytest

import ir_rarity
from ir_rarity.engine.hashes import content_hashes
from ir_rarity.engine.one_run import CountsCampaign, score_run
from ir_rarity.engine.runs import rank_columns, rank_runs, string_hashes
from ir_rarity.errors import MemberNotice
from ir_rarity.integrations import tuples
from ir_rarity.io.frames import as_run_frame
from ir_rarity.pool.counts import CountTable
from ir_rarity.pool.pool import Pool
from ir_rarity.pool.resolve import clear_cache
from ir_rarity.pool.store import cache, cachefile
from ir_rarity.pool.store.cached import cached_campaign, clear_cached_campaigns
from ir_rarity.pool.store.npz import pack_strings, string_array

QRELS = ("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d4 1\nq2 0 d5 2\nq3 0 d9 1\n"
         "qé 0 dé 1\nqé 0 d1 0\n")
RUNS = {"a": "q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d5 3 1 a\nq2 Q0 d4 1 3 a\nq2 Q0 d5 2 2 a\nqé Q0 dé 1 1 a\n",
        "b": "q1 Q0 d3 1 3 b\nq1 Q0 d1 2 2 b\nq2 Q0 d1 1 3 b\nq2 Q0 d5 2 1 b\nq4 Q0 d7 1 1 b\n",
        "c": "q1 Q0 d1 1 9 c\nq1 Q0 d3 2 8 c\nq1 Q0 d2 3 7 c\nq2 Q0 d5 1 3 c\nqé Q0 d1 1 2 c\nqé Q0 dé 2 1 c\n"}
NEW = {  # newcomers: ties broken by docno, documents and queries no member has, a query the qrels lack
    "new": "q1 Q0 d2 1 5 x\nq1 Q0 d3 2 4 x\nq2 Q0 d5 1 3 x\nq2 Q0 d1 2 2 x\nq5 Q0 d1 1 1 x\n",
    "ties": "q1 Q0 d1 1 1 x\nq1 Q0 d3 2 1 x\nq1 Q0 d2 3 1 x\nq2 Q0 d8 1 2 x\nq2 Q0 d5 2 2 x\nqé Q0 dé 1 0 x\n",
    "unseen": "q9 Q0 d1 1 1 x\nq1 Q0 zz 1 2 x\nq1 Q0 dé 2 1 x\n",
    # run c to depth 3, then documents beyond it: a member at depths 2 and 3, a newcomer at 10 and whole runs
    "beyond": RUNS["c"].replace(" c\n", " x\n") + "q1 Q0 d9 4 1 x\nq1 Q0 zz 5 0.5 x\n",
}
MEASURES = ["P_rare(alpha=0.5)@2", "AP_rare@3", "nDCG_rare(alpha=2)@3", "R_rare@2", "P_rare(bounded=True)@2",
            "P_rare(alpha=1,depth=3)@2", "AP_rare(gain='graded')@10", "nDCG_rare(rel=2)@2", "R_rare(alpha=3)",
            "P_rare(judged_only=True)@2", "nDCG_rare(weighting='log',bounded=True)@3",
            "AP_rare(alpha_per_topic=True)@3"]


@pytest.fixture(autouse=True)
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(tuples.POOL_ENV, raising=False)
    clear_cache()
    clear_cached_campaigns()
    yield tmp_path / "cache"
    clear_cache()
    clear_cached_campaigns()


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    (tmp_path / "runs").mkdir()
    for name, text in RUNS.items():
        (tmp_path / "runs" / name).write_text(text, encoding="utf-8")
    for name, text in NEW.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "qrels").write_text(QRELS, encoding="utf-8")
    return tmp_path


def _measures(campaign: Path) -> list[ir_measures.Measure]:
    return [ir_measures.parse_measure(m.replace("(", f"(pool='{campaign / 'runs'}',", 1) if "(" in m
                                      else m.replace("@", f"(pool='{campaign / 'runs'}')@")) for m in MEASURES]


def _by_query(campaign: Path, run: str, measures: list[ir_measures.Measure]) -> dict[tuple[str, str], float]:
    qrels = list(ir_measures.read_trec_qrels(str(campaign / "qrels")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemberNotice)
        return {(str(m.measure), m.query_id): m.value
                for m in ir_measures.iter_calc(measures, qrels, ir_measures.read_trec_run(run))}


def _warm_only(monkeypatch: pytest.MonkeyPatch) -> None:
    import ir_rarity.evaluation

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the ordinary path was taken")

    monkeypatch.setattr(ir_rarity.evaluation, "evaluate_campaign", refuse)


RUN_FILES = [("runs", "a"), ("runs", "b"), ("runs", "c"), ("", "new"), ("", "ties"), ("", "unseen"), ("", "beyond")]


@pytest.mark.parametrize(("where", "name"), RUN_FILES)
def test_warm_values_equal_the_ordinary_path_and_the_pool(campaign: Path, monkeypatch: pytest.MonkeyPatch,
                                                         where: str, name: str) -> None:
    run = str(campaign / where / name)
    measures = _measures(campaign)
    monkeypatch.setenv(cache.CACHE_ENV, "off")
    ordinary = _by_query(campaign, run, measures)
    monkeypatch.setenv(cache.CACHE_ENV, str(campaign / "cache"))
    clear_cache()  # counted again, not taken from this process's memory: into the disk cache
    _by_query(campaign, run, measures)
    clear_cache()
    # the campaign's runs in memory, by the evaluation rule (the front door, before the ordinary path is refused)
    table = ir_rarity.evaluate({"x": run}, campaign / "qrels", MEASURES, pool=Pool.from_runs(str(campaign / "runs")))
    _warm_only(monkeypatch)
    assert _by_query(campaign, run, measures) == ordinary
    for measure, label in zip(measures, MEASURES, strict=True):
        column = table.values[table.measures[MEASURES.index(label)]][0]
        for query_id, value in zip(table.query_ids, column, strict=True):
            assert ordinary[(str(measure), query_id)] == float(value)


def test_a_member_is_named_as_the_ordinary_path_names_it(campaign: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    measures = _measures(campaign)[:1]
    qrels = list(ir_measures.read_trec_qrels(str(campaign / "qrels")))
    with pytest.warns(MemberNotice) as ordinary:
        ir_measures.calc_aggregate(measures, qrels, ir_measures.read_trec_run(str(campaign / "runs" / "b")))
    _warm_only(monkeypatch)
    with pytest.warns(MemberNotice) as warmed:
        ir_measures.calc_aggregate(measures, qrels, ir_measures.read_trec_run(str(campaign / "runs" / "b")))
    assert [str(w.message) for w in warmed] == [str(w.message) for w in ordinary]
    assert "campaign run 'b' to depth 2" in str(warmed[0].message)


def test_what_the_warm_path_does_not_take_goes_the_ordinary_way(campaign: Path) -> None:
    measures = _measures(campaign)[:1]
    qrels = list(ir_measures.read_trec_qrels(str(campaign / "qrels")))
    _by_query(campaign, str(campaign / "new"), measures)  # cached
    (campaign / "twice").write_text("q1 Q0 d1 1 3 x\nq1 Q0 d1 2 2 x\n")
    with pytest.raises(Exception, match="more than once"):
        ir_measures.calc_aggregate(measures, qrels, ir_measures.read_trec_run(str(campaign / "twice")))
    nan = [ir_measures.ScoredDoc("q1", "d1", float("nan"))]
    with pytest.raises(Exception, match="NaN"):
        ir_measures.calc_aggregate(measures, qrels, nan)
    frame_like = {"q1": {"d1": 1.0, "d3": 0.5}}  # a dict of dicts: read by the ordinary path
    assert ir_measures.calc_aggregate(measures, qrels, frame_like)[measures[0]] >= 0


def test_a_changed_run_file_is_a_new_key(campaign: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    measures = _measures(campaign)[:2]
    before = _by_query(campaign, str(campaign / "new"), measures)
    assert "counted S_d" in capsys.readouterr().err
    (campaign / "runs" / "b").write_text(RUNS["b"].replace("d5", "d2"))
    clear_cached_campaigns()  # another process
    clear_cache()
    after = _by_query(campaign, str(campaign / "new"), measures)
    assert "counted S_d" in capsys.readouterr().err and after != before
    monkeypatch.setenv(cache.CACHE_ENV, "off")
    assert _by_query(campaign, str(campaign / "new"), measures) == after


def test_a_repeated_call_imports_neither_pandas_nor_pyarrow(campaign: Path) -> None:
    code = ("import sys, warnings, ir_measures; warnings.simplefilter('ignore'); "
            f"m = ir_measures.parse_measure(\"P_rare(pool='{campaign / 'runs'}')@2\"); "
            f"q = ir_measures.read_trec_qrels({str(campaign / 'qrels')!r}); "
            f"r = ir_measures.read_trec_run({str(campaign / 'new')!r}); "
            "v = ir_measures.calc_aggregate([m], q, r)[m]; "
            "print(round(v, 6), [n for n in ('pandas', 'pyarrow', 'scipy') if n in sys.modules])")
    env = {**os.environ, cache.CACHE_ENV: str(campaign / "cache")}
    env.pop("IR_RARITY_NO_HOOK", None)
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    again = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert "counted S_d" in first.stderr and "counted S_d" not in again.stderr
    assert again.stdout.split()[0] == first.stdout.split()[0]
    assert again.stdout.strip().endswith("[]"), again.stdout


def test_strings_numpy_cannot_hold_go_the_ordinary_way(campaign: Path) -> None:
    assert string_array(*pack_strings(["a", "b\x00"])) is None
    assert tuples.run_columns([ir_measures.ScoredDoc("q1", "d1\x00", 1.0)]) is None
    assert tuples.run_columns([("q1", "d1", 1.0)]) is None  # not ir_measures' namedtuples
    assert tuples.qrels_columns([ir_measures.Qrel("q1", "d1", 1.5)]) is None


@pytest.mark.parametrize("strings", [["a", "bb", "ccc"], ["", "x"], ["d1", "dé", "日本"], []])
def test_string_array_decodes_packed_strings(strings: list[str]) -> None:
    out = string_array(*pack_strings(strings))
    assert out is not None and out.tolist() == strings


def test_cache_files_keep_long_strings_as_bytes(tmp_path: Path) -> None:
    docs = sorted(["d1", "x" * 20000, *(f"e{i:05d}" for i in range(50))])
    keys = np.array([i for i in range(len(docs))], dtype=np.int64)
    path = tmp_path / "counts-k.npz"
    cachefile.write_cached(path, "k", queries=["q"], docs=docs, query_hash=np.zeros(1, np.uint64),
                           doc_hash=np.zeros(len(docs), np.uint64), keys=keys, counts=np.ones(len(docs), np.int64),
                           members={"r": (len(docs), 0)}, num_systems=1, systems="runs", n_runs=1, depth=None,
                           scores="float32")
    with np.load(path) as archive:
        assert "docs_utf8" in archive.files and "docs" not in archive.files and "queries" in archive.files
    table = cachefile.read_cached(path, "k", None)
    assert table is not None and table.strings("docs") == docs
    vocabulary = table.vocabulary("docs")
    assert vocabulary is not None and vocabulary.tolist() == docs


def _counts_campaign(pool: Pool, depth: int | None) -> CountsCampaign:
    """The CountsCampaign of a pool's counts at ``depth``, as the disk cache would hold them."""
    table = CountTable.from_pool(pool, depth)
    queries, docs = (np.array(list(v), dtype=str) for v in table.vocabularies())
    return CountsCampaign(queries=queries, docs=docs, query_hash=string_hashes(queries), doc_hash=string_hashes(docs),
                          keys=table._keys, counts=table._counts, members=table.members, num_systems=table.num_systems,
                          systems=table.systems, n_runs=table.n_runs, depth=depth)


def _columns_of(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows = [line.split() for line in text.splitlines()]
    return (np.array([r[0] for r in rows]), np.array([r[2] for r in rows]),
            np.array([float(r[4]) if len(r) > 4 else int(r[3]) for r in rows]))


@pytest.mark.parametrize("name", ["new", "ties", "unseen", "beyond"])
def test_rank_columns_ranks_as_rank_runs(campaign: Path, name: str) -> None:
    """numpy columns are ranked and coded as frames are (one path), row hashes taken from the campaign."""
    pool = Pool.from_runs(str(campaign / "runs"))
    counts = _counts_campaign(pool, 2)
    queries, docs = counts.vocabularies()
    frame = as_run_frame(str(campaign / name))
    by_frames = rank_runs({"x": frame}, [pool.vocabularies()[0]], [pool.vocabularies()[1]])
    by_columns = rank_columns("x", *_columns_of(NEW[name]), [queries], [docs], counts.hashes)
    for field in ("run", "query", "key", "rank", "score", "doc_order"):
        assert np.array_equal(getattr(by_columns, field), getattr(by_frames, field)), field
    assert by_columns.query_extra.tolist() == list(by_frames.query_extra)
    assert by_columns.doc_extra.tolist() == list(by_frames.doc_extra)
    query, doc = by_columns.query, by_columns.key & 0xFFFFFFFF
    known = (query < len(queries)) & (doc < len(docs))
    assert np.array_equal(by_columns.row_hash[known], by_frames.row_hash[known])
    # a string outside the campaign's vocabularies hashes as 0 (no member has it; find_members refuses such runs)
    query_hash = np.where(query < len(queries), counts.hashes[0][np.minimum(query, len(queries) - 1)], 0)
    doc_hash = np.where(doc < len(docs), counts.hashes[1][np.minimum(doc, len(docs) - 1)], 0)
    assert np.array_equal(by_columns.row_hash, content_hashes(query_hash.astype(np.uint64),
                                                              doc_hash.astype(np.uint64), by_columns.rank))


def test_a_row_never_counted_makes_no_member_whatever_its_fingerprint(campaign: Path) -> None:
    """A forged member with the fingerprint of a run holding an uncounted row is not that run's member."""
    pool = Pool.from_runs(str(campaign / "runs"))
    counts = _counts_campaign(pool, 2)
    queries, docs = counts.vocabularies()
    ranked = rank_columns("x", *_columns_of(NEW["unseen"]), [queries], [docs], counts.hashes)
    size, total = ranked.fingerprints(2)
    forged = CountsCampaign(queries=queries, docs=docs, query_hash=counts.hashes[0], doc_hash=counts.hashes[1],
                            keys=counts._keys, counts=counts._counts,
                            members={"a": (int(size[0]), int(total[0])), "b": (1, 0), "c": (2, 0)},
                            num_systems=3, systems="runs", n_runs=3, depth=2)
    assert forged.find_members(ranked, 2) == [None]
    member = rank_columns("a", *_columns_of(RUNS["a"]), [queries], [docs], counts.hashes)
    assert counts.find_members(member, 2) == ["a"] == CountTable.from_pool(pool, 2).find_members(member, 2)


def test_score_run_is_the_rule_of_the_front_door(campaign: Path) -> None:
    """score_run against a pool's counts gives CountTable.evaluation's values, and names a member alike."""
    pool = Pool.from_runs(str(campaign / "runs"))
    qrels = _columns_of(QRELS)
    qrels = (qrels[0], qrels[1], qrels[2].astype(np.int64))
    measures = [ir_measures.parse_measure(m) for m in ("P_rare(alpha=0.5)@2", "AP_rare@2", "R_rare(alpha=3)@2")]
    table = CountTable.from_pool(pool, 2)
    for name, text, member in [("new", NEW["new"], None), ("beyond", NEW["beyond"], "c"), ("b", RUNS["b"], "b")]:
        expected = table.evaluation(campaign / "qrels", measures, {"the evaluated run": as_run_frame(
            str(campaign / ("runs" if name == "b" else "") / name))})
        with warnings.catch_warnings(record=True) as notices:
            warnings.simplefilter("always")
            query_ids, values = score_run(_counts_campaign(pool, 2), measures, qrels, _columns_of(text))
        assert query_ids.tolist() == list(expected.query_ids)
        for measure in measures:
            assert values[measure].tolist() == expected.values[measure][0].tolist()
        assert [str(n.message) for n in notices if n.category is MemberNotice] == (
            ["1 evaluated run is scored as the campaign members they equal: 'the evaluated run' has the ranked "
             f"lists of campaign run {member!r} to depth 2"] if member else [])


def test_a_cached_vocabulary_out_of_order_goes_the_ordinary_way(campaign: Path, folder: Path) -> None:
    """A cache file whose docno vocabulary is not sorted is not scored by the quick way (it used to raise)."""
    measures = _measures(campaign)[:1]
    expected = _by_query(campaign, str(campaign / "new"), measures)  # counted and cached
    (path,) = folder.glob("counts-*.npz")
    key = path.name[len("counts-"):-len(".npz")]
    table = cachefile.read_cached(path, key, 2)
    assert table is not None
    docs = table.strings("docs")
    swapped = [docs[1], docs[0], *docs[2:]]
    cachefile.write_cached(path, key, queries=table.strings("queries"), docs=swapped,
                           query_hash=table.arrays["query_hash"], doc_hash=table.arrays["doc_hash"],
                           keys=table.arrays["keys"], counts=table.arrays["counts"], members=table.members(),
                           num_systems=table.num_systems, systems=table.systems, n_runs=table.n_runs, depth=2,
                           scores=table.scores)
    clear_cached_campaigns()
    clear_cache()
    assert cached_campaign(str(campaign / "runs"), 2) is None
    assert _by_query(campaign, str(campaign / "new"), measures) == expected
