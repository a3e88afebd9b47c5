"""Hostile plugins that reach past the worker: inherited descriptors, the host's /proc, signals
the kernel sends for them, the fresh interpreter's exit status, and the memory of their whole
process tree. Each plugin is defective or hostile in a way the verdict must show: a run that the
attack turns green (exit 0), kills or hangs fails here."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hostile.test_hostile import HERE, RUN_LIMIT, Run, run, target
from tests.unit.helpers import NO_SHIELD, running, shield_works


def _lost_text(result: Run) -> None:
    """The run survived and judged the lossy plugin: exit 1 naming no_lost_text."""
    assert result.code == 1, (result.code, result.out[-2000:], result.err[-2000:])
    assert "no_lost_text" in result.violated(), result.violated()


def _bounded(tmp_path: Path, name: str, *args: str, **env: str) -> Run:
    """``run`` whose hang or death is reported as a failed verdict, not a pytest error."""
    try:
        return run(tmp_path, name, *args, env=env)
    except subprocess.TimeoutExpired:
        return Run(-1, "", f"the run hung past {RUN_LIMIT} s", None, RUN_LIMIT)


def _marker(tmp_path: Path) -> dict[str, str]:
    return {"HOSTILE_MARKER": str(tmp_path / "marker")}


def _noted(tmp_path: Path) -> str:
    path = tmp_path / "marker"
    return path.read_text() if path.exists() else ""


# ----------------------------------------------------------------------- inherited descriptors


def test_a_plugin_cannot_write_pickles_into_the_pool(tmp_path: Path) -> None:
    """Under -n 2 the worker inherited the pool's pipes, which the host unpickled: a frame whose
    __reduce__ is os._exit(0) ended the host with status 0 and no report."""
    result = _bounded(tmp_path, target("pickles_into_the_pool"), "-n", "2", "--force-jobs",
                      **_marker(tmp_path))
    _lost_text(result)
    assert "of a worker" not in _noted(tmp_path)  # it found no pipe but its own


def test_a_worker_holds_only_its_pipes_and_capture_file() -> None:
    from chunk_contract.containment.worker import Worker

    keep = os.open(os.devnull, os.O_RDONLY)  # a descriptor of the host's, not inheritable
    os.set_inheritable(keep, True)
    try:
        with Worker(lambda _: sorted(int(n) for n in os.listdir("/proc/self/fd"))) as worker:
            outcome = worker.call(None)
    finally:
        os.close(keep)
    assert outcome.ok, outcome
    assert keep not in outcome.value, outcome.value
    assert len(outcome.value) == 6, outcome.value  # 0-2, the two pipe ends, listdir's own


# ----------------------------------------------------------------------- the host's /proc


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs Linux /proc")
@pytest.mark.parametrize(
    "args", [(), pytest.param(("-n", "2", "--force-jobs"), marks=pytest.mark.slow)]
)
def test_a_plugin_cannot_open_the_hosts_memory_or_stdout(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """As the same user (and as root, as CI runs), /proc/HOST/mem and /proc/HOST/fd/1 opened:
    a plugin could rewrite the host's code or print a fake verdict into its output. Under -n
    the process that runs the worker is a pool process."""
    result = _bounded(tmp_path, target("reads_the_host"), *args, **_marker(tmp_path))
    noted = _noted(tmp_path)
    assert "mem: refused" in noted and "fd/1: refused" in noted, noted
    assert "fake verdict" not in result.out
    _lost_text(result)


# ----------------------------------------------------------------------- signals the kernel sends


@pytest.mark.skipif(not shield_works(), reason=NO_SHIELD)
@pytest.mark.parametrize(
    "name",
    ["sigio_kills_the_host", "sigio_by_ioctl",
     pytest.param("sigio_stops_the_host", marks=pytest.mark.slow)],  # red: a hang of RUN_LIMIT
)
def test_a_plugin_cannot_route_a_signal_to_the_host_through_a_descriptor(
    tmp_path: Path, name: str
) -> None:
    """F_SETOWN (or FIOSETOWN) makes the host the owner of the plugin's pipe; F_SETSIG makes
    the kernel send SIGKILL (else SIGIO, fatal too) when it becomes readable: the host died."""
    result = _bounded(tmp_path, target(name), **_marker(tmp_path))
    assert "refused (PermissionError)" in _noted(tmp_path), _noted(tmp_path)
    _lost_text(result)


# ----------------------------------------------------------------------- the fresh interpreter


@pytest.mark.parametrize(
    ("module", "says"),
    [("fresh_exit.py", "exit status 3"), ("fresh_import_error.py", "only in a fresh")],
)
def test_failing_only_in_the_fresh_interpreter_is_a_deterministic_finding(
    tmp_path: Path, module: str, says: str
) -> None:
    """It loads in the worker, not in deterministic's fresh interpreter: that was "not
    checked", and the run passed."""
    result = _bounded(tmp_path, f"{HERE / module}:split", "--only", "deterministic")
    assert result.code == 1, (result.out[-2000:], result.err[-2000:])
    violation = result.violated()["deterministic"]
    assert "fresh interpreter" in violation and says in violation, violation


# ----------------------------------------------------------------------- the whole tree's memory


@pytest.mark.parametrize(
    ("how", "args"),
    [
        ("plain", ()),
        pytest.param("setsid", (), marks=pytest.mark.slow),
        ("daemon", ()),
        pytest.param("daemon", ("-n", "2", "--force-jobs"), marks=pytest.mark.slow),
    ],
)
def test_the_memory_cap_holds_for_the_plugins_whole_process_tree(
    tmp_path: Path, how: str, args: tuple[str, ...]
) -> None:
    """Three children of 48 MiB each, under a 64 MiB cap: each stays under its own RLIMIT_AS,
    the tree does not. Before, the run passed."""
    pidfile = tmp_path / "pids"
    env = {"HOSTILE_PIDFILE": str(pidfile), "HOSTILE_HOW": how}
    try:
        result = _bounded(tmp_path, target("fat_children"), "--memory-mb", "64", *args, **env)
        assert result.code == 1, (result.out[-2000:], result.err[-2000:])
        violation = result.violated()["no_crash"]
        assert "the plugin's processes used" in violation and "over the cap" in violation
        pids = [int(p) for p in pidfile.read_text().split()]
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(running(p) for p in pids):
            time.sleep(0.05)
        assert not [p for p in pids if running(p)]
    finally:
        for pid in [int(p) for p in pidfile.read_text().split()] if pidfile.exists() else []:
            with contextlib.suppress(OSError):
                os.kill(pid, 9)


def test_the_memory_cap_holds_for_an_exec_childs_whole_tree(tmp_path: Path) -> None:
    """Helpers in sessions of their own were outside the exec: child's memory watch (its
    session only), and its calls answered at once, between two looks: the run passed."""
    pidfile = tmp_path / "pids"
    name = f"exec:{sys.executable} {HERE / 'exec_fat.py'}"
    try:
        result = _bounded(tmp_path, name, "--memory-mb", "64", "--only", "no_crash,terminates",
                          HOSTILE_PIDFILE=str(pidfile))  # its windows may be blank
        assert result.code == 1, (result.out[-2000:], result.err[-2000:])
        assert "the plugin's processes used" in json.dumps(result.violated())
    finally:
        for pid in [int(p) for p in pidfile.read_text().split()] if pidfile.exists() else []:
            with contextlib.suppress(OSError):
                os.kill(pid, 9)
