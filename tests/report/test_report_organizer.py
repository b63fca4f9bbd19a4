"""The report for organizers, checked against independent computations (no browser).

Pairs at one cutoff, no baseline by default, Holm's correction equal to statsmodels' ``multipletests`` and to the
step-down written out here, per-topic medians equal to numpy's, the rarity gain and its interval equal to scipy's
paired bootstrap, Judged@k equal to ir_measures' own, leaderboard groups equal to pandas' counts, numbers by scale,
robust axes, and the notebook display under 300 KB.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import covid_round1
from ir_rarity.cli import main
from ir_rarity.errors import InputError
from ir_rarity.report.charts import robust_range
from ir_rarity.report.groups import read_leaderboard
from ir_rarity.report.lite import LIMIT
from ir_rarity.report.markup import scale_places
from ir_rarity.report.pairs import base_name, with_bases
from ir_rarity.stats.intervals import bootstrap_ratio_interval
from ir_rarity.stats.scores import in_natural_order

pytestmark = pytest.mark.slow  # round-1 reports

FAST = {"resamples": 200, "composition_resamples": 20, "trials": 50, "budgets": (10, 20),
        "strategies": ("depth", "mtf"), "progress": False}


@pytest.fixture(scope="module")
def unmarked() -> ir_rarity.report.Report:
    """Round 1 without a baseline, with AP and AP_rare@100 asked for (AP@100 is added)."""
    pytest.importorskip("plotly")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir_rarity.RarityWarning)
        return ir_rarity.report(covid_round1.runs, covid_round1.qrels, ["P@10", "AP", "AP_rare@100", "ASL"],
                                split_by_tag=True, **{**FAST, "pooling": False})


# ---------------------------------------------------------------------------------------------- pairs
def test_a_rarity_measure_is_paired_with_its_standard_measure_at_its_cutoff() -> None:
    labels = with_bases(["AP", "AP_rare@100", "P_rare(alpha=0.5)@10", "nDCG_rare@20", "P@10", "ASL"])
    assert list(labels.values()) == ["AP", "AP_rare@100", "P_rare(alpha=0.5)@10", "nDCG_rare@20", "P@10", "ASL",
                                     "AP@100", "nDCG@20"]  # P@10 was there; ASL weighs none
    assert [base_name(m) for m in labels] == [None, "AP@100", "P@10", "nDCG@20", None, None, None, None]


def test_the_report_evaluates_and_pairs_the_base_at_the_same_cutoff(unmarked: ir_rarity.report.Report) -> None:
    data = unmarked.data
    assert data.labels == ["P@10", "AP", "AP_rare@100", "ASL", "AP@100"]
    assert data.pairs == [("AP_rare@100", "AP@100")]  # never full-depth AP
    rarity = unmarked.html.split('id="rarity"', 1)[1].split("</section>", 1)[0]
    assert "AP_rare@100 against AP@100 (both at cutoff 100)" in rarity
    assert "rank by AP@100" in rarity and "rank by AP<" not in rarity


def test_round1_pairs(round1_report: ir_rarity.report.Report) -> None:
    assert round1_report.data.pairs == [("P_rare(alpha=0.5)@100", "P@100"), ("AP_rare@100", "AP@100")]


# ---------------------------------------------------------------------------------------------- baselines
def test_no_baseline_no_markers_by_default(unmarked: ir_rarity.report.Report) -> None:
    data = unmarked.data
    assert data.baselines == [] and data.leaderboard is not None and data.leaderboard.comparisons is None
    board = unmarked.html.split('id="leaderboard"', 1)[1].split("</section>", 1)[0]
    assert 'class="mark-' not in board and 'class="baseline"' not in board and "No baseline" in board
    # per query: each run against the query's median over the runs
    per_query = unmarked.html.split('id="per-query"', 1)[1].split("</section>", 1)[0]
    assert "Each run minus: the query&#39;s median over the runs." in per_query


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values, written out: max over j <= i of min(1, (m - j + 1) p_(j))."""
    order = np.argsort(p, kind="stable")
    m = len(p)
    adjusted = np.empty(m)
    running = 0.0
    for i, index in enumerate(order):
        running = max(running, min(1.0, (m - i) * p[index]))
        adjusted[index] = running
    return adjusted


def test_holm_by_default_with_a_baseline(round1_report: ir_rarity.report.Report) -> None:
    from statsmodels.stats.multitest import multipletests

    board = round1_report.data.leaderboard
    assert board is not None and board.settings["correction"] == "holm"
    comparisons = board.comparisons
    assert comparisons is not None
    marked = 0
    for _, family in comparisons.groupby("measure", sort=False):
        p = family["pvalue"].to_numpy(float)
        defined = ~np.isnan(p)
        reject, adjusted, _, _ = multipletests(p[defined], alpha=0.05, method="holm")
        np.testing.assert_allclose(family["pvalue_corrected"].to_numpy(float)[defined], adjusted, rtol=0, atol=1e-15)
        np.testing.assert_allclose(adjusted, _holm(p[defined]), rtol=0, atol=1e-15)
        assert list(family["significant"].to_numpy(bool)[defined]) == list(reject)
        marked += int(reject.sum())
    board_html = round1_report.html.split('id="leaderboard"', 1)[1].split("</section>", 1)[0]
    assert board_html.count('class="mark-') == marked
    assert "holm correction over the 142 comparisons of each measure" in board_html


def test_cli_correction_and_leaderboard(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("plotly")
    out = tmp_path / "r.html"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir_rarity.RarityWarning)
        code = main(["report", str(covid_round1.qrels), str(covid_round1.runs), "--split-by-tag", "--out", str(out),
                     "-m", "P@10", "P_rare@10", "--baseline", "bm25_baseline", "--correction", "bonferroni",
                     "--leaderboard", str(covid_round1.leaderboard), "--resamples", "50",
                     "--composition-resamples", "0", "--trials", "5", "--no-pooling", "--quiet"])
    assert code == 0
    text = out.read_text(encoding="utf-8")
    assert "bonferroni correction over the 142 comparisons" in text
    assert '<select data-group-table="leaderboard-table" data-group-index="0">' in text
    with pytest.raises(SystemExit):
        main(["report", "q", "r", "--out", str(tmp_path / "x.html"), "--correction", "nope"])
    assert "argument --correction: invalid choice: 'nope'" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------- per topic
def test_per_topic_best_median_worst_are_numpys(round1_report: ir_rarity.report.Report) -> None:
    data, ev = round1_report.data, round1_report.data.evaluation
    assert set(data.topics) >= {"P@10", "P_rare(alpha=0.5)@100", "P@100"}
    for label, table in data.topics.items():
        matrix = in_natural_order(ev.matrix(label))
        values = matrix.to_numpy(float)
        assert list(table["query"]) == [str(q) for q in matrix.columns]
        np.testing.assert_array_equal(table["median"].to_numpy(), np.median(values, axis=0))
        np.testing.assert_array_equal(table["best"].to_numpy(), values.max(axis=0))
        np.testing.assert_array_equal(table["worst"].to_numpy(), values.min(axis=0))
        best_runs = table["best run"].to_numpy()
        np.testing.assert_array_equal(matrix.loc[best_runs].to_numpy().diagonal(), values.max(axis=0))
        diff = data.from_median[label]
        np.testing.assert_array_equal(diff.loc[matrix.index, matrix.columns].to_numpy(),
                                      values - np.median(values, axis=0))


def test_asl_best_is_the_lowest() -> None:
    from ir_rarity.report.topics import summary

    matrix = pd.DataFrame([[3.0, 1.0], [5.0, np.nan], [4.0, 2.0]], index=["a", "b", "c"], columns=["1", "2"])
    table = summary(matrix, higher=False)
    assert list(table["best"]) == [3.0, 1.0] and list(table["worst"]) == [5.0, 2.0]
    assert list(table["median"]) == [4.0, 1.5] and list(table["best run"]) == ["a", "a"]


# ---------------------------------------------------------------------------------------------- gain
def test_rarity_gain_and_its_interval_are_scipys(round1_report: ir_rarity.report.Report) -> None:
    from scipy import stats

    data, ev = round1_report.data, round1_report.data.evaluation
    s = data.settings
    for (rare, base), table in data.gain.items():
        top = in_natural_order(ev.matrix(rare).sort_index())
        bottom = in_natural_order(ev.matrix(base)).loc[top.index, top.columns]
        expected = top.mean(axis=1) / bottom.mean(axis=1)
        got = table.set_index("run")
        np.testing.assert_allclose(got.loc[expected.index, "rarity gain"], expected, rtol=1e-14)
        assert list(table["rarity gain"]) == sorted(table["rarity gain"], reverse=True)
        for run in list(top.index)[:3]:
            result = stats.bootstrap((top.loc[run].to_numpy(), bottom.loc[run].to_numpy()),
                                     lambda x, y, axis=-1: x.mean(axis) / y.mean(axis), paired=True,
                                     vectorized=True, n_resamples=s.resamples, confidence_level=s.ci,
                                     method="percentile", rng=np.random.default_rng(s.seed))
            low, high = result.confidence_interval
            # the same draws for every run: scipy's draws for one run equal the package's for all runs
            assert got.at[run, "low"] == pytest.approx(low, rel=1e-12)
            assert got.at[run, "high"] == pytest.approx(high, rel=1e-12)


def test_ratio_interval_on_a_hand_case() -> None:
    numerator = np.array([[2.0, 2.0, 2.0]])
    denominator = np.array([[1.0, 1.0, 1.0]])
    ratio, low, high = bootstrap_ratio_interval(numerator, denominator, resamples=20, seed=1)
    assert (ratio[0], low[0], high[0]) == (2.0, 2.0, 2.0)  # every resample has ratio 2
    ratio, low, high = bootstrap_ratio_interval(np.zeros((1, 3)), np.zeros((1, 3)), resamples=20)
    assert np.isnan(ratio[0]) and np.isnan(low[0])


# ---------------------------------------------------------------------------------------------- Judged@k
def test_judged_at_k_is_ir_measures(round1_report: ir_rarity.report.Report) -> None:
    import ir_measures

    judged = round1_report.data.judged
    assert judged is not None and list(judged.columns) == ["run", "team", "Judged@10", "Judged@100"]
    run = pd.read_csv(covid_round1.runs, sep=r"\s+", header=None,
                      names=["query_id", "Q0", "doc_id", "rank", "score", "tag"], dtype={"query_id": str})
    qrels = list(ir_measures.read_trec_qrels(str(covid_round1.qrels)))
    table = judged.set_index("run")
    for tag in list(table.index)[:: max(1, len(table) // 6)]:
        one = run[run["tag"] == tag][["query_id", "doc_id", "score"]]
        expected = ir_measures.calc_aggregate([ir_measures.parse_measure("Judged@10"),
                                               ir_measures.parse_measure("Judged@100")], qrels, one)
        assert table.at[tag, "Judged@10"] == pytest.approx(expected[ir_measures.parse_measure("Judged@10")], abs=1e-12)
        assert table.at[tag, "Judged@100"] == pytest.approx(expected[ir_measures.parse_measure("Judged@100")],
                                                            abs=1e-12)


# ---------------------------------------------------------------------------------------------- groups
def test_leaderboard_columns_are_groups(round1_report: ir_rarity.report.Report) -> None:
    from ir_rarity.report.groups import group_table

    groups = read_leaderboard(covid_round1.leaderboard)
    # scores, report paths, run and team left out; an empty cell is "–"
    assert list(groups.columns) == ["runtype", "contributed judgments", "topicformat"]
    raw = pd.read_csv(covid_round1.leaderboard, dtype=str).set_index("run").fillna("–")
    table = group_table(round1_report.data)
    assert table is not None
    for column in groups.columns:
        part = table[table["column"] == column].set_index("value")["runs"]
        counts = raw[column].value_counts()
        assert part.to_dict() == counts.to_dict()
    first = round1_report.data.labels[0]
    means = round1_report.data.evaluation.table()[first]
    manual = table[(table["column"] == "runtype") & (table["value"] == "manual")].iloc[0]
    runs = raw.index[raw["runtype"] == "manual"]
    assert manual[f"median {first}"] == pytest.approx(float(np.median(means.loc[runs])), abs=1e-15)
    assert manual[f"best {first}"] == pytest.approx(float(means.loc[runs].max()), abs=1e-15)


def test_a_leaderboard_without_a_run_column_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "lb.csv"
    bad.write_text("tag,team\na,b\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"lb\.csv: line 1: no 'run' column \(columns: tag, team\)"):
        read_leaderboard(bad)


# ---------------------------------------------------------------------------------------------- numbers, axes
def test_numbers_by_scale(round1_report: ir_rarity.report.Report) -> None:
    assert scale_places([0.6844, 0.1]) == 4 and scale_places([12.5]) == 3 and scale_places([312.44]) == 2
    assert scale_places([4512.0]) == 1 and scale_places([45120.0]) == 0 and scale_places([np.nan]) == 4
    board = round1_report.html.split('id="leaderboard"', 1)[1].split("</section>", 1)[0]
    asl = round1_report.data.evaluation.table()["ASL"]
    places = scale_places(asl.to_numpy(float))
    intervals = re.findall(r'data-measure="ASL">[^<]*(?:<span class="mark[^<]*</span>)*<span class="ci">\[([^\]]*)\]',
                           board)
    assert intervals and all(re.fullmatch(rf"-?\d+\.\d{{{places}}}, -?\d+\.\d{{{places}}}", i) for i in intervals)
    assert places < 4 and asl.abs().max() >= 10


def test_robust_range_leaves_one_outlier_off_the_axis() -> None:
    values = np.array([1.0, 1.2, 0.9, 1.1, 1.05, 0.95, 40.0])
    low, high = robust_range(values) or (np.nan, np.nan)
    assert low < 0.9 and 1.2 < high < 2.0  # the others fill the axis
    assert robust_range(np.array([1.0, 1.2, 0.9, 1.1])) is None  # nothing far out: the plain axis
    from ir_rarity.report.charts import asl_scatter

    frame = pd.DataFrame({"team": list("abcdefg"), "longest ranking": [100] * 7, "ASL": values},
                         index=pd.Index(list("abcdefg"), name="run"))
    chart = str(asl_scatter(frame, "ASL", "x"))
    assert "outside the axis (drawn at its edge)" in chart and "triangle-up-open" in chart


# ---------------------------------------------------------------------------------------------- notebook
def test_notebook_display_is_a_lite_summary(round1_report: ir_rarity.report.Report,
                                            unmarked: ir_rarity.report.Report) -> None:
    for built in (round1_report, unmarked):
        lite = built._repr_html_()
        assert len(lite.encode("utf-8")) < LIMIT < built.size
        assert "<script" not in lite and "Plotly" not in lite
        table = built.data.evaluation.table()
        best = built.data.table.index[0] if built.data.table is not None else table.index[0]
        assert f'<td class="text">{best}</td>' in lite
    assert 'report.save("report.html")' in unmarked._repr_html_()  # not saved: how to save it


# ---------------------------------------------------------------------------------------------- provenance
def test_a_campaign_folder_is_one_line_of_the_provenance_block(tmp_path: Path) -> None:
    import hashlib

    from ir_rarity.metadata import manifest_hash
    from ir_rarity.provenance import collect
    from ir_rarity.report.facts import compact_lines

    folder = tmp_path / "runs"
    folder.mkdir()
    texts = {f"r{i}.run": f"1 Q0 d{i} 1 1.0 r{i}\n1 Q0 d9 2 0.5 r{i}\n" for i in range(6)}
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n1 0 d9 0\n", encoding="utf-8")
    provenance = collect("ir-rarity report", [str(qrels), str(folder)], {})
    lines = compact_lines(provenance)
    folder_lines = [line for line in lines if str(folder) in line]
    assert len(folder_lines) == 1  # once, not once per file, and not twice
    # the manifest is sha256sum's lines of the folder, sorted by name, hashed again (computed here by hashlib)
    listing = "".join(f"{hashlib.sha256(t.encode()).hexdigest()}  {n}\n" for n, t in sorted(texts.items()))
    expected = hashlib.sha256(listing.encode()).hexdigest()
    assert folder_lines[0] == (f"input folder: {folder}: 6 files, {sum(len(t) for t in texts.values())} bytes, "
                               f"manifest sha256 {expected}")
    assert manifest_hash([(n, hashlib.sha256(t.encode()).hexdigest()) for n, t in texts.items()]) == expected
    qrels_sha = hashlib.sha256(qrels.read_bytes()).hexdigest()
    assert f"input: {qrels} ({qrels.stat().st_size} bytes, sha256 {qrels_sha})" in lines
    assert sum(line.count(str(qrels)) for line in lines) == 1
