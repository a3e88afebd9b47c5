"""Hostile plugins against ``chunk-contract run``: the host trusts nothing from the
worker, so each run ends in bounded time with a verdict, never exit 0 without a report.

Each test runs the real command line in a fresh interpreter (a plugin that could exit or hang
the host must not take pytest with it), with small budgets.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.unit.helpers import NO_SHIELD, running, shield_works

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PLUGINS = HERE / "plugins.py"
#: Seconds any one run may take before the test fails (the runs take a few seconds).
RUN_LIMIT = 120

#: The host's own peak resident memory: ``VmHWM`` of its address space. ``ru_maxrss`` is no
#: measure here: Linux keeps it across ``exec``, so it starts at the RSS of whatever process
#: forked the host (a pytest process that imported the peer libraries: 300 MB and more).
PEAK_WRAPPER = textwrap.dedent(
    """
    import resource, sys
    from chunk_contract.cli.main import main
    code = main(sys.argv[1:])
    try:
        with open("/proc/self/status") as status:
            peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"HOST-PEAK-KIB={peak}", file=sys.stderr)
    sys.exit(code)
    """
)


@dataclass
class Run:
    code: int
    out: str
    err: str
    report: dict[str, Any] | None
    seconds: float

    @property
    def host_peak_mib(self) -> float:
        line = next(x for x in self.err.splitlines() if x.startswith("HOST-PEAK-KIB="))
        return int(line.split("=", 1)[1]) / 1024

    def violated(self) -> dict[str, str]:
        """Violated invariant ids and their first message."""
        assert self.report is not None, self.err
        out = {}
        for result in self.report["invariants"]:
            if result["status"] == "violated":
                out[result["id"]] = json.dumps(result)
        return out


def run(
    tmp_path: Path,
    target: str,
    *args: str,
    env: dict[str, str] | None = None,
    command: str = "run",
) -> Run:
    """``chunk-contract run TARGET`` in a fresh interpreter, with a JSON report, small budgets."""
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    if command == "run":
        args = ("--max-examples", "4", "--timeout", "1", "--seed", "1", "--no-corpus",
                "--reproducers", str(tmp_path / "repro"), "-q", *args)
        if "--only" not in args:
            args = (*args, "--skip", "scales_linearly")  # seconds of timing, nothing to see here
    argv = [sys.executable, "-c", PEAK_WRAPPER, command, target, "--json", str(report), *args]
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    started = time.monotonic()
    done = subprocess.run(
        argv, cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=RUN_LIMIT,
        check=False,
    )
    data = json.loads(report.read_text()) if report.exists() else None
    return Run(done.returncode, done.stdout, done.stderr, data, time.monotonic() - started)


def target(name: str) -> str:
    return f"{PLUGINS}:{name}"


def assert_verdict(result: Run) -> None:
    """Exit 0 or 1 with a report: the run finished and judged the plugin."""
    assert result.code in (0, 1), result.err
    assert result.report is not None, result.err


# ----------------------------------------------------------------------- chunks that carry code


def test_a_chunk_that_exits_its_unpickler_cannot_end_the_run(tmp_path: Path) -> None:
    result = run(tmp_path, target("reduce_exit"))
    assert_verdict(result)
    assert result.code == 0  # it chunks correctly: the verdict is a pass, with its report


def test_a_chunk_that_runs_a_shell_command_runs_nothing_in_the_host(tmp_path: Path) -> None:
    marker = tmp_path / "the-host-ran-a-command"
    result = run(tmp_path, target("reduce_system"), env={"HOSTILE_MARKER": str(marker)})
    assert_verdict(result)
    assert not marker.exists()


def test_str_subclasses_with_hanging_methods_do_not_hang_the_host(tmp_path: Path) -> None:
    result = run(tmp_path, target("hanging_str_methods"))
    assert_verdict(result)
    assert result.code == 0


def test_hostile_keys_and_int_subclasses_become_plain_copies(tmp_path: Path) -> None:
    result = run(tmp_path, target("hostile_fields"))
    assert_verdict(result)
    assert result.code == 0  # the fields are right; none of their methods ran


# ----------------------------------------------------------------------- exceptions that attack


def test_an_exception_whose_str_hangs_is_terminates(tmp_path: Path) -> None:
    result = run(tmp_path, target("raise_hanging_message"))
    assert result.code == 1, result.err
    assert "terminates" in result.violated()


def test_an_exception_whose_str_exits_its_unpickler_is_no_crash(tmp_path: Path) -> None:
    result = run(tmp_path, target("raise_exiting_message"))
    assert result.code == 1, result.err
    assert "a message that exits its unpickler" in result.violated()["no_crash"]


# ----------------------------------------------------------------------- the worker's machinery


def test_a_plugin_patching_len_cannot_desync_the_pipe(tmp_path: Path) -> None:
    result = run(tmp_path, target("patch_len"))
    assert_verdict(result)
    assert result.seconds < RUN_LIMIT


@pytest.mark.slow
def test_a_400_mb_reply_is_no_crash_and_the_host_stays_small(tmp_path: Path) -> None:
    # Each call costs a 400 MB build and a worker restart: a few calls make the point, and the
    # covering schedule (its own budget of 3 min) would make about 220.
    result = run(tmp_path, target("huge_reply"), "--memory-mb", "3000", "--timeout", "20",
                 "--no-schedule")
    assert result.code == 1, result.err
    violation = result.violated()["no_crash"]
    assert "over the limit" in violation and "ReplyTooLarge" in violation
    assert result.host_peak_mib < 300


def test_output_spam_is_no_verdict_at_all(tmp_path: Path) -> None:
    result = run(tmp_path, target("chatter"), "--max-examples", "30")
    assert_verdict(result)
    assert result.code == 0


def test_grandchildren_die_with_the_worker(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    result = run(tmp_path, target("grandchild_then_hang"), "--max-examples", "2",
                 env={"HOSTILE_PIDFILE": str(pidfile)})
    assert result.code == 1, result.err
    assert "terminates" in result.violated()
    pids = [int(p) for p in pidfile.read_text().split()]
    assert pids
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(running(p) for p in pids):
        time.sleep(0.05)
    assert not [p for p in pids if running(p)]


#: An ``exec:`` chunker that starts a ``sleep`` in a session of its own when it starts.
RUNAWAY = f"exec:{sys.executable} {ROOT / 'tests' / 'outofprocess' / 'children.py'} runaway"


@pytest.mark.parametrize(
    ("name", "args"),
    [
        (target("escapes_its_session"), ()),
        pytest.param(target("double_forks_a_daemon"), (), marks=pytest.mark.slow),  # rounds
        (RUNAWAY, ("--only", "no_crash,terminates")),  # its windows may be whitespace-only
    ],
)
def test_nothing_the_plugin_starts_outlives_the_run(
    tmp_path: Path, name: str, args: tuple[str, ...]
) -> None:
    """Processes that left the worker's (or exec: child's) group and session (``setsid``), or
    whose parent exited at once (a daemon), are adopted by the host and killed when the run
    ends; they also hold the pipes of what started them, which must not hang the run."""
    pidfile = tmp_path / "pids"
    env = {"HOSTILE_PIDFILE": str(pidfile), "RUNAWAY_PIDFILE": str(pidfile)}
    try:
        result = run(tmp_path, name, *args, env=env)
        assert_verdict(result)
        assert result.code == 0, result.out
        pids = _pids(pidfile)
        assert pids
        assert not [p for p in pids if running(p)]
    finally:  # a failing run must not leave them behind either (the daemon first)
        for pid in _pids(pidfile):
            with contextlib.suppress(OSError):
                os.kill(pid, 9)


@pytest.mark.skipif(not shield_works(), reason=NO_SHIELD)
def test_a_plugin_cannot_stop_or_trace_the_host(tmp_path: Path) -> None:
    """SIGSTOP to the host and PTRACE_ATTACH to it are refused (chunk_contract.containment.sandbox):
    the run ends with its verdict. Before, the host stopped and the run never ended."""
    result = run(tmp_path, target("stops_the_host"))
    assert_verdict(result)
    assert result.code == 0, result.out


def _pids(pidfile: Path) -> list[int]:
    return [int(p) for p in pidfile.read_text().split()] if pidfile.exists() else []


# ----------------------------------------------------------------------- out-of-range values


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("start_googol", "out of range"),
        pytest.param("start_2_63", "out of range", marks=pytest.mark.slow),  # the same checks
        ("start_bool", "expected an int"),
        pytest.param("start_float", "expected an int", marks=pytest.mark.slow),
    ],
)
def test_out_of_range_offsets_are_no_crash(tmp_path: Path, name: str, says: str) -> None:
    result = run(tmp_path, target(name))
    assert result.code == 1, result.err
    assert says in result.violated()["no_crash"]


@pytest.mark.parametrize("name", ["start_negative", "start_huge_but_legal"])
def test_wrong_but_legal_offsets_are_judged_by_the_invariants(tmp_path: Path, name: str) -> None:
    result = run(tmp_path, target(name))
    assert result.code == 1, result.err
    violated = result.violated()
    assert "no_crash" not in violated
    assert violated  # span rules catch the wrong offsets


# ----------------------------------------------------------------------- loading the target

LOAD_LIMIT = {"CHUNK_CONTRACT_LOAD_TIMEOUT": "2"}


#: Targets that fail while loading, and what the one line says.
LOAD_FAILURES = [
    (f"{HERE / 'import_hang.py'}:split", "loading timed out after 2 s"),
    (f"{HERE / 'import_exit.py'}:split",
     "the plugin exited the worker while loading (exit status 0)"),
    (f"{HERE / 'import_abort.py'}:split",
     "the worker died while loading the plugin (worker killed by SIGABRT)"),
    (f"{HERE / 'loading.py'}:InitHangs", "loading timed out after 2 s"),
    (f"{HERE / 'loading.py'}:InitExits", "exited the worker while loading (exit status 0)"),
    (f"{HERE / 'loading.py'}:GetattrHangs", "loading timed out after 2 s"),
    (f"{HERE / 'loading.py'}:PromisesHang", "loading timed out after 2 s"),
    (f"{HERE / 'loading.py'}:KindEqHangs", "loading timed out after 2 s"),
]


def _load_failure_params() -> list[Any]:
    """Every target under ``run`` and ``check``. The hangs under ``check`` (the same loading
    path as under ``run``, each waiting out the 2 s load timeout) are ``slow``."""
    return [
        pytest.param(command, where, says, id=f"{command}-{where.rsplit('/', 1)[-1]}",
                     marks=[pytest.mark.slow] if command == "check" and "timed out" in says
                     else [])
        for command in ("run", "check")
        for where, says in LOAD_FAILURES
    ]


@pytest.mark.parametrize(("command", "where", "says"), _load_failure_params())
def test_a_target_that_fails_while_loading_is_a_one_line_usage_error(
    tmp_path: Path, where: str, says: str, command: str
) -> None:
    args = ("some.txt", "--max-size", "10") if command == "check" else ()
    (tmp_path / "some.txt").write_text("some text to chunk")
    result = run(tmp_path, where, *args, env=LOAD_LIMIT, command=command)
    lines = [x for x in result.err.splitlines() if not x.startswith("HOST-PEAK-KIB=")]
    assert result.code == 2, result.err
    assert len(lines) == 1 and says in lines[0], result.err
    assert "Traceback" not in result.err
    assert result.seconds < RUN_LIMIT / 2  # the 2 s load timeout, not a hang, on any load


def test_a_thread_started_at_import_does_not_keep_the_hostrunning(tmp_path: Path) -> None:
    result = run(tmp_path, f"{HERE / 'import_thread.py'}:split")
    assert_verdict(result)
    assert result.code == 0


def test_an_api_object_has_its_declarations_read_in_the_worker() -> None:
    from chunk_contract.transport.loading import load
    from chunk_contract.transport.targets import TargetError
    from tests.hostile import loading

    os.environ.update(LOAD_LIMIT)
    try:
        started = time.monotonic()
        with pytest.raises(TargetError, match="loading timed out after 2 s"):
            load(loading.GetattrHangs())
        assert time.monotonic() - started < 20
        plugin = load(loading.Fine)
    finally:
        del os.environ["CHUNK_CONTRACT_LOAD_TIMEOUT"]
    assert plugin.split is None and plugin.source is loading.Fine
    assert plugin.declarations.unit == "chars"
    assert plugin.target.endswith("Fine")


# ----------------------------------------------------------------------- pytest --chunk-contract


def _pytest(tmp_path: Path, where: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "pytest", "-p", "chunk_contract.pytest.plugin", "-q",
            "-p", "no:cacheprovider", "--chunk-contract", where,
            "--chunk-contract-max-examples", "4", "--chunk-contract-skip", "scales_linearly"]
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **LOAD_LIMIT}
    return subprocess.run(argv, cwd=tmp_path, env=environ, capture_output=True, text=True,
                          timeout=RUN_LIMIT, check=False)


def test_pytest_plugin_target_exiting_at_import_is_a_usage_error(tmp_path: Path) -> None:
    done = _pytest(tmp_path, f"{HERE / 'import_exit.py'}:split")
    assert done.returncode == 4, done.stdout + done.stderr  # pytest's usage error
    assert "exited the worker while loading (exit status 0)" in done.stderr


def test_pytest_plugin_survives_chunks_that_exit_their_unpickler(tmp_path: Path) -> None:
    done = _pytest(tmp_path, target("reduce_exit"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"\d+ passed", done.stdout), done.stdout
