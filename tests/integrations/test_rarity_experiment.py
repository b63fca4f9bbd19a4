"""ir_rarity.Experiment on real retrieval (PISA over Vaswani) and on the TREC-COVID campaign."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import ir_datasets
import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import BaseQueries, GenericQuery, TrecQrels
from ir_datasets.util import GzipExtract, LocalDownload
from scripts import load_script

import ir_rarity
from ir_rarity import Pool

ROOT = Path(__file__).resolve().parents[2]
VASWANI = ROOT / "tests" / "data" / "vaswani"


def _load_example(name: str) -> ModuleType:
    return load_script(f"examples/{name}.py")


class _LocalTopics(BaseQueries):
    """The Vaswani topics file, read through ir_datasets' download-cache interface."""

    def __init__(self, dlc: GzipExtract) -> None:
        self._dlc = dlc

    def queries_cls(self) -> type:
        return GenericQuery

    def queries_namespace(self) -> str:
        return "ir-rarity-test"

    def queries_iter(self):
        with self._dlc.stream() as f:
            text = f.read().decode("utf-8")
        for m in re.finditer(r"<num>(.*?)</num>\s*<title>(.*?)</title>", text, re.S):
            yield GenericQuery(m.group(1).strip(), " ".join(re.sub(r"[^a-z0-9]+", " ", m.group(2).lower()).split()))


DATASET_ID = "ir-rarity-test/vaswani"


@pytest.fixture(scope="module")
def vaswani_dataset() -> str:
    if DATASET_ID not in ir_datasets.registry:
        qrels = TrecQrels(GzipExtract(LocalDownload(VASWANI / "qrels.gz")), {1: "relevant"})
        topics = _LocalTopics(GzipExtract(LocalDownload(VASWANI / "query-text.trec.gz")))
        ir_datasets.registry.register(DATASET_ID, Dataset(qrels, topics))
    return DATASET_ID


@pytest.fixture(scope="module")
def vaswani_table(tmp_path_factory: pytest.TempPathFactory, vaswani_dataset: str) -> pd.DataFrame:
    example = _load_example("vaswani_experiment")
    index_dir = tmp_path_factory.mktemp("pisa") / "vaswani.pisa"
    return example.run(index_dir, qrels=vaswani_dataset, topics=vaswani_dataset).set_index("name")


def test_ir_datasets_local_dataset_goes_through_the_api(vaswani_dataset: str) -> None:
    dataset = ir_datasets.load(vaswani_dataset)
    assert dataset.has_qrels() and dataset.has_queries()
    from ir_rarity.integrations.pyterrier import as_topics_frame

    topics = as_topics_frame(vaswani_dataset)
    assert len(topics) == 93 and topics.loc[0, "query"].startswith("measurement of dielectric")
    qrels = ir_rarity.io.as_qrels_frame(vaswani_dataset)
    assert len(qrels) == 2083


def test_real_retrieval_bm25_and_alpha_zero(vaswani_table: pd.DataFrame) -> None:
    assert list(vaswani_table.index) == ["BM25", "BM25(k1=1.2,b=0.75)", "QLD", "DPH", "PL2"]
    assert vaswani_table.loc["BM25", "AP"] == pytest.approx(0.305, abs=0.005)
    assert vaswani_table.loc["QLD", "AP"] == pytest.approx(0.241, abs=0.005)
    # alpha = 0 is AP (rounded to 4 digits by the example, like the AP column).
    assert (vaswani_table["AP_rare(alpha=0)"] == vaswani_table["AP"]).all()
    assert (vaswani_table["AP_rare"] >= vaswani_table["AP"]).all()
    # Baseline columns: wins + losses <= 93 topics; the baseline row has none.
    others = vaswani_table.drop(index="BM25")
    assert ((others["AP +"] + others["AP -"]) <= 93).all() and (others["AP +"] > 0).all()
    assert np.isnan(vaswani_table.loc["BM25", "AP p-value"])


@pytest.fixture(scope="module")
def covid_results(covid_pool: Pool) -> dict[str, pd.DataFrame]:
    names = ["BBGhelani1", "BERT", "run1", "sab20.1.meta.docs"]
    return {n: covid_pool.run(n).rename(columns={"query_id": "qid", "doc_id": "docno"}) for n in names}


@pytest.fixture(scope="module")
def covid_topics(covid_qrels: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"qid": sorted(covid_qrels["query_id"].unique()), "query": "covid"})


def test_experiment_equals_pt_experiment_in_the_same_pool(covid_results: dict, covid_topics: pd.DataFrame,
                                                          covid_qrels: pd.DataFrame) -> None:
    measures = ["P@100", "P_rare(alpha=0.5)@100", "AP_rare", "nDCG@10"]
    ours = ir_rarity.Experiment(covid_results, covid_topics, covid_qrels, measures).set_index("name")
    pool = Pool.from_runs(covid_results)  # the pool Experiment builds: the four systems
    parsed = [ir_rarity.measures.base.ir_measures.parse_measure(m) for m in measures]
    qrels = covid_qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    with pool:
        theirs = pt.Experiment(list(covid_results.values()), covid_topics, qrels, parsed,
                               names=list(covid_results)).set_index("name")
    expected = pool.evaluate(covid_qrels, parsed)
    for m in parsed:
        np.testing.assert_allclose(ours[str(m)], theirs[str(m)], rtol=0, atol=1e-12)
        np.testing.assert_allclose(ours[str(m)], expected.loc[ours.index, str(m)], rtol=0, atol=1e-12)


def test_new_system_scored_against_a_campaign(covid_pool: Pool, covid_topics: pd.DataFrame,
                                              covid_qrels: pd.DataFrame) -> None:
    newcomer = covid_pool.run("BERT").groupby("query_id").head(60)  # not any campaign run
    member = covid_pool.run("run1")  # a campaign run under another name: counted once
    systems = {"new": newcomer, "copy_of_run1": member}
    table = ir_rarity.Experiment(systems, covid_topics, covid_qrels, ["P_rare@100", "AP_rare@100"],
                                 pool=covid_pool).set_index("name")
    joined = Pool.from_runs({**{n: covid_pool.run(n) for n in covid_pool.names}, "new": newcomer})
    assert joined.num_systems == 144
    expected = joined.evaluate(covid_qrels, ["P_rare@100", "AP_rare@100"])
    campaign = covid_pool.evaluate(covid_qrels, ["P_rare@100", "AP_rare@100"])
    # Each system on its own: the newcomer as if it alone joined (S + 1), the copy as the member it equals.
    assert table.loc["new", "P_rare@100"] == pytest.approx(expected.loc["new", "P_rare@100"], abs=1e-12)
    assert table.loc["copy_of_run1", "AP_rare@100"] == campaign.loc["run1", "AP_rare@100"]
    # joint=True: both join together; the copy adds nothing, so this is the pool joined by "new" alone.
    joint = ir_rarity.Experiment(systems, covid_topics, covid_qrels, ["P_rare@100", "AP_rare@100"],
                                 pool=covid_pool, joint=True).set_index("name")
    assert joint.loc["copy_of_run1", "AP_rare@100"] == pytest.approx(expected.loc["run1", "AP_rare@100"], abs=1e-12)
    assert joint.loc["new", "AP_rare@100"] == pytest.approx(expected.loc["new", "AP_rare@100"], abs=1e-12)


def test_output_shapes(covid_results: dict, covid_topics: pd.DataFrame, covid_qrels: pd.DataFrame) -> None:
    measures = ["P_rare@10", "mrt"]
    per_query = ir_rarity.Experiment(covid_results, covid_topics, covid_qrels, measures[:1], perquery=True)
    assert list(per_query.columns) == ["name", "qid", "measure", "value"] and len(per_query) == 4 * 30
    as_dict = ir_rarity.Experiment(covid_results, covid_topics, covid_qrels, measures, dataframe=False)
    assert set(as_dict) == set(covid_results) and set(as_dict["BERT"]) == {"P_rare@10", "mrt"}
    styled = ir_rarity.Experiment(covid_results, covid_topics, covid_qrels, measures[:1], highlight="bold",
                                  round=3)
    html = styled.to_html()
    best = max(as_dict.values(), key=lambda row: row["P_rare@10"])["P_rare@10"]
    assert "font-weight: bold" in html and f"{round(best, 3)}" in html


def test_pyterrier_module_entry_point() -> None:
    assert pt.rarity is ir_rarity and pt.rarity.Experiment is ir_rarity.Experiment


def test_lower_is_better_measures_in_experiment(covid_results: dict, covid_topics: pd.DataFrame,
                                                covid_qrels: pd.DataFrame) -> None:
    # Drop all relevant judgments of one query: ASL is undefined (NaN) there and must not pull the mean down.
    qid = sorted(covid_qrels["query_id"].unique())[0]
    qrels = covid_qrels[~((covid_qrels["query_id"] == qid) & (covid_qrels["relevance"] > 0))]
    measures = ["ASL@g1-10", "P@10"]
    table = ir_rarity.Experiment(covid_results, covid_topics, qrels, measures, baseline="BERT").set_index("name")
    per_query = ir_rarity.Experiment(covid_results, covid_topics, qrels, measures, perquery=True)
    asl = per_query[per_query["measure"] == "ASL@g1-10"].pivot_table(index="qid", columns="name", values="value",
                                                                     dropna=False)
    assert asl[qid].isna().all() if qid in asl.columns else asl.loc[qid].isna().all()
    for name in covid_results:
        assert table.loc[name, "ASL@g1-10"] == pytest.approx(asl[name].mean(skipna=True), abs=1e-12)
        if name == "BERT":
            continue
        better = int((asl[name] < asl["BERT"]).sum())  # lower ASL is better
        worse = int((asl[name] > asl["BERT"]).sum())
        assert (table.loc[name, "ASL@g1-10 +"], table.loc[name, "ASL@g1-10 -"]) == (better, worse)
        assert not np.isnan(table.loc[name, "ASL@g1-10 p-value"])
    styler = ir_rarity.Experiment(covid_results, covid_topics, qrels, measures, highlight="bold")
    styler._compute()  # fills styler.ctx: (row, column) -> [(property, value)]
    data = styler.data
    bold = {(data.iloc[r]["name"], data.columns[c]) for (r, c), props in styler.ctx.items()
            if ("font-weight", "bold") in props}
    column = data.set_index("name")["ASL@g1-10"]
    assert (column.idxmin(), "ASL@g1-10") in bold and (column.idxmax(), "ASL@g1-10") not in bold
    assert (data.set_index("name")["P@10"].idxmax(), "P@10") in bold


def test_mrt_of_transformers_and_several_baselines(covid_results: dict, covid_topics: pd.DataFrame,
                                                   covid_qrels: pd.DataFrame) -> None:
    systems = {n: pt.Transformer.from_df(frame) for n, frame in covid_results.items()}
    table = ir_rarity.Experiment(systems, covid_topics, covid_qrels, ["P_rare@10", "mrt"], baseline=["BERT", 0])
    assert (table["mrt"] > 0).all()  # ms per qrels query, measured here
    assert list(table.columns[3:6]) == ["P_rare@10 +(BERT)", "P_rare@10 -(BERT)", "P_rare@10 p-value(BERT)"]
    assert list(table.columns[6:]) == ["P_rare@10 +(BBGhelani1)", "P_rare@10 -(BBGhelani1)",
                                       "P_rare@10 p-value(BBGhelani1)"]
    both = ir_rarity.Experiment(systems, covid_topics, covid_qrels, ["P_rare@10", "mrt"], perquery="both")
    assert "mrt" not in both.averages.columns  # as pt.Experiment: perquery="both" gives means without mrt
    assert set(both.perquery["measure"]) == {"P_rare@10"}
