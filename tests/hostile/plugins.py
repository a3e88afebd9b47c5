"""Hostile plugins: each attacks the host through what crosses the worker boundary.

They chunk correctly (fixed windows of ``max_size`` characters, no overlap) unless breaking a
rule is their point, so a run that survives them gives a verdict: exit 0 with a report, or 1
naming the rule broken. Side effects go to paths from the environment (``HOSTILE_MARKER``,
``HOSTILE_PIDFILE``), which the tests set.
"""

from __future__ import annotations

import builtins
import contextlib
import fcntl
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chunk_contract_reference.fixed import cuts
from chunk_contract_reference.spans import check_config

MiB = 2**20


def spans(document: str, max_size: int) -> Iterator[tuple[int, int]]:
    """Correct cut points: the reference fixed-size windows (a config it refuses raises)."""
    check_config(max_size, 0)
    return cuts(document, max_size, 0)


def windows(document: str, max_size: int) -> Iterator[str]:
    """The texts of those windows."""
    for start, end in spans(document, max_size):
        yield document[start:end]


def _forever() -> None:
    while True:
        time.sleep(0.01)


# ----------------------------------------------------------------------- chunks that carry code


class ExitOnUnpickle(str):
    """A chunk that, if unpickled, ends the process that unpickles it with status 0."""

    def __reduce__(self) -> Any:
        return (os._exit, (0,))


class ShellOnUnpickle(str):
    """A chunk that, if unpickled, runs a shell command that creates HOSTILE_MARKER."""

    def __reduce__(self) -> Any:
        return (os.system, (f"touch {os.environ.get('HOSTILE_MARKER', '/dev/null')}",))


class HangingMethods(str):
    """A chunk whose own len, ==, hash and str never return."""

    def __len__(self) -> int:
        _forever()
        return 0

    def __eq__(self, other: object) -> bool:
        _forever()
        return False

    def __hash__(self) -> int:
        _forever()
        return 0

    def __str__(self) -> str:
        _forever()
        return ""


class HostileInt(int):
    """An offset whose own methods never return, and which exits its unpickler."""

    def __index__(self) -> int:
        _forever()
        return 0

    def __reduce__(self) -> Any:
        return (os._exit, (0,))


def reduce_exit(document: str, *, max_size: int, overlap: int) -> list[str]:
    return [ExitOnUnpickle(w) for w in windows(document, max_size)]


def reduce_system(document: str, *, max_size: int, overlap: int) -> list[str]:
    return [ShellOnUnpickle(w) for w in windows(document, max_size)]


def hanging_str_methods(document: str, *, max_size: int, overlap: int) -> list[str]:
    return [HangingMethods(w) for w in windows(document, max_size)]


def hostile_fields(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
    """Mappings whose keys and values are hostile subclasses (the offsets themselves correct)."""
    return [
        {ExitOnUnpickle("text"): HangingMethods(document[start:end]), "start": HostileInt(start),
         "end": HostileInt(end)}
        for start, end in spans(document, max_size)
    ]


# ----------------------------------------------------------------------- exceptions that attack


class HangingMessage(Exception):
    def __str__(self) -> str:
        _forever()
        return ""


class ExitingMessage(Exception):
    """Its message is a str subclass that exits whoever unpickles it."""

    def __str__(self) -> str:
        return ExitOnUnpickle("a message that exits its unpickler")


def raise_hanging_message(document: str, *, max_size: int, overlap: int) -> list[str]:
    raise HangingMessage()


def raise_exiting_message(document: str, *, max_size: int, overlap: int) -> list[str]:
    raise ExitingMessage()


# ----------------------------------------------------------------------- the worker's machinery


def patch_len(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Replaces builtins.len in the worker (multiprocessing framed its replies with it)."""
    chunks = list(windows(document, max_size))
    builtins.len = lambda _obj: 0  # type: ignore[assignment]
    return chunks


def huge_reply(document: str, *, max_size: int, overlap: int) -> list[str]:
    """400 chunks of 1 MiB each (one string, 400 times): 400 MB of reply, little memory here."""
    block = "x" * MiB
    return [block] * 400


def chatter(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Writes 1 MiB to stdout on every call, then chunks correctly."""
    os.write(1, b"y" * (MiB - 20) + b"\nchatter tail marker\n")
    return list(windows(document, max_size))


def grandchild_then_hang(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Starts ``sleep 1000``, records its pid in HOSTILE_PIDFILE, then hangs."""
    sleeper = subprocess.Popen(["sleep", "1000"])
    with Path(os.environ["HOSTILE_PIDFILE"]).open("a") as pids:
        pids.write(f"{sleeper.pid}\n")
    _forever()
    return []


def escapes_its_session(document: str, *, max_size: int, overlap: int) -> list[str]:
    """A correct chunker that, on its first call, starts ``sleep 1000`` in a session of its own
    (out of the worker's group and session) and records its pid in HOSTILE_PIDFILE."""
    _escape_once(["sleep", "1000"])
    return list(windows(document, max_size))


def double_forks_a_daemon(document: str, *, max_size: int, overlap: int) -> list[str]:
    """A correct chunker that, on its first call, double-forks a daemon (setsid, its parent
    exits at once, so it is nobody's child) that keeps forking sleepers (100, one each 0.2 s);
    records pids."""
    if not os.environ.get("HOSTILE_STARTED"):
        os.environ["HOSTILE_STARTED"] = "1"
        script = (
            "import os, subprocess, sys, time\n"
            "if os.fork(): os._exit(0)\n"
            "os.setsid()\n"
            "pids = open(sys.argv[1], 'a')\n"
            "for _ in range(100):  # bounded: a failing test must not fill the machine\n"
            "    p = subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
            "    pids.write(f'{os.getpid()}\\n{p.pid}\\n'); pids.flush()\n"
            "    time.sleep(0.2)\n"
        )
        subprocess.run([sys.executable, "-c", script, os.environ["HOSTILE_PIDFILE"]], check=True)
    return list(windows(document, max_size))


def stops_the_host(document: str, *, max_size: int, overlap: int) -> list[str]:
    """A correct chunker that first tries to stop the process that runs it (SIGSTOP cannot be
    caught: the gate would hang for ever) and to trace it; carries on when refused."""
    import ctypes

    with contextlib.suppress(PermissionError):
        os.kill(os.getppid(), signal.SIGSTOP)
    ctypes.CDLL(None, use_errno=True).ptrace(16, os.getppid(), 0, 0)  # PTRACE_ATTACH
    return list(windows(document, max_size))


def _escape_once(argv: list[str]) -> None:
    if os.environ.get("HOSTILE_STARTED"):
        return
    os.environ["HOSTILE_STARTED"] = "1"
    escaped = subprocess.Popen(argv, start_new_session=True)
    with Path(os.environ["HOSTILE_PIDFILE"]).open("a") as pids:
        pids.write(f"{escaped.pid}\n")


# ----------------------------------------------------------------------- out-of-range values


def _offset_chunker(value: Any) -> Any:
    def split(document: str, *, max_size: int, overlap: int) -> list[dict[str, Any]]:
        return [{"text": w, "start": value, "end": 5} for w in windows(document, max_size)]

    return split


start_googol = _offset_chunker(10**100)
start_2_63 = _offset_chunker(2**63)
start_negative = _offset_chunker(-5)
start_bool = _offset_chunker(True)
start_float = _offset_chunker(1.5)
start_huge_but_legal = _offset_chunker(2**62)


# ----------------------------------------------------------------------- reaching past the worker
# Each of these chunkers loses text (it drops its last window), so a run that gives a verdict
# exits 1 naming no_lost_text; an attack that works ends the host, or turns the run green.


def lossy(document: str, max_size: int) -> list[str]:
    """The fixed windows less the last one, when there are several (no_lost_text breaks)."""
    found = list(windows(document, max_size))
    return found[:-1] if len(found) > 1 else found


def _first_call() -> bool:
    """True once per process tree (the environment is inherited by forks)."""
    if os.environ.get("HOSTILE_STARTED"):
        return False
    os.environ["HOSTILE_STARTED"] = "1"
    return True


def _note(text: str) -> None:
    """Appends a line to HOSTILE_MARKER (when the test set one)."""
    marker = os.environ.get("HOSTILE_MARKER")
    if marker:
        with Path(marker).open("a") as handle:
            handle.write(text + "\n")


class ExitZero:
    """Unpickled, it ends the process that unpickles it with status 0."""

    def __reduce__(self) -> Any:
        return (os._exit, (0,))


def pickles_into_the_pool(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Writes a multiprocessing frame holding :class:`ExitZero` to every pipe write end it
    inherited (under ``-n``, the pool's result and progress pipes), its own reply pipe aside,
    and notes in which process: a fresh interpreter's only such pipe is its own answer channel
    (garbage there is a ``deterministic`` finding of the plugin's own)."""
    if _first_call():
        import pickle
        import stat
        import struct

        from chunk_contract.containment import worker

        frame = pickle.dumps(ExitZero())
        data = struct.pack("!i", len(frame)) + frame
        for fd in range(3, 1024):
            with contextlib.suppress(OSError):
                if fd == worker.CHILD_REPLY_FD or not stat.S_ISFIFO(os.fstat(fd).st_mode):
                    continue
                if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                    os.write(fd, data)
                    fresh = "CHUNK_CONTRACT_RERUN_PARENT" in os.environ
                    _note(f"wrote to fd {fd} of {'a fresh interpreter' if fresh else 'a worker'}")
    return lossy(document, max_size)


def reads_the_host(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Opens the memory and the stdout of the process that runs it (its parent) through /proc;
    notes in HOSTILE_MARKER which opens worked, and writes a fake verdict through the second."""
    if _first_call():
        host = os.getppid()
        for name, mode in (("mem", "r+b"), ("fd/1", "wb")):
            try:
                with open(f"/proc/{host}/{name}", mode, buffering=0) as handle:
                    if name == "fd/1":
                        handle.write(b"\nPASSED: every invariant holds (a fake verdict)\n")
                _note(f"{name}: opened")
            except OSError as exc:
                _note(f"{name}: refused ({type(exc).__name__})")
    return lossy(document, max_size)


F_SETSIG = 10
FIOSETOWN = 0x8901


def sigio_kills_the_host(document: str, *, max_size: int, overlap: int) -> list[str]:
    """Makes its parent the owner of a pipe it holds, asks for SIGKILL instead of SIGIO, and
    writes to the pipe: the kernel, not the plugin, sends the signal (no kill() to refuse)."""
    if _first_call():
        _signal_through_a_pipe(signal.SIGKILL, by_ioctl=False)
    return lossy(document, max_size)


def sigio_stops_the_host(document: str, *, max_size: int, overlap: int) -> list[str]:
    """The same with SIGSTOP, which cannot be caught: the gate would hang for ever."""
    if _first_call():
        _signal_through_a_pipe(signal.SIGSTOP, by_ioctl=False)
    return lossy(document, max_size)


def sigio_by_ioctl(document: str, *, max_size: int, overlap: int) -> list[str]:
    """The same with FIOSETOWN and the default SIGIO, which ends a process that does not
    handle it."""
    if _first_call():
        _signal_through_a_pipe(None, by_ioctl=True)
    return lossy(document, max_size)


def _signal_through_a_pipe(signum: int | None, *, by_ioctl: bool) -> None:
    import ctypes
    import socket
    import struct

    ends = socket.socketpair()  # FIOSETOWN is a socket ioctl
    read, write = ends[0].fileno(), ends[1].fileno()
    host = os.getppid()
    try:
        if by_ioctl:
            owner = ctypes.c_int(host)
            if ctypes.CDLL(None, use_errno=True).ioctl(read, FIOSETOWN, ctypes.byref(owner)):
                number = ctypes.get_errno()
                raise OSError(number, os.strerror(number))
        else:
            fcntl.fcntl(read, fcntl.F_SETOWN, host)
        if signum is not None:
            fcntl.fcntl(read, F_SETSIG, signum)
        fcntl.fcntl(read, fcntl.F_SETFL, fcntl.fcntl(read, fcntl.F_GETFL) | os.O_ASYNC)
        os.write(write, struct.pack("i", 1))
        _note("owner set")
    except OSError as exc:
        _note(f"refused ({type(exc).__name__})")
    time.sleep(0.2)


def fat_children(document: str, *, max_size: int, overlap: int) -> list[str]:
    """A correct chunker that, on its first call, forks HOSTILE_CHILDREN processes (3) of
    HOSTILE_CHILD_MIB MiB each (48), which sleep a minute; HOSTILE_HOW says how they hide:
    ``plain`` (children), ``setsid`` (sessions of their own) or ``daemon`` (double fork: the
    worker is not even their parent). Their pids go to HOSTILE_PIDFILE, whose existence
    means they were started (a restarted worker starts none)."""
    if _first_call() and not Path(os.environ["HOSTILE_PIDFILE"]).exists():
        how = os.environ.get("HOSTILE_HOW", "plain")
        for _ in range(int(os.environ.get("HOSTILE_CHILDREN", "3"))):
            _fat_child(int(os.environ.get("HOSTILE_CHILD_MIB", "48")), how)
        time.sleep(0.5)  # they fill their memory while this call still runs
    return list(windows(document, max_size))


def _fat_child(mib: int, how: str) -> None:
    pid = os.fork()
    if pid:
        if how == "daemon":
            os.waitpid(pid, 0)
        return
    try:
        if how in ("setsid", "daemon"):
            os.setsid()
        if how == "daemon" and os.fork():
            os._exit(0)
        with Path(os.environ["HOSTILE_PIDFILE"]).open("a") as pids:
            pids.write(f"{os.getpid()}\n")
        hoard = b"\x01" * (mib * MiB)  # noqa: F841 (resident: every page written)
        time.sleep(60)
    finally:
        os._exit(0)
