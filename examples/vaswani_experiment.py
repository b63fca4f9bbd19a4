"""Real retrieval, end to end: index Vaswani (NPL) with PISA, run five systems, evaluate with ir_rarity.

    pip install -e ".[pisa]"
    python examples/vaswani_experiment.py [--data tests/data/vaswani] [--index /tmp/vaswani.pisa]

The five systems (BM25, BM25 with k1=1.2 b=0.75, QLD, DPH, PL2) form the pool, so each system's rarity measures
reward the relevant documents the others miss. BM25 is the baseline of the win/loss counts and t-tests.
"""

from __future__ import annotations

import argparse
import gzip
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

import ir_rarity

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "vaswani"
MEASURES = ["P@10", "AP", "nDCG@10", "P_rare(alpha=0.5)@100", "AP_rare", "AP_rare(alpha=0)"]


def vaswani_docs(folder: Path = DATA) -> Iterator[dict[str, str]]:
    """The 11,429 documents of ``doc-text.trec.gz`` as ``{'docno', 'text'}`` dicts."""
    with gzip.open(folder / "doc-text.trec.gz", "rt", encoding="utf-8") as f:
        text = f.read()
    for match in re.finditer(r"<DOC>\s*<DOCNO>(.*?)</DOCNO>(.*?)</DOC>", text, re.S):
        yield {"docno": match.group(1).strip(), "text": " ".join(match.group(2).split())}


def vaswani_topics(folder: Path = DATA) -> pd.DataFrame:
    """The 93 topics as a PyTerrier frame ``qid, query`` (lower-cased, punctuation removed)."""
    with gzip.open(folder / "query-text.trec.gz", "rt", encoding="utf-8") as f:
        text = f.read()
    rows = [(m.group(1).strip(), " ".join(re.sub(r"[^a-z0-9]+", " ", m.group(2).lower()).split()))
            for m in re.finditer(r"<num>(.*?)</num>\s*<title>(.*?)</title>", text, re.S)]
    return pd.DataFrame(rows, columns=["qid", "query"])


def systems(index_dir: Path, folder: Path = DATA) -> dict[str, object]:
    """Index the collection with PISA (porter2 stemming) unless already indexed, and return five retrievers."""
    from pyterrier_pisa import PisaIndex

    index = PisaIndex(str(index_dir), stemmer="porter2", text_field="text")
    if not index.built():
        index.index(vaswani_docs(folder))
    return {
        "BM25": index.bm25(num_results=1000),
        "BM25(k1=1.2,b=0.75)": index.bm25(k1=1.2, b=0.75, num_results=1000),
        "QLD": index.qld(num_results=1000),
        "DPH": index.dph(num_results=1000),
        "PL2": index.pl2(num_results=1000),
    }


def run(index_dir: Path, qrels: object = None, topics: object = None, folder: Path = DATA) -> pd.DataFrame:
    """Evaluate the five systems with ir_rarity.Experiment (baseline: BM25)."""
    qrels = folder / "qrels.gz" if qrels is None else qrels
    topics = vaswani_topics(folder) if topics is None else topics
    return ir_rarity.Experiment(systems(index_dir, folder), topics, str(qrels), MEASURES, baseline="BM25",
                                round=4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--index", type=Path, default=None, help="index folder (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        table = run(args.index or Path(tmp) / "vaswani.pisa", folder=args.data)
    with pd.option_context("display.width", 200, "display.max_columns", 40):
        print(table)


if __name__ == "__main__":
    main()
