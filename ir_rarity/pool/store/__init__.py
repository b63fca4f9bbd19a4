"""Storage and caches of campaigns: saved pools (``.npz``) and the disk cache of count tables.

* :mod:`~ir_rarity.pool.store.storage`: :meth:`Pool.save <ir_rarity.Pool.save>` / ``Pool.load`` files;
* :mod:`~ir_rarity.pool.store.npz`: the one reader and writer of ir_rarity's ``.npz`` containers (no pickles);
* :mod:`~ir_rarity.pool.store.cache`: count tables of campaigns named by files, kept between processes;
* :mod:`~ir_rarity.pool.store.cachefile`: the cache's files, their index and eviction (only files it wrote).
"""
