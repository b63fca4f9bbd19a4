"""Atomic file writes: a temporary file in the same folder, flushed to disk, then ``os.replace``.

Every file ir_rarity writes (command-line output, exported tables, reports, plots, pool files) goes through here:

* a reader never sees a half-written file, and an interrupted write (an error, Ctrl-C, or SIGTERM) leaves the
  old file in place and removes the temporary one;
* replacing a file keeps its permission bits; a new file gets the permissions ``open()`` would give it under
  the process umask (read from ``/proc/self/status``, so the umask of a multi-threaded process is never
  changed, even for a moment);
* a path that is a symlink is written *through*: the file it points to is replaced, the link stays;
* only a regular file (or a new path) is replaced. Anything else is a stream, written in place and never unlinked
  or renamed over: a FIFO, a character device (``/dev/null``, a terminal), and a path naming an open descriptor
  (``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``, ``/proc/self/fd/N``), which is written through that
  descriptor, so ``-o /dev/stdout >> log`` appends to the log as ``>>`` asks instead of replacing it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = ["atomic_path", "is_stream", "write_atomic", "write_bytes", "write_text", "write_with"]

_STD = {"/dev/stdout": 1, "/dev/stderr": 2}
_FD_FOLDERS = ("/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/")


def _named_descriptor(path: str | os.PathLike[str]) -> int | None:
    """The open file descriptor ``path`` names (``/dev/stdout``, ``/dev/fd/N``, ``/proc/self/fd/N``), or None."""
    text = os.path.abspath(os.fspath(path))
    fd = _STD.get(text)
    for folder in (*_FD_FOLDERS, f"/proc/{os.getpid()}/fd/"):
        if fd is None and text.startswith(folder) and text[len(folder):].isdigit():
            fd = int(text[len(folder):])
    if fd is None:
        return None
    try:
        os.fstat(fd)
    except OSError:  # not open here: the path is opened like any other
        return None
    return fd


def is_stream(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is written in place, as a stream, rather than replaced.

    True for a path naming an open descriptor, and for an existing file that is neither regular nor a folder (a
    FIFO, a character or block device, a socket).
    """
    if _named_descriptor(path) is not None:
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _write_stream(path: str | os.PathLike[str], data: bytes | memoryview) -> None:
    """Write ``data`` to a stream in place.

    Through the descriptor the path names, or the path opened for writing (never created, truncated or renamed).
    """
    fd = _named_descriptor(path)
    if fd is not None:
        for stream in (sys.stdout, sys.stderr):  # keep the order of what was printed before
            with contextlib.suppress(Exception):
                stream.flush()
        out = os.dup(fd)
    else:
        out = os.open(path, os.O_WRONLY)  # a FIFO waits here for its reader
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(out, view):]
    finally:
        os.close(out)


def _naming(path: str | os.PathLike[str], error: OSError) -> OSError:
    """``error`` naming ``path``, the file asked for, when it names no file or the temporary one.

    A write failing for want of room or under a file-size limit (``[Errno 27] File too large``) names no file by
    itself; the same errno and reason, with the file written: ``[Errno 27] File too large: 'out.tsv'``.
    """
    named = error.filename
    if named is not None and not str(named).endswith(".tmp") and os.fspath(named) != os.fspath(path):
        return error  # another file, named already
    return OSError(error.errno, error.strerror or type(error).__name__, os.fspath(path))


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; on success it replaces ``path`` (``os.replace``), else is removed.

    The parent folder is created if needed. See the module docstring for permissions, signals and symlinks. A
    stream (:func:`is_stream`) is not replaced: what was written to the temporary path (in the system's temporary
    folder) is copied into it, and the temporary file removed.

    Raises:
        OSError: writing failed (no room, a file-size limit, no permission); the error names ``path``.

    """
    try:
        with _atomic_path(path) as tmp:
            yield tmp
    except OSError as e:
        raise _naming(path, e) from None


@contextlib.contextmanager
def _atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """:func:`atomic_path`, its errors as raised."""
    if is_stream(path):
        with tempfile.TemporaryDirectory(prefix="ir_rarity.") as folder:
            scratch = Path(folder) / Path(os.fspath(path)).name
            yield scratch
            _write_stream(path, scratch.read_bytes())
        return
    target = Path(os.path.realpath(path))  # through a symlink: the link is kept, its target replaced
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    with _terminate_as_exit():
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        os.close(fd)
        try:
            yield Path(tmp)
            with open(tmp, "rb+") as f:
                os.fsync(f.fileno())
            os.chmod(tmp, mode)  # mkstemp makes 0600
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def _exit_on_terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def _terminate_as_exit() -> Iterator[None]:
    """While writing, make SIGTERM unwind like Ctrl-C does, so the temporary file is removed.

    Only where it is safe: in the main thread, and when nobody installed a SIGTERM handler of their own.
    """
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return
    previous = signal.signal(signal.SIGTERM, _exit_on_terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _umask() -> int:
    """The process umask, read without changing it (Linux ``/proc``); elsewhere set and restored at once."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_with(path: str | os.PathLike[str], writer: Callable[[Path], object]) -> Path:
    """Call ``writer(temporary_path)`` and atomically move the result to ``path``."""
    with atomic_path(path) as tmp:
        writer(tmp)
    return Path(path)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Atomically write ``data`` to ``path`` (a stream, :func:`is_stream`, is written in place)."""
    if is_stream(path):
        try:
            _write_stream(path, data)
        except OSError as e:
            raise _naming(path, e) from None
        return Path(path)
    return write_with(path, lambda tmp: tmp.write_bytes(data))


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Atomically write UTF-8 ``text`` to ``path``."""
    return write_with(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> Path:
    """Atomically write ``data`` (UTF-8 text or bytes) to ``path``."""
    return write_bytes(path, data.encode("utf-8") if isinstance(data, str) else data)
