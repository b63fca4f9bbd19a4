"""Mean differences, their paired bootstrap intervals and Cohen's d_z in comparisons, campaign tables and the CLI."""

from __future__ import annotations

import io
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from cli_helpers import assert_cli_error, run_cli
from scipy import stats as sps

from ir_rarity import covid_round1
from ir_rarity.compare import campaign_table, compare_values
from ir_rarity.evaluation import evaluate_campaign as evaluate
from ir_rarity.stats import natural_order

RUNS = ["BBGhelani1", "sab20.1.meta.docs", "BERT"]
EFFECTS = ("diff", "diff low", "diff high", "d_z")


def _scipy(d: np.ndarray, level: float, resamples: int, method: str, seed: int) -> tuple[float, float]:
    ci = sps.bootstrap((d,), np.mean, confidence_level=level, n_resamples=resamples, method=method,
                       rng=np.random.default_rng(seed)).confidence_interval  # the generator of the mean's interval
    return float(ci.low), float(ci.high)


@pytest.fixture
def scores() -> tuple[dict[str, np.ndarray], list[str], list[str]]:
    rng = np.random.default_rng(9)
    ids = [f"q{i}" for i in rng.permutation(24) + 1]  # not in natural order
    p = rng.uniform(size=(3, 24))
    asl = rng.uniform(1, 20, size=(3, 24))
    asl[0, 3] = np.nan  # a query without a value: left out of that run's pairs only
    return {"P@10": p, "ASL": asl}, ["A", "B", "C"], ids


@pytest.mark.parametrize(("method", "scipy_method"), [("percentile", "percentile"), ("bca", "BCa")])
def test_compare_values_carries_scipy_intervals_and_dz(scores, method, scipy_method):
    values, names, ids = scores
    got = compare_values(values, names, ["B"], query_ids=ids, diff_level=0.9, diff_interval=method,
                         resamples=800, seed=3)
    assert {"diff", "diff low", "diff high", "d_z"} <= set(got.columns)
    assert got.attrs["diff_interval"] == method and got.attrs["diff_level"] == 0.9
    order = natural_order(ids)
    position = {n: i for i, n in enumerate(names)}
    for row in got.to_dict("records"):
        matrix = values[row["measure"]][:, order]
        sign = -1.0 if row["measure"] == "ASL" else 1.0  # lower is better: oriented so positive is better
        d = sign * (matrix[position[row["run"]]] - matrix[position[row["reference"]]])
        d = d[~np.isnan(d)]
        assert row["queries"] == len(d)
        assert row["diff"] == pytest.approx(np.mean(d)) and row["diff"] == row["difference"]
        assert (row["diff low"], row["diff high"]) == _scipy(d, 0.9, 800, scipy_method, 3)
        assert row["d_z"] == pytest.approx(np.mean(d) / np.std(d, ddof=1), rel=1e-12)


def test_equal_runs_have_no_dz(scores):
    values, names, ids = scores
    first = np.round(values["P@10"][0], 1)
    same = {"P@10": np.vstack([first, first + 0.5, values["P@10"][2]])}  # B is A + 0.5 on every query
    row = compare_values(same, names, ["A"], query_ids=ids, resamples=200, test="wilcoxon").set_index("run").loc["B"]
    assert row["diff"] == pytest.approx(0.5) and np.isnan(row["d_z"])
    assert row["diff low"] == pytest.approx(0.5) and row["diff high"] == pytest.approx(0.5)


@pytest.fixture(scope="module")
def result(covid_pool, covid_qrels):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ASL over rankings of different lengths: not what is tested here
        return evaluate(covid_pool.subset(RUNS), covid_qrels, ["P@10", "ASL"])


def test_frames_carry_the_columns(result):
    table = campaign_table(result, baselines=["BERT"], ci=0.9, resamples=400, seed=2, diff_interval="bca")
    frame = table.frame()
    tests = compare_values(result.values, list(result.names), ["BERT"], query_ids=result.query_ids,
                           diff_level=0.9, diff_interval="bca", resamples=400, seed=2)
    for row in tests.to_dict("records"):
        for col in EFFECTS:
            got = frame.loc[row["run"], f"{row['measure']} vs BERT {col}"]
            assert got == row[col] or (np.isnan(got) and np.isnan(row[col]))
    assert np.isnan(frame.loc["BERT", "P@10 vs BERT diff"])
    columns = [f"{m} vs BERT {c}" for m in ("P@10", "ASL") for c in EFFECTS]
    tsv = pd.read_csv(io.StringIO(table.render("tsv", places=-1)), sep="\t", index_col="run")
    csv = pd.read_csv(io.StringIO(table.render("csv", places=-1)), index_col="run")
    lines = [json.loads(line) for line in table.render("jsonl", places=-1).splitlines()]
    for parsed in (tsv, csv):
        assert set(columns) <= set(parsed.columns)
        assert parsed.loc["BBGhelani1", "P@10 vs BERT d_z"] == pytest.approx(frame.loc["BBGhelani1",
                                                                                         "P@10 vs BERT d_z"])
    assert all(set(columns) <= set(line) for line in lines)


def test_all_pairs_flip_the_interval(result):
    frame = campaign_table(result, all_pairs=True, resamples=300).frame()
    ab = frame.loc[RUNS[0], f"P@10 vs {RUNS[1]} diff low"]
    assert frame.loc[RUNS[1], f"P@10 vs {RUNS[0]} diff high"] == -ab
    assert frame.loc[RUNS[1], f"P@10 vs {RUNS[0]} d_z"] == -frame.loc[RUNS[0], f"P@10 vs {RUNS[1]} d_z"]


def _header_and_caption(markdown: str) -> tuple[list[str], str]:
    """The column names of a rendered markdown table and the text around it (its caption)."""
    lines = markdown.splitlines()
    header = next(line for line in lines if line.startswith("|"))
    caption = " ".join(line for line in lines if line.strip() and not line.startswith("|"))
    return [c.strip() for c in header.strip("|").split("|")], caption


@pytest.mark.parametrize("kwargs", [{"baselines": ["BERT"], "ci": 0.9}, {"baselines": ["BERT"], "diff_interval": "bca"},
                                    {"all_pairs": True, "correction": "holm"}, {"ci": 0.9}])
def test_caption_names_only_columns_the_marked_table_has(result, kwargs):
    table = campaign_table(result, resamples=300, seed=4, **kwargs)
    columns, caption = _header_and_caption(table.render("markdown"))
    assert "Diff" not in caption and "d_z" not in caption  # tsv, csv and jsonl columns, not this table's
    assert ("Better/worse" in caption) == any("better/worse vs" in c for c in columns)
    assert ("CI:" in caption) == any(c.endswith(" CI") for c in columns)
    if "ci" in kwargs:
        assert "90% confidence interval of the mean, percentile bootstrap over queries (300 resamples, seed 4)" \
            in caption
    latex = table.render("latex")
    assert "Diff" not in latex and r"d\_z" not in latex
    if kwargs.get("baselines"):  # the numbers the caption leaves out are the machine-readable table's columns
        assert {f"P@10 vs BERT {c}" for c in EFFECTS} <= set(table.frame().columns)


@pytest.mark.slow
def test_cli_diff_interval(covid_pool, tmp_path):
    for name in RUNS:
        run = covid_pool.run(name)
        lines = [f"{q} Q0 {d} {r} {s!r} {name}\n" for q, d, s, r in run.itertuples(index=False, name=None)]
        (tmp_path / name).write_text("".join(lines))
    out = run_cli("eval", covid_round1.qrels, tmp_path, "-m", "P@10", "--baseline", "BERT", "--diff-interval",
                  "bca", "--ci", "0.9", "--resamples", "300", "-p", "-1")
    assert out.returncode == 0, out.stderr
    frame = pd.read_csv(io.StringIO(out.stdout), sep="\t", index_col="run")
    row = frame.loc["BBGhelani1"]
    assert row["P@10 vs BERT diff low"] <= row["P@10 vs BERT diff"] <= row["P@10 vs BERT diff high"]
    text = run_cli("eval", covid_round1.qrels, tmp_path, "-m", "P@10", "--baseline", "BERT", "--resamples", "300",
                   "--format", "markdown").stdout
    assert "Better/worse vs a letter" in text and "Diff" not in text  # no diff column in the marked table
    assert_cli_error(run_cli("eval", covid_round1.qrels, tmp_path, "-m", "P@10", "--diff-interval", "bca"),
                     "--diff-interval", "--baseline")


def test_caption_counts_each_pair_of_baselines_once(result):
    table = campaign_table(result, baselines=RUNS, correction="holm", resamples=200)  # 3 runs, all baselines
    assert len(table.comparisons) == 2 * 6  # 6 rows a measure: every pair both ways round ...
    _, caption = _header_and_caption(table.render("markdown"))
    assert "holm correction over the 3 pairs of runs compared on each measure" in caption  # ... 3 hypotheses
    frame = table.frame()
    for a, b in (RUNS[:2], RUNS[1:], RUNS[::2]):
        assert frame.loc[a, f"P@10 vs {b} p-value corrected"] == frame.loc[b, f"P@10 vs {a} p-value corrected"]
