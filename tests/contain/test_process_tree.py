"""Signals to the host stop every process of the run, and the run ends with a report.

Each run gets a random token in an environment variable that every process it starts inherits
(the pool processes, their workers, the plugin's ``sleep 1000`` grandchildren), so the tests
find the run's processes in /proc, whoever adopted them.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.contain.plugins import HOST_SEED, MARK

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = Path(__file__).with_name("plugins.py")
#: Generous bounds: the verdicts never depend on them unless the machine stalls for this long.
START_WAIT = 60.0
GONE_WAIT = 5.0


def _marked(token: str) -> list[int]:
    """Live processes whose environment holds ``MARK=token`` (zombies have none)."""
    needle = f"{MARK}={token}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry))
    return found


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _wait_for(condition: Callable[[], bool], limit: float) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


class Host:
    """``chunk-contract run`` in a subprocess, marked with a token of its own."""

    def __init__(self, tmp_path: Path, plugin: str, *flags: str) -> None:
        self.token = secrets.token_hex(8)
        self.report = tmp_path / "report.json"
        env = {**os.environ, MARK: self.token, "PYTHONPATH": str(ROOT), HOST_SEED: "none"}
        env.pop("PYTHONHASHSEED", None)  # so a fresh interpreter (which gets one) can tell
        command = [sys.executable, "-m", "chunk_contract", "run", f"{PLUGINS}:{plugin}",
                   "--json", str(self.report), "--reproducers", str(tmp_path / "repro"),
                   "--no-corpus", "-q", "--timeout", "0.5", "--max-examples", "5000", *flags]
        self.process = subprocess.Popen(command, env=env, cwd=tmp_path, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def children(self) -> list[int]:
        return [p for p in _marked(self.token) if _parent(p) == self.process.pid]

    def finish(self) -> tuple[int, str, str]:
        out, err = self.process.communicate(timeout=60)
        return self.process.returncode, out, err

    def leftovers(self) -> list[int]:
        _wait_for(lambda: not _marked(self.token), GONE_WAIT)
        return _marked(self.token)

    def close(self) -> None:
        for pid in _marked(self.token):
            os.kill(pid, signal.SIGKILL)
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


@pytest.fixture()
def hosts() -> Any:
    started: list[Host] = []
    yield started
    for host in started:
        host.close()


def _sleeping(host: Host) -> bool:
    return any(_comm(p) == "sleep" for p in _marked(host.token))


def _interrupted_report(host: Host) -> dict[str, Any]:
    report = json.loads(host.report.read_text())
    assert report["interrupted"] is True and report["passed"] is False
    return report


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_signal_to_the_host_stops_the_whole_parallel_run(
    tmp_path: Path, hosts: list[Host], signum: int
) -> None:
    host = Host(tmp_path, "spawns_and_hangs", "-n", "2")
    hosts.append(host)
    assert _wait_for(lambda: _sleeping(host), START_WAIT), "the plugin never started"
    host.process.send_signal(signum)
    code, out, err = host.finish()
    assert host.leftovers() == []
    assert code in (1, 2) and "Traceback" not in err
    assert f"interrupted by {signal.Signals(signum).name}" in err
    assert "INTERRUPTED" in out
    _interrupted_report(host)


@pytest.mark.slow
def test_sigkill_to_the_host_still_stops_every_descendant(
    tmp_path: Path, hosts: list[Host]
) -> None:
    host = Host(tmp_path, "spawns_and_hangs", "-n", "2")
    hosts.append(host)
    assert _wait_for(lambda: _sleeping(host), START_WAIT), "the plugin never started"
    host.process.kill()
    host.finish()
    assert host.leftovers() == []


@pytest.mark.slow
def test_sigint_to_a_serial_run_gives_an_interrupted_report(
    tmp_path: Path, hosts: list[Host]
) -> None:
    calls = tmp_path / "calls"
    os.environ["CHUNK_CONTRACT_TEST_CALLS"] = str(calls)  # read by the plugin, in the worker
    try:
        host = Host(tmp_path, "slow_split", "--timeout", "10")  # no hang verdict under load
    finally:
        del os.environ["CHUNK_CONTRACT_TEST_CALLS"]
    hosts.append(host)
    # Interrupt only after a few calls returned, however slow the machine is.
    assert _wait_for(lambda: calls.exists() and len(calls.read_text()) >= 6, START_WAIT), (
        "the plugin was never called"
    )
    host.process.send_signal(signal.SIGINT)
    code, out, err = host.finish()
    assert code == 2 and "Traceback" not in err, (code, out[-2000:], err[-2000:])
    assert "INTERRUPTED (interrupted by SIGINT)" in out
    assert _interrupted_report(host)["examples"] >= 1
    assert host.leftovers() == []


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@pytest.mark.slow
def test_sigterm_during_the_fresh_interpreter_rerun_kills_it(
    tmp_path: Path, hosts: list[Host]
) -> None:
    host = Host(tmp_path, "hangs_when_fresh", "--only", "deterministic", "--max-examples", "5")
    hosts.append(host)

    def rerunning() -> bool:
        return any("chunk_contract.engine.crossrun" in _cmdline(p) for p in _marked(host.token))

    assert _wait_for(rerunning, START_WAIT), "the fresh interpreter never started"
    host.process.send_signal(signal.SIGTERM)
    code, out, err = host.finish()
    assert host.leftovers() == []
    assert code == 2 and "Traceback" not in err and "INTERRUPTED" in out
    _interrupted_report(host)


@pytest.mark.slow
def test_a_pool_process_killed_from_outside_is_reported_cleanly(
    tmp_path: Path, hosts: list[Host]
) -> None:
    host = Host(tmp_path, "slow_split", "-n", "2", "--timeout", "10")
    hosts.append(host)
    assert _wait_for(lambda: len(host.children()) >= 2, START_WAIT), "no pool process started"
    time.sleep(1.0)
    os.kill(host.children()[0], signal.SIGKILL)
    code, out, err = host.finish()
    assert code == 2, (out, err)
    assert "Traceback" not in err and "BrokenProcessPool" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "the run is incomplete" in lines[0]
    _interrupted_report(host)
    assert host.leftovers() == []


def test_more_jobs_than_cpus_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "chunk_contract", "run", f"{PLUGINS}:split", "-n", "10000"],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=tmp_path, capture_output=True,
        text=True, timeout=60, check=False,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--force-jobs" in done.stderr
    assert "Traceback" not in done.stderr
