"""The isolated worker: values, errors, hangs, crashes and memory blow-ups come back as Outcomes."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contract.worker import Outcome, Worker

SHORT = 0.3  # seconds: the timeout of every test that expects a timeout


class PluginError(Exception):
    """A plugin's own exception type."""


class Unloadable:
    """Pickles fine, but unpickling it raises: a reply or request that cannot be read back."""

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (_refuse_to_load, ())


def _refuse_to_load() -> None:
    raise RuntimeError("refusing to be unpickled")


def echo(request: Any) -> Any:
    return request


def getpid(_request: Any) -> int:
    return os.getpid()


def raise_value_error(_request: Any) -> None:
    raise ValueError("bad chunk size\nsecond line")


def raise_plugin_error(_request: Any) -> None:
    raise PluginError("from the plugin")


def hang_swallowing_everything(_request: Any) -> None:
    print("entering the loop", flush=True)
    while True:
        try:  # noqa: SIM105 - the point: a loop that swallows even SIGTERM
            time.sleep(0.01)
        except BaseException:
            pass


def busy_loop(_request: Any) -> None:
    n = 0
    while True:
        n += 1


def abort(_request: Any) -> None:
    print("last words", flush=True)
    os.abort()


def segfault(_request: Any) -> None:
    ctypes.string_at(0)


def exit_3(_request: Any) -> None:
    os._exit(3)


def grow_memory(_request: Any) -> None:
    blocks = []
    while True:
        blocks.append(bytes(50 * 2**20))


def return_lambda(_request: Any) -> Any:
    return lambda: 1


def return_unloadable(_request: Any) -> Unloadable:
    return Unloadable()


def chatter(request: Any) -> str:
    print("plugin stdout chatter")
    print("plugin stderr chatter", file=sys.stderr)
    os.write(1, b"plugin fd-1 chatter\n")
    os.write(2, b"plugin fd-2 chatter\n")
    return "done"


def behave(request: str) -> Any:
    """One task for several behaviours, so one worker can show restarts."""
    return {"ok": echo, "hang": hang_swallowing_everything, "abort": abort}[request](request)


def raise_(exc: BaseException) -> Any:
    raise exc


def recurse(n: int) -> int:
    return recurse(n + 1)


@pytest.fixture
def make_worker() -> Iterator[Any]:
    """Builds workers and closes them all after the test."""
    made: list[Worker] = []

    def make(task: Any, **kwargs: Any) -> Worker:
        worker = Worker(task, **kwargs)
        made.append(worker)
        return worker

    yield make
    for worker in made:
        worker.close()


def _gone(pid: int) -> bool:
    """True when `pid` no longer runs (absent, or a zombie nobody reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def _wait_gone(pid: int, within: float = 2.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.01)
    return _gone(pid)


def test_ok_call_returns_value(make_worker: Any) -> None:
    outcome = make_worker(echo).call({"text": "abc", "max_size": 3})
    assert outcome == Outcome("ok", {"text": "abc", "max_size": 3}, elapsed=outcome.elapsed)
    assert outcome.ok
    assert 0 <= outcome.elapsed < 1


def test_one_child_serves_many_calls(make_worker: Any) -> None:
    worker = make_worker(getpid)
    pids = {worker.call(None).value for _ in range(20)}
    assert len(pids) == 1
    assert pids != {os.getpid()}
    assert worker.restarts == 1


def test_exception_is_error_with_type_message_and_traceback(make_worker: Any) -> None:
    outcome = make_worker(raise_value_error).call(None)
    assert outcome.kind == "error"
    assert not outcome.ok
    assert outcome.error_type == "ValueError"
    assert outcome.message == "bad chunk size"
    assert "Traceback" in outcome.detail
    assert "raise_value_error" in outcome.detail
    assert "second line" in outcome.detail
    assert "_answer" not in outcome.detail


def test_plugin_exception_type_is_module_qualified(make_worker: Any) -> None:
    outcome = make_worker(raise_plugin_error).call(None)
    assert outcome.error_type.endswith(".PluginError")
    assert outcome.message == "from the plugin"


@pytest.mark.parametrize(
    ("exc", "error_type"),
    [
        (SystemExit(2), "SystemExit"),
        (KeyboardInterrupt(), "KeyboardInterrupt"),
        (GeneratorExit(), "GeneratorExit"),
    ],
)
def test_base_exceptions_are_errors(make_worker: Any, exc: BaseException, error_type: str) -> None:
    worker = make_worker(raise_)
    outcome = worker.call(exc)
    assert (outcome.kind, outcome.error_type) == ("error", error_type)
    assert worker.call(None).error_type == "TypeError"  # still the same child, still serving
    assert worker.restarts == 1


def test_recursion_error_is_an_error(make_worker: Any) -> None:
    outcome = make_worker(recurse).call(0)
    assert (outcome.kind, outcome.error_type) == ("error", "RecursionError")


def test_hang_swallowing_exceptions_times_out_and_the_worker_restarts(make_worker: Any) -> None:
    worker = make_worker(behave, timeout=SHORT)
    assert worker.call("ok").value == "ok"
    outcome = worker.call("hang")
    assert outcome.kind == "timeout"
    assert outcome.message == f"no answer within {SHORT:g} s"
    assert SHORT <= outcome.elapsed < SHORT + 0.5
    assert "hang_swallowing_everything" in outcome.detail  # the stack it was stuck in
    assert "entering the loop" in outcome.detail  # and what it printed
    assert "contract/worker.py" not in outcome.detail
    assert worker.call("ok").value == "ok"
    assert worker.restarts == 2


def test_cpu_busy_loop_times_out(make_worker: Any) -> None:
    outcome = make_worker(busy_loop, timeout=SHORT).call(None)
    assert outcome.kind == "timeout"
    assert "busy_loop" in outcome.detail


def test_per_call_timeout_overrides_the_default(make_worker: Any) -> None:
    outcome = make_worker(busy_loop, timeout=30).call(None, timeout=0.1)
    assert outcome.kind == "timeout"
    assert outcome.message == "no answer within 0.1 s"
    assert outcome.elapsed < 1


def test_abort_is_a_crash_naming_sigabrt(make_worker: Any) -> None:
    outcome = make_worker(abort).call(None)
    assert outcome.kind == "crash"
    assert outcome.message == "worker killed by SIGABRT"
    assert "last words" in outcome.detail
    assert "Fatal Python error: Aborted" in outcome.detail
    assert "in abort" in outcome.detail


def test_segfault_is_a_crash_naming_sigsegv(make_worker: Any) -> None:
    outcome = make_worker(segfault).call(None)
    assert outcome.kind == "crash"
    assert "SIGSEGV" in outcome.message
    assert "Segmentation fault" in outcome.detail


def test_os_exit_is_a_crash_with_its_status(make_worker: Any) -> None:
    outcome = make_worker(exit_3).call(None)
    assert outcome.kind == "crash"
    assert outcome.message == "worker exited with status 3"


def test_crash_then_the_next_call_restarts(make_worker: Any) -> None:
    worker = make_worker(behave)
    assert worker.call("abort").kind == "crash"
    assert worker.call("ok").value == "ok"
    assert worker.restarts == 2


def test_child_killed_between_calls_is_a_crash(make_worker: Any) -> None:
    worker = make_worker(getpid)
    pid = worker.call(None).value
    os.kill(pid, signal.SIGKILL)
    assert _wait_gone(pid)
    outcome = worker.call(None)
    assert outcome.kind == "crash"
    assert "SIGKILL" in outcome.message
    assert "out-of-memory" in outcome.message
    assert worker.call(None).ok


def test_child_dying_while_a_grandchild_holds_the_pipe_is_a_crash(make_worker: Any) -> None:
    def fork_then_exit(_request: Any) -> None:
        if os.fork() == 0:
            time.sleep(1.5)
            os._exit(0)
        os._exit(4)

    outcome = make_worker(fork_then_exit, timeout=3).call(None)
    assert outcome.kind == "crash"
    assert outcome.message == "worker exited with status 4"
    assert outcome.elapsed < 1


def test_memory_growth_is_a_memory_outcome(make_worker: Any) -> None:
    worker = make_worker(grow_memory, timeout=5, memory_mb=200)
    outcome = worker.call(None)
    assert outcome.kind == "memory"
    assert outcome.error_type == "MemoryError"
    assert "200 MiB" in outcome.message
    assert outcome.elapsed < 2
    assert worker.restarts == 1
    assert worker.call(None).kind == "memory"  # in a fresh child: state is not trusted after it
    assert worker.restarts == 2


def test_unpicklable_return_value_is_an_error(make_worker: Any) -> None:
    worker = make_worker(return_lambda)
    outcome = worker.call(None)
    assert outcome.kind == "error"
    assert outcome.error_type == "PicklingError"
    assert outcome.message.startswith("the return value cannot be pickled")
    assert worker.call(None).kind == "error"
    assert worker.restarts == 1


def test_return_value_that_does_not_unpickle_in_the_parent_is_an_error(make_worker: Any) -> None:
    worker = make_worker(return_unloadable)
    outcome = worker.call(None)
    assert (outcome.kind, outcome.error_type) == ("error", "UnpicklingError")
    assert "refusing to be unpickled" in outcome.message
    assert worker.restarts == 1


def test_request_that_does_not_unpickle_in_the_child_is_an_error(make_worker: Any) -> None:
    outcome = make_worker(echo).call(Unloadable())
    assert (outcome.kind, outcome.error_type) == ("error", "RuntimeError")
    assert outcome.message == "refusing to be unpickled"


def test_unpicklable_request_raises_in_the_caller(make_worker: Any) -> None:
    worker = make_worker(getpid)
    pid = worker.call(None).value
    with pytest.raises(Exception, match="pickle"):
        worker.call(lambda: 1)
    assert worker.call(None).value == pid


def test_plugin_output_does_not_reach_the_parent(
    make_worker: Any, capfd: pytest.CaptureFixture[str]
) -> None:
    outcome = make_worker(chatter).call(None)
    assert outcome.value == "done"
    captured = capfd.readouterr()
    assert "chatter" not in captured.out
    assert "chatter" not in captured.err


def test_child_ignores_sigint(make_worker: Any) -> None:
    worker = make_worker(getpid)
    pid = worker.call(None).value
    os.kill(pid, signal.SIGINT)
    time.sleep(0.05)
    assert worker.call(None).value == pid


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="platform: PR_SET_PDEATHSIG is Linux only"
)
def test_child_dies_with_its_parent(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import os
        from contract.worker import Worker
        worker = Worker(lambda _: os.getpid())
        print(worker.call(None).value, flush=True)
        os._exit(0)  # no cleanup at all: the kernel must take the child down
        """
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    command = [sys.executable, "-c", script]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    assert _wait_gone(int(done.stdout))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"timeout": 0},
        {"timeout": -1.0},
        {"timeout": float("nan")},
        {"timeout": float("inf")},
        {"timeout": "2"},
        {"timeout": True},
        {"memory_mb": 15},
        {"memory_mb": 0},
        {"memory_mb": 100.5},
        {"memory_mb": "1024"},
    ],
)
def test_bad_constructor_arguments_raise_value_error(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"timeout|memory_mb"):
        Worker(echo, **kwargs)


def test_good_constructor_arguments_start_nothing() -> None:
    worker = Worker(echo, timeout=0.5, memory_mb=None)
    assert worker.restarts == 0
    worker.close()
    assert Worker(echo, memory_mb=16).restarts == 0


def test_bad_call_timeout_raises_value_error(make_worker: Any) -> None:
    with pytest.raises(ValueError, match="timeout"):
        make_worker(echo).call(None, timeout=0)


def test_close_is_idempotent_and_kills_the_child() -> None:
    worker = Worker(getpid)
    pid = worker.call(None).value
    worker.close()
    worker.close()
    assert _gone(pid)
    with pytest.raises(RuntimeError, match="closed"):
        worker.call(None)


def test_close_before_any_call() -> None:
    worker = Worker(echo)
    worker.close()
    worker.close()
    assert worker.restarts == 0


def test_context_manager_closes() -> None:
    with Worker(getpid) as worker:
        pid = worker.call(None).value
        assert not _gone(pid)
    assert _gone(pid)


def test_interrupting_the_parent_mid_call_discards_the_child(make_worker: Any) -> None:
    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    worker = make_worker(behave, timeout=30)
    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.1)
    try:
        with pytest.raises(KeyboardInterrupt):
            worker.call("hang")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert worker.call("ok").value == "ok"  # not the stale answer of an old request
    assert worker.restarts == 2


def test_smallest_memory_cap_still_serves_small_calls(make_worker: Any) -> None:
    worker = make_worker(echo, memory_mb=16)
    assert worker.call("x" * 2**20).value == "x" * 2**20


def test_restarts_counts_every_start(make_worker: Any) -> None:
    worker = make_worker(behave, timeout=SHORT)
    assert worker.restarts == 0
    worker.call("ok")
    worker.call("ok")
    assert worker.restarts == 1
    worker.call("abort")
    assert worker.restarts == 1  # restarted lazily, on the next call
    worker.call("ok")
    assert worker.restarts == 2
