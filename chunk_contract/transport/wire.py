"""SPEC §8's messages, host side: the handshake, the calls, and turning replies into records.

Pure functions on plain data, shared by the ``exec:`` child and the ``http(s)://`` target. A
reply that breaks the protocol raises :class:`ProtocolError`; its callers turn that into a
``crash`` outcome (the plugin's ``no_crash``), never a host exception.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chunk_contract.errors import cut, printable
from chunk_contract.spec.model import (
    DOCUMENT_KINDS,
    KINDS,
    NEWLINES,
    TOKEN_COUNTING,
    UNITS,
    ChunkTypeError,
    Declarations,
    checked_range,
    normalise_chunks,
)
from chunk_contract.spec.registry import registry

#: The protocol version this host speaks (the handshake's ``chunk_contract``).
PROTOCOL_VERSION = 1
OFFSETS = ("codepoints", "utf16")
#: A reply may be at most this many times the request's UTF-8 size, plus :data:`REPLY_SLACK`.
REPLY_FACTOR = 64
REPLY_SLACK = 16 * 1024 * 1024


class HandshakeError(ValueError):
    """The first message is missing, is not a §8 handshake, or declares something unknown."""


class ProtocolError(Exception):
    """A reply that breaks the protocol: not JSON, wrong id, wrong shape, too big."""


@dataclass(frozen=True)
class Handshake:
    """What an out-of-process plugin declared about itself (SPEC §3 plus ``offsets``)."""

    kind: str = "text"
    unit: str = "chars"
    newlines: str = "preserve"
    promises: frozenset[str] = frozenset()
    offsets: str = "codepoints"
    documents: str = "text"
    token_counting: str = "exact"
    max_size_range: tuple[int, int | None] = (1, None)
    overlap_range: tuple[int, int | None] = (0, None)

    def declarations(self) -> Declarations:
        """The declarations the invariants see (token counts answered by the child)."""
        return Declarations(
            kind=self.kind,
            unit=self.unit,
            newlines=self.newlines,
            promises=self.promises,
            has_count_tokens=self.unit == "tokens",
            documents=self.documents,
            token_counting=self.token_counting,
            max_size_range=self.max_size_range,
            overlap_range=self.overlap_range,
        )


def parse_handshake(line: bytes) -> Handshake:
    """The handshake in ``line`` (one JSON object), or :class:`HandshakeError` saying why not.

    Keys this host does not know are ignored (a later minor version may add some); known keys
    with unknown values or wrong types are refused.
    """
    message = _json_object(line, HandshakeError, "the handshake")
    _check_version(message.get("chunk_contract", None), "chunk_contract" in message)
    fields: dict[str, Any] = {
        name: _choice(message, name, allowed, default)
        for name, allowed, default in (
            ("kind", KINDS, "text"),
            ("unit", UNITS, "chars"),
            ("newlines", NEWLINES, "preserve"),
            ("offsets", OFFSETS, "codepoints"),
            ("documents", DOCUMENT_KINDS, "text"),
            ("token_counting", TOKEN_COUNTING, "exact"),
        )
    }
    try:
        found = Handshake(promises=_promises(message.get("promises", [])),
                          **fields, **_ranges(message))
        found.declarations()  # e.g. documents on a workbook plugin
    except ValueError as exc:
        raise HandshakeError(str(exc)) from None
    return found


def _ranges(message: Mapping[str, Any]) -> dict[str, Any]:
    """The handshake's ``max_size_range`` and ``overlap_range`` (JSON lists), checked."""
    return {
        name: checked_range(name, message[name], floor=floor)
        for name, floor in (("max_size_range", 1), ("overlap_range", 0))
        if name in message
    }


def _check_version(version: Any, present: bool) -> None:
    if not present:
        raise HandshakeError('the handshake has no "chunk_contract" key (expected 1)')
    if isinstance(version, bool) or not isinstance(version, int):
        raise HandshakeError(f'"chunk_contract" is {_shown(version)}; expected the integer 1')
    if version != PROTOCOL_VERSION:
        raise HandshakeError(
            f"the plugin speaks protocol version {version}; this chunk-contract speaks "
            f"{PROTOCOL_VERSION}: offer version {PROTOCOL_VERSION} or upgrade chunk-contract"
        )


def _choice(message: Mapping[str, Any], name: str, allowed: Sequence[str], default: str) -> str:
    value = message.get(name, default)
    if not isinstance(value, str) or value not in allowed:
        raise HandshakeError(
            f'"{name}" is {_shown(value)}; expected one of {", ".join(map(repr, allowed))}'
        )
    return value


def _promises(value: Any) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise HandshakeError(f'"promises" is {_shown(value)}; expected a list of invariant ids')

    unknown = sorted(p for p in value if p not in registry())
    if unknown:
        raise HandshakeError(
            f'"promises" names unknown invariant id(s) {_shown(", ".join(unknown))}'
        )
    return frozenset(value)


#: Characters of a reply's error message kept (the worker keeps as many of an exception's).
MESSAGE_CHARS = 10_000


def _shown(value: Any) -> str:
    """A value the plugin sent, for a message: its repr, cut and escaped, in linear time."""
    return printable(repr(value) if not isinstance(value, str) or len(value) < 400
                     else repr(value[:400]) + "...", limit=200)


def _json_object(line: bytes, error: type[Exception], what: str) -> dict[str, Any]:
    """``line`` decoded as strict UTF-8 JSON holding one object, else ``error``."""
    shown = line[:120].decode("utf-8", "replace")
    try:
        value = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise error(f"{what} is not one JSON object in UTF-8 ({exc}): {_shown(shown)}") from None
    if not isinstance(value, dict):
        raise error(f"{what} is {type(value).__name__} JSON, expected an object: {_shown(shown)}")
    return value


# --------------------------------------------------------------------------- calls


def split_message(call_id: int, document: Any, max_size: int, overlap: int) -> dict[str, Any]:
    """The ``split`` call (a workbook document already described as in SPEC §7)."""
    return {"id": call_id, "op": "split", "document": document,
            "max_size": max_size, "overlap": overlap}


def count_message(call_id: int, texts: Sequence[str]) -> dict[str, Any]:
    """The ``count_tokens`` call."""
    return {"id": call_id, "op": "count_tokens", "texts": list(texts)}


def encode_message(message: Mapping[str, Any]) -> bytes:
    """One line of UTF-8 JSON (non-ASCII written as itself).

    Raises ValueError for what the protocol cannot carry: a lone surrogate (documents sent out
    of process are valid Unicode, SPEC §8: the caller filters them out), NaN or infinity.
    """
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"a lone surrogate U+{ord(exc.object[exc.start]):04X} cannot be sent out of process: "
            "documents for exec:/http targets must be valid Unicode (SPEC §8)"
        ) from None


def reply_cap(request_size: int) -> int:
    """The most bytes a reply to a request of ``request_size`` UTF-8 bytes may take."""
    return REPLY_FACTOR * request_size + REPLY_SLACK


def read_reply(line: bytes, call_id: int) -> dict[str, Any]:
    """The reply object in ``line``, checked to answer call ``call_id``."""
    reply = _json_object(line, ProtocolError, "the reply")
    got = reply.get("id")
    if isinstance(got, bool) or got != call_id:
        raise ProtocolError(f"the reply has id {_shown(got)}, expected {call_id}")
    return reply


def split_value(reply: Mapping[str, Any], document: Any, offsets: str) -> tuple[Any, ...]:
    """A ``split`` reply as the worker's task returns it (see
    chunk_contract.transport.serving.serve): ``("chunks", records)``, ``("raised", name, message,
    is_rejection, trace)`` or ``("wrong_type", message)``."""
    if ("chunks" in reply) == ("error" in reply):
        raise ProtocolError(
            f'a split reply needs exactly one of "chunks" and "error": {_keys(reply)}'
        )
    if "error" in reply:
        return _error_value(reply["error"])
    chunks = reply["chunks"]
    if not isinstance(chunks, list):
        return ("wrong_type", f'replied "chunks": {type(chunks).__name__}, expected a list')
    try:
        records = normalise_chunks(chunks)
    except ChunkTypeError as exc:
        return ("wrong_type", str(exc))
    if offsets == "utf16" and isinstance(document, str):  # workbook chunks have no offsets
        records = utf16_to_codepoints(document, records)
    return ("chunks", records)


def _error_value(error: Any) -> tuple[Any, ...]:
    if not isinstance(error, dict) or not isinstance(error.get("message", ""), str):
        raise ProtocolError(
            f'"error" is {_shown(error)}; expected {{"type": ..., "message": "..."}}'
        )
    kind = error.get("type")
    message = cut(error.get("message", ""), MESSAGE_CHARS)
    if kind == "config":
        return ("raised", "ConfigError", message, True, "")
    return ("raised", f"error (type {_shown(kind)})", message, False, "")


def counts_value(reply: Mapping[str, Any], texts: Sequence[str]) -> list[int]:
    """A ``count_tokens`` reply: one non-negative int per text, in order."""
    counts = reply.get("counts")
    if (
        not isinstance(counts, list)
        or len(counts) != len(texts)
        or not all(type(c) is int and c >= 0 for c in counts)
    ):
        raise ProtocolError(
            f"count_tokens replied {_shown(counts)}; expected a list of {len(texts)} "
            "non-negative ints"
        )
    return counts


def _keys(reply: Mapping[str, Any]) -> str:
    return "keys " + ", ".join(sorted(map(str, reply))) if reply else "no keys"


# --------------------------------------------------------------------------- utf16 offsets


def utf16_to_codepoints(document: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records whose ``start``/``end`` count UTF-16 code units, with codepoint offsets instead.

    Exact for every offset on a character boundary. An offset that falls between the two
    halves of a surrogate pair (inside an astral character) is a finding, never rounded away:
    its codepoint offset becomes the astral character's own offset and the matching byte
    offset (``start_byte`` or ``end_byte``) is set inside that character's UTF-8 bytes (two
    bytes in), so ``codepoint_integrity`` reports the cut and ``span_fidelity`` the mismatch.
    Offsets outside the document stay outside it (shifted by the document's surrogate count).
    """
    table = _AstralTable(document)
    if not table.starts:
        return records
    return [_convert(table, record) for record in records]


class _AstralTable:
    """Where the astral characters of a document are, in UTF-16 units and in codepoints."""

    def __init__(self, document: str) -> None:
        self.document = document
        #: The codepoint offset of each astral character (found by the regex engine: a loop in
        #: Python over every character cost seconds per run on the scaling probe's documents).
        self.at: list[int] = [found.start() for found in _ASTRAL.finditer(document)]
        #: Its UTF-16 offset: each astral character before it adds one unit.
        self.starts: list[int] = [at + before for before, at in enumerate(self.at)]
        self.units = len(document) + len(self.at)

    def codepoint(self, unit: int) -> tuple[int, bool]:
        """``(codepoint offset, inside a pair)`` for UTF-16 offset ``unit``."""
        if unit < 0:
            return unit, False
        if unit > self.units:
            return unit - len(self.starts), False
        k = bisect.bisect_left(self.starts, unit)  # astral characters starting before unit
        inside = k > 0 and self.starts[k - 1] + 1 == unit
        before = k - 1 if inside else k  # pairs wholly before the offset
        return unit - before - (1 if inside else 0), inside


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _convert(table: _AstralTable, record: dict[str, Any]) -> dict[str, Any]:
    out = dict(record)
    cut: dict[str, int] = {}
    for name in ("start", "end"):
        unit = record.get(name)
        if unit is not None:
            out[name], inside = table.codepoint(unit)
            if inside:
                cut[name] = out[name]
    if cut:  # both byte offsets, so the one inside the character is judged, not "one of two"
        for name in ("start", "end"):
            byte_name, point = f"{name}_byte", out.get(name)
            if name in cut:
                out[byte_name] = _utf8_size(table.document[: cut[name]]) + 2
            elif out.get(byte_name) is None and point is not None:
                out[byte_name] = _utf8_size(table.document[: max(0, point)])
        out["bare"] = False
    return out


def _utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))
