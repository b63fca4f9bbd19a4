"""One member notice per evaluation, naming the runs recognised as campaign members (the first ten, then a count)."""

from __future__ import annotations

import warnings

import pandas as pd

import ir_rarity
from ir_rarity import MemberNotice, Pool


def test_one_notice_names_every_member_found() -> None:
    runs = {f"r{i:02d}": pd.DataFrame({"query_id": "1", "doc_id": [f"d{i}", f"e{i}"], "score": [2.0, 1.0]})
            for i in range(12)}
    qrels = pd.DataFrame({"query_id": "1", "doc_id": ["d0", "d1"], "relevance": 1})
    pool = Pool.from_runs(runs)
    copies = {f"copy of {n}": frame for n, frame in runs.items()}
    copies["new"] = pd.DataFrame({"query_id": "1", "doc_id": ["x"], "score": [1.0]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = ir_rarity.evaluate(copies, qrels, ["P_rare@2"], pool=pool)
    notices = [str(w.message) for w in caught if issubclass(w.category, MemberNotice)]
    assert len(notices) == 1
    assert notices[0].startswith("12 evaluated runs are scored as the campaign members they equal: 'copy of r00' "
                                 "has the ranked lists of campaign run 'r00' to depth 2; ")
    assert notices[0].endswith("; and 2 more") and "'new'" not in notices[0]
    assert result.members == {f"copy of {n}": n for n in runs}
