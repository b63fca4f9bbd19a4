"""Differential fuzzing of real runs: what real files suffer either changes nothing or is one line naming it.

Three round-1 runs are written as clean TREC run files. Each example perturbs one of them as real files are
perturbed. The perturbations trec_eval 10.0 accepts (extra spaces and tabs between fields, leading and trailing
whitespace, CRLF, a byte order mark, blank lines; ``#`` comment lines, which ir_rarity skips) must give exactly
the values of the clean file, rarity included (the pool is the clean files), and P@10, AP and nDCG@10 must equal
pytrec_eval's (through ir_measures) on the clean run. The ones it rejects (a line of 5 or 7 fields, a score that
is not a number, a last line cut inside its first five fields) must give one :class:`ir_rarity.InputError` line
naming the file and the line.
"""

from __future__ import annotations

import gzip
import math
import random
import tempfile
from pathlib import Path

import ir_measures
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import ir_rarity
from ir_rarity.pool.build.sources import iter_named_runs

MEASURES = ["P@10", "AP", "nDCG@10", "P_rare(alpha=0.5)@10"]
STANDARD = MEASURES[:3]
NAMES = 3
ACCEPTED = ["spaces", "leading", "trailing", "crlf", "bom", "comment", "blank", "gzip"]
REJECTED = [None, None, "five", "seven", "score", "truncated"]


pytestmark = pytest.mark.slow  # fuzzing real runs


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("clean")
    runs = {}
    for k, (tag, frame) in enumerate(iter_named_runs(ir_rarity.covid_round1.runs, split_by_tag=True)):
        if k % 40 == 0:  # three runs of different teams
            runs[tag] = frame
        if len(runs) == NAMES:
            break
    paths, lines, values, reference = {}, {}, {}, {}
    qrels = ir_rarity.covid_round1.qrels
    qrels_list = list(ir_measures.read_trec_qrels(str(qrels)))
    for tag, frame in runs.items():
        rows = [f"{q} Q0 {d} {r + 1} {s!r} {tag}" for r, (q, d, s) in
                enumerate(zip(frame["query_id"], frame["doc_id"], frame["score"], strict=True))]
        path = folder / f"{tag}.run"
        path.write_text("".join(row + "\n" for row in rows))
        paths[tag], lines[tag] = path, rows
        run = [ir_measures.ScoredDoc(q, d, s) for q, d, s in zip(frame["query_id"], frame["doc_id"],
                                                                  frame["score"], strict=True)]
        got = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in STANDARD], qrels_list, run)
        reference[tag] = {m: got[ir_measures.parse_measure(m)] for m in STANDARD}
    pool = list(paths.values())
    for tag, path in paths.items():
        values[tag] = ir_rarity.evaluate({tag: path}, qrels, MEASURES, pool=pool).table().loc[tag]
    return {"paths": paths, "lines": lines, "values": values, "reference": reference, "pool": pool}


@st.composite
def perturbations(draw: st.DrawFn) -> dict[str, object]:
    return {"run": draw(st.integers(0, NAMES - 1)),
            "accepted": draw(st.sets(st.sampled_from(ACCEPTED), max_size=len(ACCEPTED))),
            "rejected": draw(st.sampled_from(REJECTED)),
            "seed": draw(st.integers(0, 2**32 - 1))}


def _perturbed(rows: list[str], plan: dict[str, object]) -> tuple[bytes, int | None]:
    """The bytes of the perturbed file and the 1-based line a rejected perturbation is on."""
    rng = random.Random(plan["seed"])
    accepted = plan["accepted"]
    assert isinstance(accepted, set)
    ws = [" ", "\t", "  ", " \t", "\t\t ", "   "]
    out: list[str] = []
    target = rng.randrange(len(rows)) if plan["rejected"] != "truncated" else len(rows) - 1
    bad_line = None
    for i, row in enumerate(rows):
        fields = row.split(" ")
        if i == target and plan["rejected"] is not None:
            fields = _reject(fields, str(plan["rejected"]), rng)
        sep = (lambda: rng.choice(ws)) if "spaces" in accepted else (lambda: " ")
        line = fields[0] + "".join(sep() + f for f in fields[1:])
        if "leading" in accepted and rng.random() < 0.1:
            line = rng.choice(ws) + line
        if "trailing" in accepted and rng.random() < 0.1:
            line += rng.choice(ws)
        if "comment" in accepted and rng.random() < 0.01:
            out.append("# " + " ".join(fields))  # six words: a comment, not a row
        if "blank" in accepted and rng.random() < 0.01:
            out.append(rng.choice(["", " ", "\t"]))
        out.append(line)
        if i == target:
            bad_line = len(out)
    end = "\r\n" if "crlf" in accepted else "\n"
    text = end.join(out) + ("" if plan["rejected"] == "truncated" else end)
    data = ("\ufeff" if "bom" in accepted else "").encode() + text.encode()
    return data, bad_line if plan["rejected"] is not None else None


def _reject(fields: list[str], kind: str, rng: random.Random) -> list[str]:
    if kind == "five":
        drop = rng.randrange(6)
        return fields[:drop] + fields[drop + 1:]
    if kind == "seven":
        return [*fields, "extra"]
    if kind == "score":
        return [*fields[:4], rng.choice(["high", "0.5.1", "--1", "1e", "0x10"]), fields[5]]
    # truncated: the last line cut inside one of its first five fields
    head = " ".join(fields[:5])
    return head[:rng.randrange(1, len(head))].rstrip(" ").split(" ")


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(perturbations())
def test_perturbed_real_runs_give_the_clean_values_or_one_error_line(clean: dict[str, object],
                                                                     plan: dict[str, object]) -> None:
    paths, lines, values, reference = (clean["paths"], clean["lines"], clean["values"], clean["reference"])
    assert isinstance(paths, dict) and isinstance(lines, dict) and isinstance(values, dict)
    assert isinstance(reference, dict)
    tag = list(paths)[int(str(plan["run"]))]
    data, bad_line = _perturbed(lines[tag], plan)
    accepted = plan["accepted"]
    assert isinstance(accepted, set)
    event(f"rejected: {plan['rejected']}")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / (f"{tag}.run" + (".gz" if "gzip" in accepted else ""))
        path.write_bytes(gzip.compress(data) if "gzip" in accepted else data)
        if bad_line is not None:
            with pytest.raises(ir_rarity.InputError) as e:
                ir_rarity.evaluate({tag: path}, ir_rarity.covid_round1.qrels, MEASURES, pool=clean["pool"])
            message = str(e.value)
            assert f"{path}:{bad_line}:" in message and "\n" not in message and len(message) < 300, message
            return
        table = ir_rarity.evaluate({tag: path}, ir_rarity.covid_round1.qrels, MEASURES, pool=clean["pool"]).table()
    pd.testing.assert_series_equal(table.loc[tag], values[tag], rtol=0, atol=0)
    for m in STANDARD:
        assert math.isclose(table.loc[tag, m], reference[tag][m], abs_tol=1e-12), (m, table.loc[tag, m])
