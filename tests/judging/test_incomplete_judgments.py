"""Rarity under incomplete judgments: judged_only=True, Judged@k and the per-run readings of unjudged documents.

Independent computations: pytrec_eval through ir_measures (AP/nDCG/P with judged_only=True) on real round-1 runs
with qrels restricted to a shallow (depth-5) pool, and a hand-worked condensed ranking.
"""

from __future__ import annotations

import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest

from ir_rarity import Pool, campaign
from ir_rarity.errors import MemberNotice
from ir_rarity.judging import incomplete_judgments, judged_only
from ir_rarity.measures.parse import parse_measures


@pytest.fixture(scope="module")
def shallow(covid_pool: Pool, covid_qrels: pd.DataFrame) -> tuple[Pool, pd.DataFrame]:
    pool = covid_pool.subset(covid_pool.names[::4])  # 36 runs
    pooled = campaign.judging_pool(covid_pool, 5)[["query_id", "doc_id"]]
    return pool, covid_qrels.merge(pooled, on=["query_id", "doc_id"])  # judgments of the depth-5 pool only


PAIRS = [("AP_rare(alpha=0,judged_only=True)", "AP(judged_only=True)"),
         ("AP_rare(alpha=0,judged_only=True)@20", "AP(judged_only=True)@20"),
         ("nDCG_rare(alpha=0,judged_only=True)", "nDCG(judged_only=True)"),
         ("nDCG_rare(alpha=0,judged_only=True)@10", "nDCG(judged_only=True)@10"),
         ("P_rare(alpha=0,judged_only=True)@10", "P(judged_only=True)@10")]


@pytest.mark.slow
def test_judged_only_at_alpha_zero_equals_pytrec_eval(shallow: tuple[Pool, pd.DataFrame]) -> None:
    pool, qrels = shallow
    measures = parse_measures([m for pair in PAIRS for m in pair])
    ours = pool.evaluate(qrels, [m for m in measures if "_rare" in str(m)], by_query=True)
    standard = [m for m in measures if "_rare" not in str(m)]
    theirs = pd.DataFrame([(n, m.query_id, str(m.measure), m.value) for n in pool.names
                           for m in ir_measures.iter_calc(standard, qrels, pool.run(n))],
                          columns=["run", "query_id", "measure", "value"])
    for rare, base in PAIRS:
        a = ours[ours["measure"] == str(parse_measures([rare])[0])].set_index(["run", "query_id"])["value"]
        b = theirs[theirs["measure"] == str(parse_measures([base])[0])].set_index(["run", "query_id"])["value"]
        b = b.reindex(a.index, fill_value=0.0)
        np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), atol=1e-12, err_msg=rare)
    # The restriction matters: without judged_only the values differ.
    plain = pool.evaluate(qrels, ["AP_rare(alpha=0)", "AP_rare(alpha=0,judged_only=True)"])
    assert (plain.iloc[:, 0] != plain.iloc[:, 1]).any()


def test_judged_only_by_hand() -> None:
    # Run A: d1 d9 d2 (d9 unjudged); B: d9 d1. Qrels q1: d1=1, d2=1. S = 2; S_d (whole runs): d1 2, d2 1.
    runs = {"A": pd.DataFrame({"query_id": "q1", "doc_id": ["d1", "d9", "d2"], "score": [3.0, 2.0, 1.0]}),
            "B": pd.DataFrame({"query_id": "q1", "doc_id": ["d9", "d1"], "score": [2.0, 1.0]})}
    qrels = pd.DataFrame({"query_id": "q1", "doc_id": ["d1", "d2"], "relevance": [1, 1]})
    pool = Pool.from_runs(runs)
    got = pool.evaluate(qrels, ["P_rare(judged_only=True)@2", "P_rare@2", "AP_rare(judged_only=True)"])
    # Condensed A: d1 d2. S_d stays as counted on the runs as submitted, at depth 2: d1 2 (A, B), d2 0 (third in
    # A), so weights 1 + (1 - S_d/S) are 1 and 2: P_rare@2 = (1 + 2)/2; plain A: d1 d9 -> 1/2.
    # Condensed B: d1 -> P_rare@2 = 1/2 (plain: d9 d1 -> 1/2 too).
    assert got["P_rare(judged_only=True)@2"].tolist() == pytest.approx([1.5, 0.5])
    assert got["P_rare@2"].tolist() == pytest.approx([0.5, 0.5])
    # AP_rare condensed A: (P_rare@1 + P_rare@2) / N_R = (1 + 1.25) / 2; B: P_rare@1 / 2 = 1/2.
    assert got["AP_rare(judged_only=True)"].tolist() == pytest.approx([1.125, 0.5])


def test_judged_only_helper() -> None:
    assert str(judged_only("P_rare@10")) == "P_rare(judged_only=True)@10"
    assert str(judged_only("P@10")) == "P(judged_only=True)@10"
    assert judged_only("Judged@10") is None


def test_incomplete_judgments_readings(shallow: tuple[Pool, pd.DataFrame]) -> None:
    pool, qrels = shallow
    names = pool.names[:6]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemberNotice)
        table = incomplete_judgments(pool, qrels, ["P@10", "P_rare(alpha=0.5)@10"], judged_at=10, runs=names)
    p10 = table[table["measure"] == "P@10"].set_index("run")
    # With every unjudged document of the top 10 made relevant, P@10 gains exactly the unjudged share of the top
    # 10 in trec_eval order. (ir_measures' Judged@10 breaks score ties its own way: one run differs by 1/300.)
    judged = qrels.set_index(["query_id", "doc_id"]).index
    topics = qrels["query_id"].nunique()
    for name in names:
        top = pool.run(name).query("rank <= 10")
        share = (~top.set_index(["query_id", "doc_id"]).index.isin(judged)).sum() / (10 * topics)
        assert p10.loc[name, "unjudged_relevant"] == pytest.approx(p10.loc[name, "value"] + share)
    assert (p10["Judged@10"] + (p10["unjudged_relevant"] - p10["value"]) - 1).abs().max() < 0.01
    # The condensed top 10 holds the plain top 10's relevant documents and maybe more.
    assert (table["judged_only"] >= table["value"] - 1e-12).all()
    rare = pool.evaluate(qrels, ["P_rare(alpha=0.5,judged_only=True)@10"]).loc[names].iloc[:, 0]
    got = table[table["measure"] == "P_rare(alpha=0.5)@10"].set_index("run")["judged_only"]
    np.testing.assert_allclose(got.to_numpy(), rare.to_numpy())


def test_judged_only_for_a_newcomer(shallow: tuple[Pool, pd.DataFrame]) -> None:
    pool, qrels = shallow
    name = pool.names[0]
    others = pool.subset(pool.names[1:])
    measures = parse_measures(["AP_rare(alpha=0,judged_only=True)", "P_rare(alpha=0.5,judged_only=True)@10"])
    newcomer = others.evaluate(qrels, measures, runs={name: pool.run(name)})
    ap = ir_measures.calc_aggregate([ir_measures.AP(judged_only=True)], qrels, pool.run(name))
    assert newcomer.iloc[0, 0] == pytest.approx(ap[ir_measures.AP(judged_only=True)])
    # As a newcomer to the other 35 runs it counts in S (35 + 1) and in S_d: the same value as a member of all 36.
    member = pool.evaluate(qrels, measures).loc[name]
    assert newcomer.iloc[0, 1] == pytest.approx(member.iloc[1], rel=1e-12)
