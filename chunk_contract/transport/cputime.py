"""CPU time of a plugin's process tree, read by the host from ``/proc``: a plugin cannot rewrite
it (it may replace its own process's clock functions, never the kernel's accounting).

``/proc/PID/stat`` counts in clock ticks (10 ms) but sees everything: every thread, living or
exited, the children the process reaped, and (read for each) every live descendant. A process
that left the tree (a daemon, reparented to init) is not seen. The threads'
``se.sum_exec_runtime`` (``/proc/PID/task/*/sched``) counts in microseconds but misses
threads that exited. :func:`spent` keeps the fine count when both agree within their
resolution, else the complete one, so a plugin that hides work in short-lived threads or
children is still charged for it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from chunk_contract.containment import procs

__all__ = ["Reading", "read", "spent"]

_TICK = 1.0 / (os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100)
_OWN = (11, 12)  # utime, stime: the process itself, all its threads
_REAPED = (13, 14)  # cutime, cstime: the children it waited for


@dataclass(frozen=True)
class Reading:
    """CPU seconds of a group at one instant: all of it in ticks, the leader's own in ticks,
    and the leader's live threads in microseconds (None where the kernel does not say)."""

    group: float
    leader: float
    threads: float | None


def read(leader: int) -> Reading:
    """CPU seconds of ``leader`` and its descendants so far (the children it reaped included).

    The descendants are found through ``/proc/PID/task/TID/children``, a walk of the tree
    only; where the kernel does not list children, every process of the group is found by a
    scan of ``/proc`` (milliseconds on a busy machine, twice a call)."""
    fields = procs.stat(leader)
    own = 0.0 if fields is None else sum(int(fields[i]) for i in _OWN) * _TICK
    tree = _tree(leader)
    if tree is None:
        group = procs.session_cpu_seconds(leader)
    else:
        group = sum(_ticks(pid) for pid in tree) * _TICK
    return Reading(group, own, _threads(leader))


def spent(before: Reading, after: Reading) -> float:
    """CPU seconds between two readings of one group: the leader's fine count where it agrees
    with its ticks (two ticks of slack), the ticks everywhere else."""
    coarse = max(0.0, after.group - before.group)
    if before.threads is None or after.threads is None:
        return coarse
    fine = after.threads - before.threads
    ticks = after.leader - before.leader
    if fine < 0 or abs(fine - ticks) > 2 * _TICK:
        return coarse
    return max(0.0, coarse - ticks + fine)


def _threads(pid: int) -> float | None:
    """Seconds the live threads of ``pid`` ran (``se.sum_exec_runtime``, in ms), or None."""
    total = 0.0
    try:
        names = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for name in names:
        value = _runtime(f"/proc/{pid}/task/{name}/sched")
        if value is None:
            return None
        total += value
    return total


def _runtime(path: str) -> float | None:
    try:
        with open(path, "rb") as handle:
            text = handle.read(8192)
    except OSError:
        return None
    at = text.find(b"se.sum_exec_runtime")
    if at < 0:
        return None
    line = text[at : text.find(b"\n", at)]
    try:
        return float(line.rsplit(b":", 1)[1]) / 1000.0
    except (IndexError, ValueError):
        return None


def _ticks(pid: int) -> int:
    fields = procs.stat(pid)
    if fields is None:
        return 0
    return sum(int(fields[i]) for i in (*_OWN, *_REAPED))


def _tree(leader: int) -> list[int] | None:
    """``leader`` and its live descendants, or None where /proc does not list children."""
    if not os.path.exists(f"/proc/{leader}/task/{leader}/children"):
        return None if os.path.exists(f"/proc/{leader}") else [leader]
    found, pending = [], [leader]
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending.extend(_children(pid))
    return found


def _children(pid: int) -> list[int]:
    """The children of every thread of ``pid`` (none once it is gone)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as handle:
                found.extend(int(x) for x in handle.read().split())
        except (OSError, ValueError):
            continue  # the thread ended meanwhile
    return found
