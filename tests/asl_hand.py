"""The hand-computed ASL campaign shared by the ASL measure and analysis tests.

Qrels: q1: d1=1, d2=2, d3=0, d4=1, d9=1 (d9 never retrieved); q2: d1=0 (no relevant document); q3: d5=1 (the run
retrieves nothing for q3); q4: e1=1, e2=1; q5: d1=0 (no relevant document, not retrieved either).
Run R in trec_eval order: q1 = x d2 d3 d1 y d4 (x, y unjudged); q2 = d1; q4 = z e2 e1 (all three tie at 1.0, docno
descending puts z first; z unjudged).

Per-document ASL = non-relevant documents above + 1:
  q1: d2 = 2 (x), d1 = 3 (x, d3), d4 = 4 (x, d3, y), d9 unretrieved = irrel_q + 1 = 3 + 1 = 4 (eq3: 3).
  q3: d5 unretrieved with irrel_q = 0: 1 (eq3: 0).      q4: e2 = 2 (z), e1 = 2 (z; e2 is relevant, not counted).
Per query: q1 (2+3+4+4)/4 = 13/4 (eq3 12/4 = 3); q2, q5 NaN; q3 1 (eq3 0); q4 2.
"""

import pandas as pd

QRELS = pd.DataFrame(
    [("q1", "d1", 1), ("q1", "d2", 2), ("q1", "d3", 0), ("q1", "d4", 1), ("q1", "d9", 1), ("q2", "d1", 0),
     ("q3", "d5", 1), ("q4", "e1", 1), ("q4", "e2", 1), ("q5", "d1", 0)],
    columns=["query_id", "doc_id", "relevance"])
RUN = pd.DataFrame(
    [("q1", "x", 5.0), ("q1", "d2", 4.0), ("q1", "d3", 3.0), ("q1", "d1", 2.0), ("q1", "y", 1.0), ("q1", "d4", 0.5),
     ("q2", "d1", 1.0), ("q4", "e1", 1.0), ("q4", "e2", 1.0), ("q4", "z", 1.0)],
    columns=["query_id", "doc_id", "score"])
