"""What produced an output and what it was computed from: versions, the command or call, inputs, pool, time.

Every output of ir_rarity (tables in any format, the HTML report, the meta-evaluation and pooling folders) carries
a :class:`Provenance`: the versions of ir_rarity, ir_measures, pyterrier, numpy, pandas and Python; the command
line (or the Python call); each input file's name, size and SHA-256; the pool it was computed against (S, what S
counts, depths, runs); and the time it was made (UTC, ISO 8601).

:meth:`Provenance.ir_metadata` writes it in the ir_metadata format (Breuer, Keller & Schaer, "ir_metadata: An
Extensible Metadata Schema for IR Experiments", SIGIR 2022; schema 0.1, the PRIMAD components ``platform``,
``implementation``, ``data``, ``method``), which CLEF LongEval and TIREx ask of participants: YAML between the
lines ``ir_metadata.start`` and ``ir_metadata.end``. ir_rarity's own facts (the evaluation's inputs and pool) go
under ``evaluation``, a key of its own that readers of the schema ignore.
"""

from __future__ import annotations

import datetime as _datetime
import hashlib
import importlib.metadata
import json
import os
import platform
import shlex
import sys
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ir_rarity.io.files import write_text

__all__ = ["PACKAGES", "InputFile", "Provenance", "collect", "command_line", "file_record", "hash_inputs", "stamp",
           "write_folder"]

PACKAGES = ("ir_rarity", "ir_measures", "pyterrier", "numpy", "pandas")
"""Packages whose versions every output records (a package not installed is recorded as ``"not installed"``)."""

_CHUNK = 1 << 20


@dataclass(frozen=True)
class InputFile:
    """One input: its name as given, and for a file its resolved path, size in bytes and SHA-256 (hex)."""

    name: str
    path: str | None = None
    size: int | None = None
    sha256: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fields that are known, as a plain dict."""
        return {k: v for k, v in (("name", self.name), ("path", self.path), ("size", self.size),
                                  ("sha256", self.sha256)) if v is not None}


def file_record(spec: str | os.PathLike[str]) -> list[InputFile]:
    """The inputs ``spec`` names: a file, every file of a folder (sorted) or of a glob, or a name.

    A name that is no file (an ir_datasets id, a glob that matched nothing) is recorded by name only. A file is
    read in 1 MiB chunks to hash it, so memory stays flat whatever its size.
    """
    path = Path(spec)
    if path.is_dir():
        return [record for child in sorted(path.iterdir()) if child.is_file() for record in file_record(child)]
    if not path.is_file():
        import glob

        matched = sorted(glob.glob(os.fspath(spec)))
        if matched and matched != [os.fspath(spec)]:
            return [record for m in matched for record in file_record(m)]
        return [InputFile(name=os.fspath(spec))]
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return [InputFile(name=os.fspath(spec), path=str(path.resolve()), size=path.stat().st_size,
                      sha256=digest.hexdigest())]


def hash_inputs(inputs: Iterable[str | os.PathLike[str]]) -> Future[tuple[InputFile, ...]]:
    """The :func:`file_record` of every input, computed on a thread while the caller goes on.

    Hashing releases the GIL, so hashing a large campaign overlaps its evaluation; ``.result()`` gives the records
    (or raises what reading an input raised).
    """
    from concurrent.futures import ThreadPoolExecutor

    specs = list(inputs)
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ir_rarity-hash")
    try:
        return pool.submit(lambda: tuple(record for spec in specs for record in file_record(spec)))
    finally:
        pool.shutdown(wait=False)  # the submitted work still runs to its end


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package.replace("_", "-"))
    except importlib.metadata.PackageNotFoundError:
        try:
            return importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command line as a shell would take it back (``shlex.join``), from ``argv`` or ``sys.argv``."""
    args = list(sys.argv if argv is None else argv)
    if args:
        args[0] = Path(args[0]).name or args[0]
    return shlex.join(args)


@dataclass(frozen=True)
class Provenance:
    """What produced an output and what it was computed from.

    Attributes:
        command: The command line, or the Python call (e.g. ``ir_rarity.report(...)``).
        inputs: The input files (name, path, size, SHA-256) or named inputs (an ir_datasets id).
        pool: What the values were computed against: S, what S counts, depths, runs (``CampaignInfo.as_dict``).
        versions: Package name -> version (:data:`PACKAGES`, and ``python``).
        created: When, in UTC, ISO 8601.
        extra: Further facts of the output (measures, seed, trials...).

    """

    command: str
    inputs: tuple[InputFile, ...] = ()
    pool: Mapping[str, Any] = field(default_factory=dict)
    versions: Mapping[str, str] = field(default_factory=dict)
    created: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ``produced_by``, ``versions``, ``command``, ``inputs``, ``pool``, ``created``..."""
        return {"produced_by": f"ir_rarity {self.versions.get('ir_rarity', '')}".strip(),
                "versions": dict(self.versions), "command": self.command,
                "inputs": [i.as_dict() for i in self.inputs], "pool": _plain(self.pool), "created": self.created,
                **({"extra": _plain(self.extra)} if self.extra else {})}

    def json(self) -> str:
        """:meth:`as_dict` as indented JSON."""
        return json.dumps(self.as_dict(), indent=2, sort_keys=False, default=str)

    def lines(self) -> list[str]:
        """The same facts as short ``key: value`` lines, for comments in tables (one input a line)."""
        out = [f"produced by: ir_rarity {self.versions.get('ir_rarity', '')}".rstrip(),
               "versions: " + ", ".join(f"{k} {v}" for k, v in self.versions.items()),
               f"command: {self.command}"]
        for i in self.inputs:
            facts = ", ".join(f"{k} {v}" for k, v in i.as_dict().items() if k != "name")
            out.append(f"input: {i.name}" + (f" ({facts})" if facts else ""))
        if self.pool:
            out.append("pool: " + json.dumps(_plain(self.pool), sort_keys=True, default=str))
        out += [f"{k}: {json.dumps(_plain(v), default=str)}" for k, v in self.extra.items()]
        out.append(f"created: {self.created}")
        return out

    def ir_metadata(self, tag: str | None = None) -> str:
        """The ir_metadata document (schema 0.1): YAML between ``ir_metadata.start`` and ``ir_metadata.end``.

        Args:
            tag: The run tag the metadata describes (optional).

        """
        import yaml

        document: dict[str, Any] = {"schema-version": "0.1", "run-version": "1.0"}
        if tag:
            document["tag"] = tag
        document["platform"] = {
            "hardware": {"cpu": {"architecture": platform.machine(), "number of cores": os.cpu_count()}},
            "operating system": {"kernel": f"{platform.system()} {platform.release()}"},
            "software": {"libraries": {"python": [f"{k}=={v}" for k, v in self.versions.items()
                                                  if k != "python" and v != "not installed"]}},
        }
        document["implementation"] = {"executable": {"cmd": self.command},
                                      "source": {"lang": [f"python {self.versions.get('python', '')}".strip()]}}
        if self.inputs:  # the schema's list of mappings with a name and a source, with their size and hash
            document["data"] = {"other": [{"name": i.name, "source": i.path or i.name,
                                           **{k: v for k, v in i.as_dict().items() if k in ("size", "sha256")}}
                                          for i in self.inputs]}
        document["method"] = {"score ties": "trec_eval order: score descending, ties by docno descending"
                                            + (" (scores compared as float64, trec_eval 10.0)"
                                               if self.pool.get("scores") == "float64" else
                                               " (scores compared as float32, pytrec_eval)")}
        document["evaluation"] = {"pool": _plain(self.pool), "created": self.created, **_plain(self.extra)}
        body = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, default_flow_style=False)
        return f"ir_metadata.start\n{body}ir_metadata.end\n"


def stamp(text: str, fmt: str, provenance: Provenance) -> str:
    """``text`` (a table in ``fmt``) with its provenance, in the way each format carries a comment.

    * ``tsv``, ``csv``: leading ``# key: value`` lines (as ir_metadata in run files; trec_eval 10.0 and
      ``pandas.read_csv(comment="#")`` skip them);
    * ``jsonl``: a first line ``{"provenance": {...}}``;
    * ``markdown``, ``html``: a leading HTML comment holding the JSON (not shown when rendered);
    * ``latex``: leading ``% `` lines.

    Raises:
        ValueError: an unknown format.

    """
    if fmt in ("tsv", "csv"):
        return "".join(f"# {line}\n" for line in provenance.lines()) + text
    if fmt == "latex":
        return "".join(f"% {line}\n" for line in provenance.lines()) + text
    if fmt == "jsonl":
        return json.dumps({"provenance": provenance.as_dict()}, default=str) + "\n" + text
    if fmt in ("markdown", "html"):
        body = provenance.json().replace("--", "- -")  # "--" may not appear inside an HTML comment
        return f"<!-- ir_rarity provenance\n{body}\n-->\n{text}"
    raise ValueError(f"no provenance stamp for format {fmt!r}")


def write_folder(folder: str | os.PathLike[str], provenance: Provenance) -> list[Path]:
    """Write ``provenance.json`` and ``ir_metadata.yml`` (the ir_metadata document) into an output folder.

    Returns:
        The two paths written (atomically).

    """
    out = Path(folder)
    return [write_text(out / "provenance.json", provenance.json() + "\n"),
            write_text(out / "ir_metadata.yml", provenance.ir_metadata())]


def _plain(value: Any) -> Any:
    """``value`` with mappings, sequences and numpy scalars made plain Python (for JSON and YAML)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return value.item()
    return value


def collect(command: str | Sequence[str] | None = None,
            inputs: Iterable[str | os.PathLike[str]] | Future[tuple[InputFile, ...]] = (),
            pool: Mapping[str, Any] | None = None, **extra: Any) -> Provenance:
    """The provenance of an output being made now.

    Args:
        command: The command line (a string, or ``argv`` to join), or a description of the Python call; None
            takes ``sys.argv``.
        inputs: Input files, folders or names (see :func:`file_record`), e.g. the qrels and the runs; or the
            future :func:`hash_inputs` returned.
        pool: What the values were computed against (``Evaluation.attrs()`` or ``CampaignInfo.as_dict()``).
        **extra: Further facts (measures, seed, trials...).

    Returns:
        The :class:`Provenance`, the time taken now.

    """
    text = command if isinstance(command, str) else command_line(command)
    records = inputs.result() if isinstance(inputs, Future) else tuple(
        record for spec in inputs for record in file_record(spec))
    versions = {name: _version(name) for name in PACKAGES}
    versions["python"] = platform.python_version()
    created = _datetime.datetime.now(_datetime.timezone.utc).replace(microsecond=0).isoformat()
    return Provenance(command=text, inputs=records, pool=dict(pool or {}), versions=versions, created=created,
                      extra=dict(extra))
