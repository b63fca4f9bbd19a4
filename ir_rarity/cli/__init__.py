"""The ``ir-rarity`` command line: one module per command family, all in this package.

* :mod:`~ir_rarity.cli.commands`: the parser, ``eval``, ``pool``, ``meta``, ``demo`` and the entry point :func:`main`;
* :mod:`~ir_rarity.cli.compare`: the ``eval`` options of campaign tables (significance, intervals, composition);
* :mod:`~ir_rarity.cli.report`: ``ir-rarity report``;
* :mod:`~ir_rarity.cli.pooling`: ``ir-rarity pooling``.

Every command parses its arguments here and calls the package's public functions (the front door
:func:`ir_rarity.evaluate` and the analyses above it); importing this package stays light (the parser is built
without numpy or pandas), so ``ir-rarity --help`` starts fast.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ir_rarity.cli.commands import build_parser, main

__all__ = ["build_parser", "main"]


def __getattr__(name: str) -> Any:
    # PEP 562: a command module (ir_rarity.cli.report...) imported alone does not load the main parser
    if name not in __all__:
        raise AttributeError(f"module 'ir_rarity.cli' has no attribute {name!r}")
    return getattr(import_module("ir_rarity.cli.commands"), name)
