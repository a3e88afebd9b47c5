"""CPU time of a process tree read from /proc by another process (chunk_contract.transport.cputime):
what the scaling probe charges a plugin, whatever the plugin does to its own clocks."""

from __future__ import annotations

import os
import sys
import time

import pytest

from chunk_contract.transport import cputime

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _burn(seconds: float) -> None:
    started = time.process_time()
    while time.process_time() - started < seconds:
        pass


def _measured(work: str) -> float:
    """CPU seconds a forked child spends on ``work`` (itself, or a grandchild it waits for),
    read from outside."""
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.read(go_r, 1)
        if work == "itself":
            _burn(0.3)
        else:
            kid = os.fork()
            if kid == 0:
                _burn(0.3)
                os._exit(0)
            os.waitpid(kid, 0)
        os.write(done_w, b"x")
        os.read(ready_r, 1)  # stay alive until read
        os._exit(0)
    before = cputime.read(pid)
    os.write(go_w, b"x")
    os.read(done_r, 1)
    taken = cputime.spent(before, cputime.read(pid))
    os.write(ready_w, b"x")
    os.waitpid(pid, 0)
    return taken


@pytest.mark.parametrize("work", ["itself", "reaped"])
def test_cpu_time_is_read_from_outside_the_process(work: str) -> None:
    assert 0.25 <= _measured(work) <= 2.0
