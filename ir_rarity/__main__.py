"""``python -m ir_rarity``: the ``ir-rarity`` command."""

import sys

from ir_rarity.cli import main

sys.exit(main())
