"""A small qrels file and run shared by the bad-input tests (the ``files`` fixture of ``conftest.py`` writes them)."""

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\n"
RUN = "q1 Q0 d1 1 3.0 A\nq1 Q0 d2 2 2.0 A\nq1 Q0 d3 3 1.0 A\nq2 Q0 d1 1 1.0 A\n"
