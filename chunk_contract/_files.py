"""Every file chunk-contract writes (reports, reproducers, regression tests, mutation reports)
goes through here: checked up front, written whole, never through a symlink out of its folder,
and checked again after the run.

A file is written to a temporary file in its folder, flushed to disk, given the mode of the file
it replaces (or that of any new file: 0o666 less the umask), then renamed into place, so a reader
never sees half of one and a process holding the old file open cannot change the new one. A
symlink whose target lies in the link's own folder is written through (the link is kept); one
that points out of that folder is not followed: the link itself is replaced by the file, and the
file it pointed to is left alone.

A failed write (a full disk, an I/O error, a path turned into a folder) raises
:class:`WriteError`, a usage error naming the file, what happened and what to do: the front
doors print it as one line and go on with the other files and the verdict's exit status.

Every file written is kept in a journal (its path and bytes); :func:`recheck`, called once the
run's processes are gone, reads each back and writes again any that changed since, saying so.

This module imports only the standard library and chunk_contract.errors / chunk_contract.exactjson.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import tempfile
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from chunk_contract import errors, exactjson

#: Files the journal remembers at most (the oldest are forgotten first).
JOURNAL_FILES = 512
_JOURNAL: OrderedDict[Path, tuple[str, bytes]] = OrderedDict()


class WriteError(errors.UsageError):
    """A file could not be written: only that file is lost, the run's verdict stands."""


# ----------------------------------------------------------------------------- checking paths


def output_path(path: str | Path, *, what: str) -> Path:
    """Where a report for ``path`` will be written, checked before anything runs.

    A symlink into its own folder is followed (its target is written, the link kept); one out
    of it is replaced. The path must not be a directory or a special file, and its folder must
    exist or be creatable, and be writable.
    """
    with _path_errors(path, what):
        target, mode = _landing(Path(path))
    if mode is not None and stat.S_ISDIR(mode):
        raise errors.UsageError(f"{what}: {_shown(path)} is a directory; give a file path")
    if mode is not None and not stat.S_ISREG(mode):
        raise errors.UsageError(
            f"{what}: {_shown(path)} is not a regular file (a device, FIFO or socket); reports "
            "are written whole and renamed into place, so give the path of a regular file"
        )
    _writable_folder(target.parent, what=what)
    return target


def output_folder(path: str | Path, *, what: str) -> Path:
    """A folder files will be written into (reproducers, matrix reports), checked up front."""
    folder = Path(path)
    with _path_errors(path, what):
        if folder.exists() and not folder.is_dir():
            raise errors.UsageError(
                f"{what}: {_shown(path)} exists and is not a folder; give a folder"
            )
    _writable_folder(folder, what=what)
    return folder


def _landing(path: Path) -> tuple[Path, int | None]:
    """(the path a write lands on, the mode of what is there or None when it is new)."""
    if not path.is_symlink():
        return path, _mode(path)
    try:
        resolved = path.resolve()
    except RuntimeError as exc:  # a symlink loop
        raise OSError(40, f"cannot follow the symlink: {exc}") from None
    if resolved.is_relative_to(path.parent.resolve()):
        return resolved, _mode(resolved)
    return path, None  # out of its folder: the link itself is replaced


def _mode(path: Path) -> int | None:
    try:
        return path.stat().st_mode
    except FileNotFoundError:
        return None


def _shown(path: str | Path) -> str:
    return errors.printable(str(path), limit=200)


@contextmanager
def _path_errors(path: str | Path, what: str) -> Iterator[None]:
    """OSError / ValueError of a path operation (a name too long, a NUL byte) as a usage error."""
    try:
        yield
    except OSError as exc:
        raise errors.UsageError(
            f"{what}: cannot use {str(path)[:80]!r}: {exc.strerror or exc}"
        ) from None
    except ValueError as exc:
        raise errors.UsageError(f"{what}: cannot use {str(path)[:80]!r}: {exc}") from None


def _writable_folder(folder: Path, *, what: str) -> None:
    with _path_errors(folder, what):
        _writable(folder, what)


def _writable(folder: Path, what: str) -> None:
    existing = folder.absolute()
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise errors.UsageError(f"{what}: cannot create folder {folder}: {existing} is a file")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise errors.UsageError(f"{what}: cannot write into {existing}: permission denied")


# ----------------------------------------------------------------------------- writing


def write_bytes(path: str | Path, data: bytes, *, what: str = "cannot write") -> Path:
    """Replace the file at ``path`` whole with ``data`` (see the module docstring); returns the
    path written. Any failure is a :class:`WriteError` that starts with ``what``."""
    try:
        target = output_path(path, what=what)
    except errors.UsageError as exc:  # the path changed since it was checked
        raise WriteError(str(exc)) from None
    try:
        _replace(target, data)
    except OSError as exc:
        raise WriteError(_failed(f"{what} {_shown(path)}", exc)) from None
    _remember(target, data)
    return target


def write_text(path: str | Path, text: str, *, what: str = "cannot write") -> Path:
    """:func:`write_bytes` of ``text`` in UTF-8 (a lone surrogate is written as ``?``)."""
    return write_bytes(path, text.encode("utf-8", "replace"), what=what)


def write_json(path: str | Path, payload: Any, *, exact: bool = False,
               what: str = "cannot write") -> Path:
    """Write ``payload`` as JSON to ``path``, whole.

    With ``exact`` every string is written by chunk_contract.exactjson, so separated surrogates come
    back as they were (reproducers, the JSON report). Otherwise (SARIF, for other tools) it is
    plain JSON: non-ASCII text as itself, unless the payload holds a lone surrogate, which UTF-8
    cannot encode: then everything non-ASCII is escaped.
    """
    return write_bytes(path, (json_text(payload, exact=exact) + "\n").encode("utf-8"), what=what)


def json_text(payload: Any, *, exact: bool = False) -> str:
    """``payload`` as indented JSON that UTF-8 can always encode (see :func:`write_json`)."""
    if exact:
        return exactjson.dumps(payload, ensure_ascii=False, indent=2)
    text = json.dumps(payload, ensure_ascii=False, indent=2)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: only a \ud800 escape can hold it
        text = json.dumps(payload, ensure_ascii=True, indent=2)
    return text


def _replace(target: Path, data: bytes) -> None:
    """Temporary file, flushed to disk, the mode of what it replaces, renamed over it."""
    mode = _kept_mode(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())  # a full disk says so here, not after the rename
            os.fchmod(out.fileno(), mode)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _kept_mode(target: Path) -> int:
    """The permissions of the regular file at ``target`` (for a symlink that is replaced, of the
    file it points to: what was private stays private), else those of a new file."""
    try:
        info = os.stat(target)
    except OSError:
        info = None
    if info is not None and stat.S_ISREG(info.st_mode):
        return stat.S_IMODE(info.st_mode)
    return 0o666 & ~umask()


def umask() -> int:
    """The process's umask (read without changing it for long)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _failed(what: str, exc: OSError) -> str:
    reason = exc.strerror or str(exc)
    advice = {
        28: "free some space on that disk or write the report elsewhere",
        21: "a folder now stands at that path; remove it or give another path",
        5: "the disk reported an I/O error; check it or write the report elsewhere",
    }.get(exc.errno or 0, "check the path and its folder")
    return f"{what}: {reason}; {advice}"


# ----------------------------------------------------------------------------- the journal


def _remember(target: Path, data: bytes) -> None:
    key = target.absolute()
    _JOURNAL.pop(key, None)
    _JOURNAL[key] = (hashlib.sha256(data).hexdigest(), data)
    while len(_JOURNAL) > JOURNAL_FILES:
        _JOURNAL.popitem(last=False)


def written() -> list[Path]:
    """The files the journal holds, oldest first."""
    return list(_JOURNAL)


def forget() -> None:
    """Empty the journal."""
    _JOURNAL.clear()


def recheck() -> list[str]:
    """Read back every file of the journal; write again each that changed or went missing since
    it was written. Returns one line per file written again or lost; empties the journal."""
    notes = [note for path, (digest, data) in _JOURNAL.items()
             if (note := _recheck_one(path, digest, data))]
    _JOURNAL.clear()
    return notes


def _recheck_one(path: Path, digest: str, data: bytes) -> str:
    if _digest_of(path) == digest:
        return ""
    shown = _shown(path)
    try:
        _replace(path, data)
    except OSError as exc:
        return _failed(f"{shown} changed after it was written and could not be written again", exc)
    return (f"{shown} changed after it was written (a process the chunker left behind?); "
            "it was written again as the run left it")


def _digest_of(path: Path) -> str:
    """The SHA-256 of the regular file at ``path`` (not followed), or "" when there is none."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return ""
    try:
        with os.fdopen(fd, "rb") as file:
            return _digest_of_file(file) if stat.S_ISREG(os.fstat(fd).st_mode) else ""
    except OSError:
        return ""


def _digest_of_file(file: Any) -> str:
    digest = hashlib.sha256()
    while piece := file.read(1 << 20):
        digest.update(piece)
    return digest.hexdigest()


def report_error(exc: BaseException | str) -> None:
    """One line on stderr for a file that could not be written (the run goes on)."""
    _say(f"error: {errors.one_line(str(exc))} (the other reports and the exit status stand)")


def warn(note: str) -> None:
    """One line on stderr: ``chunk-contract: warning: note``."""
    _say(f"warning: {errors.one_line(note)}")


def _say(line: str) -> None:
    with suppress(OSError, ValueError):
        print(f"chunk-contract: {line}", file=sys.stderr, flush=True)
