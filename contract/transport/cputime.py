"""CPU time of a plugin's process tree, read by the host from ``/proc``: a plugin cannot rewrite
it (it may replace its own process's clock functions, never the kernel's accounting).

``/proc/PID/stat`` counts in clock ticks (10 ms) but sees everything: every thread, living or
exited, the children the process reaped, and every other process of its group. The threads'
``se.sum_exec_runtime`` (``/proc/PID/task/*/sched``) counts in microseconds but misses
threads that exited. :func:`spent` keeps the fine count when both agree within their
resolution, else the complete one, so a plugin that hides work in short-lived threads or
children is still charged for it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from contract.containment import procs

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
    """CPU seconds of ``leader``'s process group (or session) so far."""
    group = procs.session_cpu_seconds(leader)
    fields = procs.stat(leader)
    own = 0.0 if fields is None else sum(int(fields[i]) for i in _OWN) * _TICK
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
