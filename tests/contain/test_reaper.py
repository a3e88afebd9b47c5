"""The registry of live descendants: kill_all, signal handling, fork, -n limits, exit status."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from chunk_contract.containment import reaper
from chunk_contract.engine import parallel
from chunk_contract.engine.runner import InvariantResult, RunResult
from chunk_contract.reporting.json_report import report_json
from chunk_contract.reporting.markdown import render_markdown
from chunk_contract.reporting.text import render
from tests.unit.helpers import running


def _sleeper() -> subprocess.Popen[bytes]:
    """``sleep 60`` leading a group of its own, with a child of its own in that group."""
    return subprocess.Popen(["sh", "-c", "sleep 60 & wait"], start_new_session=True)


def _gone(process: subprocess.Popen[bytes]) -> bool:
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        return False
    return True


def test_kill_all_kills_every_registered_group() -> None:
    process = _sleeper()
    try:
        reaper.register(process.pid, "test sleeper")
        assert reaper.kill_all() == 1
        assert _gone(process) and process.returncode == -signal.SIGKILL
        assert reaper.registered() == {}
    finally:
        process.kill()
        process.wait()


def test_kill_group_never_signals_our_own_group_or_init() -> None:
    reaper.kill_group(os.getpgrp())  # would kill pytest itself
    reaper.kill_group(1)
    reaper.kill_group(0)


def test_kill_group_reaches_a_leader_that_has_not_made_its_group_yet() -> None:
    process = subprocess.Popen(["sleep", "60"])  # in our group: its pid is no group id
    try:
        reaper.kill_group(process.pid)
        assert _gone(process)
    finally:
        process.kill()
        process.wait()


def test_a_signal_kills_the_descendants_and_raises_interrupted() -> None:
    process = _sleeper()
    try:
        with pytest.raises(reaper.Interrupted, match="SIGTERM"), reaper.handling_signals():
            reaper.register(process.pid)
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler raises before this ends
        assert _gone(process)
        assert reaper.interrupted() == "SIGTERM"
        assert signal.getsignal(signal.SIGTERM) is not reaper._on_signal
    finally:
        process.kill()
        process.wait()


def test_a_forked_child_owns_none_of_its_parents_groups() -> None:
    reaper.register(999_999_999, "not a real group")
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0 if reaper.registered() == {} else 1)
        assert os.waitpid(pid, 0)[1] == 0
    finally:
        reaper.unregister(999_999_999)


def test_jobs_above_the_cpus_are_refused_unless_forced() -> None:
    cpus = parallel.cpus()
    assert parallel.check_jobs(cpus) == cpus
    with pytest.raises(ValueError, match="--force-jobs"):
        parallel.check_jobs(cpus + 1)
    assert parallel.check_jobs(cpus + 1, force=True) == cpus + 1
    with pytest.raises(ValueError, match="even with --force-jobs"):
        parallel.check_jobs(10_000, force=True)


def _result(status: str, *, interrupted: bool) -> RunResult:
    results = [InvariantResult("non_empty", status, 3, reason="never exercised")]
    return RunResult("t.py:split", "text", 1, 3, results, interrupted=interrupted,
                     interrupted_reason="interrupted by SIGTERM" if interrupted else "")


def test_an_interrupted_run_has_not_passed() -> None:
    stopped = _result("passed", interrupted=True)
    assert not stopped.passed and stopped.exit_status == 2
    assert _result("passed", interrupted=False).exit_status == 0
    assert _result("violated", interrupted=True).exit_status == 1
    assert "INTERRUPTED (interrupted by SIGTERM)" in render(stopped)
    report = report_json(stopped)
    assert report["interrupted"] is True and report["passed"] is False
    assert "interrupted" not in report_json(_result("passed", interrupted=False))
    assert "INTERRUPTED (interrupted by SIGTERM; 0 violated)" in render_markdown([stopped])


ADOPTER = """
import subprocess, sys
from chunk_contract.containment import reaper
if sys.argv[1] == "adopt":
    assert reaper.adopt_orphans()
# a daemon: the middle process exits at once, the sleeper leads a session of its own
middle = subprocess.Popen([sys.executable, "-c",
    "import subprocess; d = subprocess.DEVNULL; print(subprocess.Popen(['sleep', '1000'], "
    "stdin=d, stdout=d, stderr=d, start_new_session=True).pid)"],
    stdout=subprocess.PIPE, text=True)
print(middle.communicate()[0].strip(), flush=True)
"""


@pytest.mark.parametrize(("mode", "survives"), [("adopt", False), ("leave", True)])
def test_an_adopting_process_kills_the_daemons_its_children_left_at_exit(
    mode: str, survives: bool
) -> None:
    """``leave`` is the proof of red: without the exit sweep the daemon outlives the process."""
    done = subprocess.run([sys.executable, "-c", ADOPTER, mode], capture_output=True, text=True,
                          timeout=60, check=True)
    pid = int(done.stdout.split()[-1])
    try:
        assert running(pid) is survives
    finally:
        if survives:
            os.kill(pid, signal.SIGKILL)
