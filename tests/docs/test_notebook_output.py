"""An executed notebook shows no warning output and no escape codes (a kernel without ipywidgets included).

A notebook doing what users do with a campaign (a pool of the 143 round-1 runs read with progress on, two runs
scored against it that equal members, ``with pool:`` and ``pt.Experiment``, a whole-campaign Evaluation shown) is
executed in a fresh kernel (as tests/docs/test_notebooks.py runs the examples). Its outputs must hold:

* no stderr stream (a kernel shows it red: warnings with their source lines, tqdm's text bars) and no escape codes
  or carriage returns in any output;
* progress as one plain line per bar (ipywidgets is not installed here, as in many VS Code kernels);
* the member notice once per evaluation, as a plain line, and in the Evaluation's caption;
* the Evaluation best first and cut as pandas cuts a frame.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
kernelspec = pytest.importorskip("ipykernel.kernelspec")

pytestmark = pytest.mark.slow  # a kernel runs the notebook

CELLS = [
    """import warnings
import pandas as pd
import ir_measures
import pyterrier as pt
import ir_rarity
from ir_rarity import covid_round1
warnings.simplefilter("default")  # every warning shown, as a kernel shows them""",
    """pool = ir_rarity.Pool.from_runs(covid_round1.runs, split_by_tag=True, progress=True)
runs = ir_rarity.read_trec_run(covid_round1.runs)
qrels = ir_rarity.read_trec_qrels(covid_round1.qrels)""",
    """systems = {name: runs[runs["tag"] == name][["query_id", "doc_id", "score"]] for name in ["BERT", "run1"]}
result = ir_rarity.evaluate(systems, qrels, ["P_rare@10", "P@10"], pool=pool, progress=True)
result""",
    """frames = [f.rename(columns={"query_id": "qid", "doc_id": "docno"}) for f in systems.values()]
topics = pd.DataFrame({"qid": sorted(qrels["query_id"].unique()), "query": "q"})
with pool:
    table = pt.Experiment(frames, topics, qrels.rename(columns={"query_id": "qid", "doc_id": "docno",
                                                                 "relevance": "label"}),
                          [ir_measures.parse_measure("P_rare@10"), ir_measures.parse_measure("AP_rare@10")],
                          names=list(systems))
table""",
    """pd.set_option("display.max_rows", 10)
pd.set_option("display.min_rows", 6)
campaign = ir_rarity.evaluate(covid_round1.runs, qrels, ["P@10"], split_by_tag=True)
campaign""",
]


def test_an_executed_notebook_shows_no_warning_and_no_escape_codes(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in CELLS])
    jupyter_path = tmp_path / "jupyter"
    kernelspec.write_kernel_spec(jupyter_path / "kernels" / "python3")
    monkeypatch.setenv("JUPYTER_PATH", str(jupyter_path))
    monkeypatch.delenv("IR_RARITY_POOL", raising=False)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()

    outputs = [(i, out) for i, cell in enumerate(nb.cells) for out in cell.get("outputs", [])]
    assert not [out for _, out in outputs if out.output_type == "error"], outputs
    stderr = [out.text for _, out in outputs if out.output_type == "stream" and out.name == "stderr"]
    assert stderr == [], stderr
    everything = json.dumps([out for _, out in outputs])
    assert "\\u001b" not in everything and "\\r" not in everything  # no escape codes, no carriage returns
    stdout: dict[int, str] = {}
    for i, out in outputs:
        if out.output_type == "stream" and out.name == "stdout":
            stdout[i] = stdout.get(i, "") + out.text
    assert stdout[1].startswith("reading runs: 1/1 file in ")  # progress: one plain line per bar
    assert stdout[2].count("ir_rarity note:") == 1 and "'BERT'" in stdout[2]  # once per evaluation
    # pt.Experiment evaluates each system on its own: at most one note each, each naming its member
    notes = [line for line in stdout.get(3, "").splitlines() if line.startswith("ir_rarity note:")]
    assert len(notes) <= 2 and sorted("'BERT'" in n for n in notes) == sorted("'run1'" not in n for n in notes)
    html = {i: out.data["text/html"] for i, out in outputs if out.output_type == "execute_result"}
    assert "scored as the campaign members they equal" in html[2]  # in the caption
    assert "best first by P@10" in html[4] and html[4].count("<tr>") == 1 + 6 + 1  # header, 6 rows, "..."
    assert sys.executable  # the kernel ran this interpreter (kernelspec argv[0])
