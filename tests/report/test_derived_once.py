"""One report call derives each value once: each measure string parsed at most once, no measure checked again, the
qrels read once and encoded at most once per distinct campaign vocabulary.

The rule for the qrels: the analyses take ``Evaluation.judgments`` (the qrels as the evaluation read and encoded
them), so the qrels are encoded once against each campaign vocabulary the report scores against: the campaign's
own, and one per sub-pool an analysis builds with vocabularies of its own (none in this report today: restricted
qrels relabel the campaign's encoding). Before, the same qrels were encoded 7 times against the one pool, and the
tau vs. alpha curve parsed its measure strings up to 6 times each.
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from derivations import counting

import ir_rarity
from ir_rarity import covid_round1
from ir_rarity.campaign import unique_relevant
from ir_rarity.compare.uncertainty import composition
from ir_rarity.io.trec import read_trec_qrels
from ir_rarity.judging.simulation import simulate
from ir_rarity.meta.curves import tau_alpha_curve
from ir_rarity.report.data import DEFAULT_MEASURES

QUICK = {"resamples": 50, "composition_resamples": 5, "trials": 5, "budgets": (10,), "progress": False}


@pytest.mark.slow
def test_report_parses_each_measure_once_and_encodes_the_qrels_once_per_vocabulary() -> None:
    pytest.importorskip("plotly", reason="the report's charts need plotly (pip install 'ir_rarity[report]')")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir_rarity.RarityWarning)  # ASL's run-length warning: shown in the page
        with counting() as derived:
            built = ir_rarity.report.report(covid_round1.runs, covid_round1.qrels, split_by_tag=True, **QUICK)
    data = built.data
    once = {m: 1 for m in [*DEFAULT_MEASURES, "Judged@10", "Judged@100"]}  # Judged@k: the Judged@k section's
    assert dict(derived.parses) == once  # the curve's measures are made, not parsed
    assert dict(derived.ir_measures_parses) == once
    assert derived.rechecks == []
    assert derived.reads == 1
    assert set(derived.encodings.values()) == {1}  # each vocabulary once
    pool = data.pool
    assert pool is not None and derived.vocabulary(*pool.vocabularies()) in derived.encodings
    assert len(derived.encodings) == 1  # the report's analyses score the campaign itself only

    # The values are those of the analyses given the qrels frame (each encoding it again on its own).
    qrels = read_trec_qrels(covid_round1.qrels)
    pd.testing.assert_frame_equal(data.evaluation.qrels, qrels)
    pd.testing.assert_frame_equal(data.tau_alpha, tau_alpha_curve(pool, qrels, data.settings.alphas, data.depth()))
    s = data.settings
    alone = composition(pool, qrels, data.pooled(), resamples=s.composition_resamples, level=s.ci, seed=s.seed)
    pd.testing.assert_frame_equal(data.composition, alone)
    unique = unique_relevant(pool, qrels, data.depth(), by="team").counts.sort_values(ascending=False,
                                                                                       kind="mergesort")
    pd.testing.assert_series_equal(data.unique_team, unique)
    found = simulate(pool, qrels, list(s.strategies), list(s.budgets), seed=s.seed).table()
    pd.testing.assert_frame_equal(data.pooling["found"], found)
