"""An out-of-process plugin (SPEC §8): a persistent child of any language, JSON lines on stdio.

:class:`ExecChild` starts ``exec:COMMAND ARGS...`` (split as a POSIX shell would, no shell run)
as the leader of a session of its own, reads its handshake under a start-up deadline, then
serves calls with the same interface as the forked worker
(``chunk_contract.containment.worker.Worker``): ``call(request, *, timeout) -> Outcome``,
``close()``, ``restarts``; requests and reply values have the shapes
``chunk_contract.transport.serving.serve`` uses, so a Session sees no difference:

- ``("split", document, max_size, overlap)`` -> ``("chunks", records)`` with records as
  ``chunk_contract.spec.model.normalise_chunks`` makes them, ``("raised", name, message,
  is_rejection, trace)`` for an ``error`` reply (``is_rejection``: type ``config``), or
  ``("wrong_type", why)``;
- ``("count", texts)`` -> a list of ints (``count_tokens``, for ``unit = "tokens"``);
- ``("cpu", document, max_size, overlap)`` -> CPU seconds of that split, the child's included
  (see :meth:`ExecChild.cpu_seconds`), or None if the split failed;
- ``("timed-family", family, size, max_size, overlap)`` -> ``("timed", seconds, value)``: the
  split of a document of ``chunk_contract.generation.families.FAMILIES`` (built here, in the host,
  then sent), ``value`` as a split's, with the CPU seconds of the child's tree meanwhile.

Call :meth:`ExecChild.start` first: a child that cannot start or hand shake raises
:class:`ExecTargetError` (a usage error) there; after that, a restart that fails is a ``crash``
outcome of the call that needed it.

The child's stderr is read whenever the host waits on it (the handshake, every call, the exit
grace), so a child that writes a lot while answering never blocks; the last
:data:`STDERR_BYTES` are kept.

Whatever the child does (hangs, prints garbage, exits, floods stderr, forks, allocates) the host
gets an Outcome: ``timeout``, ``memory`` or ``crash``, with the tail of the child's stderr in the
detail; the whole process tree is killed (``os.killpg`` SIGKILL, plus any member of the session
that left the group) and a fresh child is started on the next call. Starting it is never timed.

Where cgroup v2 is writable the child runs in a cgroup of its own (``ExecChild.cgroup_path``):
CPU time comes from its ``cpu.stat`` (µs, exited processes included; else /proc in clock ticks)
and ``cgroup.kill`` reaches processes that even left the session.

Memory: ``memory_mode = "cgroup"`` when that cgroup has the memory controller (``memory.max``
set; an ``oom_kill`` in ``memory.events`` is a ``memory`` outcome), else ``"rss"``: while a call
runs, the memory of the child's whole process tree (its session and group, every descendant,
and the orphans the host adopted from it: :func:`chunk_contract.containment.procs.tree_memory`) is
read from /proc every :data:`RSS_TICK` s (less often where one scan takes long:
:data:`WATCH_SHARE`), and going past the limit (the tree's size after the handshake plus
``memory_mb``) kills the tree. ``RLIMIT_AS`` is never used: runtimes that reserve address
space (node, the JVM) cannot even start under it.
:attr:`ExecChild.memory_mode` says which is in use.
"""

from __future__ import annotations

import contextlib
import os
import select
import shlex
import subprocess
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self

from chunk_contract.containment import procs, reaper, sandbox
from chunk_contract.containment.worker import Outcome
from chunk_contract.generation.families import FAMILIES
from chunk_contract.transport import cputime, wire
from chunk_contract.transport.targets import TargetError
from chunk_contract.transport.wire import Handshake, HandshakeError, ProtocolError

#: Bytes of the child's stderr kept (the tail) and shown in outcome details.
STDERR_BYTES = 64 * 1024
#: Characters of that tail shown in an outcome's detail.
DETAIL_CHARS = 4000
#: Seconds between memory (and liveness) checks while a call runs.
RSS_TICK = 0.02
_LIVE_TICK = 0.1
#: The watch reads /proc for every process on the machine: on a machine with thousands of
#: processes one scan takes longer than RSS_TICK. The next watch then waits WATCH_SHARE times
#: the last scan, so the host spends at most 1/WATCH_SHARE of a core watching.
WATCH_SHARE = 5
#: Seconds a child whose stdin was closed gets to exit before its group is killed.
EXIT_GRACE = 1.0
_HANDSHAKE_CAP = 1024 * 1024
_READ = 1 << 20
MemoryMode = Literal["auto", "cgroup", "rss", "none"]


class ExecTargetError(TargetError):
    """An ``exec:`` target that cannot be started or does not hand shake: a usage error."""


def exec_command(target: str) -> list[str]:
    """The argv of an ``exec:COMMAND ARGS...`` target (POSIX shell words, nothing expanded)."""
    command = target.removeprefix("exec:")
    try:
        argv = shlex.split(command, posix=True)
    except ValueError as exc:
        raise ExecTargetError(f"{target}: cannot split the command line: {exc}") from None
    if not argv:
        raise ExecTargetError(f"{target}: no command after 'exec:' (e.g. exec:node chunker.mjs)")
    return argv


@dataclass
class _Failure:
    """Why an exchange gave no reply line."""

    kind: Literal["timeout", "memory", "crash"]
    message: str


class _Proc:
    """One started child: its Popen, its pipes' fds, the bytes read so far, its stderr tail."""

    def __init__(self, popen: subprocess.Popen[bytes], cgroup: procs.Cgroup | None) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.cgroup = cgroup
        reaper.register(self.pid, "exec: child")  # its CPU counts in a run's phases
        assert popen.stdin and popen.stdout and popen.stderr
        self.stdin, self.stdout, self.stderr = (
            popen.stdin.fileno(), popen.stdout.fileno(), popen.stderr.fileno()
        )
        os.set_blocking(self.stdin, False)
        self.buffer = bytearray()
        self.scanned = 0
        self.tail = bytearray()
        self.stdout_open = self.stderr_open = True
        self.rss_cap: int | None = None
        #: When the watch looks next (kept across calls: a plugin whose calls are fast must
        #: not escape it by growing between them).
        self.next_watch = 0.0

    def take_line(self) -> bytes | None:
        """The next complete line read (without its newline), or None yet."""
        end = self.buffer.find(b"\n", self.scanned)
        if end < 0:
            self.scanned = len(self.buffer)
            return None
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        self.scanned = 0
        return line

    def keep_stderr(self, data: bytes) -> None:
        """Append to the bounded stderr tail."""
        self.tail += data
        if len(self.tail) > STDERR_BYTES:
            del self.tail[: len(self.tail) - STDERR_BYTES]

    def stderr_text(self) -> str:
        """The stderr tail as text (invalid UTF-8 replaced), at most DETAIL_CHARS."""
        return self.tail.decode("utf-8", "replace")[-DETAIL_CHARS:]

    def kill(self) -> None:
        """Kill the whole tree (group, session strays, cgroup), reap the leader, free the fds."""
        procs.kill_tree(self.pid)
        if self.cgroup is not None:
            self.cgroup.kill()
        reaper.unregister(self.pid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=2.0)
        self.release()

    def release(self) -> None:
        """Close the pipes and remove the cgroup (idempotent)."""
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        if self.cgroup is not None:
            self.cgroup.remove()


def _finalise(holder: list[_Proc | None]) -> None:
    """Kill a child that its ExecChild dropped without closing (at collection or exit)."""
    proc = holder[0]
    if proc is not None:
        holder[0] = None
        proc.kill()


class ExecChild:
    """A persistent SPEC §8 child process behind the worker interface (see the module doc)."""

    def __init__(
        self,
        target: str,
        *,
        cwd: str | os.PathLike[str] | None = None,
        timeout: float = 2.0,
        memory_mb: int | None = 1024,
        start_timeout: float = 10.0,
        memory_mode: MemoryMode = "auto",
        env: dict[str, str] | None = None,
    ) -> None:
        """Checks the arguments at once; the child starts on :meth:`start` or the first call."""
        self.target = target
        self.argv = exec_command(target)
        self.cwd = None if cwd is None else Path(cwd)
        self.timeout = _positive("timeout", timeout)
        self.start_timeout = _positive("start_timeout", start_timeout)
        if memory_mb is not None and memory_mb < 1:
            raise ValueError(f"memory_mb must be at least 1 or None, got {memory_mb}")
        if memory_mode not in ("auto", "cgroup", "rss", "none"):
            raise ValueError(f"memory_mode must be auto, cgroup, rss or none, got {memory_mode!r}")
        self.memory_mb = memory_mb
        self._requested: MemoryMode = "none" if memory_mb is None else memory_mode
        self._mode: MemoryMode = self._requested
        self._env = env
        self._holder: list[_Proc | None] = [None]
        self._finalizer = weakref.finalize(self, _finalise, self._holder)
        self.handshake: Handshake | None = None
        self._starts = 0
        self._next_id = 0
        self._closed = False

    # ------------------------------------------------------------------ public interface

    @property
    def restarts(self) -> int:
        """How many children were started: 0 before the first, then 1 + each restart."""
        return self._starts

    @property
    def memory_mode(self) -> str:
        """``cgroup``, ``rss`` or ``none``: how memory is limited (``auto`` until started)."""
        return self._mode

    @property
    def cgroup_path(self) -> Path | None:
        """The running child's own cgroup folder, or None (no child, or no writable cgroup v2)."""
        proc = self._holder[0]
        return None if proc is None or proc.cgroup is None else proc.cgroup.path

    @property
    def pid(self) -> int | None:
        """The running child's pid (its session and process group id), or None."""
        proc = self._holder[0]
        return None if proc is None else proc.pid

    def start(self) -> Handshake:
        """Start the child if none runs and return its handshake; a bad one is a usage error."""
        if self._closed:
            raise RuntimeError("this ExecChild is closed")
        if self._holder[0] is None:
            self._launch()
        assert self.handshake is not None
        return self.handshake

    def call(self, request: Sequence[Any], *, timeout: float | None = None) -> Outcome:
        """One request (see the module doc) to the child; whatever it does, an Outcome."""
        op = request[0]
        if op == "timed-family":
            return self.timed_family(request, timeout=timeout)
        if op == "cpu":
            return self.cpu_seconds(request, timeout=timeout)
        limit = self.timeout if timeout is None else _positive("timeout", timeout)
        try:
            proc = self._running()
        except (TargetError, HandshakeError) as exc:
            return Outcome("crash", message=f"the child failed to start again: {exc}")
        if op == "split":
            return self._split(proc, request, limit)
        if op == "count":
            return self._count(proc, list(request[1]), limit)
        raise ValueError(f"unknown request {op!r}: expected split, count or cpu")

    def cpu_seconds(self, request: Sequence[Any], *, timeout: float | None = None) -> Outcome:
        """CPU seconds of one split, the child's whole tree included: ``Outcome(value=s)``,
        value None if the plugin failed (as the forked worker's ``cpu`` task answers)."""
        _, document, max_size, overlap = request
        try:
            proc = self._running()
        except (TargetError, HandshakeError) as exc:
            return Outcome("crash", message=f"the child failed to start again: {exc}")
        before = self._cpu(proc)
        limit = self.timeout if timeout is None else _positive("timeout", timeout)
        outcome = self._split(proc, ("split", document, max_size, overlap), limit)
        if not outcome.ok:
            return outcome
        seconds = self._cpu(proc) - before if outcome.value[0] == "chunks" else None
        return Outcome("ok", value=seconds, elapsed=outcome.elapsed)

    def timed_family(self, request: Sequence[Any], *, timeout: float | None = None) -> Outcome:
        """The split of a scaling family's document, timed from outside the child's tree:
        ``Outcome(value=("timed", seconds, split value))``."""
        _, family, size, max_size, overlap = request
        try:
            proc = self._running()
        except (TargetError, HandshakeError) as exc:
            return Outcome("crash", message=f"the child failed to start again: {exc}")
        request = ("split", FAMILIES[family](size), max_size, overlap)
        limit = self.timeout if timeout is None else _positive("timeout", timeout)
        clock = self._clock(proc)
        before = clock()
        outcome = self._split(proc, request, limit)
        if not outcome.ok:
            return outcome
        after = clock()
        seconds = (cputime.spent(before, after) if isinstance(before, cputime.Reading)
                   and isinstance(after, cputime.Reading) else float(after) - float(before))
        return Outcome("ok", value=("timed", seconds, outcome.value), elapsed=outcome.elapsed)

    def _clock(self, proc: _Proc) -> Any:
        """The child tree's CPU clock: its cgroup's (µs), else a /proc reading of its tree."""
        if proc.cgroup is not None and proc.cgroup.cpu_seconds() is not None:
            cgroup = proc.cgroup
            return lambda: cgroup.cpu_seconds() or 0.0
        return lambda: cputime.read(proc.pid)

    def close(self) -> None:
        """Close the child's stdin (asking it to exit), wait a short grace, then kill the tree."""
        self._closed = True
        proc, self._holder[0] = self._holder[0], None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            assert proc.popen.stdin is not None
            proc.popen.stdin.close()
        deadline = time.monotonic() + EXIT_GRACE
        while proc.popen.poll() is None and time.monotonic() < deadline:
            self._drain_stderr(proc, min(0.01, max(0.0, deadline - time.monotonic())))
        proc.kill()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # ------------------------------------------------------------------ starting

    def _running(self) -> _Proc:
        if self._closed:
            raise RuntimeError("this ExecChild is closed")
        proc = self._holder[0]
        return proc if proc is not None else self._launch()

    def _launch(self) -> _Proc:
        first = self.handshake
        proc = self._spawn()
        self._holder[0] = proc
        self._starts += 1
        try:
            found = self._read_handshake(proc)
        except ExecTargetError:
            self._discard()
            raise
        if first is not None and found != first:
            self._discard()
            raise ExecTargetError(f"{self.target}: the restarted child declared {found}, "
                                  f"the first one {first}")
        self.handshake = found
        if self._mode == "rss" and self.memory_mb is not None:
            proc.rss_cap = _tree_memory(proc.pid)[0] + self.memory_mb * 1024 * 1024
        return proc

    def _spawn(self) -> _Proc:
        reaper.undumpable()  # the child cannot open this process's /proc/PID/mem or fd
        cgroup = self._cgroup()
        mover = _before_exec(None if cgroup is None else cgroup.procs_file)
        try:
            popen = subprocess.Popen(
                self.argv, cwd=self.cwd, env=self._env, stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                start_new_session=True, close_fds=True, preexec_fn=mover,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            if cgroup is not None:
                cgroup.remove()
            where = f" in {self.cwd}" if self.cwd else ""
            raise ExecTargetError(
                f"{self.target}: cannot start {self.argv[0]!r}{where}: {exc}"
            ) from None
        return _Proc(popen, cgroup)

    def _cgroup(self) -> procs.Cgroup | None:
        """The child's own cgroup v2 (CPU time, kill, perhaps memory.max), if one can be made;
        settles the memory mode."""
        limit = None if self.memory_mb is None else self.memory_mb * 1024 * 1024
        name = f"chunk-contract-{os.getpid()}-{id(self):x}-{self._starts}"
        wanted = self._requested in ("auto", "cgroup")
        cgroup = procs.Cgroup.create(name, limit if wanted else None)
        limited = cgroup is not None and cgroup.limits_memory
        if self._requested == "cgroup" and not limited:
            if cgroup is not None:
                cgroup.remove()
            raise ExecTargetError(f"{self.target}: memory_mode='cgroup' but no writable cgroup "
                                  "v2 with the memory controller is available; use 'rss'")
        if self._requested != "none":
            self._mode = "cgroup" if limited else "rss"
        return cgroup

    def _read_handshake(self, proc: _Proc) -> Handshake:
        got = self._exchange(proc, b"", _HANDSHAKE_CAP, time.monotonic() + self.start_timeout)
        if isinstance(got, _Failure):
            what = {"timeout": f"no handshake line within {self.start_timeout:g} s",
                    "memory": "the child ran out of memory before its handshake",
                    "crash": got.message}[got.kind]
            raise ExecTargetError(self._usage(proc, what))
        try:
            return wire.parse_handshake(got)
        except HandshakeError as exc:
            raise ExecTargetError(self._usage(proc, f"malformed handshake: {exc}")) from None

    def _usage(self, proc: _Proc, what: str) -> str:
        stderr = proc.stderr_text().strip()
        last = f" (stderr: {stderr.splitlines()[-1][:200]!r})" if stderr else ""
        return (f"{self.target}: {what}{last}. An exec: chunker's first line must be like "
                '{"chunk_contract": 1, "unit": "chars"} (see docs/protocol.md)')

    # ------------------------------------------------------------------ calls

    def _split(self, proc: _Proc, request: Sequence[Any], limit: float) -> Outcome:
        _, document, max_size, overlap = request
        call_id = self._new_id()
        data = wire.encode_message(wire.split_message(call_id, document, max_size, overlap))
        return self._round_trip(
            proc, data, call_id, limit,
            lambda reply: wire.split_value(reply, document, self._offsets()),
        )

    def _count(self, proc: _Proc, texts: list[str], limit: float) -> Outcome:
        call_id = self._new_id()
        data = wire.encode_message(wire.count_message(call_id, texts))
        return self._round_trip(
            proc, data, call_id, limit, lambda reply: wire.counts_value(reply, texts)
        )

    def _round_trip(self, proc: _Proc, data: bytes, call_id: int, limit: float,
                    convert: Any) -> Outcome:
        started = time.monotonic()
        got = self._exchange(proc, data, wire.reply_cap(len(data)), started + limit)
        elapsed = time.monotonic() - started
        if isinstance(got, _Failure):
            return self._failed(proc, got, elapsed, limit)
        try:
            value = convert(wire.read_reply(got, call_id))
        except ProtocolError as exc:
            return self._failed(proc, _Failure("crash", f"malformed reply: {exc}"), elapsed, limit)
        return Outcome("ok", value=value, elapsed=elapsed)

    def _failed(self, proc: _Proc, failure: _Failure, elapsed: float, limit: float) -> Outcome:
        """Kill the tree after a failed call and describe it (the next call restarts)."""
        self._discard()
        if proc.cgroup is not None and proc.cgroup.limits_memory and proc.cgroup.oom_kills():
            failure = _Failure("memory", "the kernel killed the child at the cgroup's memory.max")
        message = {"timeout": f"no reply within {limit:g} s", "memory": failure.message,
                   "crash": failure.message}[failure.kind]
        stderr = proc.stderr_text()
        detail = f"stderr of the child (last {len(stderr)} characters):\n{stderr}" if stderr else ""
        return Outcome(failure.kind, message=message, detail=detail, elapsed=elapsed)

    def _discard(self) -> None:
        proc, self._holder[0] = self._holder[0], None
        if proc is not None:
            proc.kill()

    def _offsets(self) -> str:
        return self.handshake.offsets if self.handshake else "codepoints"

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _cpu(self, proc: _Proc) -> float:
        if proc.cgroup is not None:
            seconds = proc.cgroup.cpu_seconds()
            if seconds is not None:
                return seconds
        return procs.session_cpu_seconds(proc.pid)

    # ------------------------------------------------------------------ the exchange

    def _exchange(self, proc: _Proc, data: bytes, cap: int, deadline: float) -> bytes | _Failure:
        """Write ``data``, then read one reply line by ``deadline``, watching stderr and memory.

        The watch (a /proc scan when memory is watched) runs once per tick, not per wake-up, so
        a fast call costs two or three system calls and no scan.
        """
        pending = _write_some(proc.stdin, memoryview(data)) if data else memoryview(b"")
        tick = RSS_TICK if proc.rss_cap is not None else _LIVE_TICK
        next_watch = proc.next_watch if proc.rss_cap is not None else time.monotonic() + tick
        while True:
            line = proc.take_line()
            if line is not None:
                return line
            if len(proc.buffer) > cap:
                proc.buffer.clear()
                return _Failure("crash", f"the reply grew past {cap} bytes without ending its line")
            if not proc.stdout_open:
                return _Failure("crash", self._exit_message(proc))
            now = time.monotonic()
            if now >= deadline:
                return _Failure("timeout", "")
            if now >= next_watch:
                failure = self._watch(proc)
                if failure is not None:
                    return failure
                next_watch = now + max(tick, WATCH_SHARE * (time.monotonic() - now))
                proc.next_watch = next_watch
            pending = self._poll_once(proc, pending, min(deadline, next_watch) - now)

    def _poll_once(self, proc: _Proc, pending: memoryview, wait: float) -> memoryview:
        poller = select.poll()
        if proc.stdout_open:
            poller.register(proc.stdout, select.POLLIN)
        if proc.stderr_open:
            poller.register(proc.stderr, select.POLLIN)
        if pending:
            poller.register(proc.stdin, select.POLLOUT)
        for fd, _ in poller.poll(wait * 1000):
            if fd == proc.stdin:
                pending = _write_some(proc.stdin, pending)
            elif fd == proc.stdout:
                chunk = _read_some(fd)
                proc.stdout_open = bool(chunk)
                proc.buffer += chunk
            else:
                chunk = _read_some(fd)
                proc.stderr_open = bool(chunk)
                proc.keep_stderr(chunk)
        return pending

    def _watch(self, proc: _Proc) -> _Failure | None:
        if proc.rss_cap is not None:
            used, pids = _tree_memory(proc.pid)
            if used > proc.rss_cap:
                procs.kill_pids(pids)  # those that left its session and group too
                return _Failure("memory", f"the plugin's processes used {used >> 20} MiB, over "
                                f"the {self.memory_mb} MiB limit (a cap of "
                                f"{proc.rss_cap >> 20} MiB with what they held at the start)")
        if proc.popen.poll() is not None and proc.stdout_open:
            # The leader is gone but something still holds its stdout: read what is left.
            self._poll_once(proc, memoryview(b""), 0.05)
            if b"\n" not in proc.buffer:
                return _Failure("crash", self._exit_message(proc))
        return None

    def _exit_message(self, proc: _Proc) -> str:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.popen.wait(timeout=0.5)
        code = proc.popen.returncode
        if code is None:
            return "the child closed its stdout without replying"
        if code < 0:
            return f"the child was killed by signal {-code} before replying"
        return f"the child exited with status {code} before replying"

    def _drain_stderr(self, proc: _Proc, wait: float) -> None:
        if not proc.stderr_open:
            time.sleep(wait)
            return
        ready, _, _ = select.select([proc.stderr], [], [], wait)
        if ready:
            chunk = _read_some(proc.stderr)
            proc.stderr_open = bool(chunk)
            proc.keep_stderr(chunk)


def _tree_memory(pid: int) -> tuple[int, list[int]]:
    """The memory of the child's whole tree: its session and group, every descendant, and the
    orphans this process adopted from it (see chunk_contract.containment.procs.tree)."""
    return procs.tree_memory(pid, adopter=reaper.adopter(), known=set(reaper.registered()))


def _write_some(fd: int, pending: memoryview) -> memoryview:
    """Write what the pipe takes now; the rest is still pending."""
    try:
        written = os.write(fd, pending)
    except BlockingIOError:
        return pending
    except OSError:  # the child closed its stdin: its missing reply says the rest
        return memoryview(b"")
    return pending[written:]


def _read_some(fd: int) -> bytes:
    """Read what a readable pipe holds (b"" at its end, or if it broke)."""
    try:
        return os.read(fd, _READ)
    except OSError:
        return b""


def _before_exec(procs_file: str | None) -> Any:
    """What the child runs between fork and exec: joins its cgroup (if it has one), then puts
    the host and its ancestors out of its reach (chunk_contract.containment.sandbox)."""
    shield = sandbox.prepare(sandbox.ancestors(os.getpid()))

    def before_exec() -> None:
        if procs_file is not None:
            with open(procs_file, "w") as handle:
                handle.write("0\n")
        shield()

    return before_exec


def _positive(name: str, value: float) -> float:
    if not value > 0:
        raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
    return float(value)
