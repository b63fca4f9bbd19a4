"""The machinery of :func:`ir_rarity.Experiment`: ``pt.Experiment`` rebuilt on ir_rarity's engine.

:mod:`.inputs` converts and checks what :func:`~ir_rarity.Experiment` is given (qrels, topic filters, systems and
names, baselines, tests, corrections, rounding, ``validate=``) and parses the measures once into the
``{measure: column}`` mapping the other modules read; :mod:`.execution` runs each system once (batches, the
``save_dir`` cache); :mod:`.scores` scores all the runs in one :func:`ir_rarity.evaluate` call and computes means,
significance tests and corrections in ``pt.Experiment``'s query order; :mod:`.rendering` turns them into
``pt.Experiment``'s tables, per-query frames and dicts. The modules import one another's public names only, and
PyTerrier's public API only. The entry points users call live in :mod:`ir_rarity.integrations.pyterrier`.
"""
