"""Versioned JSON counterexamples: written for every violation, re-run by ``replay``.

A reproducer holds everything needed to see the failure again: the target, the invariant, the
(shrunk) document, the config, the limits, and what was observed. Files are written whole
(temporary file, then rename), so a reader never sees half of one.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract.model import Config

FORMAT = "chunk-contract-reproducer"
VERSION = 1
#: UTF-8 bytes of chunk text kept per counterexample in a reproducer or report; the document
#: (what replays the failure) is always kept whole.
CHUNK_TEXT_CAP = 2**20


class ReproducerError(Exception):
    """A reproducer file that cannot be read: a usage error."""


@dataclass(frozen=True)
class Reproducer:
    target: str
    invariant: str
    document: Any
    config: Config
    message: str
    kind: str = "text"
    timeout: float = 2.0
    memory_mb: int | None = 1024
    chunks: list[dict[str, Any]] | None = None
    seed: int | None = None

    def as_json(self) -> dict[str, Any]:
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
        }


def write_atomic(path: Path, payload: Any) -> None:
    """Write ``payload`` as JSON to ``path`` through a temporary file and a rename.

    Non-ASCII text is written as itself (readable), unless the payload holds a lone surrogate,
    which UTF-8 cannot encode: then everything non-ASCII is escaped.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(payload, ensure_ascii=False, indent=2)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: only a \ud800 escape can hold it
        text = json.dumps(payload, ensure_ascii=True, indent=2)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text + "\n")
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def save(reproducer: Reproducer, folder: Path) -> Path:
    """Write ``reproducer`` under ``folder``, named by invariant and content hash."""
    body = reproducer.as_json()
    body["chunks"], note = truncate_chunks(body["chunks"])
    if note:
        body["chunks_truncated"] = note
    digest = hashlib.sha1(
        json.dumps(
            [body["target"], body["document"], body["config"], body["invariant"]],
            ensure_ascii=True,
            sort_keys=True,
            default=str,
        ).encode()
    ).hexdigest()[:8]
    path = folder / f"{reproducer.invariant}-{digest}.json"
    write_atomic(path, body)
    return path


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
    """Read a reproducer file, checking its format and version."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ReproducerError(f"{path}: cannot read reproducer: {exc}") from None
    return parse(text, source=str(path))


def dumps(reproducer: Reproducer) -> bytes:
    """The reproducer as compact UTF-8 JSON (one value of a shared example database)."""
    return json.dumps(reproducer.as_json(), separators=(",", ":")).encode("ascii")


def parse(text: str | bytes, *, source: str = "<reproducer>") -> Reproducer:
    """A reproducer from its JSON text, checking its format and version."""
    path = source
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ReproducerError(f"{path}: cannot read reproducer: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ReproducerError(f"{path}: not a chunk-contract reproducer (no format {FORMAT!r})")
    if data.get("version") != VERSION:
        raise ReproducerError(
            f"{path}: reproducer version {data.get('version')!r}; this "
            f"chunk-contract reads version {VERSION}"
        )
    try:
        limits = data.get("limits") or {}
        return Reproducer(
            target=data["target"],
            invariant=data["invariant"],
            document=data["document"],
            config=Config(**data["config"]),
            message=data.get("message", ""),
            kind=data.get("kind", "text"),
            timeout=float(limits.get("timeout", 2.0)),
            memory_mb=limits.get("memory_mb", 1024),
            chunks=data.get("chunks"),
            seed=data.get("seed"),
        )
    except (KeyError, TypeError) as exc:
        raise ReproducerError(f"{path}: malformed reproducer, missing or bad {exc}") from None
