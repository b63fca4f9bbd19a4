"""Every way of handing runs to Pool.from_runs gives the same pool; bad sources give clear errors."""

from __future__ import annotations

import gzip
import shutil
import threading
from pathlib import Path

import ir_measures
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import InputError, NoActivePoolError, P_rare, Pool, active_pool
from ir_rarity.errors import DuplicateDocumentError, ParameterError


def _same_pool(a: Pool, b: Pool) -> None:
    assert a.names == b.names
    pd.testing.assert_frame_equal(a.counts(), b.counts())


def test_file_list_directory_glob_and_gzip(hand_files: dict, hand_pool: Pool, tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    for name in "ABC":
        with open(hand_files[name], "rb") as src, gzip.open(folder / f"{name}.gz", "wb") as dst:
            shutil.copyfileobj(src, dst)
    (folder / ".hidden").write_text("not a run")
    _same_pool(Pool.from_runs(folder), hand_pool)
    _same_pool(Pool.from_runs(str(folder / "*.gz")), hand_pool)
    _same_pool(Pool.from_runs(sorted(folder.glob("*.gz"))), hand_pool)


def test_one_file_split_by_tag(hand_files: dict, hand_pool: Pool, tmp_path: Path) -> None:
    together = tmp_path / "all.trec"
    together.write_text("".join(hand_files[n].read_text() for n in "ABC"))
    _same_pool(Pool.from_runs(together, split_by_tag=True), hand_pool)
    # Not split (the default, as trec_eval), the three runs are one run named by the file, which then lists d2
    # three times for q1.
    for split in (None, False):
        with pytest.raises(DuplicateDocumentError, match=r"run 'all\.trec' lists document 'd2'"):
            Pool.from_runs(together, split_by_tag=split)


def test_dict_of_dataframes_iterables_and_dicts(hand_pool: Pool) -> None:
    a = hand_pool.run("A")
    b = hand_pool.run("B").rename(columns={"query_id": "qid", "doc_id": "docno"})  # PyTerrier columns
    c = [ir_measures.ScoredDoc(r.query_id, r.doc_id, r.score) for r in hand_pool.run("C").itertuples()]
    pool = Pool.from_runs({"A": a, "B": b, "C": c})
    _same_pool(pool, hand_pool)
    as_dict = {q: dict(zip(g.doc_id, g.score, strict=False)) for q, g in a.groupby("query_id")}
    assert Pool.from_runs({"A": as_dict}).counts().equals(Pool.from_runs({"A": a}).counts())


def test_user_frames_are_not_modified(hand_pool: Pool) -> None:
    frame = pd.DataFrame({"qid": [1, 1], "docno": ["b", "a"], "score": [1, 2]})
    before = frame.copy()
    Pool.from_runs({"r": frame})
    pd.testing.assert_frame_equal(frame, before)


def test_duplicate_names_and_documents(hand_files: dict, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="two runs are named 'A'"):
        Pool.from_runs([hand_files["A"], hand_files["A"]])
    dup = tmp_path / "dup"
    dup.write_text("q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.5 x\nq1 Q0 d1 3 1.0 x\n")
    with pytest.raises(DuplicateDocumentError, match="'d1' more than once for query 'q1'"):
        Pool.from_runs([dup])
    kept = Pool.from_runs([dup], duplicates="first").run("dup")
    assert list(kept.doc_id) == ["d1", "d2"] and list(kept.score) == [2.0, 1.5]


def test_nan_scores_rejected() -> None:
    with pytest.raises(InputError, match="NaN"):
        Pool.from_runs({"r": pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [float("nan")]})})


def test_missing_sources(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such run file"):
        Pool.from_runs(tmp_path / "nope")
    with pytest.raises(InputError, match="no file matches"):
        Pool.from_runs(str(tmp_path / "*.run"))
    with pytest.raises(InputError, match="cannot build a pool"):
        Pool.from_runs(42)


def test_no_active_pool_error_says_how(hand_qrels: pd.DataFrame, hand_pool: Pool) -> None:
    with pytest.raises(NoActivePoolError, match=r"Pool.from_runs\(.*with pool:"):
        ir_measures.calc_aggregate([P_rare @ 2], hand_qrels, hand_pool.run("A"))


def test_pools_nest_and_are_per_thread(hand_pool: Pool, hand_qrels: pd.DataFrame) -> None:
    other = Pool.from_runs({"A": hand_pool.run("A")})
    seen: dict[str, object] = {}
    with hand_pool:
        with other:
            assert active_pool() is other
        assert active_pool() is hand_pool

        def worker() -> None:
            seen["thread"] = active_pool()
            with other:
                seen["value"] = ir_measures.calc_aggregate([P_rare @ 2], hand_qrels, hand_pool.run("A"))[P_rare @ 2]

        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert active_pool() is hand_pool
    assert active_pool() is None
    assert seen["thread"] is None  # a new thread does not inherit the pool
    # In the one-run pool A is the only system: R = 0 everywhere, so P_rare@2 = P@2 = 3/4.
    assert seen["value"] == pytest.approx(0.75)


def test_embedded_data_files_exist() -> None:
    for path in (ir_rarity.covid_round1.runs, ir_rarity.covid_round1.qrels, ir_rarity.covid_round1.leaderboard):
        assert path.is_file()


def test_keep_depth_gives_the_same_values_for_measures_within_it(covid_pool: Pool, covid_qrels: pd.DataFrame
                                                                  ) -> None:
    cut = Pool.from_runs(ir_rarity.covid_round1.runs, keep_depth=50, split_by_tag=True)
    assert len(cut) == 143
    assert (cut.run("BERT").groupby("query_id").size() <= 50).all()
    measures = ["P_rare(alpha=0.5)@50", "AP_rare@50", "P@10", "P_rare(depth=20)@50"]
    pd.testing.assert_frame_equal(cut.evaluate(covid_qrels, measures), covid_pool.evaluate(covid_qrels, measures),
                                  check_exact=True)


def test_keep_depth_still_refuses_duplicates_below_the_cut(tmp_path: Path) -> None:
    dup = tmp_path / "dup"
    dup.write_text("q1 Q0 d1 1 3.0 x\nq1 Q0 d2 2 2.0 x\nq1 Q0 d1 3 1.0 x\n")
    with pytest.raises(DuplicateDocumentError, match="'d1' more than once"):
        Pool.from_runs([dup], keep_depth=1)
    with pytest.raises(ParameterError, match="keep_depth must be a positive"):
        Pool.from_runs([dup], keep_depth=0)


def test_files_read_as_tables_give_the_frames_campaign(tmp_path: Path) -> None:
    """Run files go to the pool as pyarrow Tables (no DataFrame): the same campaign as their frames give."""
    from ir_rarity.io.trec import read_trec_run
    from ir_rarity.pool.build.sources import iter_run_files, iter_run_tables

    runs = pd.read_csv(ir_rarity.covid_round1.runs, sep=r"\s+", header=None, dtype=str,
                       names=["query_id", "q0", "doc_id", "rank", "score", "tag"])
    files = []
    for i, (tag, run) in enumerate(sorted(runs.groupby("tag"), key=lambda kv: kv[0])[:9]):
        if i % 3 == 1:  # queries' rows interleaved: the reader keeps file order, the pool groups them
            run = run.sample(frac=1.0, random_state=i)
        text = "".join(f"{q} Q0 {d} {r} {s} {tag}\n" for q, d, r, s in
                       zip(run.query_id, run.doc_id, run["rank"], run.score, strict=True))
        if i % 3 == 2:  # a doubled space: the whitespace-splitting parser reads this one
            text = text.replace(" Q0 ", "  Q0 ", 1)
        path = tmp_path / f"{tag}.run{'.gz' if i % 2 else ''}"
        path.write_bytes(gzip.compress(text.encode()) if i % 2 else text.encode())
        files.append(path)
    for (name, table), (same, frame) in zip(iter_run_tables(files), iter_run_files(files), strict=True):
        assert name == same and table.column_names == ["query_id", "doc_id", "score"]
        pd.testing.assert_frame_equal(table.to_pandas(), frame, check_dtype=False)
    frames = {Path(f).name.removesuffix(".gz"): read_trec_run(f)[["query_id", "doc_id", "score"]] for f in files}
    for keep in (None, 5):
        from_files, from_frames = Pool.from_runs(files, keep_depth=keep), Pool.from_runs(frames, keep_depth=keep)
        assert from_files.names == from_frames.names
        for field in ("run", "query", "doc", "score", "rank"):
            assert (getattr(from_files.encoded, field) == getattr(from_frames.encoded, field)).all(), field
        pd.testing.assert_frame_equal(from_files.counts(), from_frames.counts(), check_exact=True)
