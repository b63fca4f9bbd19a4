"""One campaign, one number: the same runs scored against TREC-COVID round 1 through all seven entry points.

Two runs are scored against the embedded campaign (143 runs): "copy", BERT less its last document per query (its top
10 is BERT's, so at depth 10 it *is* BERT), and "new", run1's documents in reverse order. Each goes through the front
door ``ir_rarity.evaluate(pool=)`` (a saved pool, and the pool in hand), ``with pool:`` +
``ir_measures.calc_aggregate``, ``with pool:`` + ``pt.Experiment``, ``ir_rarity.Experiment(pool=)``, ``ir-rarity
eval --pool`` and the stock ``ir_measures`` command with ``pool=``; the pool is given to the front door and the
last three as a saved ``.npz``. Run: ``python examples/one_number.py``.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import ir_measures
import pandas as pd
import pyterrier as pt

import ir_rarity
from ir_rarity import Pool, covid_round1
from ir_rarity.pool.context import activated
from ir_rarity.tables import render_frame

MEASURE = "P_rare(alpha=0.5)@10"
BIN = Path(sys.executable).parent


def write_run(frame: pd.DataFrame, path: Path) -> None:
    with gzip.open(path, "wt") as f:
        for q, d, s in zip(frame["query_id"], frame["doc_id"], frame["score"], strict=True):
            f.write(f"{q} Q0 {d} 0 {s!r} mine\n")


def main() -> None:
    warnings.simplefilter("ignore", ir_rarity.MemberNotice)
    pool = Pool.from_runs(covid_round1.runs, split_by_tag=True)
    qrels = ir_rarity.read_trec_qrels(covid_round1.qrels)
    topics = pd.DataFrame({"qid": sorted(qrels["query_id"].unique()), "query": "covid"})
    bert = pool.run("BERT")
    runs = {"copy": bert[bert.groupby("query_id")["rank"].transform("max") != bert["rank"]],
            "new": pool.run("run1").assign(score=lambda f: -f["score"])}
    measure = ir_measures.parse_measure(MEASURE)
    with tempfile.TemporaryDirectory() as tmp:
        saved = Path(tmp) / "round1.npz"
        pool.save(saved)
        qrels_file = Path(tmp) / "qrels.txt"
        qrels_file.write_bytes(gzip.decompress(Path(covid_round1.qrels).read_bytes()))
        rows = []
        for name, run in runs.items():
            run = run[["query_id", "doc_id", "score"]]
            path = Path(tmp) / f"{name}.gz"
            write_run(run, path)
            values = {"ir_rarity.evaluate(pool=.npz)": ir_rarity.evaluate(
                {name: run}, qrels, [MEASURE], pool=str(saved)).table().iloc[0, 0],
                "evaluate(runs, pool=)": ir_rarity.evaluate({name: run}, qrels, [MEASURE],
                                                            pool=pool).table().iloc[0, 0]}
            with activated(pool):
                values["with pool: calc_aggregate"] = ir_measures.calc_aggregate([measure], qrels, run)[measure]
                pt_run = run.rename(columns={"query_id": "qid", "doc_id": "docno"})
                pt_qrels = qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
                values["with pool: pt.Experiment"] = pt.Experiment([pt_run], topics, pt_qrels, [measure]).iloc[0][
                    MEASURE]
            values["ir_rarity.Experiment(pool=.npz)"] = ir_rarity.Experiment(
                {name: pt_run}, topics, qrels, [MEASURE], pool=str(saved)).iloc[0][MEASURE]
            cli = subprocess.run([str(BIN / "ir-rarity"), "eval", str(qrels_file), str(path), "--pool", str(saved),
                                  "-m", MEASURE, "--format", "jsonl"],
                                 capture_output=True, text=True, check=True)
            values["ir-rarity eval --pool .npz"] = json.loads(cli.stdout)["value"]  # as ir_measures -o jsonl
            named = MEASURE.replace(")", f",pool='{saved}')")
            stock = subprocess.run([str(BIN / "ir_measures"), str(qrels_file), str(path), named, "-o", "jsonl"],
                                   capture_output=True, text=True, check=True, env=dict(os.environ))
            values["ir_measures command, pool=.npz"] = json.loads(stock.stdout)["value"]
            rows += [(path_name, name, float(v)) for path_name, v in values.items()]
    table = pd.DataFrame(rows, columns=["path", "run", MEASURE]).pivot(index="path", columns="run", values=MEASURE)
    print(f"{MEASURE} against TREC-COVID round 1 ({pool!r}); copy = BERT at depth 10, new = a new run (S + 1)\n")
    print(render_frame(table.reset_index(), "markdown", places=-1))
    ours = table.drop(index="with pool: pt.Experiment")  # pt.Experiment's mean adds left to right (README)
    for run in runs:
        assert ours[run].nunique() == 1, f"the paths disagree on {run}"
        assert math.isclose(table.at["with pool: pt.Experiment", run], ours[run].iloc[0], rel_tol=1e-13, abs_tol=0)
    bert_value = float(ir_rarity.evaluate(pool, qrels, [MEASURE]).table().loc["BERT", MEASURE])
    print(f"\nBERT's campaign value: {bert_value!r}")


if __name__ == "__main__":
    main()
