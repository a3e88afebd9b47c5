"""Time per phase: the clock, the process-tree CPU it reads, and the phases of a real run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from chunk_contract.containment import reaper
from chunk_contract.containment.reaper import started_cpu_seconds, tree_cpu_seconds
from chunk_contract.engine.events import Event, PhaseClock, RunPhase
from chunk_contract.engine.results import PhaseTime, RunResult
from chunk_contract.engine.runner import RunSettings, run
from chunk_contract.reporting.json_report import report_json
from chunk_contract.reporting.text import render

ROOT = Path(__file__).resolve().parents[2]
FIXED = str(ROOT / "chunk_contract_reference" / "fixed.py") + ":split"

#: The phases every default run of a clean text chunker goes through.
CORE_PHASES = {
    "start-up", "seed corpus", "covering schedule", "exploration", "fresh-interpreter rerun",
    "health checks", "wrap-up",
}


class Ticks:
    """A fake clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_phase_is_charged_what_its_block_took_and_repeats_add_up() -> None:
    wall, cpu, plugin = Ticks(), Ticks(), Ticks()
    clock = PhaseClock(cpu=cpu, plugin_cpu=plugin, wall=wall)
    with clock.phase("exploration"):
        wall.now, cpu.now, plugin.now = 2.0, 1.0, 0.25
    wall.now, cpu.now, plugin.now = 3.0, 1.5, 0.5  # between phases: in the total, in no phase
    with clock.phase("exploration"):
        wall.now, cpu.now, plugin.now = 4.0, 2.0, 1.0
    assert clock.phases == {"exploration": PhaseTime(3.0, 1.5, 0.75)}
    assert clock.total() == PhaseTime(4.0, 2.0, 1.0)
    assert clock.total().host_cpu == 1.0


def test_the_plugins_share_of_a_phase_is_never_more_than_the_phase() -> None:
    """The started processes are read a moment before the whole tree: a tick that lands in
    between must not make the plugin's share larger than the phase's CPU, nor negative."""
    wall, cpu, plugin = Ticks(), Ticks(), Ticks()
    clock = PhaseClock(cpu=cpu, plugin_cpu=plugin, wall=wall)
    with clock.phase("scaling probe"):
        cpu.now, plugin.now = 0.5, 0.51
    with clock.phase("wrap-up"):
        plugin.now = 0.4  # a reaped child read once live, once reaped: a tick less
    assert clock.phases["scaling probe"] == PhaseTime(0.0, 0.5, 0.5)
    assert clock.phases["wrap-up"] == PhaseTime(0.0, 0.0, 0.0)


def test_a_parallel_runs_plugin_share_is_summed_from_its_processes() -> None:
    """The processes of ``-n`` are the host's children, but engines: the plugin's share of the
    whole command is what their own clocks charged to their workers, checked as it crossed."""
    from chunk_contract.engine.parallel import _total

    def ran(spent: PhaseTime | None) -> RunResult:
        return RunResult("t.py:split", "text", 1, 0, [], 0.0, RunSettings(), total_time=spent)

    results = [ran(PhaseTime(2.0, 1.5, 0.5)), ran(PhaseTime(2.0, 1.5, 0.75)), ran(None)]
    assert _total(PhaseTime(2.5, 3.5, 3.0), results) == PhaseTime(2.5, 3.5, 1.25)
    assert _total(PhaseTime(2.5, 3.5, 3.0), [ran(PhaseTime(1.0, 1.0, -9.0))]).plugin_cpu == 0
    assert _total(PhaseTime(2.5, 1.0, 1.0), [ran(PhaseTime(1.0, 9.0, 9.0))]).plugin_cpu == 1.0


def test_a_phase_that_raises_is_still_charged() -> None:
    wall, cpu = Ticks(), Ticks()
    clock = PhaseClock(cpu=cpu, plugin_cpu=Ticks(), wall=wall)
    with pytest.raises(KeyboardInterrupt), clock.phase("shrinking"):
        wall.now = 5.0
        raise KeyboardInterrupt
    assert clock.phases["shrinking"].wall == 5.0


#: A child that burns 0.3 s of CPU, says so, and lives on until its stdin closes.
BURN = (
    "import sys, time\n"
    "start = time.process_time()\n"
    "while time.process_time() - start < 0.3: pass\n"
    "print('done', flush=True)\n"
    "sys.stdin.read()\n"
)


#: What the burnt child's 0.3 s reads as at least: /proc and os.times() count whole clock
#: ticks, user and system time apart, so a reading may fall up to two ticks short of what the
#: child timed itself.
BURNT = 0.3 - 2 / os.sysconf("SC_CLK_TCK")


@contextmanager
def burnt_child() -> Iterator[None]:
    """A registered child (as the worker and the fresh interpreter are) that has burned 0.3 s
    of CPU and is still alive inside the block; reaped when it ends."""
    child = subprocess.Popen([sys.executable, "-c", BURN], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    reaper.register(child.pid, "test child")
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "done\n"
        yield
    finally:
        reaper.unregister(child.pid)
        child.communicate("", timeout=60)


def test_the_tree_clock_counts_a_live_child() -> None:
    """A worker is alive while a phase runs: its CPU must count before it is reaped
    (os.times() alone sees a child only once it is waited for)."""
    before = tree_cpu_seconds()
    with burnt_child():
        during = tree_cpu_seconds()
    assert during - before >= BURNT


def test_the_started_processes_clock_counts_a_live_child_and_not_the_host() -> None:
    """The plugin's share is what the host's children spent, live or reaped: the host's own
    work is not in it, a registered child's is."""
    before = started_cpu_seconds()
    start = time.process_time()
    while time.process_time() - start < 0.3:  # the host's own work
        pass
    assert started_cpu_seconds() - before < 0.1
    with burnt_child():
        during = started_cpu_seconds()
    assert during - before >= BURNT
    assert started_cpu_seconds() - before >= BURNT  # reaped now: still counted


@pytest.fixture(scope="module")
def recorded():  # type: ignore[no-untyped-def]
    """A real run of a clean chunker, and the events it emitted."""
    settings = RunSettings(max_examples=20, seed=1, reproducers=None, skip=("scales_linearly",))
    events: list[Event] = []
    return run(FIXED, settings, events.append), events


@pytest.fixture(scope="module")
def result(recorded):  # type: ignore[no-untyped-def]
    return recorded[0]


def test_the_examples_a_run_announces_are_known_from_its_first_phase(recorded) -> None:  # type: ignore[no-untyped-def]
    """The progress line's total counts the seed corpus, the covering schedule and the
    generated examples from the start: it does not jump when the schedule begins."""
    result, events = recorded
    announced = [e.asked for e in events if isinstance(e, RunPhase) and e.asked is not None]
    assert len(announced) >= 3 and set(announced) == {result.examples_asked}


def test_a_run_reports_its_phases_and_they_add_up_to_its_total(result) -> None:  # type: ignore[no-untyped-def]
    assert set(result.phases) >= CORE_PHASES
    assert result.total_time is not None
    summed = sum(result.phases.values(), PhaseTime())
    # Everything a run does lies in some phase: only the few statements between them do not
    # (generous: on a busy machine the process may wait for a core between two phases).
    assert abs(result.total_time.wall - summed.wall) <= 0.25 + 0.05 * result.total_time.wall
    # CPU is read in clock ticks per process (10 ms each): a few ticks either way.
    assert abs(result.total_time.cpu - summed.cpu) <= 0.1 + 0.05 * result.total_time.cpu
    assert abs(result.total_time.plugin_cpu - summed.plugin_cpu) <= 0.1 + 0.05 * summed.cpu
    assert result.phases["exploration"].cpu > 0
    # the worker's start is in the run: the fresh interpreter is a process of the plugin's only
    rerun = result.phases["fresh-interpreter rerun"]
    assert 0 < rerun.plugin_cpu <= rerun.cpu
    assert all(0 <= spent.plugin_cpu <= spent.cpu for spent in result.phases.values())


def test_the_json_report_has_the_phases(result) -> None:  # type: ignore[no-untyped-def]
    report = json.loads(json.dumps(report_json(result)))
    assert set(report["phases"]) == set(result.phases)
    assert set(report["phases"]["exploration"]) == {"wall", "cpu", "plugin_cpu"}
    assert set(report["total_time"]) == {"wall", "cpu", "plugin_cpu"}


def test_verbose_text_shows_each_phase_and_quiet_text_does_not(result) -> None:  # type: ignore[no-untyped-def]
    verbose = render(result, verbose=True)
    assert "time (wall / CPU" in verbose and "of which the plugin's processes" in verbose
    for name in (*result.phases, "total"):
        assert f"\n  {name} " in verbose
    assert "time (wall" not in render(result)


@pytest.fixture
def reruns(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many fresh interpreters a run starts (and with how many samples each)."""
    from chunk_contract.engine import crossrun

    started: list[int] = []
    original = crossrun.rerun

    def counting(target, cases, **options):  # type: ignore[no-untyped-def]
        started.append(len(cases))
        return original(target, cases, **options)

    monkeypatch.setattr(crossrun, "rerun", counting)
    return started


def test_the_fresh_interpreters_start_once_each_a_run(reruns: list[int]) -> None:
    from chunk_contract.engine import crossrun

    settings = RunSettings(max_examples=20, seed=1, reproducers=None, skip=("scales_linearly",))
    run(FIXED, settings)
    assert len(reruns) == crossrun.INTERPRETERS and all(0 < n <= 8 for n in reruns)


@pytest.mark.parametrize("selection", [
    {"only": ("cap_respected",)}, {"skip": ("deterministic", "scales_linearly")},
])
def test_the_fresh_interpreter_is_skipped_when_deterministic_is_not_checked(
    reruns: list[int], selection: dict[str, tuple[str, ...]]
) -> None:
    settings = RunSettings(max_examples=20, seed=1, reproducers=None, **selection)  # type: ignore[arg-type]
    result = run(FIXED, settings)
    assert reruns == []
    assert "fresh-interpreter rerun" not in result.phases
