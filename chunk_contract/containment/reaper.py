"""One registry of the run's live descendants, and the signals that stop them all.

Every process group a run starts is registered here: each ``-n`` pool process (it leads its own
group), each fresh interpreter of the ``deterministic`` rerun (its own session), and each
worker group (``chunk_contract.containment.worker`` calls :func:`register` / :func:`unregister`).
The group's
id is its leader's pid, so one ``killpg`` reaches the leader and everything it started that
stayed in its group (a plugin's ``sleep 1000`` grandchild included).

:func:`kill_all` SIGKILLs every registered group; it runs at exit (atexit) and on SIGINT,
SIGTERM and SIGHUP while :func:`handling_signals` is active, which then raises
:class:`Interrupted` in the main thread so the run can end with a report marked interrupted.

A forked child starts with an empty registry (its parent's groups are not its to kill).
Containment is by process groups, not cgroups: a cgroup v2 hierarchy is not writable on every
machine this runs on (this one mounts cgroup v1), and groups plus PR_SET_PDEATHSIG cover the
processes a run starts.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType

from chunk_contract.containment import procs

#: The signals that interrupt a run.
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_DUMPABLE = 4
#: Rounds of :func:`kill_adopted` (each kills what the last one's victims had started).
ADOPTED_ROUNDS = 50
#: Seconds a group that cleans up after itself (``tidy``) gets between SIGTERM and SIGKILL.
GRACE = 0.2
_GROUPS: dict[int, str] = {}
_TIDY: set[int] = set()
_STATE = {"interrupted": "", "adopting": ""}
#: Children this process had before it began to adopt: not started by the run, never killed.
_SPARED: set[int] = set()


class Interrupted(BaseException):
    """The run was told to stop (a signal): descendants are dead, end with what was found.

    A BaseException, so plugin-facing ``except Exception`` code and Hypothesis let it through.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def register(pgid: int, what: str = "process group", *, tidy: bool = False) -> None:
    """Remembers the process group ``pgid`` (its leader's pid) as a live descendant.

    ``tidy``: the leader kills its own registered descendants on SIGTERM (a ``-n`` process,
    whose workers lead groups of their own), so it gets SIGTERM and GRACE seconds first.
    """
    _GROUPS[pgid] = what
    if tidy:
        _TIDY.add(pgid)


def unregister(pgid: int) -> None:
    """Forgets ``pgid`` (it was stopped and reaped by its owner); unknown ids are ignored."""
    _GROUPS.pop(pgid, None)
    _TIDY.discard(pgid)


def registered() -> dict[int, str]:
    """A copy of the live registry: pgid -> what it is."""
    return dict(_GROUPS)


def tree_cpu_seconds() -> float:
    """User + system CPU seconds of this process and what it started so far: itself, the
    children it reaped (``os.times``), and every registered live child (the worker, an
    ``exec:`` child, the fresh interpreter, a ``-n`` process; ``/proc``, with what each reaped
    in turn). The difference of two readings is what a stretch of work cost the host and its
    workers together, whether a worker was restarted in between or not. Only registered
    children are read, never the whole process table: a shared machine has hundreds."""
    own = os.times()
    return own.user + own.system + started_cpu_seconds(own)


def started_cpu_seconds(own: os.times_result | None = None) -> float:
    """The part of :func:`tree_cpu_seconds` that is not this process's own: the children it
    reaped and every registered live child (``own``: a reading of ``os.times`` to use)."""
    own = own or os.times()
    seconds = own.children_user + own.children_system
    return seconds + procs.ticks_to_seconds(sum(procs.cpu_ticks(pid) for pid in list(_GROUPS)))


def kill_all() -> int:
    """SIGKILLs every registered group (tidy ones after a SIGTERM and GRACE s) and forgets
    them; returns how many."""
    groups, tidy = list(_GROUPS), [g for g in _GROUPS if g in _TIDY]
    _GROUPS.clear()
    _TIDY.clear()
    for pgid in tidy:
        kill_group(pgid, signal.SIGTERM)
    if tidy:
        time.sleep(GRACE)
    for pgid in groups:
        kill_group(pgid)
    return len(groups)


def kill_group(pgid: int, signum: int = signal.SIGKILL) -> None:
    """Signals the group ``pgid``, or its leader alone while it has not made the group yet."""
    if pgid <= 1 or pgid == os.getpgrp():
        return  # never our own group or init's: the owner registered a wrong id
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        with contextlib.suppress(OSError):
            os.kill(pgid, signum)
    except OSError:
        pass


@functools.cache
def prctl() -> Callable[..., int] | None:
    """libc's prctl on Linux (an int option, then four unsigned longs), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        call = ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None
    call.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    call.restype = ctypes.c_int
    return call


def undumpable() -> bool:
    """Makes this process non-dumpable (Linux PR_SET_DUMPABLE 0): its ``/proc/PID/mem``,
    ``/proc/PID/fd`` and the like then need CAP_SYS_PTRACE, which no plugin process has, even
    as the same user (see chunk_contract.containment.sandbox). Its forks inherit it; an ``exec``
    resets it. Called by every process that starts plugin code (the host, each ``-n``
    process). Returns False where that is not available."""
    call = prctl()
    return call is not None and call(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0


def dumpable() -> bool:
    """Makes this process dumpable again (a worker, whose memory is the plugin's own, so the
    host can read its proportional memory in ``/proc/PID/smaps_rollup``); False if not."""
    call = prctl()
    return call is not None and call(_PR_SET_DUMPABLE, 1, 0, 0, 0) == 0


def die_with_parent(signum: int, parent_pid: int) -> bool:
    """Asks the kernel to send ``signum`` when the parent dies (Linux PR_SET_PDEATHSIG).

    Returns False where that is not available. If the parent is already gone, sends the signal
    at once, so no descendant outlives a parent that died before this call.
    """
    call = prctl()
    armed = call is not None and call(_PR_SET_PDEATHSIG, int(signum), 0, 0, 0) == 0
    if os.getppid() != parent_pid:
        os.kill(os.getpid(), signum)
    return armed


def adopt_orphans() -> bool:
    """Makes this process the subreaper of its descendants (Linux PR_SET_CHILD_SUBREAPER): a
    process the plugin started that left every group and session (``setsid``, a daemon whose
    parent exited) becomes this process's child instead of init's, and :func:`kill_adopted`
    kills it at exit. For a process that is the run (the command line): at its exit, any
    child it still has is one the run started. Returns False where that is not available."""
    call = prctl()
    if call is None or call(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        return False
    _SPARED.update(pid for pid, _ in procs.children(os.getpid()))  # not the run's children
    if not _STATE["adopting"]:
        atexit.register(kill_adopted)  # after kill_all's registration, so it runs first
    _STATE["adopting"] = str(os.getpid())
    return True


def adopter() -> int | None:
    """This process's pid if it adopts orphans (:func:`adopt_orphans`), else None."""
    pid = os.getpid()
    return pid if _STATE["adopting"] == str(pid) else None


def kill_adopted() -> int:
    """After :func:`kill_all`, SIGKILLs every child this process still has, and the groups they
    lead, until none is left (ADOPTED_ROUNDS at most); returns how many. Only in the process
    that called :func:`adopt_orphans` (never in a forked child), and never a child it already
    had when it called it. The front doors call it before writing reports too, so nothing the
    plugin left behind can touch them."""
    kill_all()
    if _STATE["adopting"] != str(os.getpid()):
        return 0
    killed: set[int] = set()
    for _ in range(ADOPTED_ROUNDS):
        children = [c for c in procs.children(os.getpid()) if c[0] not in _SPARED]
        if not children:
            break
        for pid, zombie in children:
            _kill_child(pid, zombie)
            killed.add(pid)
        time.sleep(0.01)
    return len(killed)


def _kill_child(pid: int, zombie: bool) -> None:
    """Kills a live child (and the group it leads); reaps a dead one."""
    if not zombie:
        kill_group(pid)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.waitpid(pid, os.WNOHANG)


def interrupted() -> str:
    """Why the run was interrupted ("" if it was not), e.g. ``"SIGTERM"``."""
    return _STATE["interrupted"]


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """Kills every descendant; the first time, raises Interrupted in the main thread."""
    kill_all()
    if _STATE["interrupted"]:
        return  # already unwinding: a second signal only kills again
    _STATE["interrupted"] = signal.Signals(signum).name
    raise Interrupted(f"interrupted by {_STATE['interrupted']}")


@contextlib.contextmanager
def handling_signals() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP kill every descendant and raise Interrupted, inside the block.

    The previous handlers come back afterwards. Outside the main thread (where Python cannot
    install handlers) it only kills the registered groups at the end.
    """
    if threading.current_thread() is not threading.main_thread():
        try:
            yield
        finally:
            kill_all()
        return
    previous = {s: signal.signal(s, _on_signal) for s in SIGNALS}
    _STATE["interrupted"] = ""
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        kill_all()


@contextlib.contextmanager
def signals_blocked() -> Iterator[None]:
    """Defers SIGINT/SIGTERM/SIGHUP for a start-and-register step, so none is missed.

    A process started inside the block inherits the blocked mask (across exec too): it must
    unblock them itself, first thing.
    """
    old = signal.pthread_sigmask(signal.SIG_BLOCK, set(SIGNALS))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _forget_after_fork() -> None:
    """A forked child owns none of its parent's groups."""
    _GROUPS.clear()
    _TIDY.clear()
    _STATE["interrupted"] = ""
    _STATE["adopting"] = ""  # the attribute is not inherited, and these children are not ours
    _SPARED.clear()


os.register_at_fork(after_in_child=_forget_after_fork)
atexit.register(kill_all)
