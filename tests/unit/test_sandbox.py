"""chunk_contract.containment.sandbox: the seccomp filter that keeps plugin processes off their
ancestors.

Each check runs in a forked child (a filter cannot be removed), against decoy ``sleep``
processes standing in for the host; signal 0 asks the kernel's permission without sending
anything, so a missing filter harms nobody.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest

from chunk_contract.containment import sandbox
from tests.unit.helpers import NO_SHIELD, shield_works

needs_shield = pytest.mark.skipif(not shield_works(), reason=NO_SHIELD)


@pytest.fixture
def decoys() -> Iterator[tuple[int, int]]:
    """Two sleepers: one to protect, one to leave alone."""
    started = [subprocess.Popen(["sleep", "60"]) for _ in range(2)]
    yield started[0].pid, started[1].pid
    for process in started:
        process.kill()
        process.wait()


def _in_child(body: Callable[[], object]) -> object:
    """``body()``'s JSON-able result, computed in a forked child."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            os.write(write, json.dumps(body()).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def _may_signal(pid: int) -> str:
    try:
        os.kill(pid, 0)
    except PermissionError:
        return "refused"
    except ProcessLookupError:
        return "no such process"
    return "allowed"


@needs_shield
def test_a_protected_pid_cannot_be_signalled_and_others_can(decoys: tuple[int, int]) -> None:
    guarded, other = decoys

    def body() -> object:
        return [sandbox.shield([guarded]), _may_signal(guarded), _may_signal(other),
                _may_signal(-1), _may_signal(0)]

    assert _in_child(body) == [True, "refused", "allowed", "refused", "allowed"]


@needs_shield
def test_the_filter_holds_in_programs_the_plugin_executes(decoys: tuple[int, int]) -> None:
    guarded, other = decoys

    def body() -> object:
        sandbox.shield([guarded])
        kill = [sys.executable, "-c", "import os, sys; os.kill(int(sys.argv[1]), 0)"]
        return [subprocess.run([*kill, str(p)], capture_output=True, check=False).returncode
                for p in (guarded, other)]

    assert _in_child(body) == [1, 0]


@needs_shield
def test_tracing_is_refused_whoever_the_target(decoys: tuple[int, int]) -> None:
    _, other = decoys

    def body() -> object:
        sandbox.shield([])
        libc = ctypes.CDLL(None, use_errno=True)
        refused = libc.ptrace(16, other, 0, 0) == -1 and ctypes.get_errno() == 1  # ATTACH
        return refused

    assert _in_child(body) is True


@needs_shield
def test_the_default_protects_the_parent_and_its_group() -> None:
    parent, group = os.getpid(), os.getpgrp()

    def body() -> object:
        shielded = sandbox.shield()
        return [shielded, _may_signal(parent), _may_signal(-group)]

    assert _in_child(body) == [True, "refused", "refused"]


def test_ancestors_and_protected_values() -> None:
    chain = sandbox.ancestors()
    assert chain[0] == os.getppid() and chain[-1] == 1
    assert sandbox.ancestors(os.getpid())[:2] == [os.getpid(), os.getppid()]
    values = sandbox.protected([os.getpid()])
    assert values == sorted({-1, os.getpid(), -os.getpgrp()})


def test_every_jump_of_the_program_lands_inside_it() -> None:
    program = sandbox.filter_program(list(range(sandbox.MAX_PROTECTED)))
    assert program is not None
    for pc, (code, jt, jf, _) in enumerate(program):
        if code & 0x07 == 0x05:  # BPF_JMP
            assert pc + 1 + max(jt, jf) < len(program)
    assert program[-1][3] & 0xFFFF0000 == 0x00050000  # the last instruction refuses


def _owner_calls() -> dict[str, str]:
    """Each way of making another process the owner of a descriptor: refused or allowed."""
    import fcntl
    import socket

    found = {}
    libc = ctypes.CDLL(None, use_errno=True)
    sockets = socket.socketpair()
    fd, parent = sockets[0].fileno(), os.getppid()
    owner = ctypes.c_int(parent)
    calls = {
        "F_SETOWN": lambda: libc.fcntl(fd, 8, parent),
        "F_SETSIG": lambda: libc.fcntl(fd, 10, 9),
        "F_SETOWN_EX": lambda: libc.fcntl(fd, 15, ctypes.byref((ctypes.c_int * 2)(1, parent))),
        "FIOSETOWN": lambda: libc.ioctl(fd, 0x8901, ctypes.byref(owner)),
        "SIOCSPGRP": lambda: libc.ioctl(fd, 0x8902, ctypes.byref(owner)),
        "F_SETFL": lambda: libc.fcntl(fd, 4, fcntl.fcntl(fd, fcntl.F_GETFL)),
    }
    for name, call in calls.items():
        result = call()
        found[name] = "refused" if result == -1 and ctypes.get_errno() == 1 else "allowed"
    return found


@needs_shield
def test_no_descriptor_can_name_a_signal_owner() -> None:
    """F_SETOWN, F_SETOWN_EX, F_SETSIG, FIOSETOWN and SIOCSPGRP would have the kernel signal
    the host (SIGIO, or SIGKILL through F_SETSIG) for the plugin; other fcntl calls work."""

    def body() -> object:
        before = _owner_calls()
        sandbox.shield([])
        return [before, _owner_calls()]

    before, after = _in_child(body)  # type: ignore[misc]
    assert set(before.values()) == {"allowed"}, before  # the calls work without the filter
    assert after == {name: "allowed" if name == "F_SETFL" else "refused" for name in after}
