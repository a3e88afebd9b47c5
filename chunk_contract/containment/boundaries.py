"""Which of the boundaries around plugin code this machine enforces (see docs/threat-model.md).

:func:`unenforced` asks once, in a forked child (a seccomp filter cannot be removed), whether
the filter goes in and every capability goes out; :func:`warnings` turns each boundary that is
not enforced into one health-check style line: what is missing, why it matters, how to fix it.
The command line prints them once per run, on stderr.
"""

from __future__ import annotations

import functools
import os
import sys

from chunk_contract.containment import reaper, sandbox

#: Boundary -> (why it matters, how to fix), for the lines of :func:`warnings`.
_TEXTS = {
    "seccomp": (
        "a plugin may signal, trace or re-limit the host (kill, ptrace, F_SETOWN)",
        "run on Linux x86-64 or AArch64 with seccomp enabled",
    ),
    "dumpable": (
        "a plugin running as the same user may open the host's /proc/PID/mem and fd",
        "run on Linux, where the host makes itself non-dumpable",
    ),
    "capabilities": (
        "a plugin running as root keeps CAP_SYS_PTRACE, CAP_KILL and CAP_DAC_OVERRIDE",
        "run as an ordinary user, or where capset and PR_CAPBSET_DROP are allowed",
    ),
    "tree memory": (
        "the memory cap holds per process only (RLIMIT_AS): a plugin's children are not summed",
        "run on Linux, where /proc lists the plugin's process tree",
    ),
}


def warnings() -> list[str]:
    """One line per boundary this machine does not enforce ([] where all hold)."""
    return [
        f"warning: {name} boundary not enforced on this machine: {why}; fix: {fix}"
        for name, (why, fix) in _TEXTS.items()
        if name in unenforced()
    ]


@functools.cache
def unenforced() -> frozenset[str]:
    """The names (keys of _TEXTS) of the boundaries this machine cannot enforce."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return frozenset(_TEXTS)
    missing = set(_probe())
    if reaper.prctl() is None:
        missing.add("dumpable")
    if not os.path.exists("/proc/self/stat"):
        missing.add("tree memory")
    return frozenset(missing)


def _probe() -> list[str]:
    """In a forked child: shield it as a plugin's process is shielded; what did not hold."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os._exit(_shielded_code())
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return [name for bit, name in ((1, "seccomp"), (2, "capabilities")) if code < 0 or code & bit]


def _shielded_code() -> int:
    """Bit 1: the filter did not go in; bit 2: capabilities are left (as root)."""
    try:
        code = 0 if sandbox.shield([]) else 1
        caps = sandbox.capabilities()
        if os.geteuid() == 0 and (caps is None or caps != (0, 0)):
            code |= 2
        return code
    except BaseException:
        return 3
