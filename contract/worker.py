"""The isolated, persistent worker: every plugin call runs in a forked child process.

One child serves many calls over a `multiprocessing` pipe (about 25-40 µs a call measured; a new
process per call would cost milliseconds). The parent enforces a wall-clock timeout from outside
(SIGKILL, so a hang in C code or inside ``except BaseException: pass`` is still stopped), the
child caps its own address space (RLIMIT_AS), and a child that dies (signal, ``os.abort()``,
segfault, ``os._exit``) is reported with what it printed last. After a timeout, crash or memory
failure the child is restarted lazily on the next call. Nothing the plugin does can hang or kill
the parent.

Unix only (it needs ``os.fork``). A Worker is not thread-safe. On Linux the child gets
``PR_SET_PDEATHSIG=SIGKILL``, which fires when the *thread* that started it exits: start and use
a Worker from one long-lived thread.
"""

from __future__ import annotations

import contextlib
import faulthandler
import fcntl
import functools
import math
import os
import pickle
import resource
import select
import signal
import sys
import tempfile
import time
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import Pipe
from multiprocessing.connection import Connection, wait
from types import TracebackType
from typing import Any, Literal, NoReturn, Self

Kind = Literal["ok", "error", "timeout", "memory", "crash"]

#: Characters of the child's captured output shown in a crash or timeout outcome.
TAIL_CHARS = 2000
_OUTPUT_HEADING = f"Output of the worker (last {TAIL_CHARS} characters):"
#: Characters of the child's stack dump shown in a timeout outcome.
_STACK_CHARS = 4000
_MIN_MEMORY_MB = 16
#: Exit code of a child that hit its memory cap so hard it could not even answer.
_EXIT_MEMORY = 86
#: The signal that makes a hung child write its Python stack (faulthandler) before the kill.
_STACK_SIGNAL = signal.SIGUSR1
#: Seconds to wait for that stack dump.
_STACK_WAIT = 0.1
#: Seconds a child that closed its pipe gets to finish exiting before it is killed.
_EXIT_WAIT = 1.0
#: Seconds to wait for a SIGKILLed child to be reapable (it is not waited for beyond that).
_KILL_WAIT = 2.0
_PR_SET_PDEATHSIG = 1
#: Inherited stream objects the child must keep alive: collecting them would flush the parent's
#: buffered output a second time.
_INHERITED: list[object] = []


@dataclass(frozen=True)
class Outcome:
    """How one call in the worker ended: a value, or what went wrong."""

    kind: Kind
    value: Any = None
    error_type: str = ""
    message: str = ""
    detail: str = ""
    elapsed: float = 0.0

    @property
    def ok(self) -> bool:
        """True when the task returned a value."""
        return self.kind == "ok"


class _Child:
    """A started child as the parent sees it: its pid, pipe end, and (on Linux) a pidfd."""

    def __init__(self, pid: int, conn: Connection) -> None:
        self.pid = pid
        self.conn = conn
        self.pidfd = _open_pidfd(pid)
        self.watch: list[Any] = [conn] if self.pidfd is None else [conn, self.pidfd]
        self.status: int | None = None
        self.killed = False
        self.done = False

    def stop(self, grace: float = 0.0) -> int | None:
        """Waits up to `grace` s for the child to exit, else SIGKILLs it; reaps it (idempotent).

        Returns the wait status, or None when it is unknown (reaped elsewhere, or unkillable).
        """
        if self.done:
            return self.status
        status = self._wait(grace)
        if status is None:
            self.killed = self.send_signal(signal.SIGKILL)
            status = self._wait(_KILL_WAIT)
        self.done = True
        self.status = None if status in (None, -1) else status
        self._release()
        return self.status

    def send_signal(self, signum: int) -> bool:
        """Sends `signum` to the child unless it is already reaped; True if it was sent."""
        if self.done:
            return False
        try:
            os.kill(self.pid, signum)
        except OSError:
            return False
        return True

    def _wait(self, limit: float) -> int | None:
        """The wait status if the child exits within `limit` s; None if it runs, -1 if lost."""
        deadline = time.monotonic() + limit
        delay = 0.0002
        while True:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                return -1
            remaining = deadline - time.monotonic()
            if pid or remaining <= 0:
                return status if pid else None
            if self.pidfd is not None:
                select.select([self.pidfd], [], [], remaining)
            else:
                time.sleep(min(delay, remaining))
                delay = min(delay * 2, 0.02)

    def _release(self) -> None:
        """Closes the pipe end and the pidfd."""
        self.conn.close()
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None


class Worker:
    """Runs `task(request)` in a persistent forked child: timeout, memory cap, crash detection."""

    def __init__(
        self,
        task: Callable[[Any], Any],
        *,
        timeout: float = 2.0,
        memory_mb: int | None = 1024,
    ) -> None:
        """Checks the limits at once; the child starts on the first call."""
        if not hasattr(os, "fork"):
            raise RuntimeError("Worker needs os.fork (a Unix system)")
        if not callable(task):
            raise TypeError(f"task must be callable, got {type(task).__name__}")
        self._task = task
        self._timeout = _valid_timeout(timeout)
        self._memory_mb = _valid_memory_mb(memory_mb)
        self._child: _Child | None = None
        self._reaper: weakref.finalize[..., Any] | None = None
        self._output: int | None = None
        self._output_closer: weakref.finalize[..., Any] | None = None
        self._starts = 0
        self._closed = False

    @property
    def restarts(self) -> int:
        """How many times a child was started: 0 before the first call, then 1 + each restart."""
        return self._starts

    @property
    def timeout(self) -> float:
        """The default per-call timeout in seconds."""
        return self._timeout

    @property
    def memory_mb(self) -> int | None:
        """The memory cap in MiB above the child's starting size, or None for no cap."""
        return self._memory_mb

    def call(self, request: Any, *, timeout: float | None = None) -> Outcome:
        """Runs the task on `request` in the child; whatever the task does, returns an Outcome.

        Raises only for the caller's own faults: a closed worker, a bad timeout, or a request
        that cannot be pickled.
        """
        limit = self._timeout if timeout is None else _valid_timeout(timeout)
        data = _dumps(request)
        child = self._child or self._start()
        started = time.perf_counter()
        try:
            return self._exchange(child, data, limit, started)
        except BaseException:
            self._discard()  # interrupted mid-call: the child's state is unknown
            raise

    def close(self) -> None:
        """Kills the child and releases the capture file; idempotent."""
        self._closed = True
        self._discard()
        if self._output_closer is not None:
            self._output_closer()
            self._output, self._output_closer = None, None

    def __enter__(self) -> Self:
        """Returns the worker itself."""
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Closes the worker."""
        self.close()

    def _exchange(self, child: _Child, data: bytes, limit: float, started: float) -> Outcome:
        """Sends the request; turns the reply, silence or death of the child into an Outcome."""
        try:
            child.conn.send_bytes(data)
        except OSError:
            return self._crashed(started)
        if child.conn not in wait(child.watch, limit):
            if _dead(child):
                return self._crashed(started)
            return self._timed_out(child, limit, started)
        try:
            reply = child.conn.recv_bytes()
        except (EOFError, OSError):
            return self._crashed(started)
        try:
            answer = pickle.loads(reply)
        except Exception as exc:
            return _unreadable_reply(exc, started)
        return self._answered(answer, started)

    def _answered(self, reply: tuple[Any, ...], started: float) -> Outcome:
        """Turns the child's reply tuple into an Outcome."""
        if reply[0] == "ok":
            return Outcome("ok", reply[1], elapsed=time.perf_counter() - started)
        if reply[0] == "error":
            _, error_type, message, detail = reply
            elapsed = time.perf_counter() - started
            return Outcome("error", None, error_type, message, detail, elapsed)
        self._discard()  # after a MemoryError the plugin's state is not to be trusted
        return self._out_of_memory(reply[1], started)

    def _out_of_memory(self, note: str, started: float) -> Outcome:
        """The outcome of a call that ran out of memory."""
        message = f"MemoryError: {note}" if note else "MemoryError"
        if self._memory_mb is not None:
            message += f" (cap: {self._memory_mb} MiB above the worker's start)"
        return Outcome("memory", None, "MemoryError", message, "", time.perf_counter() - started)

    def _timed_out(self, child: _Child, limit: float, started: float) -> Outcome:
        """Kills the silent child, keeping the stack it was stuck in and its output tail."""
        before = self._output_size()
        if child.send_signal(_STACK_SIGNAL):
            self._await_output(before)
        after = self._output_size()
        self._discard()
        stack = self._read_output(before, after)[:_STACK_CHARS]
        detail = _sections(
            ("Stack of the worker when it was stopped:", stack),
            (_OUTPUT_HEADING, self._output_tail(before)),
        )
        message = f"no answer within {limit:g} s"
        return Outcome("timeout", None, "", message, detail, time.perf_counter() - started)

    def _crashed(self, started: float) -> Outcome:
        """Reaps the child that stopped answering and says how it ended."""
        child = self._child
        status = self._discard(grace=_EXIT_WAIT)
        if status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == _EXIT_MEMORY:
            return self._out_of_memory("the worker could not even report it", started)
        what = _describe_exit(status, child is not None and child.killed)
        tail = self._output_tail(self._output_size())
        detail = _sections(("", what), (_OUTPUT_HEADING, tail))
        return Outcome("crash", None, "", what, detail, time.perf_counter() - started)

    def _start(self) -> _Child:
        """Forks a fresh child that serves the task; counts the start."""
        if self._closed:
            raise RuntimeError("this Worker is closed")
        output = self._fresh_output()
        parent_end, child_end = Pipe()
        parent_pid, pdeathsig = os.getpid(), _pdeathsig_setter()
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            pid = os.fork()
            if pid == 0:
                limits = (output, self._memory_mb, parent_pid, pdeathsig)
                _child_main(self._task, child_end, parent_end, *limits)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        child_end.close()
        self._child = _Child(pid, parent_end)
        self._reaper = weakref.finalize(self, self._child.stop)
        self._starts += 1
        return self._child

    def _discard(self, grace: float = 0.0) -> int | None:
        """Stops and forgets the current child, if any; returns its wait status."""
        child, self._child = self._child, None
        if child is None:
            return None
        if self._reaper is not None:
            self._reaper.detach()
            self._reaper = None
        return child.stop(grace)

    def _fresh_output(self) -> int:
        """The (emptied) capture file for the child's fds 1 and 2, opened once per worker."""
        if self._output is None:
            fd, path = tempfile.mkstemp(prefix="chunk-contract-worker-", suffix=".log")
            os.unlink(path)
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
            self._output_closer = weakref.finalize(self, _close_quietly, fd)
            self._output = fd
        os.ftruncate(self._output, 0)
        return self._output

    def _output_size(self) -> int:
        """Bytes the child has written so far."""
        return 0 if self._output is None else os.fstat(self._output).st_size

    def _await_output(self, before: int) -> None:
        """Waits (at most _STACK_WAIT s) for the capture file to grow past `before` and settle."""
        deadline = time.monotonic() + _STACK_WAIT
        last = before
        while time.monotonic() < deadline:
            time.sleep(0.002)
            size = self._output_size()
            if before < size == last:
                return
            last = size

    def _read_output(self, start: int, end: int) -> str:
        """The captured output between byte offsets `start` and `end`, less the worker's frames."""
        if self._output is None or end <= start:
            return ""
        text = os.pread(self._output, end - start, start).decode("utf-8", "replace")
        return _without_worker_frames(text)

    def _output_tail(self, end: int) -> str:
        """The last TAIL_CHARS characters the child wrote before byte offset `end`."""
        start = max(0, end - 4 * TAIL_CHARS)
        text = self._read_output(start, end)
        cut = start > 0 or len(text) > TAIL_CHARS
        return "…" + text[-TAIL_CHARS:] if cut else text


def _valid_timeout(timeout: float) -> float:
    """A timeout is a finite number of seconds above zero."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise ValueError(f"timeout must be a number of seconds, got {timeout!r}")
    if not (math.isfinite(timeout) and timeout > 0):
        raise ValueError(f"timeout must be finite and > 0 seconds, got {timeout!r}")
    return float(timeout)


def _valid_memory_mb(memory_mb: int | None) -> int | None:
    """A memory cap is None (no cap) or a whole number of MiB, at least _MIN_MEMORY_MB."""
    if memory_mb is None:
        return None
    if isinstance(memory_mb, bool) or not isinstance(memory_mb, int) or memory_mb < _MIN_MEMORY_MB:
        raise ValueError(f"memory_mb must be None or an int >= {_MIN_MEMORY_MB}, got {memory_mb!r}")
    return memory_mb


def _open_pidfd(pid: int) -> int | None:
    """A pidfd for `pid` where the system has them (Linux >= 5.3), else None."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _dead(child: _Child) -> bool:
    """True when the pipe is silent but the child's pidfd says it has exited."""
    return child.pidfd is not None and bool(select.select([child.pidfd], [], [], 0)[0])


def _describe_exit(status: int | None, killed: bool) -> str:
    """One line on how the child ended, from its wait status."""
    if killed:
        return "worker closed its pipe but kept running, so it was killed"
    if status is None:
        return "worker exited (its exit status is unknown)"
    code = os.waitstatus_to_exitcode(status)
    if code >= 0:
        return f"worker exited with status {code}"
    text = f"worker killed by {_signal_name(-code)}"
    if -code == signal.SIGKILL:
        text += " (possibly the system's out-of-memory killer)"
    return text


def _signal_name(signum: int) -> str:
    """SIGSEGV for 11, or 'signal 42' for a number without a name."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _sections(*parts: tuple[str, str]) -> str:
    """Joins the non-empty (heading, body) parts of a detail text."""
    return "\n\n".join(f"{head}\n{body}".strip("\n") for head, body in parts if body.strip())


def _without_worker_frames(text: str) -> str:
    """Drops faulthandler frame lines from this module's own, and the parent's frames below them."""
    own, skipping, kept = f'  File "{_answer.__code__.co_filename}"', False, []
    for line in text.splitlines(keepends=True):
        skipping = line.startswith(own) or (skipping and line.startswith('  File "'))
        if not skipping:
            kept.append(line)
    return "".join(kept)


def _unreadable_reply(exc: Exception, started: float) -> Outcome:
    """The outcome of a reply that cannot be unpickled in the parent."""
    message = f"the return value cannot be unpickled here: {_type_name(exc)}: {_first_line(exc)}"
    detail = "".join(traceback.format_exception(exc))
    return Outcome("error", None, "UnpicklingError", message, detail, time.perf_counter() - started)


def _close_quietly(fd: int) -> None:
    """Closes `fd`, ignoring an already closed one."""
    with contextlib.suppress(OSError):
        os.close(fd)


@functools.cache
def _pdeathsig_setter() -> Callable[[], object] | None:
    """The call that makes the child die with its parent (Linux prctl), resolved once, or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None
    return functools.partial(prctl, _PR_SET_PDEATHSIG, int(signal.SIGKILL))


# ---------------------------------------------------------------------------------------------
# The child side. Everything below runs only in the forked child, which always leaves by
# os._exit: never through the parent's stack, atexit handlers or buffered streams.


def _child_main(
    task: Callable[[Any], Any],
    conn: Connection,
    parent_end: Connection,
    output: int,
    memory_mb: int | None,
    parent_pid: int,
    pdeathsig: Callable[[], object] | None,
) -> NoReturn:
    """Sets the child up, serves requests until the parent goes away, and exits."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        _bind_to_parent(parent_pid, pdeathsig)
        parent_end.close()
        _redirect_output(output)
        _enable_faulthandler()
        _limit_resources(memory_mb)
        code = _serve(task, conn)
    except BaseException:
        code = _report_internal_failure()
    finally:
        os._exit(code)


def _bind_to_parent(parent_pid: int, pdeathsig: Callable[[], object] | None) -> None:
    """Asks the kernel to SIGKILL the child when its parent dies; exits if it already has."""
    if pdeathsig is not None:
        with contextlib.suppress(OSError, ValueError, TypeError):
            pdeathsig()
    if os.getppid() != parent_pid:
        os._exit(0)


def _redirect_output(output: int) -> None:
    """Points fd 0 at /dev/null and fds 1 and 2 at the capture file, with fresh sys streams."""
    _INHERITED.extend((sys.stdin, sys.stdout, sys.stderr))
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(output, 1)
    os.dup2(output, 2)
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", 1, "utf-8", "backslashreplace", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", 1, "utf-8", "backslashreplace", closefd=False)  # noqa: SIM115


def _enable_faulthandler() -> None:
    """Makes fatal signals, and _STACK_SIGNAL from the parent, dump the Python stack to fd 2."""
    faulthandler.cancel_dump_traceback_later()
    faulthandler.enable(sys.stderr, all_threads=True)
    faulthandler.register(_STACK_SIGNAL, sys.stderr, all_threads=True, chain=False)


def _limit_resources(memory_mb: int | None) -> None:
    """Turns core dumps off (a crash is reported, not dumped) and caps the address space."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    _limit_memory(memory_mb)


def _limit_memory(memory_mb: int | None) -> None:
    """Caps the address space (RLIMIT_AS) at the child's current size plus memory_mb MiB."""
    base = _virtual_size()
    if memory_mb is None or base is None:
        return
    limit = base + memory_mb * 2**20
    for current in resource.getrlimit(resource.RLIMIT_AS):
        if current != resource.RLIM_INFINITY:
            limit = min(limit, current)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _virtual_size() -> int | None:
    """The process's virtual size in bytes (Linux /proc), or None where unknown."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


def _serve(task: Callable[[Any], Any], conn: Connection) -> int:
    """Answers requests until the parent closes the pipe; returns the exit code."""
    me = os.getpid()
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return 0
        reply = _answer(task, data)
        if os.getpid() != me:  # a process forked by the task must not answer
            return 0
        try:
            conn.send_bytes(reply)
        except MemoryError:
            return _EXIT_MEMORY


def _answer(task: Callable[[Any], Any], data: bytes) -> bytes:
    """Runs the task on the pickled request; returns the pickled reply."""
    try:
        value = task(pickle.loads(data))
    except MemoryError as exc:
        note = _first_line(exc)  # leaving this clause frees the task's frames, and its memory
    except BaseException as exc:
        return _error_reply(exc)
    else:
        return _value_reply(value)
    return _dumps(("memory", note))


def _value_reply(value: Any) -> bytes:
    """The pickled ("ok", value) reply, or an error reply when the value cannot be pickled."""
    try:
        return _dumps(("ok", value))
    except MemoryError:
        return _dumps(("memory", "while pickling the return value"))
    except BaseException as exc:
        message = f"the return value cannot be pickled: {_type_name(exc)}: {_first_line(exc)}"
        detail = "".join(traceback.format_exception_only(exc))
        return _dumps(("error", "PicklingError", message, detail))


def _error_reply(exc: BaseException) -> bytes:
    """The pickled ("error", type, message, traceback) reply for an exception from the task."""
    try:
        tb = exc.__traceback__.tb_next if exc.__traceback__ else None  # skip _answer's own frame
        detail = "".join(traceback.format_exception(type(exc), exc, tb))
        return _dumps(("error", _type_name(exc), _first_line(exc), detail))
    except MemoryError:
        return _dumps(("memory", "while reporting an exception"))
    except BaseException:
        return _dumps(("error", _type_name(exc), "", "(the traceback could not be formatted)"))


def _dumps(obj: Any) -> bytes:
    """Pickles a request or reply (any protocol unpickles with pickle.loads)."""
    return pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)


def _type_name(exc: BaseException) -> str:
    """ValueError for builtins, else module-qualified: mypkg.errors.ChunkError."""
    cls = type(exc)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def _first_line(exc: BaseException) -> str:
    """The first line of str(exc), even when its __str__ fails."""
    try:
        text = str(exc)
    except BaseException:
        return f"<unprintable {type(exc).__name__}>"
    return text.split("\n", 1)[0]


def _report_internal_failure() -> int:
    """Writes the worker's own failure to fd 2 (the capture file); returns exit code 1."""
    with contextlib.suppress(BaseException):
        traceback.print_exc()
        sys.stderr.flush()
    return 1
