"""What produced an output and what it was computed from: versions, the command or call, inputs, pool, time.

Every output of ir_rarity (tables in any format, the HTML report, the meta-evaluation and pooling folders) carries
a :class:`Provenance`: the versions of ir_rarity, ir_measures, pyterrier, numpy, pandas and Python; the command
line (or the Python call), as a shell takes it back; each input file's name as the user gave it, size and SHA-256
(the files the readers read: a folder's non-hidden files, as :func:`ir_rarity.pool.build.paths.expand_run_paths` lists
them; the resolved absolute path only when asked, ``absolute_paths=True``); the pool it was computed against (S,
what S counts, depths, runs); and the time it was made (UTC, ISO 8601). Tables carry it in a comment encoded for
their format by :mod:`ir_rarity.formats`, so no file name or command can add a row or become markup.

:meth:`Provenance.ir_metadata` writes it in the ir_metadata format (Breuer, Keller & Schaer, "ir_metadata: An
Extensible Metadata Schema for IR Experiments", SIGIR 2022), which CLEF LongEval and TIREx ask of participants:
:mod:`ir_rarity.metadata` builds the PRIMAD document and writes its forms (the ``# ir_metadata.start`` header of
run-like files, plain YAML, TIREx's ``.ir-metadata`` JSON).
"""

from __future__ import annotations

import datetime as _datetime
import hashlib
import importlib.metadata
import os
import platform
import shlex
import sys
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ir_rarity.errors import InputError
from ir_rarity.formats import comment, fact_lines, json_for_script, json_text
from ir_rarity.io.files import write_text
from ir_rarity.metadata import document, header_text, plain, yaml_text
from ir_rarity.pool import expand_run_paths

__all__ = ["PACKAGES", "InputFile", "Provenance", "collect", "command_line", "file_record", "hash_inputs",
           "json_for_script", "stamp", "write_folder"]

PACKAGES = ("ir_rarity", "ir_measures", "pyterrier", "numpy", "pandas")
"""Packages whose versions every output records (a package not installed is recorded as ``"not installed"``)."""

_CHUNK = 1 << 20


@dataclass(frozen=True)
class InputFile:
    """One input: its name as given, and for a file its size in bytes, SHA-256 (hex) and, when asked, resolved path.

    ``spec`` is the input as the user gave it (a folder, a glob) of which this file is one (not in :meth:`as_dict`:
    the ir_metadata document records a folder once, by its manifest).
    """

    name: str
    path: str | None = None
    size: int | None = None
    sha256: str | None = None
    spec: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fields that are known, as a plain dict."""
        return {k: v for k, v in (("name", self.name), ("path", self.path), ("size", self.size),
                                  ("sha256", self.sha256)) if v is not None}


def file_record(spec: str | os.PathLike[str], *, absolute_paths: bool = False) -> list[InputFile]:
    """The inputs ``spec`` names, as the readers read them: a file, a folder's or a glob's files, or a name.

    The files are listed by :func:`ir_rarity.pool.build.paths.expand_run_paths`, the one listing every reader uses (a
    folder's non-hidden regular files, sorted), and named by the path the user gave (``runs/a.run`` for the
    folder ``runs``). A name that is no file (an ir_datasets id, standard input ``-``) is recorded by name only.
    A file is read in 1 MiB chunks to hash it, so memory stays flat whatever its size.

    Args:
        spec: A file, folder or glob (or a name).
        absolute_paths: Also record each file's resolved absolute path (it may name the user's folders: off
            unless asked).

    """
    text = os.fspath(spec)
    try:
        files = expand_run_paths(text)
    except InputError:
        return [InputFile(name=text, spec=text)]
    out = []
    for path in files:
        if not path.is_file():  # standard input, a pipe: nothing to hash
            out.append(InputFile(name=os.fspath(path), spec=text))
            continue
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            while chunk := f.read(_CHUNK):
                digest.update(chunk)
        out.append(InputFile(name=text if files == [Path(text)] else os.fspath(path),
                             path=str(path.resolve()) if absolute_paths else None, size=path.stat().st_size,
                             sha256=digest.hexdigest(), spec=text))
    return out


def hash_inputs(inputs: Iterable[str | os.PathLike[str]], *, absolute_paths: bool = False
                ) -> Future[tuple[InputFile, ...]]:
    """The :func:`file_record` of every input, computed on a thread while the caller goes on.

    Hashing releases the GIL, so hashing a large campaign overlaps its evaluation; ``.result()`` gives the records
    (or raises what reading an input raised).
    """
    from concurrent.futures import ThreadPoolExecutor

    specs = list(inputs)
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ir_rarity-hash")
    try:
        return pool.submit(lambda: tuple(record for spec in specs
                                         for record in file_record(spec, absolute_paths=absolute_paths)))
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
        inputs: The input files (name, size, SHA-256, the path when asked) or named inputs (an ir_datasets id).
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
                "inputs": [i.as_dict() for i in self.inputs], "pool": plain(self.pool), "created": self.created,
                **({"extra": plain(self.extra)} if self.extra else {})}

    def json(self) -> str:
        """:meth:`as_dict` as indented JSON."""
        return json_text(self.as_dict(), indent=2)

    def lines(self) -> list[str]:
        """The same facts as ``key: value`` lines, each value one line of JSON (``input: {...}`` one input a line).

        What the comment lines of tsv, csv and latex hold (:func:`ir_rarity.formats.fact_lines`): a file name or
        command holding a line break stays on its line.
        """
        return fact_lines(self.as_dict())

    def ir_metadata(self, tag: str | None = None, **facts: Any) -> str:
        """The ir_metadata document in the header form of run-like files (:func:`ir_rarity.metadata.header_text`).

        ``# ir_metadata.start``, the PRIMAD document's YAML with ``# `` before each line, ``# ir_metadata.end``: what
        repro_eval's ``MetadataHandler.read_metadata`` reads.

        Args:
            tag: The run tag the metadata describes (optional).
            **facts: :func:`ir_rarity.metadata.document`'s keywords (qrels, baseline, test, correction...).

        """
        return header_text(document(self, tag=tag, **facts))


def stamp(text: str, fmt: str, provenance: Provenance) -> str:
    """``text`` (a table in ``fmt``) with its provenance, in the way each format carries a comment.

    * ``tsv``, ``csv``: leading ``# key: value`` lines, each value one line of JSON (as ir_metadata in run files;
      trec_eval 10.0 and ``pandas.read_csv(comment="#")`` skip them);
    * ``jsonl``: a first line ``{"provenance": {...}}``;
    * ``markdown``, ``html``: a leading HTML comment holding the JSON (not shown when rendered), written so that
      nothing in it can close the comment (:func:`ir_rarity.formats.json_for_comment`);
    * ``latex``: leading ``% key: value`` lines, JSON values.

    :func:`ir_rarity.formats.read_comment` reads the facts back.

    Raises:
        ValueError: an unknown format.

    """
    return comment(fmt, provenance.as_dict()) + text


def write_folder(folder: str | os.PathLike[str], provenance: Provenance, **facts: Any) -> list[Path]:
    """Write ``provenance.json`` and ``ir_metadata.yml`` (the ir_metadata document, plain YAML) into an output folder.

    Args:
        folder: The output folder.
        provenance: What produced it.
        **facts: :func:`ir_rarity.metadata.document`'s keywords (``qrels=`` the qrels as given...).

    Returns:
        The two paths written (atomically).

    """
    out = Path(folder)
    return [write_text(out / "provenance.json", provenance.json() + "\n"),
            write_text(out / "ir_metadata.yml", yaml_text(document(provenance, **facts)))]


def collect(command: str | Sequence[str] | None = None,
            inputs: Iterable[str | os.PathLike[str]] | Future[tuple[InputFile, ...]] = (),
            pool: Mapping[str, Any] | None = None, *, absolute_paths: bool = False, **extra: Any) -> Provenance:
    """The provenance of an output being made now.

    Args:
        command: The command line (a string, or ``argv`` to join), or a description of the Python call; None
            takes ``sys.argv``.
        inputs: Input files, folders or names (see :func:`file_record`), e.g. the qrels and the runs; or the
            future :func:`hash_inputs` returned.
        pool: What the values were computed against (``Evaluation.attrs()`` or ``CampaignInfo.as_dict()``).
        absolute_paths: Also record each input file's resolved absolute path (off: the names as given only).
        **extra: Further facts (measures, seed, trials...).

    Returns:
        The :class:`Provenance`, the time taken now.

    """
    text = command if isinstance(command, str) else command_line(command)
    records = inputs.result() if isinstance(inputs, Future) else tuple(
        record for spec in inputs for record in file_record(spec, absolute_paths=absolute_paths))
    versions = {name: _version(name) for name in PACKAGES}
    versions["python"] = platform.python_version()
    created = _datetime.datetime.now(_datetime.timezone.utc).replace(microsecond=0).isoformat()
    return Provenance(command=text, inputs=records, pool=dict(pool or {}), versions=versions, created=created,
                      extra=dict(extra))
