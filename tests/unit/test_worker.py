"""The isolated worker: values, errors, hangs, crashes and memory blow-ups come back as Outcomes."""

from __future__ import annotations

import contextlib
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

from chunk_contract.containment.worker import Outcome, Worker
from tests.unit.helpers import running

SHORT = 0.3  # seconds: the timeout of every test that expects a timeout


class PluginError(Exception):
    """A plugin's own exception type."""


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


def write_garbage_reply(_request: Any) -> str:
    """Writes bytes that are no frame where the reply goes, then answers normally."""
    from chunk_contract.containment import worker

    assert worker.CHILD_REPLY_FD is not None
    os.write(worker.CHILD_REPLY_FD, b"not a frame at all, just bytes")
    return "late"


def write_non_json_reply(request: Any) -> str:
    """Writes a well-framed reply whose payload is not JSON, then answers normally."""
    from chunk_contract.containment import framing, worker

    assert worker.CHILD_REPLY_FD is not None
    framing.write_frame(worker.CHILD_REPLY_FD, request, b"\x80\x03cos\nsystem\n")
    return "late"


def chatter(request: Any) -> str:
    print("plugin stdout chatter")
    print("plugin stderr chatter", file=sys.stderr)
    os.write(1, b"plugin fd-1 chatter\n")
    os.write(2, b"plugin fd-2 chatter\n")
    return "done"


def behave(request: str) -> Any:
    """One task for several behaviours, so one worker can show restarts."""
    return {"ok": echo, "hang": hang_swallowing_everything, "abort": abort}[request](request)


BASE_EXCEPTIONS = {"SystemExit": SystemExit(2), "KeyboardInterrupt": KeyboardInterrupt(),
                   "GeneratorExit": GeneratorExit()}


def raise_(name: str) -> Any:
    raise BASE_EXCEPTIONS[name]


def recurse(n: int) -> int:
    return recurse(n + 1)


@pytest.fixture
def make_worker() -> Iterator[Any]:
    """Builds workers and closes them all after the test."""
    made: list[Worker] = []

    def make(task: Any = None, **kwargs: Any) -> Worker:
        worker = Worker(task, **kwargs)
        made.append(worker)
        return worker

    yield make
    for worker in made:
        worker.close()


def _wait_gone(pid: int, within: float = 2.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not running(pid):
            return True
        time.sleep(0.01)
    return not running(pid)


def test_ok_call_returns_value(make_worker: Any) -> None:
    outcome = make_worker(echo).call({"text": "abc", "max_size": 3})
    assert outcome == Outcome("ok", {"text": "abc", "max_size": 3}, elapsed=outcome.elapsed)
    assert outcome.ok
    assert 0 <= outcome.elapsed < 10  # a bound, not a speed: a loaded machine stays under it


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


@pytest.mark.parametrize("error_type", sorted(BASE_EXCEPTIONS))
def test_base_exceptions_are_errors(make_worker: Any, error_type: str) -> None:
    worker = make_worker(raise_)
    outcome = worker.call(error_type)
    assert (outcome.kind, outcome.error_type) == ("error", error_type)
    assert worker.call(None).error_type == "KeyError"  # still the same child, still serving
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
    assert SHORT <= outcome.elapsed < SHORT + 5  # prompt, with room for a loaded machine
    assert "hang_swallowing_everything" in outcome.detail  # the stack it was stuck in
    assert "entering the loop" in outcome.detail  # and what it printed
    assert "chunk_contract/containment/worker.py" not in outcome.detail
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
    assert outcome.elapsed < 15  # the per-call 0.1 s, not the default 30 s, on any load


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
            time.sleep(8)
            os._exit(0)
        os._exit(4)

    outcome = make_worker(fork_then_exit, timeout=15).call(None)
    assert outcome.kind == "crash"
    assert outcome.message == "worker exited with status 4"
    assert outcome.elapsed < 6  # did not wait for the grandchild (8 s), on any load


def test_memory_growth_is_a_memory_outcome(make_worker: Any) -> None:
    worker = make_worker(grow_memory, timeout=60, memory_mb=200)
    outcome = worker.call(None)
    assert outcome.kind == "memory"
    assert outcome.error_type == "MemoryError"
    assert "200 MiB" in outcome.message
    assert outcome.elapsed < 30  # the cap, long before the 60 s timeout, on any load
    assert worker.restarts == 1
    assert worker.call(None).kind == "memory"  # in a fresh child: state is not trusted after it
    assert worker.restarts == 2


def test_return_value_that_is_not_plain_data_is_an_error(make_worker: Any) -> None:
    worker = make_worker(return_lambda)
    outcome = worker.call(None)
    assert outcome.kind == "error"
    assert outcome.error_type == "EncodingError"
    assert outcome.message.startswith("the return value is not plain data")
    assert worker.call(None).kind == "error"
    assert worker.restarts == 1


def test_reply_that_is_no_frame_is_an_error_and_the_child_is_replaced(make_worker: Any) -> None:
    worker = make_worker(write_garbage_reply)
    outcome = worker.call(None)
    assert (outcome.kind, outcome.error_type) == ("error", "ProtocolError")
    assert "frame header" in outcome.message
    assert worker.call(None).kind == "error"  # a fresh child: the stale bytes are gone
    assert worker.restarts == 2


def test_reply_that_is_not_json_is_an_error(make_worker: Any) -> None:
    worker = make_worker(write_non_json_reply)
    outcome = worker.call(1)  # the frame it writes claims to answer request 1
    assert (outcome.kind, outcome.error_type) == ("error", "ProtocolError")
    assert "not valid JSON" in outcome.message
    assert worker.restarts == 1


def test_request_that_is_not_plain_data_raises_in_the_caller(make_worker: Any) -> None:
    worker = make_worker(getpid)
    pid = worker.call(None).value
    with pytest.raises(TypeError, match="JSON serializable"):
        worker.call(lambda: 1)
    assert worker.call(None).value == pid


def test_values_round_trip_as_plain_data_with_lone_surrogates(make_worker: Any) -> None:
    request = {"text": "a\ud800\udc00b", "$str": ["x"], "n": 10**30, "t": (1, 2)}
    outcome = make_worker(echo).call(request)
    assert outcome.value == {"text": "a\ud800\udc00b", "$str": ["x"], "n": 10**30, "t": [1, 2]}


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
        from chunk_contract.containment.worker import Worker
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
    assert not running(pid)
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
        assert running(pid)
    assert not running(pid)


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


def big_reply(size: int) -> str:
    return "x" * size


def spam_output(size: int) -> int:
    os.write(1, b"s" * (size - 6) + b"-last\n")
    return size


def start_sleeper(pidfile: str) -> int:
    """Starts a grandchild that would sleep for long, records its pid, and returns it."""
    sleeper = subprocess.Popen(["sleep", "1000"])
    Path(pidfile).write_text(str(sleeper.pid))
    return sleeper.pid


def start_sleeper_then_hang(pidfile: str) -> None:
    start_sleeper(pidfile)
    while True:
        time.sleep(0.01)


def half_a_frame(seq: int) -> None:
    """Writes a header announcing 100 bytes, sends 10, and hangs."""
    from chunk_contract.containment import framing, worker

    assert worker.CHILD_REPLY_FD is not None
    os.write(worker.CHILD_REPLY_FD, framing.HEADER.pack(framing.MAGIC, seq, 100) + b"x" * 10)
    while True:
        time.sleep(0.01)


def test_reply_over_the_limit_is_never_read(make_worker: Any) -> None:
    worker = make_worker(big_reply, reply_limit=2**20)
    assert worker.call(1000).value == "x" * 1000
    outcome = worker.call(2 * 2**20)
    assert (outcome.kind, outcome.error_type) == ("error", "ReplyTooLarge")
    assert f"{2 * 2**20 + 9} bytes, over the limit of {2**20} bytes" in outcome.message  # ["ok",""]
    assert worker.call(10, reply_limit=4 * 2**20).ok  # a fresh child, and a per-call limit
    assert worker.restarts == 2


def test_half_a_frame_then_silence_times_out(make_worker: Any) -> None:
    outcome = make_worker(half_a_frame, timeout=SHORT).call(1)
    assert outcome.kind == "timeout"


def test_capture_file_keeps_only_its_tail(make_worker: Any) -> None:
    from chunk_contract.containment import worker as module

    worker = make_worker(spam_output)
    for _ in range(12):
        assert worker.call(300_000).ok
    assert worker._output_size() <= module.CAPTURE_LIMIT + 300_000


def test_crash_detail_shows_the_tail_after_trimming(make_worker: Any) -> None:
    worker = make_worker(behave_loudly)
    for _ in range(5):
        worker.call("spam")
    outcome = worker.call("abort")
    assert outcome.kind == "crash"
    assert "last words" in outcome.detail


def behave_loudly(request: str) -> Any:
    if request == "spam":
        return spam_output(500_000)
    return abort(request)


def test_a_timeout_kills_the_grandchildren(make_worker: Any, tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    outcome = make_worker(start_sleeper_then_hang, timeout=1.0).call(str(pidfile))
    assert outcome.kind == "timeout"
    assert _wait_gone(int(pidfile.read_text()))


def test_close_kills_the_grandchildren(tmp_path: Path) -> None:
    with Worker(start_sleeper) as worker:
        pid = worker.call(str(tmp_path / "pid")).value
        assert running(pid)
    assert _wait_gone(pid)


def test_the_child_leads_its_own_process_group(make_worker: Any) -> None:
    worker = make_worker(lambda _: [os.getpid(), os.getpgid(0)])
    pid, group = worker.call(None).value
    assert pid == group != os.getpgid(0)


def counting_setup() -> tuple[Any, Any]:
    return echo, {"pid": os.getpid()}


def test_setup_runs_in_each_new_child_and_says_hello(make_worker: Any) -> None:
    worker = make_worker(setup=counting_setup)
    first = worker.start()
    assert first.ok and first.value["pid"] != os.getpid()
    assert worker.call("a").value == "a"
    worker._discard()
    assert worker.call("b").value == "b"
    assert worker.hello is not None and worker.hello.value["pid"] != first.value["pid"]
    assert worker.restarts == 2


def slow_setup() -> tuple[Any, Any]:
    time.sleep(1.5)
    return echo, None


def test_setup_time_is_not_charged_to_the_call(make_worker: Any) -> None:
    worker = make_worker(setup=slow_setup, timeout=1.0)
    assert worker.call("a").value == "a"


def hanging_setup() -> tuple[Any, Any]:
    while True:
        time.sleep(0.01)


def raising_setup() -> tuple[Any, Any]:
    raise ImportError("no module named nowhere")


def exiting_setup() -> tuple[Any, Any]:
    os._exit(0)


@pytest.mark.parametrize(
    ("setup", "kind", "text"),
    [
        (hanging_setup, "timeout", "no answer within 0.3 s"),
        (raising_setup, "error", "no module named nowhere"),
        (exiting_setup, "crash", "worker exited with status 0"),
    ],
)
def test_a_failed_setup_is_an_outcome_and_calls_say_so(
    make_worker: Any, setup: Any, kind: str, text: str
) -> None:
    worker = make_worker(setup=setup, load_timeout=SHORT)
    hello = worker.start()
    assert hello.kind == kind
    assert text in hello.message
    outcome = worker.call("a")
    assert (outcome.kind, outcome.error_type) == ("error", "SetupError")
    assert text in outcome.message


def test_task_and_setup_are_exclusive() -> None:
    with pytest.raises(TypeError, match="either a task or a setup"):
        Worker(echo, setup=counting_setup)
    with pytest.raises(TypeError, match="either a task or a setup"):
        Worker()


def _forks(count: int, mib: int, answer_after: float = 0.5) -> Any:
    """A task that forks ``count`` children holding ``mib`` MiB each (written, so resident),
    which live 30 s, and answers after ``answer_after`` s; their pids in the answer."""

    def task(_: Any) -> list[int]:
        pids = []
        for _ in range(count):
            pid = os.fork()
            if pid == 0:
                hoard = b"\x01" * (mib << 20)  # noqa: F841
                time.sleep(30)
                os._exit(0)
            pids.append(pid)
        time.sleep(answer_after)
        return pids

    return task


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs Linux /proc")
def test_the_memory_cap_holds_for_the_whole_tree_of_the_worker() -> None:
    """Each child stays under its own RLIMIT_AS; the three together do not."""
    # Answering late leaves the watch time on a busy machine; over the cap, the call ends early.
    with Worker(_forks(3, 48, answer_after=10.0), memory_mb=64, timeout=20) as worker:
        outcome = worker.call(None)
    assert outcome.kind == "error" and outcome.error_type == "MemoryCapExceeded", outcome
    assert "the plugin's processes used" in outcome.message and "over the cap" in outcome.message


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs Linux /proc")
def test_forked_copies_of_the_worker_are_not_counted_twice() -> None:
    """Four forks that allocate nothing share the worker's pages: no false MemoryCapExceeded,
    however large the host (and so the worker) is."""
    with Worker(_forks(4, 0), memory_mb=32, timeout=20) as worker:
        outcome = worker.call(None)
        assert outcome.ok, outcome
        for pid in outcome.value:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs Linux /proc")
def test_fast_calls_look_at_the_tree_once_per_calls_tick(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of fast calls scans /proc at most once per CALLS_TICK, and a call that starts
    after CALLS_TICK without a look is looked at first."""
    from chunk_contract.containment import procs
    from chunk_contract.containment import worker as worker_module

    looks: list[float] = []
    real = procs.tree_memory

    def counted(*args: Any, **kwargs: Any) -> Any:
        looks.append(time.monotonic())
        return real(*args, **kwargs)

    monkeypatch.setattr(procs, "tree_memory", counted)
    with Worker(echo, memory_mb=256, timeout=20) as worker:
        began, in_call = time.monotonic(), 0
        while time.monotonic() < began + 1.0:  # a second of fast calls
            outcome = worker.call("fast")
            assert outcome.ok
            # a call a busy machine stretched past TREE_TICK is looked at inside it, by design
            in_call += int(outcome.elapsed / worker_module.TREE_TICK)
        spent = time.monotonic() - began
        allowed = spent / worker_module.CALLS_TICK + 2 + in_call
        assert 1 <= len(looks) <= allowed, (len(looks), spent, in_call)
        time.sleep(worker_module.CALLS_TICK)
        before = len(looks)
        assert worker.call("again").ok
        assert len(looks) >= before + 1  # looked at when it started
