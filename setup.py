"""Build step that installs ``ir_rarity_hook.pth`` into site-packages (metadata lives in pyproject.toml).

The .pth file makes the stock ``ir_measures`` command know ir_rarity's measures (see ``ir_rarity_hook.py``).
A regular wheel gets it at its root (so in site-packages) through ``build_lib``; an editable wheel (PEP 660,
``pip install -e``) gets it written straight into the unpacked wheel, where setuptools puts non-editable files.
"""

from __future__ import annotations

import os

from setuptools import Command, setup
from setuptools.command.build import build

PTH_NAME = "ir_rarity_hook.pth"
# Run by site.py at start-up. Silent if the hook module has gone (package uninstalled); any other failure of the
# hook (a syntax error, an exception while it is imported) is one line on stderr, never a traceback at every start
# of the interpreter (site.py prints one for any exception a .pth line lets through).
_PTH_CODE = (
    "try:\n"
    " import ir_rarity_hook\n"
    "except Exception as e:\n"
    " if not (isinstance(e, ImportError) and e.name == 'ir_rarity_hook'):\n"
    "  try:\n"
    "   sys.stderr.write('ir_rarity_hook: disabled (%s: %s)\\n' % (type(e).__name__, ' '.join(str(e).split())))\n"
    "  except Exception:\n"
    "   pass\n"
)
PTH_LINE = f"import sys; exec({_PTH_CODE!r})\n"  # one line: the code's newlines are escapes in the literal


class build_pth(Command):
    """Write ir_rarity_hook.pth where it will land in site-packages."""

    description = "write the ir_rarity_hook.pth start-up file"
    user_options: list = []  # noqa: RUF012

    def initialize_options(self) -> None:
        """Set defaults (``editable_mode`` is set by setuptools' editable_wheel)."""
        self.build_lib = None
        self.editable_mode = False
        self._written: list[str] = []

    def finalize_options(self) -> None:
        """Take ``build_lib`` from ``build``."""
        self.set_undefined_options("build", ("build_lib", "build_lib"))

    def run(self) -> None:
        """Write the .pth file."""
        # In editable mode setuptools points install_lib at the unpacked editable wheel.
        target = self.get_finalized_command("install").install_lib if self.editable_mode else self.build_lib
        os.makedirs(target, exist_ok=True)
        path = os.path.join(target, PTH_NAME)
        with open(path, "w") as f:
            f.write(PTH_LINE)
        self._written = [path]

    def get_outputs(self) -> list[str]:
        """The file written."""
        return list(self._written)

    def get_output_mapping(self) -> dict[str, str]:
        """No source file maps to it: it is generated."""
        return {}


class build_with_pth(build):
    """``build`` plus :class:`build_pth`."""

    sub_commands = [*build.sub_commands, ("build_pth", None)]  # noqa: RUF012


setup(cmdclass={"build": build_with_pth, "build_pth": build_pth})
