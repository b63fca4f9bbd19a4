"""The ir_metadata document of an output: PRIMAD, as the ir_metadata schema and repro_eval read it; TIREx's JSON.

ir_metadata (Breuer, Keller & Schaer, "ir_metadata: An Extensible Metadata Schema for IR Experiments", SIGIR 2022;
https://www.ir-metadata.org) describes an experiment by its PRIMAD components (Ferro, Fuhr, Järvelin, Kando, Lippold
& Zobel, "Increasing Reproducibility in IR: Findings from the Dagstuhl Seminar", SIGIR Forum 2016): ``platform``
(hardware, operating system, software libraries with their versions), ``research goal`` (``evaluation``: the
reported measures, the baseline, the significance test and its correction), ``implementation`` (the command as run,
the source repository and commit), ``method``, ``actor`` and ``data`` (``test collection``: the qrels, the
ir_datasets id). ir_rarity's own facts (S, what S counts, the depths, the runs, a manifest hash of the inputs) go
under the namespaced key ``ir_rarity``, which the schema's readers ignore.

Two forms of the same YAML document (:func:`write_metadata` chooses by the file's name):

* the **header form** of run-like files: every line prefixed ``# ``, between ``# ir_metadata.start`` and
  ``# ir_metadata.end`` (what repro_eval's ``MetadataHandler.read_metadata`` reads, and trec_eval 10.0 skips);
* **plain YAML** (``*.yml``, ``*.yaml``: repro_eval's ``MetadataHandler.read_metadata_template``).

A campaign folder (or glob) is recorded once, by a manifest: its name, its number of files, their total size and
the SHA-256 of its files' ``sha256sum`` lines sorted by name (:func:`manifest`), not one entry per run. A file named
``.ir-metadata`` gets TIREx's JSON (``sys``, ``pkg_resources``; :func:`tirex_document`) with the PRIMAD document
under ``ir_metadata``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ir_rarity.io.files import write_text

if TYPE_CHECKING:
    from ir_rarity.provenance import InputFile, Provenance

__all__ = ["HEADER_END", "HEADER_START", "TIREX_FILE", "document", "header_text", "manifest", "manifest_hash",
           "metadata_form", "plain", "platform_facts", "read_header", "source_facts", "tirex_document",
           "write_metadata", "yaml_text"]

HEADER_START = "# ir_metadata.start"
"""The first line of the header form (repro_eval's ``META_START``)."""
HEADER_END = "# ir_metadata.end"
"""The last line of the header form (repro_eval's ``META_END``)."""
TIREX_FILE = ".ir-metadata"
"""The name of the file TIREx's tracker writes into an output folder (JSON)."""

SCHEMA_VERSION = "0.1"


# ------------------------------------------------------------------------------------------------- facts
def platform_facts() -> dict[str, Any]:
    """The ``platform`` component's hardware and operating system, read without a subprocess.

    CPU model from ``/proc/cpuinfo`` (else :func:`platform.processor`), architecture, operation mode, number of
    cores; RAM as ``"<GB> GB"`` (``os.sysconf``, where the system has it); kernel and distribution
    (``/etc/os-release``'s ``PRETTY_NAME``). A fact the system does not give is left out.
    """
    cpu: dict[str, Any] = {}
    model = _cpu_model()
    if model:
        cpu["model"] = model
    cpu["architecture"] = platform.machine()
    cpu["operation mode"] = f"{8 * _pointer_size()}-bit"
    cpu["number of cores"] = os.cpu_count()
    hardware: dict[str, Any] = {"cpu": cpu}
    with contextlib.suppress(AttributeError, ValueError, OSError):  # not every system has sysconf
        hardware["ram"] = f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 1024 ** 3:.2f} GB"
    system: dict[str, Any] = {"platform": platform.system(), "kernel": f"{platform.system()} {platform.release()}"}
    with contextlib.suppress(OSError, KeyError):
        system["distribution"] = platform.freedesktop_os_release()["PRETTY_NAME"]
    return {"hardware": hardware, "operating system": system}


def _pointer_size() -> int:
    import struct

    return struct.calcsize("P")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor()


def source_facts() -> dict[str, Any]:
    """The ``implementation.source`` of ir_rarity itself: language, and repository and commit of a git checkout.

    When ir_rarity runs from a git checkout (an editable install), ``commit`` is its ``HEAD`` and ``repository``
    its ``origin`` remote (left out when it has none); an installed wheel has neither. ``git`` is asked with a
    timeout; a machine without it records the language only.
    """
    source: dict[str, Any] = {"lang": [f"python {platform.python_version()}"]}
    here = Path(__file__).resolve().parent
    if not any((parent / ".git").exists() for parent in (here, *here.parents)):
        return source
    commit = _git(here, "rev-parse", "HEAD")
    if commit:
        remote = _git(here, "remote", "get-url", "origin")
        if remote:
            source["repository"] = remote
        source["commit"] = commit
    return source


def _git(folder: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=5,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def manifest_hash(files: Sequence[tuple[str, str]]) -> str:
    """The SHA-256 of one ``sha256sum`` line per file (``<sha256>  <name>``), sorted by name.

    ``cd FOLDER && sha256sum * | sort -k2 | sha256sum`` gives it again (in the C locale); the report's provenance
    block shows the same hash.

    Args:
        files: ``(name, sha256)`` of each file, the name relative to the folder.

    """
    lines = "".join(f"{sha}  {name}\n" for name, sha in sorted(files))
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def manifest(name: str, files: Sequence[InputFile]) -> dict[str, Any]:
    """One record for a folder's or glob's files: name, number of files, total size, manifest SHA-256.

    The manifest hash is :func:`manifest_hash` of the files, each named relative to the folder ``name`` names (a
    glob's files by the names they were listed by), so the same campaign copied elsewhere has the same hash; the
    size and the number of files are recorded beside it.
    """
    base = name if os.path.isdir(name) else None
    named = [(os.path.relpath(f.name, base) if base else f.name, f.sha256 or "") for f in files]
    return {"name": name, "files": len(files), "size": sum(f.size or 0 for f in files),
            "manifest sha256": manifest_hash(named)}


def _grouped(inputs: Sequence[InputFile]) -> list[dict[str, Any]]:
    """The inputs, one entry a spec: a single file (or name) as its record, several files as their manifest."""
    by_spec: dict[str, list[InputFile]] = {}
    for record in inputs:
        records = by_spec.setdefault(record.spec or record.name, [])
        if all(r.name != record.name for r in records):  # one file named twice (--teams F --leaderboard F) is one
            records.append(record)
    out = []
    for spec, records in by_spec.items():
        if len(records) == 1 and (records[0].name == spec or records[0].sha256 is None):
            out.append({k: v for k, v in records[0].as_dict().items() if k != "path"})
        else:
            out.append(manifest(spec, records))
    return out


def _all_inputs_hash(inputs: Sequence[InputFile]) -> str:
    """:func:`manifest_hash` of every input, each by its name as given (a name that is no file: an empty hash)."""
    return manifest_hash([(i.name, i.sha256 or "") for i in inputs])


# ------------------------------------------------------------------------------------------------- the document
def document(provenance: Provenance, *, tag: str | None = None, qrels: str | None = None,
             baseline: Sequence[str] | None = None, test: str | None = None, correction: str | None = None,
             measures: Sequence[str] | None = None, actor: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The PRIMAD document of ``provenance`` (ir_metadata schema 0.1), as a plain dict.

    Args:
        provenance: What produced the output (:func:`ir_rarity.provenance.collect`).
        tag: The run tag the document describes (one run evaluated), or None.
        qrels: The qrels as given (a file, or an ir_datasets id): ``data.test collection``.
        baseline: The baseline runs' tags (``research goal.evaluation.baseline``).
        test: The significance test's name, when runs were compared.
        correction: Its multiple-testing correction.
        measures: The reported measures (default: the provenance's ``measures``).
        actor: The ``actor`` component (name, team, role...); default ``{"role": "experimenter"}``.

    Returns:
        The document: ``schema-version``, ``tag``, ``platform``, ``implementation``, ``data``, ``research goal``,
        ``method``, ``actor`` and ``ir_rarity`` (S, depths, runs, the inputs by manifest, the inputs' hash).

    """
    inputs = list(provenance.inputs)
    doc: dict[str, Any] = {"schema-version": SCHEMA_VERSION}
    if tag:
        doc["tag"] = tag
    libraries = [f"{k}=={v}" for k, v in provenance.versions.items() if k != "python" and v != "not installed"]
    doc["platform"] = {**platform_facts(), "software": {"libraries": {"python": libraries}}}
    doc["implementation"] = {"executable": {"cmd": provenance.command}, "source": source_facts()}
    data: dict[str, Any] = {}
    if qrels is not None:
        data["test collection"] = _test_collection(qrels, [i for i in inputs if (i.spec or i.name) == qrels])
    doc["data"] = data
    evaluation: dict[str, Any] = {}
    reported = list(measures if measures is not None else provenance.extra.get("measures", []))
    if reported:
        evaluation["reported measures"] = reported
    if baseline:
        evaluation["baseline"] = list(baseline)
    if test:
        evaluation["significance test"] = [{"name": test, **({"correction method": correction}
                                                             if correction else {})}]
    doc["research goal"] = {"evaluation": evaluation}
    doc["method"] = {"score ties": "trec_eval order: score descending, ties by docno descending"
                                   + (" (scores compared as float64, trec_eval 10.0)"
                                      if provenance.pool.get("scores") == "float64" else
                                      " (scores compared as float32, pytrec_eval)")}
    doc["actor"] = dict(actor) if actor else {"role": "experimenter"}
    others = [i for i in inputs if qrels is None or (i.spec or i.name) != qrels]
    doc["ir_rarity"] = {"version": provenance.versions.get("ir_rarity", ""), "created": provenance.created,
                        "pool": plain(provenance.pool), "inputs": _grouped(others),
                        "inputs sha256": _all_inputs_hash(inputs),
                        **{k: plain(v) for k, v in provenance.extra.items() if k != "measures"}}
    return doc


def _test_collection(qrels: str, records: Sequence[InputFile]) -> dict[str, Any]:
    """``data.test collection``: a qrels file by name, size and hash; an ir_datasets id as ``ir_datasets``."""
    hashed = [r for r in records if r.sha256 is not None]
    if not hashed:  # a name, not a file: an ir_datasets id (or standard input)
        return {"name": qrels, "qrels": qrels, **({"ir_datasets": qrels} if qrels != "-" else {})}
    if len(hashed) == 1:
        return {"name": qrels, "qrels": qrels, "qrels size": hashed[0].size, "qrels sha256": hashed[0].sha256}
    entry = manifest(qrels, hashed)
    return {"name": qrels, "qrels": qrels, "qrels files": entry["files"],
            "qrels manifest sha256": entry["manifest sha256"]}


def plain(value: Any) -> Any:
    """``value`` with mappings, sequences and numpy scalars made plain Python (for JSON and YAML)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return value.item()
    return value


# ------------------------------------------------------------------------------------------------- its forms
class _Dumper(yaml.SafeDumper):
    """YAML whose strings stay on their line in the header form.

    A string holding a line break, or ending with ``#`` (repro_eval strips ``#`` from both ends of each header
    line), or with a leading or trailing space, is written double-quoted with escapes.
    """


def _str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    quoted = any(c in text for c in "\n\r\x85\u2028\u2029") or text.endswith("#") or text != text.strip()
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style='"' if quoted else None)


_Dumper.add_representer(str, _str)


def yaml_text(doc: Mapping[str, Any]) -> str:
    """``doc`` as plain YAML (no line folded; strings that need it double-quoted)."""
    return str(yaml.dump(dict(doc), Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False,
                         width=float("inf")))


def header_text(doc: Mapping[str, Any]) -> str:
    """``doc`` in the header form of run-like files.

    ``# ir_metadata.start``, the YAML with ``# `` before each line, ``# ir_metadata.end``.
    """
    body = "".join(f"# {line}\n" for line in yaml_text(doc).splitlines())
    return f"{HEADER_START}\n{body}{HEADER_END}\n"


def read_header(text: str) -> dict[str, Any] | None:
    """The document of a header at the top of ``text`` (the inverse of :func:`header_text`), or None."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r") != HEADER_START:
        return None
    body: list[str] = []
    for line in lines[1:]:
        if line.rstrip("\r") == HEADER_END:
            loaded = yaml.safe_load("".join(body))
            return dict(loaded) if isinstance(loaded, Mapping) else {}
        body.append(line[2:] + "\n" if line.startswith("# ") else line.lstrip("#") + "\n")
    return None


def tirex_document(provenance: Provenance, doc: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """TIREx's ``.ir-metadata`` JSON (``sys``: executable, argv, modules, version_info; ``pkg_resources``).

    ``argv`` is the command as run (``shlex.split`` of the provenance's command); ``ir_metadata`` holds the PRIMAD
    document ``doc`` (default :func:`document` of the provenance).
    """
    packages = sorted({f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions()
                       if d.metadata["Name"]})
    modules = sorted({name.split(".")[0] for name in list(sys.modules) if name and not name.startswith("_")})
    return {"sys": {"executable": sys.executable, "argv": shlex.split(provenance.command), "modules": modules,
                    "version_info": platform.python_version()},
            "pkg_resources": packages,
            "ir_metadata": dict(doc) if doc is not None else document(provenance)}


def metadata_form(path: str | os.PathLike[str]) -> str:
    """The form a metadata file named ``path`` gets.

    ``tirex`` (``.ir-metadata``), ``yaml`` (``.yml``, ``.yaml``), ``json`` (``.json``), else ``header`` (the
    run-like form).
    """
    name = Path(path).name.lower()
    if name == TIREX_FILE or name.endswith(TIREX_FILE):
        return "tirex"
    suffix = Path(name).suffix
    return {".yml": "yaml", ".yaml": "yaml", ".json": "json"}.get(suffix, "header")


def write_metadata(path: str | os.PathLike[str], provenance: Provenance, **facts: Any) -> Path:
    """Write the ir_metadata document of ``provenance`` to ``path``, in the form its name asks (atomically).

    Args:
        path: ``*.yml``/``*.yaml``: plain YAML; ``*.json``: JSON; ``.ir-metadata`` (or a folder, which gets one):
            TIREx's JSON; any other name: the header form (``# ir_metadata.start`` ... ``# ir_metadata.end``).
        provenance: What produced the output.
        **facts: :func:`document`'s keywords (tag, qrels, baseline, test, correction, measures, actor).

    Returns:
        The path written.

    """
    out = Path(path)
    if out.is_dir():
        out = out / TIREX_FILE
    doc = document(provenance, **facts)
    text = {"tirex": lambda: json.dumps(tirex_document(provenance, doc), indent=2, ensure_ascii=False) + "\n",
            "yaml": lambda: yaml_text(doc),
            "json": lambda: json.dumps(doc, indent=2, ensure_ascii=False) + "\n",
            "header": lambda: header_text(doc)}[metadata_form(out)]()
    return write_text(out, text)
