"""Reading and encoding runs: what turns run files and frames into the arrays a pool holds.

* :mod:`~ir_rarity.pool.build.paths`: listing run files (folders, globs) and their signatures, without reading;
* :mod:`~ir_rarity.pool.build.sources`: inputs to named runs (the naming rule), read once;
* :mod:`~ir_rarity.pool.build.runs`: trec_eval order, duplicates, cutting and encoding into
  :class:`~ir_rarity.pool.build.encoded.EncodedRuns`;
* :mod:`~ir_rarity.pool.build.docnos`: docnos encoded query by query into a sorted vocabulary;
* :mod:`~ir_rarity.pool.build.retention`: what of each run the measures read (kept while reading).
"""
