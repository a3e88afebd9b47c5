"""The isolated, persistent worker: every plugin call runs in a forked child process.

One child serves many calls over two raw pipes (a new process per call would cost milliseconds).
Requests and replies are plain data, length-framed JSON (:mod:`chunk_contract.containment.framing`):
nothing
is pickled in either direction, so a reply can carry no code into the parent, and every read in
the parent has a deadline and a size limit (``reply_limit``). The parent enforces a wall-clock
timeout from outside (SIGKILL, so a hang in C code or inside ``except BaseException: pass`` is
still stopped), the child caps its own address space (RLIMIT_AS), and a child that dies (signal,
``os.abort()``, segfault, ``os._exit``) is reported with what it printed last. After a timeout,
crash or memory failure the child is restarted lazily on the next call. Nothing the plugin does
can hang or kill the parent. Each child leads a process group of its own, and every stop kills
the whole group, so processes the plugin starts die with it.

``setup`` (optional) runs first in every new child, under ``load_timeout`` and the memory cap,
and returns the task and a plain "hello" value (a plugin's declarations): a target is imported
in the child, never in the parent, and a restarted child loads it again; load time is never
charged to a call.

Unix only (it needs ``os.fork``). A Worker is not thread-safe. On Linux the child gets
``PR_SET_PDEATHSIG=SIGKILL``, which fires when the *thread* that started it exits: start and use
a Worker from one long-lived thread.
"""

from __future__ import annotations

import contextlib
import faulthandler
import fcntl
import functools
import gc
import math
import os
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
from types import TracebackType
from typing import Any, Literal, NoReturn, Self

from chunk_contract.containment import framing, pipes, procs, reaper, sandbox
from chunk_contract.containment.framing import FrameClosed, FrameError, FrameTimeout

Kind = Literal["ok", "error", "timeout", "memory", "crash"]
#: A task: plain data in, plain data out.
Task = Callable[[Any], Any]
#: Runs first in each new child: returns the task it serves and a plain "hello" value.
Setup = Callable[[], tuple[Task, Any]]

#: Characters of the child's captured output shown in a crash or timeout outcome.
TAIL_CHARS = 2000
_OUTPUT_HEADING = f"Output of the worker (last {TAIL_CHARS} characters):"
#: Characters of the child's stack dump shown in a timeout outcome.
_STACK_CHARS = 4000
_MIN_MEMORY_MB = 16
#: Default bytes a reply may take: past it the parent stops reading and kills the child.
DEFAULT_REPLY_LIMIT = 256 * 2**20
#: Bytes the capture file may reach before, between calls, only its last _CAPTURE_KEEP remain.
CAPTURE_LIMIT = 2**20
_CAPTURE_KEEP = 64 * 2**10
#: Characters of a message, and of a traceback, that a reply from the child carries.
_MESSAGE_CHARS = 10_000
_DETAIL_CHARS = 50_000
#: Exit code of a child that hit its memory cap so hard it could not even answer.
_EXIT_MEMORY = 86
#: The signal that makes a hung child write its Python stack (faulthandler) before the kill.
_STACK_SIGNAL = signal.SIGUSR1
#: Seconds to wait for that stack dump.
_STACK_WAIT = 0.5
#: Polls (2 ms apart) the capture file must stay the same size for a stack dump to be done.
_SETTLED = 10
#: Seconds a child that closed its pipe gets to finish exiting before it is killed.
_EXIT_WAIT = 1.0
#: Seconds to wait for a SIGKILLed child to be reapable (it is not waited for beyond that).
_KILL_WAIT = 2.0
#: Bytes of the last reply kept to answer an identical one without decoding it again.
_MEMO_BYTES = 4 * 2**20
#: Sequence number of the hello frame a child with a setup sends first.
_HELLO = 0
_PR_SET_PDEATHSIG = 1
#: Inherited stream objects the child must keep alive: collecting them would flush the parent's
#: buffered output a second time.
_INHERITED: list[object] = []
#: Captured at import: a plugin that patches ``builtins.len`` does not reach the worker's code.
_len = len
#: In the child only: the fd its replies go to (tests write malformed frames through it).
CHILD_REPLY_FD: int | None = None
#: Seconds between two looks at the memory of the child's whole process tree (see TreeOverCap).
TREE_TICK = 0.05
#: A call that starts within CALLS_TICK s of the last look is first looked at once it has
#: lasted TREE_TICK: a run of fast calls is not a look per call (a look costs a scan of /proc).
CALLS_TICK = 0.25
#: A look at the tree that took s seconds waits WATCH_SHARE * s before the next one, so the
#: parent spends at most 1/WATCH_SHARE of its time watching on a machine of many processes.
WATCH_SHARE = 5


#: How an ``ok`` reply's encoding begins (framing.encode of ``["ok", value]``).
_OK_PREFIX = b'["ok",'


@dataclass(frozen=True)
class Unread:
    """An ``ok`` reply's value as the worker encoded it, not decoded yet (see Worker.call)."""

    data: memoryview

    def read(self) -> Any:
        """The value, decoded; FrameError when the bytes are not the plain data a reply is."""
        if self.data[-1:] != b"]":
            raise FrameError("the reply does not end as an ok reply ends")
        return framing.decode(self.data[:-1])


@dataclass(frozen=True)
class Outcome:
    """How one call in the worker ended: a value, or what went wrong.

    ``error`` outcomes are the task's own exceptions (``error_type`` names them), or one of the
    boundary's: ``EncodingError`` (the value is not plain data), ``ProtocolError`` (a reply
    that is no valid frame, or not JSON), ``ReplyTooLarge`` (over the reply limit, never read)
    and ``SetupError`` (a new child's setup failed). After the last three the child is gone.
    """

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


class TreeOverCap(Exception):
    """The child's whole process tree (the child, everything it started, in its group or not,
    and what the parent adopted from it) held more memory than the cap allows.

    RLIMIT_AS caps each process on its own: three children of 200 MiB each stay under a cap of
    256 MiB apiece. The parent therefore sums the proportional memory of the tree
    (:func:`chunk_contract.containment.procs.tree_memory`) every TREE_TICK s of a call, and at the
    start of a call when CALLS_TICK s have passed since the last look.
    """

    def __init__(self, used: int, cap: int, memory_mb: int) -> None:
        super().__init__(
            f"the plugin's processes used {used >> 20} MiB, over the cap of {cap >> 20} MiB "
            f"(the worker's start plus memory_mb={memory_mb}); all of them were killed"
        )


class _Child:
    """A started child as the parent sees it: pid (= its process group), pipe ends, pidfd."""

    def __init__(self, pid: int, requests: int, replies: int) -> None:
        self.pid = pid
        self.requests = requests
        self.replies = replies
        self.pidfd = _open_pidfd(pid)
        self.status: int | None = None
        self.killed = False
        self.done = False

    def stop(self, grace: float = 0.0) -> int | None:
        """Waits up to `grace` s for the child to exit, then SIGKILLs its whole process group
        (grandchildren included) and reaps the child (idempotent).

        Returns the wait status, or None when it is unknown (reaped elsewhere, or unkillable).
        """
        if self.done:
            return self.status
        exited = self._wait(grace)
        self.killed = not exited and self.send_signal(signal.SIGKILL)
        self._kill_group()  # before the reap: the group id cannot be reused while it is a zombie
        reaper.unregister(self.pid)
        status = self._reap(_KILL_WAIT if not exited else 0.0)
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

    def _kill_group(self) -> None:
        """SIGKILLs every process left in the child's process group."""
        with contextlib.suppress(OSError):
            os.killpg(self.pid, signal.SIGKILL)

    def _wait(self, limit: float) -> bool:
        """True once the child has exited (not reaped yet) within `limit` s, or is gone."""
        deadline = time.monotonic() + limit
        delay = 0.0002
        while True:
            try:
                found = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return True
            remaining = deadline - time.monotonic()
            if found is not None or remaining <= 0:
                return found is not None
            if self.pidfd is not None:
                select.select([self.pidfd], [], [], remaining)
            else:
                time.sleep(min(delay, remaining))
                delay = min(delay * 2, 0.02)

    def _reap(self, limit: float) -> int | None:
        """The wait status once the child is reaped within `limit` s; None if not, -1 if lost."""
        if not self._wait(limit):
            return None
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            return -1
        return status if pid else None

    def _release(self) -> None:
        """Closes the pipe ends and the pidfd."""
        for fd in (self.requests, self.replies, self.pidfd):
            if fd is not None:
                _close_quietly(fd)
        self.pidfd = None


class Worker:
    """Runs `task(request)` in a persistent forked child: timeout, memory cap, crash detection.

    Requests and replies are plain data (what JSON holds: str, int, float, bool, None, lists,
    dicts with str keys; tuples arrive as lists).
    """

    def __init__(
        self,
        task: Task | None = None,
        *,
        timeout: float = 2.0,
        memory_mb: int | None = 1024,
        reply_limit: int = DEFAULT_REPLY_LIMIT,
        reply_scale: int = 0,
        setup: Setup | None = None,
        load_timeout: float | None = None,
    ) -> None:
        """Checks the limits at once; the child starts on the first call (or :meth:`start`).

        Give either `task`, or `setup` (run in each new child; returns the task and a hello
        value) with its own `load_timeout` (default: max(10 s, timeout)). A reply may take
        `reply_limit` bytes plus `reply_scale` times the encoded request's size.
        """
        if not hasattr(os, "fork"):
            raise RuntimeError("Worker needs os.fork (a Unix system)")
        if (task is None) == (setup is None):
            raise TypeError("give a Worker either a task or a setup, not both or neither")
        if not callable(task if setup is None else setup):
            raise TypeError(f"task must be callable, got {type(task).__name__}")
        self._setup: Setup = setup or _fixed(task)
        self._handshake = setup is not None
        self._timeout = _valid_timeout(timeout)
        self._memory_mb = _valid_memory_mb(memory_mb)
        self._reply_limit = _valid_reply_limit(reply_limit)
        if isinstance(reply_scale, bool) or not isinstance(reply_scale, int) or reply_scale < 0:
            raise ValueError(f"reply_scale must be an int >= 0, got {reply_scale!r}")
        self._reply_scale = reply_scale
        self._load_timeout = _valid_timeout(
            max(10.0, self._timeout) if load_timeout is None else load_timeout
        )
        self._child: _Child | None = None
        self._reaper: weakref.finalize[..., Any] | None = None
        self._output: int | None = None
        self._output_closer: weakref.finalize[..., Any] | None = None
        self._starts = 0
        self._tree_cap: int | None = None
        self._next_watch, self._last_watch = 0.0, -math.inf
        self._seq = _HELLO
        self._closed = False
        self._last_reply: tuple[bytearray, Any] | None = None
        self._unread = b""
        self.hello: Outcome | None = None

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

    @property
    def load_timeout(self) -> float:
        """Seconds a new child's setup may take."""
        return self._load_timeout

    def start(self) -> Outcome:
        """Starts a child unless one runs; the Outcome of its setup (its hello value when ok).

        A failed setup leaves no child: the next call tries again.
        """
        if self._child is None:
            self._start()
        assert self.hello is not None
        return self.hello

    def call(
        self, request: Any, *, timeout: float | None = None, reply_limit: int | None = None,
        unread: bytes = b"",
    ) -> Outcome:
        """Runs the task on `request` in the child; whatever the task does, returns an Outcome.

        ``unread``: a value whose encoding starts with these bytes is not decoded here: the
        Outcome's value is an :class:`Unread` that decodes it when asked (a large reply that
        the caller may never look at costs no decoding).

        Raises only for the caller's own faults: a closed worker, a bad timeout or limit, or a
        request that is not plain data (TypeError, ValueError).
        """
        limit = self._timeout if timeout is None else _valid_timeout(timeout)
        data = framing.encode(request)
        cap = self._reply_limit if reply_limit is None else _valid_reply_limit(reply_limit)
        cap += self._reply_scale * len(data)
        child = self._child or self._start()
        if child is None:
            return _failed_restart(self.hello)
        self._trim_output()
        started = time.perf_counter()
        self._unread = unread
        try:
            return self._exchange(child, data, limit, cap, started)
        except BaseException:
            self._discard()  # interrupted mid-call: the child's state is unknown
            raise

    def close(self) -> None:
        """Kills the child (and its process group) and releases the capture file; idempotent."""
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

    def _exchange(
        self, child: _Child, data: bytes, limit: float, cap: int, started: float
    ) -> Outcome:
        """Sends the request; turns the reply, silence or death of the child into an Outcome."""
        self._seq = seq = self._seq % 0xFFFFFFFF + 1
        deadline = time.monotonic() + limit

        def send_and_receive() -> Any:
            framing.send_frame(child.requests, seq, data, deadline=deadline)
            return self._receive(child, seq, deadline, cap)

        return self._outcome(child, send_and_receive, limit, started)

    def _outcome(self, child: _Child, exchange: Callable[[], Any], limit: float,
                 started: float) -> Outcome:
        """The Outcome of ``exchange`` (frames sent and read): its reply, or the child's silence
        past ``limit``, its death, a malformed frame, or its process tree over the cap."""
        try:
            reply = exchange()
        except FrameTimeout:
            return self._timed_out(child, limit, started)
        except FrameClosed:
            return self._crashed(started)
        except FrameError as exc:
            return self._bad_frame(exc, started)
        except TreeOverCap as exc:
            return self._over_cap(exc, started)
        return self._answered(reply, started)

    def _receive(self, child: _Child, seq: int, deadline: float, cap: int) -> Any:
        """The decoded reply to request `seq`; FrameClosed when the child died instead,
        TreeOverCap when its process tree outgrew the memory cap while it worked."""
        others = [] if child.pidfd is None else [child.pidfd]
        if time.monotonic() < self._last_watch + CALLS_TICK:  # looked a moment ago
            self._next_watch = max(self._next_watch, time.monotonic() + TREE_TICK)
        while True:
            self._watch_tree(child)
            wait = deadline - time.monotonic()
            if self._tree_cap is not None:
                wait = min(wait, self._next_watch - time.monotonic())
            ready = framing.wait_readable(child.replies, others, max(0.0, wait))
            if ready is None and time.monotonic() >= deadline:
                raise FrameTimeout("no reply")
            if ready is not None:
                break
        if ready != child.replies:
            raise FrameClosed("the worker exited")
        payload = framing.receive_payload(child.replies, seq, deadline=deadline, limit=cap)
        return self._decoded(payload)

    def _decoded(self, payload: bytearray) -> Any:
        """The decoded reply; the very object decoded last time when the bytes are the same as
        last time (a rerun of the same input, as ``deterministic`` asks): not decoded again, and
        the caller can tell by identity that nothing changed. Replies are never mutated. An
        ``ok`` reply whose value begins with the call's ``unread`` bytes is left to Unread."""
        if self._unread and payload.startswith(_OK_PREFIX + self._unread):
            return ["ok", Unread(memoryview(payload)[len(_OK_PREFIX):])]
        last = self._last_reply
        if last is not None and last[0] == payload:
            return last[1]
        reply = framing.decode(payload)
        self._last_reply = (payload, reply) if len(payload) <= _MEMO_BYTES else None
        return reply

    def _watch_tree(self, child: _Child) -> None:
        """When a look is due: the memory of the child's whole tree against the cap; over it,
        every process of the tree is killed and TreeOverCap raised."""
        if self._tree_cap is None or time.monotonic() < self._next_watch:
            return
        began = self._last_watch = time.monotonic()
        used, pids = procs.tree_memory(child.pid, adopter=reaper.adopter(),
                                       known=set(reaper.registered()))
        spent = time.monotonic() - began
        self._next_watch = time.monotonic() + max(TREE_TICK, WATCH_SHARE * spent)
        if used > self._tree_cap:
            procs.kill_pids(pids)
            assert self._memory_mb is not None
            raise TreeOverCap(used, self._tree_cap, self._memory_mb)

    def _over_cap(self, exc: TreeOverCap, started: float) -> Outcome:
        """Discards the child whose tree outgrew the cap (a ``no_crash`` finding upstream)."""
        self._discard()
        elapsed = time.perf_counter() - started
        return Outcome("error", None, "MemoryCapExceeded", str(exc), "", elapsed)

    def _answered(self, reply: Any, started: float) -> Outcome:
        """Turns the child's reply list into an Outcome (a reply of another shape is bad)."""
        elapsed = time.perf_counter() - started
        shape = _reply_shape(reply)
        if shape == "ok":
            return Outcome("ok", reply[1], elapsed=elapsed)
        if shape == "error":
            _, error_type, message, detail = reply
            return Outcome("error", None, error_type, message, detail, elapsed)
        if shape == "memory":
            self._discard()  # after a MemoryError the plugin's state is not to be trusted
            return self._out_of_memory(reply[1], started)
        unknown = FrameError(f"the reply has no known shape: {_brief(reply)}")
        return self._bad_frame(unknown, started)

    def _bad_frame(self, exc: FrameError, started: float) -> Outcome:
        """Discards the child whose reply cannot be accepted; says what was wrong with it."""
        self._discard()
        error_type = "ReplyTooLarge" if exc.size is not None else "ProtocolError"
        elapsed = time.perf_counter() - started
        return Outcome("error", None, error_type, str(exc), "", elapsed)

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

    def _start(self) -> _Child | None:
        """Forks a fresh child, counts the start, and waits for its hello (with a setup).

        Returns the child, or None (and no child) when its setup failed: see ``self.hello``.
        """
        if self._closed:
            raise RuntimeError("this Worker is closed")
        output = self._fresh_output()
        self._child = self._fork(output)
        self._reaper = weakref.finalize(self, self._child.stop)
        self._starts += 1
        try:
            self.hello = self._await_hello(self._child) if self._handshake else Outcome("ok")
        except BaseException:
            self._discard()  # interrupted while the child loads: nothing half-started stays
            raise
        if not self.hello.ok:
            self._discard()
        return self._child

    def _fork(self, output: int) -> _Child:
        """Forks the child with its two pipes; the parent's ends are non-blocking."""
        reaper.undumpable()  # the plugin cannot open this process's /proc/PID/mem or fd
        self._tree_cap = self._cap_for_tree()
        self._next_watch, self._last_watch = 0.0, -math.inf
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        parent_pid, pdeathsig = os.getpid(), _pdeathsig_setter()
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            pid = os.fork()
            if pid == 0:
                fds = (request_read, reply_write, request_write, reply_read)
                limits = (output, self._memory_mb, parent_pid, pdeathsig)
                _child_main(self._setup, self._handshake, fds, *limits)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        os.close(request_read)
        os.close(reply_write)
        for fd in (request_write, reply_read):
            os.set_blocking(fd, False)
        reaper.register(pid, "worker")  # a signal to the host, or its exit, kills the group
        return _Child(pid, request_write, reply_read)

    def _cap_for_tree(self) -> int | None:
        """Bytes the child's whole tree may hold: memory_mb above what it starts with (at most
        this process's resident size, which a fork shares), or None (no cap, or no /proc)."""
        if self._memory_mb is None or not os.path.exists("/proc/self/stat"):
            return None
        fields = procs.stat("self")
        start = int(fields[procs.RSS]) * procs.PAGE if fields is not None else 0
        return start + self._memory_mb * 2**20

    def _await_hello(self, child: _Child) -> Outcome:
        """The Outcome of the child's setup, read within the load timeout."""
        started = time.perf_counter()
        deadline = time.monotonic() + self._load_timeout

        def hello() -> Any:
            return self._receive(child, _HELLO, deadline, self._reply_limit)

        return self._outcome(child, hello, self._load_timeout, started)

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

    def _trim_output(self) -> None:
        """Between calls: past CAPTURE_LIMIT bytes, keeps only the capture file's last bytes."""
        size = self._output_size()
        if self._output is None or size <= CAPTURE_LIMIT:
            return
        tail = os.pread(self._output, _CAPTURE_KEEP, size - _CAPTURE_KEEP)
        os.ftruncate(self._output, 0)
        os.write(self._output, tail)  # O_APPEND: at the (new) end

    def _output_size(self) -> int:
        """Bytes the child has written so far."""
        return 0 if self._output is None else os.fstat(self._output).st_size

    def _await_output(self, before: int) -> None:
        """Waits (at most _STACK_WAIT s) for the capture file to grow past `before` and settle."""
        deadline = time.monotonic() + _STACK_WAIT
        last, still = before, 0
        while time.monotonic() < deadline:
            time.sleep(0.002)
            size = self._output_size()
            still = still + 1 if before < size == last else 0
            if still >= _SETTLED:  # a busy machine may pause the child mid-dump: not done yet
                return
            last = size

    def _read_output(self, start: int, end: int) -> str:
        """The captured output between byte offsets `start` and `end`, less the worker's frames."""
        if self._output is None or end <= start:
            return ""
        end = min(end, start + 8 * _CAPTURE_KEEP)  # a stack dump is far smaller
        text = os.pread(self._output, end - start, start).decode("utf-8", "replace")
        return _without_worker_frames(text)

    def _output_tail(self, end: int) -> str:
        """The last TAIL_CHARS characters the child wrote before byte offset `end`."""
        start = max(0, end - 4 * TAIL_CHARS)
        text = self._read_output(start, end)
        cut = start > 0 or len(text) > TAIL_CHARS
        return "…" + text[-TAIL_CHARS:] if cut else text


def _fixed(task: Task | None) -> Setup:
    """The setup of a worker given its task directly: serve it, say nothing."""

    def setup() -> tuple[Task, Any]:
        assert task is not None
        return task, None

    return setup


def _reply_shape(reply: Any) -> str:
    """"ok", "error" or "memory" for a well-formed reply list, else ""."""
    if type(reply) is not list or not reply:
        return ""
    kind = reply[0]
    if kind == "ok" and len(reply) == 2:
        return "ok"
    if kind == "error" and len(reply) == 4 and all(type(x) is str for x in reply[1:]):
        return "error"
    if kind == "memory" and len(reply) == 2 and type(reply[1]) is str:
        return "memory"
    return ""


def _brief(value: Any) -> str:
    """A short repr for a message."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _failed_restart(hello: Outcome | None) -> Outcome:
    """The outcome of a call for which no child could be started (its setup failed)."""
    assert hello is not None
    what = describe_start_failure(hello)
    return Outcome("error", None, "SetupError", f"a new worker could not start: {what}",
                   hello.detail, hello.elapsed)


def describe_start_failure(hello: Outcome) -> str:
    """One line on how a child's setup failed (it timed out, exited, raised...)."""
    if hello.kind == "timeout":
        return f"timed out ({hello.message})"
    if hello.kind == "crash":
        return hello.message
    if hello.kind == "memory":
        return f"ran out of memory ({hello.message})"
    return f"{hello.error_type}: {hello.message}".strip(": ")


def _valid_timeout(timeout: float) -> float:
    """A timeout is a finite number of seconds above zero."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise ValueError(f"timeout must be a number of seconds, got {timeout!r}")
    if not (math.isfinite(timeout) and timeout > 0):
        raise ValueError(f"timeout must be finite and > 0 seconds, got {timeout!r}")
    return float(timeout)


def _valid_reply_limit(limit: int) -> int:
    """A reply limit is a whole number of bytes, at least 1 KiB."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1024:
        raise ValueError(f"reply_limit must be an int >= 1024 (bytes), got {limit!r}")
    return limit


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


def _close_quietly(fd: int) -> None:
    """Closes `fd`, ignoring an already closed one."""
    with contextlib.suppress(OSError):
        os.close(fd)


@functools.cache
def _pdeathsig_setter() -> Callable[[], object] | None:
    """The call that makes the child die with its parent (Linux prctl), resolved once, or None."""
    prctl = reaper.prctl()
    if prctl is None:
        return None
    return functools.partial(prctl, _PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)



# ---------------------------------------------------------------------------------------------
# The child side. Everything below runs only in the forked child, which always leaves by
# os._exit: never through the parent's stack, atexit handlers or buffered streams. Its replies
# hold only plain data: whatever the task returns is JSON-encoded here, or reported as an error.


def _child_main(
    setup: Setup,
    handshake: bool,
    fds: tuple[int, int, int, int],
    output: int,
    memory_mb: int | None,
    parent_pid: int,
    pdeathsig: Callable[[], object] | None,
) -> NoReturn:
    """Sets the child up (a process group of its own), runs the setup, serves requests until
    the parent goes away, and exits."""
    code = 1
    try:
        os.setsid()  # leads its own process group: the parent kills the group, grandchildren too
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        _bind_to_parent(parent_pid, pdeathsig)
        requests, replies, *parents = fds
        for fd in parents:
            os.close(fd)
        global CHILD_REPLY_FD
        CHILD_REPLY_FD = replies
        _redirect_output(output)
        pipes.close_inherited((requests, replies))  # none of the host's pipes, files, sockets
        reaper.dumpable()  # the host may read this process's memory use; the plugin is inside
        _enable_faulthandler()
        _limit_resources(memory_mb)
        sandbox.shield()  # the plugin cannot signal, trace or re-limit the host or its ancestors
        code = _serve(setup, handshake, requests, replies)
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


def _serve(setup: Setup, handshake: bool, requests: int, replies: int) -> int:
    """Runs the setup (its hello frame first, with a handshake), then answers requests until
    the parent closes the pipe; returns the exit code."""
    me = os.getpid()
    task, hello = _run_setup(setup)
    # Everything alive now (the host's heap, inherited by the fork, and the loaded plugin) lives
    # as long as the worker: out of the collector's sight, a full collection during a call
    # walks the plugin's garbage only (tens of ms otherwise, charged to the call's CPU time).
    gc.freeze()
    if handshake and hello is not None:
        framing.write_frame(replies, _HELLO, hello)
    if task is None:
        return 0
    while True:
        frame = framing.read_frame(requests)
        if frame is None:
            return 0
        seq, data = frame
        reply = _answer(task, data)
        if os.getpid() != me:  # a process forked by the task must not answer
            return 0
        framing.write_frame(replies, seq, reply)


def _run_setup(setup: Setup) -> tuple[Task | None, bytes | None]:
    """The task to serve (None after a failed setup) and the encoded hello reply (or None)."""
    try:
        task, hello = setup()
    except MemoryError as exc:
        note = _first_line(exc)
        return None, _encode_reply(["memory", f"while loading: {note}"])
    except BaseException as exc:
        return None, _error_reply(exc)
    return task, _value_reply(hello)


def _answer(task: Task, data: bytes) -> bytes:
    """Runs the task on the encoded request; returns the encoded reply."""
    try:
        value = task(framing.decode(data))
    except MemoryError as exc:
        note = _first_line(exc)  # leaving this clause frees the task's frames, and its memory
    except BaseException as exc:
        return _error_reply(exc)
    else:
        return _value_reply(value)
    return _encode_reply(["memory", note])


def _value_reply(value: Any) -> bytes:
    """The encoded ["ok", value] reply, or an error reply when the value is not plain data."""
    try:
        return framing.encode(["ok", value])
    except MemoryError:
        return _encode_reply(["memory", "while encoding the return value"])
    except BaseException as exc:
        message = f"the return value is not plain data: {_type_name(exc)}: {_first_line(exc)}"
        detail = _plain("".join(traceback.format_exception_only(exc)), _DETAIL_CHARS)
        return _encode_reply(["error", "EncodingError", _plain(message, _MESSAGE_CHARS), detail])


def _error_reply(exc: BaseException) -> bytes:
    """The encoded ["error", type, message, traceback] reply for an exception from the task."""
    try:
        tb = exc.__traceback__.tb_next if exc.__traceback__ else None  # skip _answer's own frame
        detail = _plain("".join(traceback.format_exception(type(exc), exc, tb)), _DETAIL_CHARS)
        return _encode_reply(["error", _type_name(exc), _first_line(exc), detail])
    except MemoryError:
        return _encode_reply(["memory", "while reporting an exception"])
    except BaseException:
        unformatted = "(the traceback could not be formatted)"
        return _encode_reply(["error", _type_name(exc), "", unformatted])


def _encode_reply(reply: list[Any]) -> bytes:
    """Encodes a reply built here from plain strings (it cannot fail but on memory)."""
    return framing.encode(reply)


def _plain(text: Any, limit: int) -> str:
    """An exact ``str`` copy of `text` (a str subclass loses its methods), cut to `limit`."""
    if type(text) is not str:
        text = str.__str__(text) if issubclass(type(text), str) else "<not a string>"
    return text if _len(text) <= limit else text[:limit] + "…"


def _type_name(exc: BaseException) -> str:
    """ValueError for builtins, else module-qualified: mypkg.errors.ChunkError."""
    cls = type(exc)
    try:
        module, name = _plain(cls.__module__, 200), _plain(cls.__qualname__, 200)
    except BaseException:
        return "<unnamed exception type>"
    return name if module == "builtins" else f"{module}.{name}"


def _first_line(exc: BaseException) -> str:
    """The first line of str(exc) as a plain str, even when its __str__ fails."""
    try:
        text = _plain(str(exc), _MESSAGE_CHARS)
    except BaseException:
        return f"<unprintable {_plain(type(exc).__name__, 200)}>"
    return text.split("\n", 1)[0]


def _report_internal_failure() -> int:
    """Writes the worker's own failure to fd 2 (the capture file); returns exit code 1."""
    with contextlib.suppress(BaseException):
        traceback.print_exc()
        sys.stderr.flush()
    return 1
