"""``--metadata FILE`` on every ``ir-rarity`` command: the ir_metadata document of what the command did.

:func:`add_metadata_options` gives every sub-command the option (the ones that have it already keep theirs);
:func:`run_with_metadata` runs a command and then writes the document, unless the command wrote a richer one itself
(``eval`` does, with its measures, baseline and test: :func:`write_for`). The file's name chooses its form
(:func:`ir_rarity.metadata.write_metadata`): ``*.yml``/``*.yaml`` plain YAML, ``*.json`` JSON, ``.ir-metadata`` (or a
folder) TIREx's JSON, any other name the ``# ir_metadata.start`` header of run-like files. ``-`` is standard
output, for a command that prints nothing else there.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ir_rarity.io.guard import check_outputs

if TYPE_CHECKING:
    from ir_rarity.provenance import Provenance

__all__ = ["METADATA_HELP", "add_metadata_options", "facts_of", "inputs_of", "run_with_metadata", "write_for"]

METADATA_HELP = ("write the ir_metadata document (PRIMAD: platform, implementation, data, research goal, method, "
                 "actor; ir_rarity's own facts under 'ir_rarity') to FILE: *.yml/*.yaml plain YAML, *.json JSON, "
                 ".ir-metadata (or a folder) TIREx's JSON, any other name the '# ir_metadata.start' header of "
                 "run files; -: standard output")
_QUIET_STDOUT = ("pool", "report")
"""Commands that print nothing on standard output (``--metadata -`` may use it; ``eval`` decides on its own)."""


def add_metadata_options(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Give every sub-command ``--metadata FILE`` (a command that defines it already keeps its own)."""
    for parser in subparsers.choices.values():
        if not any("--metadata" in action.option_strings for action in parser._actions):
            parser.add_argument("--metadata", metavar="FILE", help=METADATA_HELP)


def inputs_of(args: argparse.Namespace) -> list[str]:
    """The inputs a command names, as given: QRELS, RUNS, ``--pool``, ``--teams``, ``--leaderboard`` files."""
    found: list[str] = []
    for name in ("qrels", "runs", "pool", "teams", "leaderboard"):
        value = getattr(args, name, None)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item:
                found.append(_file_of(item) if name in ("teams", "leaderboard") else item)
    return found


def _file_of(spec: str) -> str:
    """The file of a ``FILE[:COLUMN[:COLUMN]]`` spec."""
    while ":" in spec and not os.path.exists(spec):
        spec = spec.rsplit(":", 1)[0]
    return spec


def facts_of(args: argparse.Namespace) -> dict[str, Any]:
    """The document's facts a command's arguments give: qrels, measures, baseline, test and its correction."""
    facts: dict[str, Any] = {}
    if getattr(args, "qrels", None):
        facts["qrels"] = args.qrels
    if getattr(args, "measures", None):
        facts["measures"] = list(args.measures)
    compared = bool(getattr(args, "baseline", None)) or bool(getattr(args, "all_pairs", False))
    if getattr(args, "baseline", None):
        facts["baseline"] = list(args.baseline)
    if compared and getattr(args, "test", None):
        facts["test"] = args.test
    if getattr(args, "correction", None):
        facts["correction"] = args.correction
    elif compared:  # eval's comparisons without --correction are uncorrected: say so rather than leave it unsaid
        facts["correction"] = "none"
    return facts


def _prepare(args: argparse.Namespace) -> None:
    """Check ``--metadata`` before the command reads anything: not an input, a folder gets ``.ir-metadata``."""
    path = getattr(args, "metadata", None)
    if path is None:
        return
    if path == "-":
        if args.command not in _QUIET_STDOUT and args.command != "eval":
            raise ValueError(f"--metadata -: ir-rarity {args.command} prints its own output on standard output; "
                             "name a file")
        return
    from ir_rarity.metadata import TIREX_FILE

    if Path(path).is_dir():
        args.metadata = path = os.path.join(path, TIREX_FILE)
    if args.command != "eval":  # eval checks its outputs together
        check_outputs([("--metadata", path, False)], inputs_of(args))


def write_for(args: argparse.Namespace, provenance: Provenance, **facts: Any) -> None:
    """Write the document of ``provenance`` where ``--metadata`` says (``-``: standard output), once."""
    from ir_rarity.metadata import document, header_text, write_metadata

    merged = {**facts_of(args), **facts}
    if args.metadata == "-":
        sys.stdout.write(header_text(document(provenance, **merged)))
        sys.stdout.flush()
    else:
        write_metadata(args.metadata, provenance, **merged)
    args.metadata_written = True


def run_with_metadata(args: argparse.Namespace) -> int:
    """Run ``args.func`` and, when it succeeds and ``--metadata`` is given, write the document it left unwritten.

    A command may leave its provenance in ``args.provenance_record`` (the folders' ``provenance.json``); otherwise the
    document is collected here from the command line and the inputs it names.
    """
    _prepare(args)
    status = int(args.func(args))
    if status == 0 and getattr(args, "metadata", None) is not None and not getattr(args, "metadata_written", False):
        provenance = getattr(args, "provenance_record", None)
        if provenance is None:
            from ir_rarity.provenance import collect

            provenance = collect(getattr(args, "argv", None), inputs_of(args),
                                 absolute_paths=getattr(args, "absolute_paths", False))
        write_for(args, provenance)
    return status
