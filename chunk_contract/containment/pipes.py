"""Talking to a child over its three pipes without trusting what holds their other ends.

``Popen.communicate`` reads until end of file, and end of file comes only when *every* process
holding the write end has closed it. A plugin's grandchild that left the child's process group
(``setsid``, a daemon) inherits the child's stdout and stderr, so after the child has exited, or
was killed at its deadline, ``communicate`` would wait for that grandchild: for ever, if it
sleeps. :func:`exchange` writes the input and reads both outputs like ``communicate``, but stops
reading GRACE seconds after the child itself is gone, and at the deadline.
"""

from __future__ import annotations

import contextlib
import os
import resource
import selectors
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass

#: Seconds the outputs are still read after the child has exited (what it wrote is already in
#: the pipe; only a grandchild holding the write end keeps it open longer).
GRACE = 0.5
_CHUNK = 1 << 16


@dataclass
class Exchange:
    """What came back: the outputs read, and whether the deadline passed first."""

    out: bytes
    err: bytes
    timed_out: bool


def exchange(child: subprocess.Popen[bytes], data: bytes, *, deadline: float) -> Exchange:
    """Writes ``data`` to the child's stdin (then closes it) and reads its stdout and stderr
    until both end, the child has been gone GRACE s, or ``deadline`` s have passed; then waits
    for the child to exit, within the same deadline (it is not killed here)."""
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    chunks: dict[int, list[bytes]] = {child.stdout.fileno(): [], child.stderr.fileno(): []}
    with selectors.DefaultSelector() as selector:
        for fd in chunks:
            selector.register(fd, selectors.EVENT_READ)
        if data:
            os.set_blocking(child.stdin.fileno(), False)
            selector.register(child.stdin.fileno(), selectors.EVENT_WRITE)
        else:
            child.stdin.close()
        until = time.monotonic() + deadline
        timed_out = _pump(child, selector, chunks, memoryview(data), until)
    timed_out = timed_out or _outlives(child, until)
    _close(child)
    out, err = (b"".join(parts) for parts in chunks.values())
    return Exchange(out, err, timed_out)


def _pump(
    child: subprocess.Popen[bytes],
    selector: selectors.BaseSelector,
    chunks: dict[int, list[bytes]],
    data: memoryview,
    until: float,
) -> bool:
    """The select loop of :func:`exchange`; True if the deadline passed first."""
    gone_at: float | None = None
    while selector.get_map():
        now = time.monotonic()
        if now >= until:
            return True
        if gone_at is None and child.poll() is not None:
            gone_at = now
        if gone_at is not None and now - gone_at >= GRACE:
            return False
        stop = until if gone_at is None else min(until, gone_at + GRACE)
        for key, _ in selector.select(min(stop - now, 0.1)):
            data = _serve(key.fd, child, selector, chunks, data)
    return False


def _serve(
    fd: int,
    child: subprocess.Popen[bytes],
    selector: selectors.BaseSelector,
    chunks: dict[int, list[bytes]],
    data: memoryview,
) -> memoryview:
    """One ready pipe: writes the next piece of the input, or reads what came out."""
    if fd not in chunks:
        try:
            data = data[os.write(fd, data[:_CHUNK]) :]
        except BlockingIOError:
            return data
        except OSError:  # the child closed its stdin (or died): the rest is not wanted
            data = data[len(data) :]
        if not data:
            selector.unregister(fd)
            assert child.stdin is not None
            child.stdin.close()
        return data
    piece = os.read(fd, _CHUNK)
    if piece:
        chunks[fd].append(piece)
    else:
        selector.unregister(fd)
    return data


def _outlives(child: subprocess.Popen[bytes], until: float) -> bool:
    """Waits for the child to exit (its outputs ended first) until the deadline; True if not."""
    try:
        child.wait(timeout=max(0.0, until - time.monotonic()))
    except subprocess.TimeoutExpired:
        return True
    return False


def _close(child: subprocess.Popen[bytes]) -> None:
    """Closes the parent's ends of the three pipes."""
    for stream in (child.stdin, child.stdout, child.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


#: Descriptors above this are not looked for (a process that opened more is no plugin's host).
_FD_CEILING = 2**20


def close_inherited(keep: Iterable[int] = ()) -> None:
    """Closes every descriptor above 2 but those in ``keep``: first thing in a process that is
    about to run plugin code, so it holds none of its parent's pipes (under ``-n``, the pool's
    result pipe), sockets or files, whatever their close-on-exec flag."""
    low = 3
    for fd in sorted({k for k in keep if k >= 3}):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, _highest_fd())


def _highest_fd() -> int:
    """One past the highest descriptor this process can hold (close_range makes it cheap)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limits = [x for x in (soft, hard, os.sysconf("SC_OPEN_MAX")) if 0 < x < _FD_CEILING]
    return max([*limits, 1024])
