"""A seccomp filter that keeps a plugin's hands off the processes that run it.

A worker runs as the same user as the host, so without more a plugin could ``kill(getppid(),
SIGSTOP)`` and hang the gate for ever (SIGSTOP cannot be caught), SIGKILL it before it writes
its report, or ``ptrace`` it and run code inside it. :func:`shield` installs, in the process
that is about to run plugin code (a forked worker, the fresh interpreter of ``deterministic``,
an ``exec:`` child before its ``exec``), a seccomp-BPF filter that every process it starts
inherits and none can remove:

- ``kill``, ``tgkill``, ``rt_sigqueueinfo``, ``rt_tgsigqueueinfo``, ``pidfd_open`` and
  ``prlimit64`` fail with EPERM when aimed at a protected process: the host and every ancestor
  (by pid), their process groups (``kill(-pgid)``), and everyone (``kill(-1)``). A plugin may
  still signal its own processes, its own group (``kill(0)``), and anything else.
- ``ptrace``, ``process_vm_readv``/``process_vm_writev``, ``tkill``, ``pidfd_send_signal``
  and ``pidfd_getfd`` always fail with EPERM (a pidfd can come from opening ``/proc/PID``,
  which a filter cannot see; no chunker needs these), and so does ``ioctl(TIOCSTI)``, which
  types into a terminal.
- Signals the kernel sends on a process's behalf: ``fcntl`` ``F_SETOWN``, ``F_SETOWN_EX`` and
  ``F_SETSIG`` and the ``FIOSETOWN``/``SIOCSPGRP`` ioctls fail with EPERM whatever the
  descriptor, so a plugin cannot name the host as the owner of a descriptor it controls and
  have SIGIO (or SIGKILL, SIGSTOP through F_SETSIG) delivered to it.
- System calls of another ABI (32-bit ``int 0x80``, x32) fail with EPERM, so the filter cannot
  be stepped around.

Linux on x86-64 and AArch64 only; elsewhere, or where the kernel refuses the filter, nothing is
installed and :func:`shield` returns False (the group kills and the bounded reads still hold).
``PR_SET_NO_NEW_PRIVS`` is set with it: a plugin cannot gain privileges through a set-uid
program.

Capabilities: a plugin that runs as root (CI containers) loses every capability first: the
bounding set is emptied (``PR_CAPBSET_DROP``, so no program it executes gets any back), the
ambient set cleared, and the effective, permitted and inheritable sets zeroed (``capset``).
Without CAP_SYS_PTRACE it cannot open ``/proc/HOST/mem`` or ``/proc/HOST/fd`` of a host made
non-dumpable (:func:`chunk_contract.containment.reaper.undumpable`); without CAP_KILL it cannot
signal other users' processes; without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, files are
checked by their owner and mode (root still owns most of them: see docs/threat-model.md).
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys
from collections.abc import Callable, Iterable

from chunk_contract.containment import procs, reaper

_PR_SET_NO_NEW_PRIVS = 38
_PR_CAPBSET_DROP = 24
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAP_VERSION_3 = 0x20080522
#: Capability numbers tried when emptying the bounding set (the kernel knows about 41).
_CAP_COUNT = 64
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_RET_ALLOW = 0x7FFF0000
_RET_EPERM = 0x00050000 | 1
_LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24  # offsets in struct seccomp_data (low words of args)
_X32_BIT = 0x40000000
_TIOCSTI = 0x5412
#: ioctl requests refused: typing into a terminal, and making a process the owner of a socket
#: (FIOSETOWN, SIOCSPGRP), which the kernel then signals (SIGIO or SIGURG) on its behalf.
REFUSED_IOCTLS = (_TIOCSTI, 0x8901, 0x8902)
#: fcntl commands refused: F_SETOWN, F_SETSIG and F_SETOWN_EX make the kernel send a signal
#: of the plugin's choosing (SIGSTOP, SIGKILL) to a process of its choosing when a descriptor
#: it owns becomes ready: a kill() by another route. No chunker needs them.
REFUSED_FCNTLS = (8, 10, 15)
#: Protected values at most (each is one instruction; BPF jumps reach 255 instructions).
MAX_PROTECTED = 200

#: One BPF instruction: (code, jump if true, jump if false, constant).
Instruction = tuple[int, int, int, int]
#: machine -> (audit arch, {name: number}).
_ABIS = {
    "x86_64": (0xC000003E, {
        "kill": 62, "tgkill": 234, "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297,
        "pidfd_open": 434, "prlimit64": 302, "ptrace": 101, "process_vm_readv": 310,
        "process_vm_writev": 311, "tkill": 200, "pidfd_send_signal": 424, "pidfd_getfd": 438,
        "ioctl": 16, "fcntl": 72,
    }),
    "aarch64": (0xC00000B7, {
        "kill": 129, "tgkill": 131, "rt_sigqueueinfo": 138, "rt_tgsigqueueinfo": 240,
        "pidfd_open": 434, "prlimit64": 261, "ptrace": 117, "process_vm_readv": 270,
        "process_vm_writev": 271, "tkill": 130, "pidfd_send_signal": 424, "pidfd_getfd": 438,
        "ioctl": 29, "fcntl": 25,
    }),
}
#: Refused whatever their arguments.
ALWAYS = ("ptrace", "process_vm_readv", "process_vm_writev", "tkill", "pidfd_send_signal",
          "pidfd_getfd")
#: Refused when their first argument is a protected pid, -pgid or -1.
AIMED = ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open", "prlimit64")


def ancestors(pid: int | None = None) -> list[int]:
    """``pid`` (default: this process's parent) and every ancestor up to init, from /proc."""
    chain, current = [], os.getppid() if pid is None else pid
    while current > 0 and current not in chain:
        chain.append(current)
        current = _field(current, 1)
    return chain


def protected(pids: Iterable[int]) -> list[int]:
    """The first arguments to refuse for ``pids``: each pid, minus its process group, and -1."""
    values = {-1}
    for pid in pids:
        values.add(pid)
        group = _field(pid, 2)
        if group > 0:
            values.add(-group)
    return sorted(values)[:MAX_PROTECTED]


def shield(pids: Iterable[int] | None = None) -> bool:
    """Installs the filter that protects ``pids`` (default: :func:`ancestors`) from this process
    and everything it starts; True if it is in place."""
    return prepare(ancestors() if pids is None else pids)()


def prepare(pids: Iterable[int]) -> Callable[[], bool]:
    """The filter for ``pids``, built now; the returned call only installs it (two prctl calls,
    safe between fork and exec: an ``exec:`` child's ``preexec_fn``)."""
    program = filter_program(protected(pids))
    prctl = reaper.prctl()
    if program is None or prctl is None:
        return lambda: False
    drop = capability_dropper()
    code = b"".join(struct.pack("HBBI", *instruction) for instruction in program)
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = ctypes.create_string_buffer(struct.pack("HxxxxxxP", len(program),
                                                    ctypes.addressof(buffer)), 16)

    def install(_keep: object = (buffer, fprog)) -> bool:  # the buffers live as long as it
        drop()
        if prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0) == 0

    return install


def capability_dropper() -> Callable[[], bool]:
    """The call that drops every capability of the calling process for good (see the module
    doc), built now (safe between fork and exec); it returns True when none is left."""
    prctl, capset = reaper.prctl(), _libc_call("capset")
    if prctl is None or capset is None:
        return lambda: False
    header = ctypes.create_string_buffer(struct.pack("Ii", _CAP_VERSION_3, 0), 8)
    data = ctypes.create_string_buffer(bytes(24), 24)  # two of {effective, permitted, inheritable}

    def drop(_keep: object = (header, data)) -> bool:
        for cap in range(_CAP_COUNT):
            prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)  # EINVAL past the last one, EPERM unprivileged
        prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
        return capset(ctypes.addressof(header), ctypes.addressof(data)) == 0

    return drop


def capabilities() -> tuple[int, int] | None:
    """This process's effective and bounding capability masks (Linux /proc), or None."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            found = dict(line.split(":", 1) for line in status if line.startswith("Cap"))
    except (OSError, ValueError):
        return None
    try:
        return int(found["CapEff"], 16), int(found["CapBnd"], 16)
    except (KeyError, ValueError):
        return None


def _libc_call(name: str) -> Callable[..., int] | None:
    """libc's ``name`` taking two pointers (Linux), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        call = getattr(ctypes.CDLL(None, use_errno=True), name)
    except (OSError, AttributeError):
        return None
    call.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    call.restype = ctypes.c_int
    return call


def filter_program(values: list[int]) -> list[Instruction] | None:
    """The BPF instructions (code, jt, jf, k) for this machine, or None if it has no table."""
    abi = _ABIS.get(platform.machine()) if sys.platform.startswith("linux") else None
    if abi is None:
        return None
    arch, numbers = abi
    allow, deny = (_RET, 0, 0, _RET_ALLOW), (_RET, 0, 0, _RET_EPERM)
    return _resolve([
        (_LD_ABS, 0, 0, _ARCH), (_JEQ, 1, 0, arch), deny,  # another ABI
        (_LD_ABS, 0, 0, _NR), (_JGE, "deny", 0, _X32_BIT),  # the x32 ABI
        *[(_JEQ, "deny", 0, numbers[name]) for name in ALWAYS],
        *[(_JEQ, "aimed", 0, numbers[name]) for name in AIMED],
        (_JEQ, "ioctl", 0, numbers["ioctl"]),
        (_JEQ, "fcntl", 0, numbers["fcntl"]),
        allow,
        "ioctl", (_LD_ABS, 0, 0, _ARG1), *[(_JEQ, "deny", 0, v) for v in REFUSED_IOCTLS], allow,
        "fcntl", (_LD_ABS, 0, 0, _ARG1), *[(_JEQ, "deny", 0, v) for v in REFUSED_FCNTLS], allow,
        "aimed", (_LD_ABS, 0, 0, _ARG0), *[(_JEQ, "deny", 0, v & 0xFFFFFFFF) for v in values],
        allow,
        "deny", deny,
    ])


def _resolve(program: list[tuple[int, int | str, int, int] | str]) -> list[Instruction]:
    """Instructions with their jump-if-true labels turned into offsets; labels dropped."""
    labels: dict[str, int] = {}
    pc = 0
    for item in program:
        if isinstance(item, str):
            labels[item] = pc
        else:
            pc += 1
    out: list[Instruction] = []
    for item in program:
        if not isinstance(item, str):
            code, jt, jf, k = item
            offset = labels[jt] - len(out) - 1 if isinstance(jt, str) else jt
            assert 0 <= offset <= 255, "a BPF jump reaches 255 instructions"
            out.append((code, offset, jf, k))
    return out


def _field(pid: int, index: int) -> int:
    """An integer field of /proc/PID/stat after the command name (1 ppid, 2 pgrp), or 0."""
    fields = procs.stat(pid)
    return int(fields[index]) if fields is not None and fields[index].lstrip("-").isdigit() else 0
