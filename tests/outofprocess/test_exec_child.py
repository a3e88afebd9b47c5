"""ExecChild driven directly: handshakes, replies, hangs, crashes, memory, CPU, utf16 offsets."""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chunk_contract.containment import procs, reaper
from chunk_contract.spec.invariants.unicode import codepoint_integrity
from chunk_contract.spec.model import Case, Config, Document, chunks_from_records, normalise_chunks
from chunk_contract.transport.exec_child import (
    STDERR_BYTES,
    ExecChild,
    ExecTargetError,
    exec_command,
)
from chunk_contract.transport.targets import TargetError
from chunk_contract.transport.wire import Handshake

CHILDREN = Path(__file__).with_name("children.py")


def target(mode: str) -> str:
    """The exec: target of one hand-made child."""
    return f"exec:{shlex.quote(sys.executable)} {shlex.quote(str(CHILDREN))} {mode}"


@pytest.fixture
def make() -> Iterator[type[ExecChild]]:
    """ExecChild factory whose children are all closed at the end of the test."""
    made: list[ExecChild] = []

    def build(mode: str, **options: object) -> ExecChild:
        options.setdefault("timeout", 10.0)  # generous: only the tests of hangs set a short one
        child = ExecChild(target(mode), **options)  # type: ignore[arg-type]
        made.append(child)
        return child

    yield build  # type: ignore[misc]
    for child in made:
        child.close()


def split(document: str, max_size: int = 3, overlap: int = 0) -> tuple[object, ...]:
    return ("split", document, max_size, overlap)


def alive(pid: int) -> list[int]:
    """Live (non-zombie) processes of the session/group ``pid`` leads."""
    return [p for p, _ in procs.members(pid)]


# --------------------------------------------------------------------------- targets


def test_exec_command_splits_like_a_posix_shell() -> None:
    assert exec_command("exec:node 'my chunker.mjs' --x=\"a b\"") == [
        "node", "my chunker.mjs", "--x=a b"
    ]


@pytest.mark.parametrize("bad", ["exec:", "exec:   ", "exec:node 'unclosed"])
def test_exec_command_rejects_empty_or_unbalanced_commands(bad: str) -> None:
    with pytest.raises(ExecTargetError, match="exec:"):
        exec_command(bad)


def test_a_missing_program_is_a_usage_error_naming_the_target() -> None:
    child = ExecChild("exec:/nonexistent/chunker --fast")
    with pytest.raises(TargetError, match=r"exec:/nonexistent/chunker --fast: cannot start"):
        child.start()
    child.close()


# --------------------------------------------------------------------------- handshakes


def test_handshake_defaults_and_split(make: type[ExecChild]) -> None:
    child = make("ok")
    assert child.start() == Handshake()
    outcome = child.call(split("abcdefg"))
    assert outcome.ok
    expected = normalise_chunks(
        [{"text": "abc", "start": 0, "end": 3}, {"text": "def", "start": 3, "end": 6},
         {"text": "g", "start": 6, "end": 7}]
    )
    assert outcome.value == ("chunks", expected)
    assert child.restarts == 1


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("no-handshake", r"exited with status 1.*missing model"),
        ("bad-json", "not one JSON object"),
        ("version-2", "protocol version 2; this chunk-contract speaks 1"),
        ("bad-unit", "\"unit\" is 'words'"),
        ("bad-promises", "\"promises\" is 'ordered'"),
        ("no-version", "no \"chunk_contract\" key"),
        ("silent", "no handshake line within 0.5 s"),
    ],
)
def test_a_bad_handshake_is_a_usage_error(make: type[ExecChild], mode: str, says: str) -> None:
    # Only the silent child waits out its deadline; the others get time to start on a busy
    # machine, so their verdict never becomes "no handshake line" under load.
    child = make(mode, start_timeout=0.5 if mode == "silent" else 60.0)
    with pytest.raises(ExecTargetError, match=says) as info:
        child.start()
    assert str(info.value).startswith(target(mode))
    assert child.pid is None  # nothing left running


def test_the_command_runs_in_the_given_folder(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(CHILDREN.read_text())
    relative = f"exec:{shlex.quote(sys.executable)} mine.py ok"
    with ExecChild(relative, cwd=tmp_path) as child:
        assert child.start() == Handshake()
    with ExecChild(relative) as elsewhere, pytest.raises(ExecTargetError, match="status 2"):
        elsewhere.start()  # not in that folder: python cannot open mine.py


def test_start_up_is_not_charged_to_the_first_call(make: type[ExecChild]) -> None:
    child = make("ok", timeout=5.0)
    outcome = child.call(split("abc"))
    assert outcome.ok and outcome.elapsed < 5.0
    assert child.restarts == 1


# --------------------------------------------------------------------------- replies


def test_a_config_error_reply_is_a_rejection(make: type[ExecChild]) -> None:
    outcome = make("ok").call(split("abc", 0, 0))
    assert outcome.ok
    assert outcome.value[0] == "raised" and outcome.value[3] is True


def test_count_tokens(make: type[ExecChild]) -> None:
    child = make("tokens")
    assert child.start().declarations().unit == "tokens"
    assert child.call(("count", ["a b", "", "c d e"])).value == [2, 0, 3]


@pytest.mark.parametrize(
    ("mode", "says"),
    [("garbage", "malformed reply: the reply is not one JSON object"),
     ("wrong_id", "has id 8, expected 1"),
     ("exit", "exited with status 3 before replying"),
     ("huge", "grew past")],
)
def test_a_bad_reply_is_a_crash_and_the_next_call_restarts(
    make: type[ExecChild], mode: str, says: str
) -> None:
    child = make(mode, timeout=60.0)  # each ends at once; 40 MB through a pipe can take seconds
    outcome = child.call(split("abc"))
    assert outcome.kind == "crash", outcome
    assert says in outcome.message
    assert child.pid is None
    child.call(split("abc"))
    assert child.restarts == 2


def test_stderr_is_shown_in_a_crash(make: type[ExecChild]) -> None:
    outcome = make("exit").call(split("abc"))
    assert "fatal: giving up" in outcome.detail


def test_a_chatty_child_never_blocks_and_its_stderr_stays_bounded(make: type[ExecChild]) -> None:
    child = make("flood", timeout=20.0)
    child.start()
    outcome = child.call(split("abcd", 2))
    assert outcome.ok, outcome
    proc = child._holder[0]
    assert proc is not None and len(proc.tail) <= STDERR_BYTES


# --------------------------------------------------------------------------- kills


def test_a_hang_is_killed_with_its_group_and_restarted(make: type[ExecChild]) -> None:
    child = make("hang", timeout=0.3)
    child.start()
    pid = child.pid
    assert pid is not None
    outcome = child.call(split("abc"))
    assert outcome.kind == "timeout" and "no reply within 0.3 s" in outcome.message
    assert alive(pid) == []
    child.start()
    assert child.pid != pid and child.restarts == 2


def test_a_grandchild_dies_with_the_hung_child(make: type[ExecChild]) -> None:
    child = make("grandchild", timeout=0.5)
    child.start()
    pid = child.pid
    assert pid is not None
    assert child.call(split("abc")).kind == "timeout"
    assert alive(pid) == [], "a process of the child's group outlived the timeout"


def test_a_child_that_never_reads_cannot_block_a_big_write(make: type[ExecChild]) -> None:
    child = make("deaf", timeout=0.5)
    child.start()
    outcome = child.call(split("x" * 5_000_000))  # far more than a pipe holds
    assert outcome.kind == "timeout"


def test_a_grandchild_that_left_the_session_dies_with_the_cgroup(make: type[ExecChild]) -> None:
    child = make("escape", timeout=3.0)  # time to start the runaway and say so, under load
    child.start()
    if child.cgroup_path is None:
        pytest.skip("no writable cgroup v2 here: only the session's processes can be found")
    outcome = child.call(split("abc"))
    assert outcome.kind == "timeout"
    runaway = int(outcome.detail.split("runaway ")[1].split()[0])
    state = Path(f"/proc/{runaway}/stat")
    assert not state.exists() or state.read_text().rsplit(")", 1)[1].split()[0] == "Z"


def test_a_slow_proc_scan_is_not_repeated_every_tick(
    make: type[ExecChild], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With thousands of processes on the machine one /proc scan outlasts RSS_TICK; the watch
    then backs off (WATCH_SHARE), instead of keeping a core busy scanning during the call."""
    scans: list[float] = []
    real = procs.tree_memory

    def slow_rss(leader: int, **options: Any) -> tuple[int, list[int]]:
        scans.append(time.monotonic())
        time.sleep(0.05)  # a scan of a very busy machine
        return real(leader, **options)

    child = make("slow", memory_mb=512)
    child.start()
    monkeypatch.setattr(procs, "tree_memory", slow_rss)
    outcome = child.call(split("abc"))
    assert outcome.ok, outcome
    # one second of call: about 1 / (WATCH_SHARE * 0.05) = 4 scans; every tick would be 14
    assert len(scans) <= 8, len(scans)


def test_memory_mode_auto_picks_what_this_machine_has(make: type[ExecChild]) -> None:
    child = make("ok")
    assert child.memory_mode == "auto"
    child.start()
    assert child.memory_mode in ("cgroup", "rss")
    assert make("ok", memory_mb=None).memory_mode == "none"


def test_the_childs_own_cgroup_is_removed_at_close(make: type[ExecChild]) -> None:
    child = make("ok")
    child.start()
    folder = child.cgroup_path
    if folder is None:
        pytest.skip("no writable cgroup v2 here: the child runs without a cgroup of its own")
    assert str(child.pid) in (folder / "cgroup.procs").read_text().split()
    child.close()
    assert not folder.exists()


class FakeCgroup:
    """Stands in for a cgroup whose kernel OOM-killed the child (memory.events oom_kill 1)."""

    procs_file = "/dev/null"
    removed = False
    limits_memory = True

    def oom_kills(self) -> int:
        return 1

    def kill(self) -> None:
        pass

    def remove(self) -> None:
        self.removed = True

    def cpu_seconds(self) -> float | None:
        return None


def test_an_oom_kill_in_the_cgroup_is_a_memory_outcome(make: type[ExecChild]) -> None:
    child = make("exit")
    child.start()
    proc = child._holder[0]
    assert proc is not None
    real, fake = proc.cgroup, FakeCgroup()
    proc.cgroup = fake  # type: ignore[assignment]
    outcome = child.call(split("abc"))
    if real is not None:  # the child's own cgroup, which the fake stood in for
        real.remove()
        assert not real.path.exists()
    assert outcome.kind == "memory" and "memory.max" in outcome.message
    assert fake.removed


def test_cgroup_files_are_read(tmp_path: Path) -> None:
    (tmp_path / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 2\n")
    (tmp_path / "cpu.stat").write_text("usage_usec 1500000\nuser_usec 1000000\n")
    group = procs.Cgroup(tmp_path / ".")
    assert group.oom_kills() == 2 and group.cpu_seconds() == 1.5
    assert procs.Cgroup(tmp_path / "missing").cpu_seconds() is None


def test_memory_over_the_cap_kills_the_group(make: type[ExecChild]) -> None:
    child = make("alloc", timeout=30.0, memory_mb=64, memory_mode="rss")
    child.start()
    assert child.memory_mode == "rss"
    started = time.monotonic()
    outcome = child.call(split("abc"))
    assert outcome.kind == "memory", outcome
    assert "over the 64 MiB limit" in outcome.message
    assert time.monotonic() - started < 30.0


def test_close_asks_the_child_to_exit(make: type[ExecChild]) -> None:
    child = make("ok")
    child.start()
    pid = child.pid
    assert pid is not None
    child.close()
    assert alive(pid) == []
    with pytest.raises(RuntimeError, match="closed"):
        child.call(split("abc"))


# --------------------------------------------------------------------------- CPU time


def test_cpu_time_includes_the_childs_own_children(make: type[ExecChild]) -> None:
    child = make("burn", timeout=60.0)
    outcome = child.call(("cpu", "x" * 100, 10, 0))
    assert outcome.ok, outcome
    # The grandchild sums 20 million ints: well over 0.1 s of CPU that only /proc shows.
    assert outcome.value is not None and outcome.value >= 0.1


def test_cpu_time_of_a_failed_split_is_none(make: type[ExecChild]) -> None:
    outcome = make("ok").cpu_seconds(("cpu", "abc", 0, 0))
    assert outcome.ok and outcome.value is None


# --------------------------------------------------------------------------- utf16


ASTRAL = "a\U0001f600b\U0001d11ec\U0001f600\U0001f600d"


def test_utf16_offsets_become_codepoint_offsets(make: type[ExecChild]) -> None:
    child = make("utf16")
    assert child.start().offsets == "utf16"
    outcome = child.call(split(ASTRAL, 2))
    records = outcome.value[1]
    assert [(r["start"], r["end"]) for r in records] == [(0, 2), (2, 4), (4, 6), (6, 8)]
    assert all(ASTRAL[r["start"] : r["end"]] == r["text"] for r in records)


def test_a_utf16_offset_inside_a_pair_is_reported(make: type[ExecChild]) -> None:
    document = "\U0001f600abc"
    outcome = make("utf16-cut").call(split(document, 2))
    chunks = chunks_from_records(outcome.value[1])
    found = list(codepoint_integrity(Case(Document(document), Config(2), chunks)))
    assert found and "falls inside" in found[0].message


def test_a_live_child_is_registered_so_its_cpu_counts_in_the_phases(make: type[ExecChild]) -> None:
    """The phases' CPU reads the registered children (reaper.tree_cpu_seconds); the child is
    registered while it lives and forgotten once killed and reaped."""
    child = make("ok")
    child.start()
    pids = [pid for pid, what in reaper.registered().items() if what == "exec: child"]
    assert len(pids) == 1 and alive(pids[0])
    child.close()
    assert pids[0] not in reaper.registered()
