"""The typed messages that cross the worker boundary, and their plain-JSON wire form.

Requests go host -> worker; each reply is parsed on the host by the request that asked for it
(:meth:`reply_from_wire`), which checks it as plain data: a reply of the wrong shape raises
:class:`MalformedReply` (the caller reports ``no_crash``), never a host exception.

Wire forms (JSON arrays; strings through :mod:`chunk_contract.exactjson`):

=========================================  ==================================================
request                                    reply
=========================================  ==================================================
``["split", document, max_size, overlap]``  ``["chunks", [record, ...]]``,
                                           ``["wrong_type", message]`` or
                                           ``["raised", type, message, is_rejection, trace]``
``["count", [text, ...]]``                 ``[int, ...]`` (one count per text)
``["cpu", document, max_size, overlap]``   CPU seconds (a number), or ``null`` if it failed
``["timed-family", family, size, max, ov]``  a split's reply, on a scaling family built in
                                           the worker; the host times the call from
                                           outside (:class:`Timed`) and checks the chunks
load / handshake (the worker's first word)  ``{"name", "kind", "unit", "newlines",
                                           "promises": [...], "has_count_tokens",
                                           "documents", "token_counting",
                                           "max_size_range", "overlap_range",
                                           "location": [file, line] | null}``
=========================================  ==================================================

A record is what :func:`chunk_contract.spec.model.normalise_chunks` writes: ``text`` plus any SPEC
§4 field, and ``bare``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chunk_contract.spec.model import Chunk, Declarations, MalformedRecords, checked_columns


class MalformedReply(ValueError):
    """A reply that is well-framed plain data but not a valid answer to its request."""


# --------------------------------------------------------------------------- replies


@dataclass(frozen=True)
class Chunks:
    """The plugin's chunks, checked."""

    chunks: list[Chunk]


@dataclass(frozen=True)
class Raised:
    """The plugin raised: its exception type, plain message, whether it is a rejection
    (ValueError/TypeError, allowed on a degenerate config) and a short traceback."""

    error_type: str
    message: str
    rejects: bool
    trace: str


@dataclass(frozen=True)
class WrongType:
    """The plugin returned something that is not an iterable of chunks."""

    message: str


@dataclass(frozen=True)
class Counts:
    """Token counts, one per text asked for."""

    values: tuple[int, ...]


@dataclass(frozen=True)
class Seconds:
    """CPU seconds one split took in the worker; None when the plugin failed."""

    value: float | None


@dataclass(frozen=True)
class Timed:
    """A split's reply and the CPU seconds the call took, read by the host from outside the
    plugin's process (``chunk_contract.transport.cputime``): the plugin cannot rewrite them."""

    seconds: float
    reply: Chunks | Raised | WrongType | Unchecked


@dataclass(frozen=True)
class Unchecked:
    """A list of chunks that arrived but was not parsed: parsing and checking a large
    document's chunks costs the host more than the split cost the plugin, so the scaling
    probe reads only the ones its verdict rests on. ``read()`` parses and checks them now:
    the :class:`Chunks`, or MalformedReply."""

    read: Callable[[], Chunks]


@dataclass(frozen=True)
class Declared:
    """The handshake: the plugin's name, validated declarations and source location."""

    name: str
    declarations: Declarations
    location: tuple[str, int] | None = None


Reply = Chunks | Raised | WrongType | Counts | Seconds | Timed | Declared


# --------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class Split:
    """Chunk ``document`` (a str, or a workbook description) with one config."""

    document: Any
    max_size: int
    overlap: int

    def to_wire(self) -> list[Any]:
        return ["split", self.document, self.max_size, self.overlap]

    def reply_from_wire(self, value: Any) -> Chunks | Raised | WrongType:
        return split_reply(value)


@dataclass(frozen=True)
class CountTokens:
    """The plugin's ``count_tokens`` of each text."""

    texts: tuple[str, ...]

    def to_wire(self) -> list[Any]:
        return ["count", list(self.texts)]

    def reply_from_wire(self, value: Any) -> Counts:
        ok = type(value) is list and len(value) == len(self.texts)
        if not ok or not all(type(n) is int for n in value):
            raise MalformedReply(f"{len(self.texts)} token count(s) expected, got {_brief(value)}")
        return Counts(tuple(value))


@dataclass(frozen=True)
class CpuSplit:
    """CPU seconds of one split of ``document``, measured in the worker."""

    document: str
    max_size: int
    overlap: int

    def to_wire(self) -> list[Any]:
        return ["cpu", self.document, self.max_size, self.overlap]

    def reply_from_wire(self, value: Any) -> Seconds:
        return seconds_reply(value)


@dataclass(frozen=True)
class TimedFamily:
    """One split of a scaling family's document, built in the worker (megabytes never cross
    the pipe on the way in), timed by the host from outside the worker; the reply is the
    split's, which the host checks against its own copy of the document."""

    family: str
    size: int
    max_size: int
    overlap: int

    def to_wire(self) -> list[Any]:
        return ["timed-family", self.family, self.size, self.max_size, self.overlap]

    def reply_from_wire(self, value: Any) -> Chunks | Raised | WrongType:
        return split_reply(value)


Request = Split | CountTokens | CpuSplit | TimedFamily


def split_reply(value: Any) -> Chunks | Raised | WrongType:
    """A split's reply, checked; MalformedReply for anything else."""
    if type(value) is not list or not value:
        raise MalformedReply(f"a reply of unknown shape {_brief(value)}")
    kind, types = value[0], [type(x) for x in value[1:]]
    if kind == "chunks" and len(value) == 2:
        try:
            return Chunks(checked_columns(value[1]))
        except MalformedRecords as exc:
            raise MalformedReply(str(exc)) from None
    if kind == "wrong_type" and types == [str]:
        return WrongType(value[1])
    if kind == "raised" and types == [str, str, bool, str]:
        return Raised(*value[1:])
    raise MalformedReply(f"a reply of unknown shape {_brief(value)}")


def seconds_reply(value: Any) -> Seconds:
    """A CPU-time reply: a non-negative number, or None."""
    if value is None or (type(value) in (int, float) and value >= 0):
        return Seconds(None if value is None else float(value))
    raise MalformedReply(f"CPU seconds expected, got {_brief(value)}")


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
