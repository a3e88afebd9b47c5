"""Length-framed JSON over raw pipe file descriptors: the only bytes that cross the boundary.

A frame is a 16-byte header, ``MAGIC`` (4 bytes), a sequence number (uint32) and the payload's
length (uint64), all little-endian, then the payload: UTF-8 JSON written by
:mod:`chunk_contract.exactjson` (strings round-trip exactly, lone surrogates included). Nothing is
pickled, so a reply can hold data and never code.

The worker's side (:func:`write_frame`, :func:`read_frame`) blocks; it is the worker's own
process. The host's side (:func:`send_frame`, :func:`receive_frame`) never blocks past a
deadline, never reads a payload over its size limit, and turns every malformed, truncated or
oversized frame into :class:`FrameError` (or :class:`FrameTimeout`, :class:`FrameClosed`), so
that nothing the worker writes can hang or crash the host.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time
from collections.abc import Sequence
from typing import Any

from chunk_contract import exactjson

MAGIC = b"CCJ1"
HEADER = struct.Struct("<4sIQ")
#: Seconds a payload gets to arrive after its header, on top of what its size needs.
BODY_GRACE = 1.0
#: Bytes a second a payload is assumed to need at least (a pipe moves GB/s when the host reads).
BODY_RATE = 64 * 2**20
_READ_SIZE = 2**20
_SEPARATORS = (",", ":")
#: Built once: json.dumps with options builds an encoder on every call.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=_SEPARATORS, check_circular=False)
_DECODER = json.JSONDecoder()
#: Captured at import, so that a plugin patching ``builtins.len`` in the worker cannot make the
#: worker's framing lie about sizes.
_len = len
_bytes = bytes
_memoryview = memoryview


class FrameError(Exception):
    """A frame the host cannot accept: bad header, wrong sequence, over the limit, not JSON."""

    def __init__(self, message: str, *, size: int | None = None) -> None:
        super().__init__(message)
        self.size = size


class FrameTimeout(Exception):
    """The deadline passed before a whole frame was read or written."""


class FrameClosed(Exception):
    """The other end closed the pipe (a truncated frame counts: the worker went away)."""


def encode(value: Any) -> bytes:
    """UTF-8 JSON for plain data (str, int, float, bool, None, list, tuple, dict with str keys).

    Plain ``json`` when the text has no surrogate and no key that exactjson reserves (the common
    case, and the fast one), else exactjson's encoding. Raises TypeError or ValueError for
    anything that is not plain data.
    """
    text = _ENCODER.encode(value)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: exactjson keeps it exact
        return exactjson.dumps(value, ensure_ascii=False, separators=_SEPARATORS).encode("utf-8")
    if b'"$str"' in data or b'"$dict"' in data:  # a key exactjson would have wrapped
        return exactjson.dumps(value, ensure_ascii=False, separators=_SEPARATORS).encode("utf-8")
    return data


def decode(data: bytes | bytearray | memoryview) -> Any:
    """The plain data :func:`encode` wrote. Raises :class:`FrameError` on anything else."""
    raw = _bytes(data)  # (``in`` on a memoryview compares element by element: 10x slower)
    try:
        if b'"$str"' not in raw and b'"$dict"' not in raw:
            return _DECODER.decode(raw.decode("utf-8"))
        return exactjson.loads(raw)
    except (ValueError, TypeError, RecursionError, MemoryError) as exc:  # UnicodeError too
        raise FrameError(f"the payload is not valid JSON: {type(exc).__name__}: {exc}") from None


# --------------------------------------------------------------------------- the worker's side


def write_frame(fd: int, seq: int, payload: bytes) -> None:
    """Writes one whole frame to the blocking ``fd``."""
    _write_all(fd, HEADER.pack(MAGIC, seq, _len(payload)) + payload)


def read_frame(fd: int) -> tuple[int, bytes] | None:
    """One frame from the blocking ``fd`` as (seq, payload); None at end of file."""
    header = _read_exact(fd, HEADER.size)
    if header is None:
        return None
    magic, seq, size = HEADER.unpack(header)
    if magic != MAGIC:
        raise FrameError(f"bad frame header {header!r}")
    payload = _read_exact(fd, size)
    if payload is None:
        return None
    return seq, payload


def _write_all(fd: int, data: bytes) -> None:
    view = _memoryview(data)
    while view.nbytes:
        view = view[os.write(fd, view) :]


def _read_exact(fd: int, size: int) -> bytes | None:
    parts, missing = [], size
    while missing:
        part = os.read(fd, min(missing, _READ_SIZE))
        if not part:
            return None
        parts.append(part)
        missing -= _len(part)
    return b"".join(parts)


# --------------------------------------------------------------------------- the host's side


def send_frame(fd: int, seq: int, payload: bytes, *, deadline: float) -> None:
    """Writes one frame to the non-blocking ``fd`` by ``deadline`` (time.monotonic()).

    Raises FrameTimeout when the reader stops reading, FrameClosed when it is gone.
    """
    view = memoryview(HEADER.pack(MAGIC, seq, len(payload)) + payload)
    while view.nbytes:
        _await(fd, select.POLLOUT, deadline)
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            continue
        except (BrokenPipeError, ConnectionResetError):
            raise FrameClosed("the worker closed its request pipe") from None


def wait_readable(fd: int, others: Sequence[int], timeout: float) -> int | None:
    """The first of ``fd`` and ``others`` that is readable (or hung up) within ``timeout`` s."""
    poller = select.poll()
    for each in (fd, *others):
        poller.register(each, select.POLLIN | select.POLLPRI)
    ready = _poll(poller, timeout)
    fds = [each for each, _ in ready]
    if fd in fds:
        return fd
    return fds[0] if fds else None


def receive_frame(fd: int, seq: int, *, deadline: float, limit: int) -> Any:
    """Reads one frame from the non-blocking ``fd``, checks it and returns its decoded payload
    (see :func:`receive_payload`)."""
    return decode(receive_payload(fd, seq, deadline=deadline, limit=limit))


def receive_payload(fd: int, seq: int, *, deadline: float, limit: int) -> bytearray:
    """Reads one frame from the non-blocking ``fd``, checks it and returns its raw payload.

    The header must arrive by ``deadline``; the payload by the later of ``deadline`` and its
    own allowance (BODY_GRACE plus its size at BODY_RATE). A payload over ``limit`` bytes is
    never read: FrameError carries the size it announced.
    """
    header = _receive_exact(fd, HEADER.size, deadline)
    magic, got, size = HEADER.unpack(header)
    if magic != MAGIC:
        raise FrameError(f"the worker wrote {bytes(header)!r} where a frame header belongs")
    if got != seq:
        raise FrameError(f"the worker answered request {got}, expected {seq}")
    if size > limit:
        raise FrameError(f"the reply is {size} bytes, over the limit of {limit} bytes", size=size)
    allowance = time.monotonic() + BODY_GRACE + size / BODY_RATE
    return _receive_exact(fd, size, max(deadline, allowance))


def _receive_exact(fd: int, size: int, deadline: float) -> bytearray:
    buffer = bytearray(size)
    view, got = memoryview(buffer), 0
    while got < size:
        _await(fd, select.POLLIN, deadline)
        try:
            n = os.readv(fd, [view[got:]])
        except BlockingIOError:
            continue
        if n == 0:
            raise FrameClosed(f"the worker closed its reply pipe after {got} of {size} bytes")
        got += n
    return buffer


def _await(fd: int, event: int, deadline: float) -> None:
    poller = select.poll()
    poller.register(fd, event)
    if not _poll(poller, deadline - time.monotonic()):
        raise FrameTimeout("the deadline passed mid-frame")


def _poll(poller: select.poll, timeout: float) -> list[tuple[int, int]]:
    if timeout <= 0:
        return poller.poll(0)
    return poller.poll(max(1, int(timeout * 1000 + 0.999)))
