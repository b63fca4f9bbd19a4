"""One campaign, one number: every entry point scores the same run against the same campaign identically.

A campaign of 15 real round-1 runs is written as run files. Two runs are evaluated against it: a content copy of a
member (its last document per query removed, so its top 10 is the member's) and a truly new run. Each goes through the
seven paths -- the front door ``ir_rarity.evaluate(pool=)`` (the reference), ``Pool.evaluate(runs=)``, ``with pool:``
+ ``ir_measures.calc_aggregate``, ``with pool:`` + ``pt.Experiment``, ``ir_rarity.Experiment(pool=)``, ``ir-rarity
eval --pool``, and the stock ``ir_measures`` command with ``pool=`` / ``IR_RARITY_POOL`` -- with the pool named as a
folder of run files, a saved ``.npz`` pool and a ``.parquet`` count table. Every value must be the same float, to the
last digit.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import warnings
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
from cli_helpers import BIN

import ir_rarity
from ir_rarity import CountTable, DegeneratePoolWarning, MemberNotice, Pool
from ir_rarity.cli import main
from ir_rarity.pool.resolve import clear_cache, resolve_campaign

MEASURES = ["P_rare(alpha=0.5)@10", "AP_rare@10", "nDCG_rare@10", "R_rare(alpha=2.0)@10", "P@10"]
CAMPAIGN = ["BBGhelani1", "BERT", "run1", "run2", "sab20.1.meta.docs", "udel_fang_run3", "CSIROmedNIR", "Technion-JPD",
            "covidex.r1.t5", "UIowaS_Run1", "IRIT_marked_base", "poznan_baseline", "SFDC-fus12-enc23-tf3",
            "ucd_cs_r1", "xj4wang_run1"]


def _write_run(frame: pd.DataFrame, path: Path, tag: str) -> None:
    ranked = frame.sort_values(["query_id", "score"], ascending=[True, False], kind="mergesort")
    rank = ranked.groupby("query_id").cumcount() + 1
    lines = [f"{q} Q0 {d} {r} {s!r} {tag}\n" for q, d, r, s in
             zip(ranked["query_id"], ranked["doc_id"], rank, ranked["score"], strict=True)]
    with gzip.open(path, "wt") as f:
        f.writelines(lines)


@pytest.fixture(scope="module")
def campaign(covid_pool: Pool, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    names = [n for n in CAMPAIGN if n in covid_pool]
    assert len(names) >= 10
    root = tmp_path_factory.mktemp("one_number")
    folder = root / "runs"
    folder.mkdir()
    for name in names:
        _write_run(covid_pool.run(name), folder / f"{name}.gz", name)
    member = covid_pool.run("BERT")
    copy = member[member.groupby("query_id")["rank"].transform("max") != member["rank"]]  # less its last doc
    _write_run(copy, root / "copy.gz", "mine")
    new = covid_pool.run("run1").copy()
    new["score"] = -new["score"]  # the same documents in reverse order: a truly new ranking
    _write_run(new, root / "new.gz", "mine")
    pool = Pool.from_runs(folder)
    pool.save(root / "campaign.npz")
    CountTable.from_pool(pool, depth=10).to_parquet(root / "campaign.parquet")
    qrels = root / "qrels.txt"
    qrels.write_bytes(gzip.decompress(Path(ir_rarity.covid_round1.qrels).read_bytes()))
    return {"folder": folder, "npz": root / "campaign.npz", "parquet": root / "campaign.parquet",
            "copy": root / "copy.gz", "new": root / "new.gz", "qrels": qrels}


def _values_api(spec: Path, run: Path, qrels: pd.DataFrame) -> dict[str, float]:
    frame = ir_rarity.read_trec_run(run)
    table = ir_rarity.evaluate({"mine": frame[["query_id", "doc_id", "score"]]}, qrels, MEASURES, pool=spec).table()
    return {m: float(table.loc["mine", m]) for m in table.columns}


def _values_pool_evaluate(spec: Path, run: Path, qrels: pd.DataFrame) -> dict[str, float]:
    if spec.suffix == ".parquet":
        table = CountTable.read_parquet(spec).evaluate(qrels, MEASURES, {"mine": str(run)})
    else:
        pool = Pool.load(spec) if spec.suffix == ".npz" else Pool.from_runs(spec)
        table = pool.evaluate(qrels, MEASURES, runs={"mine": str(run)})
    return {m: float(table.loc["mine", m]) for m in table.columns}


def _values_calc_aggregate(spec: Path, run: Path, qrels: pd.DataFrame) -> dict[str, float]:
    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    with ir_rarity.pool.context.activated(resolve_campaign(spec)):
        result = ir_measures.calc_aggregate(measures, qrels, ir_rarity.read_trec_run(run))
    return {str(m): float(v) for m, v in result.items()}


def _values_pt_experiment(spec: Path, run: Path, qrels: pd.DataFrame) -> dict[str, float]:
    frame = ir_rarity.read_trec_run(run).rename(columns={"query_id": "qid", "doc_id": "docno"})
    topics = pd.DataFrame({"qid": sorted(qrels["query_id"].unique()), "query": "covid"})
    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    pt_qrels = qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    with ir_rarity.pool.context.activated(resolve_campaign(spec)):
        table = pt.Experiment([frame], topics, pt_qrels, measures, names=["mine"])
    return {str(m): float(table.iloc[0][str(m)]) for m in measures}


def _values_rarity_experiment(spec: Path, run: Path, qrels: pd.DataFrame) -> dict[str, float]:
    frame = ir_rarity.read_trec_run(run).rename(columns={"query_id": "qid", "doc_id": "docno"})
    topics = pd.DataFrame({"qid": sorted(qrels["query_id"].unique()), "query": "covid"})
    table = ir_rarity.Experiment({"mine": frame}, topics, qrels, MEASURES, pool=str(spec))
    return {m: float(table.iloc[0][m]) for m in MEASURES}


def _values_cli(spec: Path, run: Path, qrels_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, float]:
    assert main(["eval", str(qrels_path), str(run), "--pool", str(spec), "-m", *MEASURES, "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]  # one run: as ir_measures -o jsonl
    assert [row["measure"] for row in rows] == list(MEASURES)
    return {row["measure"]: float(row["value"]) for row in rows}


def _values_stock_command(spec: Path, run: Path, qrels_path: Path) -> dict[str, float]:
    """The stock ``ir_measures`` command: the pool named in the measure string (the first) or in the environment."""
    import os

    rarity = [m for m in MEASURES if "_rare" in m]
    named = [m.replace("@", f"(pool='{spec}')@", 1) if "(" not in m
             else m.replace(")", f",pool='{spec}')", 1) for m in rarity[:2]]
    out: dict[str, float] = {}
    for measures, env in ((named, {}), (rarity[2:], {"IR_RARITY_POOL": str(spec)})):
        done = subprocess.run([str(BIN / "ir_measures"), str(qrels_path), str(run), *measures, "-o", "jsonl"],
                              capture_output=True, text=True, timeout=300, env={**os.environ, **env})
        assert done.returncode == 0, done.stderr
        asked = {ir_measures.parse_measure(m): plain for m, plain in zip(measures, rarity[:2] if env == {} else
                                                                         rarity[2:], strict=True)}
        for line in done.stdout.splitlines():
            row = json.loads(line)
            out[asked[ir_measures.parse_measure(row["measure"])]] = float(row["value"])
    return out


@pytest.mark.slow
@pytest.mark.parametrize("which", ["copy", "new"])
@pytest.mark.parametrize("form", ["folder", "npz", "parquet"])
def test_every_path_gives_the_same_number(campaign: dict[str, Path], covid_qrels: pd.DataFrame, form: str,
                                          which: str, capsys: pytest.CaptureFixture[str]) -> None:
    clear_cache()
    spec, run = campaign[form], campaign[which]
    reference = _values_api(spec, run, covid_qrels)
    paths = {
        "Pool.evaluate": _values_pool_evaluate(spec, run, covid_qrels),
        "calc_aggregate": _values_calc_aggregate(spec, run, covid_qrels),
        "pt.Experiment": _values_pt_experiment(spec, run, covid_qrels),
        "ir_rarity.Experiment": _values_rarity_experiment(spec, run, covid_qrels),
        "ir-rarity eval": _values_cli(spec, run, campaign["qrels"], capsys),
        "ir_measures command": _values_stock_command(spec, run, campaign["qrels"]),
    }
    for path, values in paths.items():
        for measure, value in values.items():
            theirs = path == "pt.Experiment" or ("_rare" not in measure and path in ("calc_aggregate",
                                                                                    "ir_measures command"))
            if theirs:  # pt, and ir_measures for its own measures, add left to right: the exact mean within ulps
                assert value == pytest.approx(reference[measure], rel=1e-13, abs=0), (path, measure, value)
                continue
            assert value == reference[measure], (path, measure, value, reference[measure])


def test_the_copy_is_the_member_and_the_new_run_joins_alone(campaign: dict[str, Path],
                                                            covid_qrels: pd.DataFrame) -> None:
    pool = Pool.from_runs(campaign["folder"])
    with pytest.warns(MemberNotice, match="^1 evaluated run is scored as the campaign members they equal: 'mine' "
                                         "has the ranked lists of campaign run 'BERT' to depth 10$"):
        copy = pool.evaluate(covid_qrels, MEASURES, runs={"mine": str(campaign["copy"])})
    members = pool.evaluate(covid_qrels, MEASURES)
    for m in MEASURES:
        assert copy.loc["mine", m] == members.loc["BERT", m]
    assert copy.attrs["pool"]["members"] == {"mine": "BERT"}
    # The new run scores what it scores in a pool of the campaign plus it alone (S + 1), built from scratch.
    new_frame = ir_rarity.read_trec_run(campaign["new"])[["query_id", "doc_id", "score"]]
    alone = pool.evaluate(covid_qrels, MEASURES, runs={"mine": new_frame})
    joined = Pool.from_runs({**{n: pool.run(n) for n in pool.names}, "mine": new_frame})
    rebuilt = joined.evaluate(covid_qrels, MEASURES)
    for m in MEASURES:
        assert alone.loc["mine", m] == pytest.approx(rebuilt.loc["mine", m], abs=1e-12)


def test_a_score_does_not_depend_on_the_other_runs_evaluated(campaign: dict[str, Path],
                                                             covid_qrels: pd.DataFrame) -> None:
    pool = Pool.from_runs(campaign["folder"])
    new = str(campaign["new"])
    other = pool.run("run2").assign(score=lambda f: -f["score"])
    alone = pool.evaluate(covid_qrels, MEASURES, runs={"mine": new})
    together = pool.evaluate(covid_qrels, MEASURES, runs={"mine": new, "other": other})
    for m in MEASURES:
        assert alone.loc["mine", m] == together.loc["mine", m]
    # joint=True: the two join together, as a pool built of the campaign and both says.
    joint = pool.evaluate(covid_qrels, MEASURES, runs={"mine": new, "other": other}, joint=True)
    both = Pool.from_runs({**{n: pool.run(n) for n in pool.names}, "mine": new, "other": other})
    rebuilt = both.evaluate(covid_qrels, MEASURES)
    assert joint.attrs["pool"]["S"] == len(pool) + 2 and joint.attrs["pool"]["scored"] == "joint"
    for m in MEASURES:
        for name in ("mine", "other"):
            assert joint.loc[name, m] == pytest.approx(rebuilt.loc[name, m], abs=1e-12)
    # joint with one run is the run alone
    one = pool.evaluate(covid_qrels, MEASURES, runs={"mine": new}, joint=True)
    for m in MEASURES:
        assert one.loc["mine", m] == pytest.approx(alone.loc["mine", m], abs=1e-15)


def test_novelty_is_the_same_through_a_folder_and_a_saved_pool(campaign: dict[str, Path],
                                                                covid_qrels: pd.DataFrame) -> None:
    measures = ["U_novel@10", "U_novel"]
    values = [Pool.load(campaign["npz"]).evaluate(covid_qrels, measures, runs={"mine": str(campaign[w])})
              for w in ("copy", "new")]
    again = [Pool.from_runs(campaign["folder"]).evaluate(covid_qrels, measures, runs={"mine": str(campaign[w])})
             for w in ("copy", "new")]
    for a, b in zip(values, again, strict=True):
        assert a.loc["mine"].tolist() == b.loc["mine"].tolist()
    with pytest.raises(ir_rarity.ParameterError, match="needs the runs themselves"):
        CountTable.read_parquet(campaign["parquet"]).evaluate(covid_qrels, ["U_novel@10"],
                                                              {"mine": str(campaign["new"])})


def test_tables_say_what_they_were_computed_against(campaign: dict[str, Path], covid_qrels: pd.DataFrame,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    pool = Pool.from_runs(campaign["folder"])
    table = pool.evaluate(covid_qrels, ["P_rare@10", "AP_rare", "P@5"])
    assert table.attrs["pool"] == {"S": len(pool), "systems": "runs", "runs": len(pool), "depths": [10, None],
                                   "source": "pool", "scores": "float32", "scored": "members", "members": {}}
    teams = Pool.from_runs(campaign["folder"], teams={n: n[:3] for n in pool.names})
    assert teams.evaluate(covid_qrels, ["P_rare@10"]).attrs["pool"]["systems"] == "teams"
    assert main(["eval", str(campaign["qrels"]), str(campaign["new"]), "--pool", str(campaign["parquet"]),
                 "-m", "P_rare@10", "--format", "markdown"]) == 0
    captured = capsys.readouterr()
    said = (f"count table: S = {len(pool)} runs + the run itself (S = {len(pool) + 1} for a run that is not a "
            f"member; a run equal to a member is scored as that member, S = {len(pool)}); S_d at depth 10")
    assert captured.out.startswith(f"Computed against the {said}")
    assert f"ir-rarity: {said}" in captured.err


def test_a_single_system_pool_warns(campaign: dict[str, Path], covid_qrels: pd.DataFrame,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    one = Pool.from_runs(campaign["new"])
    with pytest.warns(DegeneratePoolWarning, match="single system"):
        one.evaluate(covid_qrels, ["P_rare@10"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegeneratePoolWarning)
        one.evaluate(covid_qrels, ["P@10", "ASL"])  # measures that need no pool: no warning
    # The command line refuses it instead (one line; tests/cli/test_new_user_hints.py); with --pool it warns.
    assert main(["eval", str(campaign["qrels"]), str(campaign["new"]), "-m", "P_rare@10", "U_novel@10"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "ir-rarity: error: P_rare@10, U_novel@10 need a campaign: one run was given and no --pool (S = 1, so every "
        "rarity weight is 0); give the campaign's runs, or --pool"]
    assert main(["eval", str(campaign["qrels"]), str(campaign["new"]), "--pool", str(campaign["new"]),
                 "-m", "P_rare@10", "U_novel@10"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert sum("warning: the pool holds a single system (S = 1)" in line for line in err) == 1


def test_one_naming_rule(campaign: dict[str, Path], tmp_path: Path) -> None:
    single = campaign["new"]  # one tag ("mine") in a file named new.gz
    assert Pool.from_runs(single).names == ["new"]
    assert Pool.from_runs([single, campaign["copy"]]).names == ["new", "copy"]
    many = tmp_path / "many.trec"
    many.write_text("1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n1 Q0 c 1 2.0 y\n")
    # a file is one run whatever its tags (as trec_eval 10.0); split by tag only when asked
    assert Pool.from_runs(many).names == ["many.trec"]
    assert Pool.from_runs([many, single]).names == ["many.trec", "new"]
    assert Pool.from_runs(many, split_by_tag=False).names == ["many.trec"]
    assert Pool.from_runs(many, split_by_tag=True).names == ["x", "y"]
    assert Pool.from_runs([many, single], split_by_tag=True).names == ["x", "y", "mine"]


def test_one_way_to_name_a_pool(campaign: dict[str, Path]) -> None:
    clear_cache()
    folder = resolve_campaign(campaign["folder"])
    assert isinstance(folder, Pool) and resolve_campaign(str(campaign["folder"])) is folder  # cached per process
    assert isinstance(resolve_campaign(campaign["npz"]), Pool)
    assert isinstance(resolve_campaign(campaign["parquet"]), CountTable)
    glob = resolve_campaign(str(campaign["folder"] / "*.gz"))
    assert isinstance(glob, Pool) and glob.names == folder.names
    with pytest.raises(ir_rarity.InputError, match="give it alone"):
        resolve_campaign([campaign["npz"], campaign["new"]])
    loaded = resolve_campaign(campaign["npz"])
    assert isinstance(loaded, Pool)
    assert np.array_equal(loaded.counts(10)["S_d"].to_numpy(), folder.counts(10)["S_d"].to_numpy())


def test_every_registered_measure_has_a_kernel() -> None:
    from ir_rarity.engine.compute import KERNELS
    from ir_rarity.integrations.registration import MEASURES as REGISTERED
    from ir_rarity.measures import FAMILIES

    assert set(REGISTERED) == {m.NAME for m in FAMILIES} == set(KERNELS)
    for name in REGISTERED:
        assert ir_measures.measures.registry[name] is REGISTERED[name]
        assert name in ir_rarity.__all__


def test_membership_is_per_depth_and_the_notice_says_so(covid_pool: Pool, covid_qrels: pd.DataFrame) -> None:
    # BERT less its last document per query: BERT to depth 10, another ranking to depth 100 (the runs hold 100)
    bert = covid_pool.run("BERT")
    copy = bert[bert.groupby("query_id")["rank"].transform("max") != bert["rank"]]
    measures = ["P_rare@10", "P_rare@100"]
    with pytest.warns(MemberNotice, match=r"'BERT' to depth 10; at depth 100 it differs and is scored as a newcomer"):
        table = covid_pool.evaluate(covid_qrels, measures, runs={"mine": copy})
    campaign = covid_pool.evaluate(covid_qrels, measures)
    assert table.loc["mine", "P_rare@10"] == campaign.loc["BERT", "P_rare@10"]
    joined = Pool.from_runs({**{n: covid_pool.run(n) for n in covid_pool.names}, "mine": copy})
    assert table.loc["mine", "P_rare@100"] == pytest.approx(
        joined.evaluate(covid_qrels, ["P_rare@100"]).loc["mine", "P_rare@100"], abs=1e-12)
    assert table.loc["mine", "P_rare@100"] != campaign.loc["BERT", "P_rare@100"]
    assert table.attrs["pool"]["members"] == {"mine": "BERT"}


def test_a_measure_naming_another_pool_is_refused(campaign: dict[str, Path], covid_qrels: pd.DataFrame) -> None:
    pool = Pool.from_runs(campaign["folder"])
    same = pool.evaluate(covid_qrels, [f"P_rare(pool='{campaign['folder']}')@10"], runs={"x": str(campaign["new"])})
    assert same.iloc[0, 0] == pool.evaluate(covid_qrels, ["P_rare@10"], runs={"x": str(campaign["new"])}).iloc[0, 0]
    with pytest.raises(ir_rarity.ParameterError, match="names its own pool"):
        pool.evaluate(covid_qrels, [f"P_rare(pool='{campaign['new']}')@10"])
    with ir_rarity.pool.context.activated(pool):  # the measure's own pool comes first, also inside `with pool:`
        own = ir_measures.calc_aggregate([ir_measures.parse_measure(f"P_rare(pool='{campaign['npz']}')@10")],
                                         covid_qrels, ir_rarity.read_trec_run(campaign["new"]))
    expected = Pool.load(campaign["npz"]).evaluate(covid_qrels, ["P_rare@10"], runs={"x": str(campaign["new"])})
    assert next(iter(own.values())) == expected.iloc[0, 0]
