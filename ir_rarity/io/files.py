"""Atomic file writes: a temporary file in the same folder, flushed to disk, then ``os.replace``.

Every file ir_rarity writes (command-line output, exported tables, reports, plots) goes through here, so a
reader never sees a half-written file and an interrupted write leaves the old file in place.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = ["atomic_path", "write_atomic", "write_bytes", "write_text", "write_with"]


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; on success it replaces ``path`` (``os.replace``), else is removed.

    The parent folder is created if needed. Readers never see a half-written file.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the permissions open() would
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_with(path: str | os.PathLike[str], writer: Callable[[Path], object]) -> Path:
    """Call ``writer(temporary_path)`` and atomically move the result to ``path``."""
    with atomic_path(path) as tmp:
        writer(tmp)
    return Path(path)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Atomically write ``data`` to ``path``."""
    return write_with(path, lambda tmp: tmp.write_bytes(data))


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Atomically write UTF-8 ``text`` to ``path``."""
    return write_with(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> Path:
    """Atomically write ``data`` (UTF-8 text or bytes) to ``path``."""
    return write_bytes(path, data.encode("utf-8") if isinstance(data, str) else data)
