"""The machinery of :func:`ir_rarity.Experiment` (private): ``pt.Experiment`` rebuilt on ir_rarity's engine.

:mod:`._inputs` converts and checks what :func:`~ir_rarity.Experiment` is given (qrels, topic filters, systems and
names, baselines, tests, corrections, rounding, measures); :mod:`._execution` runs each system once (batches, the
``save_dir`` cache); :mod:`._scoring` scores all the runs in one :func:`ir_rarity.evaluate` call and computes means,
significance tests and corrections in ``pt.Experiment``'s query order; :mod:`._rendering` turns them into
``pt.Experiment``'s tables, per-query frames and dicts. The public entry points live in
:mod:`ir_rarity.integrations.pyterrier`.
"""
