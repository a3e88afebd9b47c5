"""chunk_contract.containment.pipes: a child's pipes are read without trusting their other ends."""

from __future__ import annotations

import subprocess
import sys
import time

from chunk_contract.containment import pipes


def _child(code: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,
    )


def test_input_and_both_outputs_cross_whole_in_any_order() -> None:
    """The child writes 1 MiB to stderr before it reads its 2 MiB of input (a blocking write of
    the input would deadlock), then echoes the input."""
    data = bytes(range(256)) * 8192
    child = _child(
        "import sys\n"
        "sys.stderr.buffer.write(b'e' * 2**20); sys.stderr.flush()\n"
        "sys.stdout.buffer.write(sys.stdin.buffer.read())\n"
    )
    done = pipes.exchange(child, data, deadline=60)
    assert not done.timed_out
    assert done.out == data and done.err == b"e" * 2**20
    assert child.returncode == 0


def test_a_grandchild_holding_the_outputs_does_not_keep_the_reader_waiting() -> None:
    """The child exits at once; the ``sleep`` it left in a session of its own holds stdout and
    stderr for 1000 s. Before the fix the read waited for it (communicate())."""
    child = _child(
        "import subprocess, sys\n"
        "holder = subprocess.Popen(['sleep', '1000'], start_new_session=True)\n"
        "print(holder.pid, flush=True)\n"
    )
    started = time.monotonic()
    done = pipes.exchange(child, b"", deadline=60)
    try:
        assert not done.timed_out and child.returncode == 0
        assert time.monotonic() - started < 30  # the deadline was 60 s, the holder's 1000 s
    finally:
        subprocess.run(["kill", "-9", done.out.decode().strip()], check=False)


def test_a_child_that_outlives_its_deadline_is_timed_out_not_killed() -> None:
    """Its outputs end at once (it closes them), but it does not exit: the deadline decides.
    The test waits for it to get there first, so a slow start on a busy machine cannot count."""
    child = _child("import os, sys, time\nsys.stdout.write('ready'); sys.stdout.flush()\n"
                   "os.close(1); os.close(2); time.sleep(1000)\n")
    try:
        assert child.stdout is not None and child.stdout.read(5) == b"ready"
        done = pipes.exchange(child, b"x", deadline=0.5)
        assert done.timed_out and done.out == b""
        assert child.poll() is None  # still running: the caller kills it
    finally:
        child.kill()
        child.wait()
