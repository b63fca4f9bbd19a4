"""The report's compact provenance block: what produced the page in a few lines, a campaign folder once.

The page embeds every fact as JSON (``#provenance-json``: each input's name, size and SHA-256); the block shown
states them compactly: the versions on one line, the command, and the inputs grouped by folder. A folder of more
than :data:`FOLDED` files (a campaign's runs) is one line: its path, how many files, their total size and a
manifest hash, the SHA-256 of the lines ``<sha256>  <file name>`` of its files sorted by name (the format of
``sha256sum``, so ``cd FOLDER && sha256sum * | sort -k2 | sha256sum`` gives it again); a file on its own is its name
(once), size and SHA-256.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from ir_rarity.metadata import manifest_hash

if TYPE_CHECKING:
    from ir_rarity.provenance import Provenance

__all__ = ["FOLDED", "compact_lines"]

FOLDED = 3
"""A folder with more input files than this is shown as one line."""


def _one_line(text: object) -> str:
    """``text`` as written, or as a JSON string when it holds a line break or another control character.

    A file name holding a line break thus stays on its line.
    """
    value = str(text)
    if any(ord(c) < 32 or c in "\x85\u2028\u2029" or 127 <= ord(c) < 160 for c in value):
        return json.dumps(value, ensure_ascii=False)
    return value


def _size(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size:,} bytes"


def _inputs(inputs: list[dict[str, Any]]) -> list[str]:
    folders: dict[str, list[dict[str, Any]]] = {}
    for item in inputs:
        folders.setdefault(os.path.dirname(str(item.get("name", ""))), []).append(item)
    lines = []
    for folder, items in folders.items():
        hashed = [i for i in items if "sha256" in i]
        if len(items) > FOLDED and len(hashed) == len(items):
            total = sum(int(i.get("size", 0)) for i in items)
            digest = manifest_hash([(os.path.basename(str(i["name"])), str(i["sha256"])) for i in items])
            lines.append(f"input folder: {_one_line(folder or '.')}: {len(items)} files, {_size(total)}, "
                         f"manifest sha256 {digest}")
            continue
        for i in items:
            described = [_size(int(i["size"]))] if "size" in i else []
            described += [f"sha256 {i['sha256']}"] if "sha256" in i else []
            lines.append(f"input: {_one_line(i.get('name'))}" + (f" ({', '.join(described)})" if described else ""))
    return lines


def compact_lines(provenance: Provenance) -> list[str]:
    """The block's lines: producer and versions, command, created, inputs (folders once), pool, settings."""
    facts = provenance.as_dict()
    versions = facts.get("versions") or {}
    lines = [f"produced by: {facts.get('produced_by', '')} ("
             + ", ".join(f"{k} {v}" for k, v in versions.items() if k != "ir_rarity") + ")"]
    command = facts.get("command")
    lines.append("command: " + _one_line(" ".join(map(str, command)) if isinstance(command, list) else command))
    if facts.get("created"):
        lines.append(f"created: {facts['created']}")
    lines += _inputs(list(facts.get("inputs") or []))
    pool = facts.get("pool") or {}
    if pool:
        shown = {k: pool[k] for k in ("S", "systems", "runs", "depths", "scores", "read") if k in pool}
        lines.append("pool: " + ", ".join(f"{k} {json.dumps(v)}" for k, v in shown.items()))
    for key, value in (facts.get("extra") or {}).items():
        lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return lines
