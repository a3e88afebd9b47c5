"""Versioned JSON counterexamples: written for every violation, re-run by ``replay``.

A reproducer holds everything needed to see the failure again: the target, the invariant, the
(shrunk) document, the config, the limits, and what was observed. Files are written whole
(temporary file, then rename), so a reader never sees half of one.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import shlex
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from chunk_contract import _files, errors, exactjson
from chunk_contract.spec import registry
from chunk_contract.spec.model import Config

#: A reproducer's timeout above this is lowered to it on reading (it cannot lift a cap).
DEFAULT_TIMEOUT = 2.0

FORMAT = "chunk-contract-reproducer"
VERSION = 1
#: UTF-8 bytes of chunk text kept per counterexample in a reproducer or report; the document
#: (what replays the failure) is always kept whole.
CHUNK_TEXT_CAP = 2**20
#: ``replay`` reads at most this many bytes, and JSON nested at most this deep.
MAX_FILE_BYTES = 64 * 2**20
MAX_DEPTH = 64
MAX_TARGET_CHARS = 4096


class ReproducerError(errors.UsageError):
    """A reproducer file that cannot be read: a usage error."""


class ForeignFile(ReproducerError):
    """JSON that is not a reproducer of this version: databases skip it without a word."""


@dataclass(frozen=True)
class Reproducer:
    """One saved counterexample (SPEC §7): everything ``replay`` needs to see it again."""

    target: str
    invariant: str
    document: Any
    config: Config
    message: str
    kind: str = "text"
    timeout: float = DEFAULT_TIMEOUT
    memory_mb: int | None = errors.DEFAULT_MEMORY_MB
    chunks: list[dict[str, Any]] | None = None
    seed: int | None = None
    #: The folder a relative ``file.py:attr`` target is found from (None: the current one).
    base: str | None = None
    #: The bytes it was parsed from, when it came from a shared database (to delete it by).
    raw: bytes | None = field(default=None, compare=False, repr=False)

    def as_json(self) -> dict[str, Any]:
        """The JSON object of the reproducer file (strings as they are; see exactjson)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "target": self.target,
            "invariant": self.invariant,
            "kind": self.kind,
            "document": self.document,
            "config": self.config.as_dict(),
            "message": self.message,
            "chunks": self.chunks,
            "limits": {"timeout": self.timeout, "memory_mb": self.memory_mb},
            "seed": self.seed,
            "base": self.base,
        }


# ----------------------------------------------------------------------------- writing


def save(reproducer: Reproducer, folder: Path) -> Path:
    """Write ``reproducer`` under ``folder``, named by invariant and content hash."""
    if reproducer.base is None:
        reproducer = replace(reproducer, base=base_of(reproducer.target))
    body = reproducer.as_json()
    body["chunks"], note = truncate_chunks(body["chunks"])
    if note:
        body["chunks_truncated"] = note
    digest = hashlib.sha1(
        exactjson.dumps(
            [body["target"], body["document"], body["config"], body["invariant"]],
            ensure_ascii=True,
            sort_keys=True,
            default=str,
        ).encode()
    ).hexdigest()[:8]
    path = folder / f"{reproducer.invariant}-{target_slug(reproducer.target)}-{digest}.json"
    _files.write_json(path, body, exact=True)
    return path


def target_slug(target: str) -> str:
    """A short, file-name-safe name for ``target`` (``file.py:split`` -> ``file.split``), so the
    reproducers of two targets in one folder are told apart by name."""
    where, sep, attr = target.rpartition(":")
    text = f"{Path(where).stem}.{attr}" if sep and where.endswith(".py") else target
    words = [w.strip("._") for w in re.split(r"[^A-Za-z0-9._]+", text)]
    slug = "_".join(w for w in words if w)
    return slug[:48].strip("._") or "target"


def replay_command(path: str | Path, target: str) -> str:
    """The command line that replays ``path`` on the target it was saved for, named
    explicitly (``replay`` runs no target that is not named on its command line)."""
    return f"chunk-contract replay {shlex.quote(str(path))} --target {shlex.quote(target)}"


def truncate_chunks(
    chunks: list[dict[str, Any]] | None, cap: int = CHUNK_TEXT_CAP
) -> tuple[list[dict[str, Any]] | None, str]:
    """The leading chunks whose text fits in ``cap`` UTF-8 bytes, and a note if any were cut.

    Whole chunks are kept (a prefix, so chunk indices in messages still hold); the note reads
    ``chunks truncated: kept N of M, K bytes``.
    """
    if not chunks:
        return chunks, ""
    kept, used = 0, 0
    for chunk in chunks:
        size = _text_bytes(chunk)
        if used + size > cap:
            break
        kept, used = kept + 1, used + size
    if kept == len(chunks):
        return chunks, ""
    note = f"chunks truncated: kept {kept} of {len(chunks)}, {used} bytes (cap {cap} bytes)"
    return chunks[:kept], note


def _text_bytes(chunk: Any) -> int:
    """UTF-8 bytes of a chunk record's text (lone surrogates count 3)."""
    text = chunk.get("text") if isinstance(chunk, dict) else None
    return len(text.encode("utf-8", "surrogatepass")) if isinstance(text, str) else 0


def load(path: str | Path) -> Reproducer:
    """Read a reproducer file, checking its format, version and every field."""
    return parse(read_text(path), source=str(path))


def read_text(path: str | Path, *, what: str = "reproducer") -> str:
    """The UTF-8 text of the regular file ``path``, at most MAX_FILE_BYTES.

    The file is opened without blocking and checked with fstat before anything is read, so a
    FIFO, a device (``/dev/zero``) or a directory is one usage error, never a hang.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise ReproducerError(f"{path}: cannot read {what}: {exc.strerror}") from None
    except ValueError as exc:  # a NUL byte in the path
        raise ReproducerError(f"{str(path)!r}: cannot read {what}: {exc}") from None
    try:
        _check_regular(os.fstat(fd), path, what)
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as file:
        data = file.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ReproducerError(f"{path}: {what} larger than {MAX_FILE_BYTES // 2**20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReproducerError(
            f"{path}: not a {what}: not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None


def _check_regular(info: os.stat_result, path: str | Path, what: str) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise ReproducerError(f"{path}: is a directory; give a {what} file")
    if not stat.S_ISREG(info.st_mode):
        raise ReproducerError(f"{path}: not a regular file (a FIFO, device or socket)")
    if info.st_size > MAX_FILE_BYTES:
        raise ReproducerError(f"{path}: {what} larger than {MAX_FILE_BYTES // 2**20} MiB")


def dumps(reproducer: Reproducer) -> bytes:
    """The reproducer as compact ASCII JSON (one value of a shared example database)."""
    return exactjson.dumps(reproducer.as_json(), separators=(",", ":")).encode("ascii")


def parse(text: str | bytes, *, source: str = "<reproducer>") -> Reproducer:
    """A reproducer from its JSON text, checking its format, version and every field.

    Limits are kept as written (within the bounds of chunk_contract.errors); :func:`bounded` lowers
    them to the default caps before a replay.
    """
    source = errors.redact(source)
    data = _json(text, source)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ForeignFile(f"{source}: not a chunk-contract reproducer (no format {FORMAT!r})")
    if data.get("version") != VERSION:
        raise ForeignFile(
            f"{source}: reproducer version {data.get('version')!r}; this "
            f"chunk-contract reads version {VERSION}"
        )
    return _fields(data, source, text)


def _json(text: str | bytes, source: str) -> Any:
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise ReproducerError(f"{source}: not a reproducer: not UTF-8 text") from None
    if _depth(text) > MAX_DEPTH:
        raise ReproducerError(f"{source}: not a reproducer: JSON nested deeper than {MAX_DEPTH}")
    try:
        return exactjson.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ReproducerError(f"{source}: cannot read reproducer: {exc}") from None


_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _depth(text: str) -> int:
    """The deepest bracket nesting of JSON ``text`` (brackets inside strings do not count)."""
    depth = deepest = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


def _fields(data: dict[str, Any], source: str, text: str | bytes) -> Reproducer:
    """Every field of a reproducer object, type- and bounds-checked (see chunk_contract.errors)."""
    fields = _Fields(data, source)
    kind = fields.choice("kind", ("text", "workbook"), default="text")
    invariant = fields.choice("invariant", tuple(registry.registry()))
    config = _config(data.get("config"), invariant, source)
    timeout, memory_mb = _limits(data.get("limits"), source)
    return Reproducer(
        target=fields.text("target", limit=MAX_TARGET_CHARS),
        invariant=invariant,
        document=_document(data.get("document"), kind, source),
        config=config,
        message=fields.text("message", default="", allow_empty=True),
        kind=kind,
        timeout=timeout,
        memory_mb=memory_mb,
        chunks=_chunks(data.get("chunks"), source),
        seed=fields.integer("seed", limit=errors.MAX_SEED),
        base=fields.text("base", default=None, limit=MAX_TARGET_CHARS),
        raw=text if isinstance(text, bytes) else None,
    )


class _Fields:
    """Typed reads of a reproducer object's scalar fields, with messages naming the field."""

    def __init__(self, data: dict[str, Any], source: str) -> None:
        self.data, self.source = data, source

    def bad(self, name: str, expected: str) -> ReproducerError:
        value = ascii(self.data.get(name))
        shown = value if len(value) <= 60 else value[:57] + "..."
        return ReproducerError(f"{self.source}: malformed reproducer: {name} must be {expected}, "
                               f"got {shown}")

    def text(self, name: str, *, default: Any = ..., limit: int = 10**8,
             allow_empty: bool = False) -> Any:
        if name not in self.data or (self.data[name] is None and default is None):
            if default is ...:
                raise self.bad(name, "given")
            return default
        value = self.data[name]
        if not isinstance(value, str) or len(value) > limit or (not value and not allow_empty):
            raise self.bad(name, f"a {'' if allow_empty else 'non-empty '}string")
        return value

    def choice(self, name: str, known: tuple[str, ...], *, default: str | None = None) -> str:
        value = self.data.get(name, default)
        if value not in known:
            raise self.bad(name, f"one of {', '.join(known)}")
        return str(value)

    def integer(self, name: str, *, limit: int) -> int | None:
        value = self.data.get(name)
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or abs(value) > limit:
            raise self.bad(name, f"null or an integer of at most {limit} in size")
        return value


def _config(value: Any, invariant: str, source: str) -> Config:
    if not isinstance(value, dict) or set(value) != {"max_size", "overlap"}:
        raise ReproducerError(
            f"{source}: malformed reproducer: config must be {{\"max_size\": N, \"overlap\": N}}"
        )
    for name, number in value.items():
        if not isinstance(number, int) or isinstance(number, bool) or abs(number) > errors.MAX_SIZE:
            raise ReproducerError(
                f"{source}: malformed reproducer: config.{name} must be an integer of at most "
                f"{errors.MAX_SIZE} in size, got {ascii(number)[:40]}"
            )
    config = Config(value["max_size"], value["overlap"])
    if not config.is_valid and invariant != "config_validation":
        raise ReproducerError(
            f"{source}: malformed reproducer: the degenerate config {config.describe()} "
            f"belongs to config_validation, not {invariant}"
        )
    return config


def _limits(value: Any, source: str) -> tuple[float, int | None]:
    """(timeout, memory_mb) within the bounds of any setting (None: the file asks for no cap)."""
    if value is None:
        value = {}
    if not isinstance(value, dict) or set(value) - {"timeout", "memory_mb"}:
        raise ReproducerError(
            f"{source}: malformed reproducer: limits must hold only timeout and memory_mb"
        )
    try:
        timeout = errors.check_seconds("limits.timeout", value.get("timeout", 2.0),
                                       errors.MAX_TIMEOUT)
        memory = value.get("memory_mb", errors.DEFAULT_MEMORY_MB)  # null: asks for no cap
        if memory is not None:
            memory = errors.check_int("limits.memory_mb", memory, errors.MIN_MEMORY_MB, 2**53)
    except errors.InvalidArgument as exc:
        raise ReproducerError(f"{source}: malformed reproducer: {exc}") from None
    return timeout, memory


def bounded(saved: Reproducer) -> tuple[Reproducer, str]:
    """``saved`` with limits no higher than the default caps, and a note of what was lowered.

    A reproducer can never lift a cap: a timeout above the default 2 s and a memory cap above
    the default 1024 MiB, or none at all, are lowered to the defaults (flags raise them).
    """
    notes = []
    if saved.timeout > DEFAULT_TIMEOUT:
        notes.append(
            f"timeout {saved.timeout:g} s lowered to {DEFAULT_TIMEOUT:g} s (--timeout raises it)"
        )
    cap = errors.DEFAULT_MEMORY_MB
    if saved.memory_mb is None or saved.memory_mb > cap:
        asked = "no memory cap" if saved.memory_mb is None else f"memory_mb {saved.memory_mb}"
        notes.append(f"{asked} lowered to {cap} MiB (--memory-mb raises it)")
    timeout = min(saved.timeout, DEFAULT_TIMEOUT)
    memory_mb = min(saved.memory_mb or cap, cap)
    return replace(saved, timeout=timeout, memory_mb=memory_mb), "; ".join(notes)


def _document(value: Any, kind: str, source: str) -> Any:
    if kind == "text":
        if not isinstance(value, str):
            raise ReproducerError(f"{source}: malformed reproducer: a text document must be a "
                                  f"string, got {type(value).__name__}")
        return value
    problem = _workbook_problem(value)
    if problem:
        raise ReproducerError(f"{source}: malformed reproducer: workbook document: {problem}")
    return value


_REF = re.compile(r"[A-Z]{1,3}[1-9][0-9]{0,6}")
_CELL_KEYS = {"value", "style", "date"}


def _workbook_problem(value: Any) -> str:
    """What is wrong with a workbook description (SPEC §7), or "" when nothing is."""
    if not isinstance(value, dict) or set(value) != {"sheets"} or not isinstance(
        value["sheets"], dict
    ):
        return 'must be {"sheets": {TITLE: {A1: value, ...}}}'
    for title, cells in value["sheets"].items():
        if not isinstance(cells, dict):
            return f"sheet {title!r} must map cell references to values"
        for ref, cell in cells.items():
            if not _REF.fullmatch(ref):
                return f"sheet {title!r}: {ref!r} is not a cell reference like B12"
            if not _cell_ok(cell):
                return f"sheet {title!r} cell {ref}: not a cell value: {ascii(cell)[:40]}"
    return ""


def _cell_ok(cell: Any, *, nested: bool = False) -> bool:
    if cell is None or isinstance(cell, (str, bool, int)):
        return True
    if isinstance(cell, float):
        return math.isfinite(cell)
    if isinstance(cell, dict) and not nested and cell and set(cell) <= _CELL_KEYS:
        if "date" in cell:
            return isinstance(cell["date"], str) and _is_date(cell["date"])
        return _cell_ok(cell.get("value"), nested=True) or _is_date_cell(cell.get("value"))
    return False


def _is_date_cell(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"date"} and _is_date(value["date"])


def _is_date(text: Any) -> bool:
    import datetime as dt

    try:
        dt.datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return False
    return True


def _chunks(value: Any, source: str) -> list[dict[str, Any]] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(c, dict) for c in value):
        raise ReproducerError(f"{source}: malformed reproducer: chunks must be null or a list "
                              "of objects")
    return value


# ----------------------------------------------------------------------------- targets


def base_of(target: str) -> str | None:
    """The folder a relative ``file.py:attr`` target is found from: the current one or the
    nearest parent holding the file (a target of [tool.chunk-contract] is relative to the
    pyproject.toml's folder). None for other targets: the folder an out-of-process target runs
    in is its kind's (``Counterexample.to_reproducer``)."""
    where = _relative_file(target)
    if where is None:
        return None
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / where).is_file():
            return str(folder)
    return str(here)


def resolved_target(saved: Reproducer) -> str:
    """``saved.target`` as it resolves from any folder: a relative file target that is not
    found here is taken from the reproducer's ``base`` folder."""
    where = _relative_file(saved.target)
    if where is None or Path(where).is_file() or saved.base is None:
        return saved.target
    candidate = Path(saved.base) / where
    if not candidate.is_file():
        return saved.target
    return f"{candidate}:{saved.target.rpartition(':')[2]}"


def _relative_file(target: str) -> str | None:
    where, sep, _ = target.rpartition(":")
    if not sep or not where.endswith(".py") or Path(where).is_absolute():
        return None
    return where
