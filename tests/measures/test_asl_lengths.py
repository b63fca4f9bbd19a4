"""ASL and runs of different lengths: the nominal length ``ASL(length=N)`` and the warning when lengths differ.

Qrels: q1: r1, r2, r3 relevant; q2: s1 relevant (every other document unjudged, so non-relevant).
Run ``long``: q1 = n1 r1 n2 n3 n4 n5 r2 n6 n7 n8 n9 n10 (12 documents, r3 missed); q2 = s1 m1 m2.
Run ``short``: q1 = its top 3, n1 r1 n2; nothing for q2.

Paper's rule (length=None), per relevant document irrel above + 1, a missed one irrel_q + 1 ('eq3': irrel_q):
  long  q1: r1 = 2, r2 = 6, r3 = 10 + 1 = 11 -> 19/3 (eq3 (2+6+10)/3 = 6);   q2: s1 = 1.
  short q1: r1 = 2, r2 = r3 = 2 + 1 = 3 -> 8/3 (eq3 2);                       q2: irrel_q = 0: 1 (eq3 0).
The short run is rewarded for stopping: 8/3 < 19/3.

length=20 (irrel_q^N = 20 - relevant in the top 20; a missed one N - r + 1, 'eq3' N - r):
  long  q1: r = 2: r1 = 2, r2 = 6, r3 = 19 -> 9 (eq3 (2+6+18)/3 = 26/3);       q2: s1 = 1.
  short q1: r = 1: r1 = 2, r2 = r3 = 20 -> 14 (eq3 (2+19+19)/3 = 40/3);       q2: nothing: 21 (eq3 20).
length=5 cuts long at 5 (n1 r1 n2 n3 n4): r = 1, irrel 4: r1 = 2, r2 = r3 = 5 -> 4, as short padded to 5.
"""

from __future__ import annotations

import warnings

import ir_measures
import pandas as pd
import pytest

import ir_rarity
from ir_rarity import ASL, ParameterError
from ir_rarity.errors import RarityWarning
from ir_rarity.measures.asl import RankingLengthWarning
from ir_rarity.measures.parse import parse_measure

QRELS = pd.DataFrame([("q1", "r1", 1), ("q1", "r2", 1), ("q1", "r3", 1), ("q2", "s1", 1)],
                     columns=["query_id", "doc_id", "relevance"])
_Q1 = ["n1", "r1", "n2", "n3", "n4", "n5", "r2", "n6", "n7", "n8", "n9", "n10"]


def _run(q1: list[str], q2: list[str]) -> pd.DataFrame:
    rows = [("q1", d, float(len(q1) - i)) for i, d in enumerate(q1)]
    rows += [("q2", d, float(len(q2) - i)) for i, d in enumerate(q2)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


LONG = _run(_Q1, ["s1", "m1", "m2"])
SHORT = _run(_Q1[:3], [])

PER_QUERY = {  # measure -> {run: (q1, q2)}
    "ASL": {"long": (19 / 3, 1.0), "short": (8 / 3, 1.0)},
    "ASL(unretrieved='eq3')": {"long": (6.0, 1.0), "short": (2.0, 0.0)},
    "ASL(length=20)": {"long": (9.0, 1.0), "short": (14.0, 21.0)},
    "ASL(length=20,unretrieved='eq3')": {"long": (26 / 3, 1.0), "short": (40 / 3, 20.0)},
    "ASL(length=5)": {"long": (4.0, 1.0), "short": (4.0, 6.0)},  # q2: nothing retrieved, N + 1
    "ASL(length=12)": {"long": (19 / 3, 1.0), "short": ((2 + 12 + 12) / 3, 13.0)},  # long is exactly 12
    "ASL(length=20)@g2-3": {"long": ((6 + 19) / 2, float("nan")), "short": (20.0, float("nan"))},
    "ASL(length=20)@g1-1": {"long": (2.0, 1.0), "short": (2.0, 21.0)},
}


def _evaluate(measures: list[str], runs: dict[str, pd.DataFrame] | None = None) -> ir_rarity.Evaluation:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankingLengthWarning)
        return ir_rarity.evaluate(runs or {"long": LONG, "short": SHORT}, QRELS, measures)


@pytest.mark.parametrize("measure", sorted(PER_QUERY))
def test_hand_worked_values(measure: str) -> None:
    matrix = _evaluate([measure]).matrix(measure)
    for run, expected in PER_QUERY[measure].items():
        assert matrix.loc[run, ["q1", "q2"]].tolist() == pytest.approx(list(expected), abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("measure", sorted(PER_QUERY))
def test_ir_measures_agrees_without_a_pool(measure: str) -> None:
    parsed = ir_measures.parse_measure(measure)
    for run, frame in {"long": LONG, "short": SHORT}.items():
        got = {m.query_id: m.value for m in ir_measures.iter_calc([parsed], QRELS, frame)}
        expected = dict(zip(["q1", "q2"], PER_QUERY[measure][run], strict=True))
        for query, value in got.items():
            assert value == pytest.approx(expected[query], abs=1e-12, nan_ok=True), (run, query)


def test_with_a_nominal_length_the_short_run_is_no_longer_rewarded() -> None:
    table = _evaluate(["ASL", "ASL(length=20)"]).table()
    assert table.loc["short", "ASL"] < table.loc["long", "ASL"]  # lower is better: stopping early pays
    assert table.loc["short", "ASL"] == pytest.approx((8 / 3 + 1) / 2)
    assert table.loc["short", "ASL(length=20)"] > table.loc["long", "ASL(length=20)"]
    assert table.loc["long", "ASL(length=20)"] == pytest.approx(5.0)
    assert table.loc["short", "ASL(length=20)"] == pytest.approx(17.5)


def _length_warnings(runs: dict[str, pd.DataFrame], measures: list[str]) -> tuple[list[str], ir_rarity.Evaluation]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = ir_rarity.evaluate(runs, QRELS, measures)
    assert all(not issubclass(w.category, RarityWarning) or w.category is RankingLengthWarning for w in caught)
    return [str(w.message) for w in caught if w.category is RankingLengthWarning], result


def test_one_warning_naming_the_shorter_run_when_lengths_differ() -> None:
    found, result = _length_warnings({"long": LONG, "short": SHORT}, ["ASL", "ASL@g1-1", "ASL(length=20)"])
    assert len(found) == 1
    assert "\n" not in found[0]
    assert "'short' (3)" in found[0] and "'long'" not in found[0]
    assert "3 to 12" in found[0] and "ASL(length=12)" in found[0]
    assert issubclass(RankingLengthWarning, RarityWarning)
    lengths = result.table().attrs["pool"]["asl_lengths"]
    assert lengths == {"differ": True, "min": 3, "max": 12, "shorter": ["short"]}
    assert result.matrix("ASL").attrs["pool"]["asl_lengths"] == lengths
    assert result.long().attrs["pool"]["asl_lengths"] == lengths
    assert result.select(["long"]).attrs()["asl_lengths"] == {"differ": False, "min": 12, "max": 12,
                                                               "shorter": []}


def test_no_warning_when_lengths_are_equal() -> None:
    reversed_long = LONG.assign(score=-LONG["score"])
    found, result = _length_warnings({"long": LONG, "reversed": reversed_long}, ["ASL"])
    assert found == []
    assert result.attrs()["asl_lengths"] == {"differ": False, "min": 12, "max": 12, "shorter": []}


def test_no_warning_with_a_nominal_length_but_attrs_keep_the_fact() -> None:
    found, result = _length_warnings({"long": LONG, "short": SHORT}, ["ASL(length=1000)"])
    assert found == []
    assert result.attrs()["asl_lengths"]["differ"] is True


def test_no_lengths_without_asl() -> None:
    found, result = _length_warnings({"long": LONG, "short": SHORT}, ["P_rare(alpha=0.5)@5"])
    assert found == []
    assert "asl_lengths" not in result.attrs()


def test_pool_members_are_checked_too() -> None:
    pool = ir_rarity.Pool.from_runs({"long": LONG, "short": SHORT})
    with pytest.warns(RankingLengthWarning, match="'short' \\(3\\)"):
        table = pool.evaluate(QRELS, ["ASL"])
    assert table.attrs["pool"]["asl_lengths"]["shorter"] == ["short"]


@pytest.mark.parametrize("text", ["ASL(length=1000)", "ASL(length=1000)@g1-10",
                                  "ASL(length=1000,unretrieved='eq3')"])
def test_parse_print_round_trip(text: str) -> None:
    measure = parse_measure(text)
    assert measure["length"] == 1000
    assert parse_measure(str(measure)) == measure
    assert str(parse_measure(str(measure))) == str(measure)
    assert str(ASL(length=1000)) == "ASL(length=1000)"
    assert parse_measure("ASL(length=1000)") == ASL(length=1000)
    assert ASL["length"] is None


@pytest.mark.parametrize("bad", [0, -3, 1.5, True, "1000"])
def test_refuses_a_length_that_is_not_a_positive_integer(bad: object) -> None:
    with pytest.raises(ParameterError, match="length"):
        parse_measure(ASL(length=bad))
