"""Runs of very many tiny rankings (many one-line queries, many one-line tags) are encoded without a Python step
per query, quickly, and scored right: values by hand and S_d against an independent pandas count."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd
import pytest
from scripts import load_script

import ir_rarity
from ir_rarity import Pool
from ir_rarity.pool.build.docnos import DocEncoder

pytestmark = pytest.mark.slow  # campaigns of thousands of rankings


def _bench() -> ModuleType:
    return load_script("bench/make_hostile.py")


@pytest.mark.filterwarnings("ignore::ir_rarity.errors.DegeneratePoolWarning")
def test_twenty_thousand_one_line_queries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run, qrels = tmp_path / "many.run.gz", tmp_path / "many.qrels"
    _bench().write_many_queries(run, qrels, 20_000)
    flat = []
    original = DocEncoder._finish_flat
    monkeypatch.setattr(DocEncoder, "_finish_flat", lambda self, *a: flat.append(1) or original(self, *a))
    result = ir_rarity.evaluate({"r": run}, qrels, ["P@10", "P_rare@10"]).table()
    assert flat == [1]
    # Every tenth query judges its one document relevant: P@10 = 1/10 there; S = 1, so P_rare = P.
    assert result.loc["r", "P@10"] == pytest.approx(0.1, abs=1e-12)
    assert result.loc["r", "P_rare@10"] == pytest.approx(0.1, abs=1e-12)


def _random_campaign(seed: int) -> dict[str, pd.DataFrame]:
    """Four runs over 6,000 queries of one to three documents drawn from 50 docnos (overlapping runs)."""
    rng = np.random.default_rng(seed)
    runs = {}
    for r in range(4):
        rows = []
        for q in rng.choice(8000, size=6000, replace=False):
            for d in rng.choice(50, size=rng.integers(1, 4), replace=False):
                rows.append((f"q{q}", f"doc-{d:02d}{'x' * int(d % 3)}", float(rng.integers(0, 5))))
        runs[f"run{r}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return runs


@pytest.mark.parametrize("batch_rows", [DocEncoder.BATCH_ROWS, 4096])
def test_flat_encoding_counts_like_pandas(batch_rows: int, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _random_campaign(7)
    monkeypatch.setattr(DocEncoder, "BATCH_ROWS", batch_rows)  # several flat batches, unified at the end
    monkeypatch.setattr(DocEncoder, "HELD_BATCH_ROWS", batch_rows)
    pool = Pool.from_runs(runs)
    assert pool.encoded.docs.is_monotonic_increasing and pool.encoded.queries.is_monotonic_increasing
    every = pd.concat(runs.values())
    expected = every.groupby(["query_id", "doc_id"]).size().rename("S_d").reset_index()
    got = pool.counts()
    pd.testing.assert_frame_equal(got.reset_index(drop=True), expected.sort_values(["query_id", "doc_id"])
                                  .reset_index(drop=True), check_dtype=False)
    for name, frame in runs.items():  # each run reads back as given, in trec_eval order
        back = pool.run(name)
        order = frame.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
        assert back["doc_id"].tolist() == order["doc_id"].tolist()
    monkeypatch.setattr(DocEncoder, "FLAT_MIN_BLOCKS", 1 << 40)  # the per-query encoding: the same campaign
    per_query = Pool.from_runs(runs)
    for field in ("query", "doc", "rank", "run"):
        np.testing.assert_array_equal(getattr(per_query.encoded, field), getattr(pool.encoded, field))
    assert list(per_query.encoded.docs) == list(pool.encoded.docs)


def test_five_thousand_one_line_tags(tmp_path: Path) -> None:
    run, qrels = tmp_path / "tags.run.gz", tmp_path / "tags.qrels"
    n = 5000
    _bench().write_many_tags(run, qrels, n)
    split = ir_rarity.evaluate(run, qrels, ["P@10", "P_rare@10"], split_by_tag=True).table()
    # Tag t retrieves d<t> for q<t % 100>, relevant when t % 7 == 0; 100 judged queries, S = n, each S_d = 1.
    relevant = np.arange(n) % 7 == 0
    by_tag = split.loc[[f"t{t}" for t in range(n)]]
    np.testing.assert_allclose(by_tag["P@10"], np.where(relevant, 0.1 / 100, 0.0), atol=1e-15)
    np.testing.assert_allclose(by_tag["P_rare@10"], np.where(relevant, (2 - 1 / n) / 10 / 100, 0.0), atol=1e-15)
    whole = ir_rarity.evaluate({"r": run}, qrels, ["P@10"]).table()  # one run: 50 tied documents per query
    tags = pd.DataFrame({"t": np.arange(n)}).assign(q=lambda f: "q" + (f.t % 100).astype(str),
                                                     d=lambda f: "d" + f.t.astype(str), rel=relevant)
    top = tags.sort_values(["q", "d"], ascending=[True, False]).groupby("q").head(10)  # ties: docno descending
    assert whole.loc["r", "P@10"] == pytest.approx(top.groupby("q").rel.sum().mean() / 10, abs=1e-12)
