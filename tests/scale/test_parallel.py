"""``run -n N``: the examples split over N processes, with the serial run's verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunk_contract.engine.parallel import jobs_from, run_parallel
from chunk_contract.engine.results import PhaseTime
from chunk_contract.engine.runner import Event, Progress, RunPhase, RunSettings, Started, run

ROOT = Path(__file__).resolve().parents[2]
DEFECTS = ROOT / "tests" / "defects" / "chunkers.py"


def _settings(**changes: object) -> RunSettings:
    values: dict[str, object] = dict(max_examples=120, seed=11, reproducers=None)
    values.update(changes)
    return RunSettings(**values)  # type: ignore[arg-type]


def _verdicts(target: str, jobs: int, **changes: object) -> dict[str, str]:
    result = run_parallel(target, _settings(**changes), jobs)
    return {item.id: item.status for item in result.results}


@pytest.mark.parametrize(
    "target",
    [
        str(ROOT / "chunk_contract_reference" / "recursive.py") + ":split",
        f"{DEFECTS}:lines_on_stripped_copy",
        f"{DEFECTS}:overlap_on_top",
        f"{DEFECTS}:keeps_blank_paragraphs",
        f"{DEFECTS}:crash_on_blank",
    ],
)
def test_two_processes_give_the_serial_verdicts(target: str) -> None:
    serial = _verdicts(target, 1, skip=("scales_linearly",))
    assert _verdicts(target, 2, skip=("scales_linearly",)) == serial


def test_whole_run_measurements_are_made_once() -> None:
    """scales_linearly is measured by the first process only, and still decides the verdict."""
    quadratic = _verdicts(f"{DEFECTS}:quadratic_offsets", 2, max_examples=20)
    assert quadratic["scales_linearly"] == "violated"
    linear = _verdicts(str(ROOT / "bench" / "trivial.py") + ":split", 2, max_examples=20)
    assert linear["scales_linearly"] == "passed"
    assert linear["deterministic"] == "passed"


def test_progress_is_summed_over_the_processes() -> None:
    events: list[Event] = []
    result = run_parallel(
        str(ROOT / "bench" / "trivial.py") + ":split",
        _settings(max_examples=200, skip=("scales_linearly",), corpus=False, schedule=False),
        2,
        events.append,
    )
    (started,) = [e for e in events if isinstance(e, Started)]
    assert "no_lost_text" in started.invariants and started.max_examples == 200
    progress = [e.examples for e in events if isinstance(e, Progress)]
    assert progress and max(progress) == result.examples == 200
    assert progress == sorted(progress)


def test_a_parallel_runs_plugin_share_is_its_workers_not_its_processes() -> None:
    """The command's processes are engines: what the plugin's processes took is what each
    charged to its own workers, not everything the command started."""
    result = run_parallel(str(ROOT / "bench" / "trivial.py") + ":split",
                          _settings(max_examples=60, skip=("scales_linearly",)), 2)
    summed = sum(result.phases.values(), PhaseTime())
    assert result.total_time is not None and summed.plugin_cpu > 0
    assert abs(result.total_time.plugin_cpu - summed.plugin_cpu) <= 0.1 + 0.05 * summed.cpu
    assert result.total_time.host_cpu >= summed.host_cpu - 0.1 - 0.05 * summed.cpu


def test_a_parallel_runs_total_is_known_before_its_first_example() -> None:
    """The first process's seed corpus and covering schedule count in the total from the
    start, as in a serial run: the progress line's total does not grow as they are played."""
    events: list[Event] = []
    result = run_parallel(str(ROOT / "bench" / "trivial.py") + ":split",
                          _settings(max_examples=40, skip=("scales_linearly",)), 2, events.append)
    shown = [e for e in events if isinstance(e, (Progress, RunPhase))]
    assert isinstance(shown[0], RunPhase)
    assert {e.asked for e in shown if isinstance(e, RunPhase)} == {result.examples_asked}
    assert {e.max_examples for e in shown if isinstance(e, Progress)} == {result.examples_asked}
    assert result.examples_asked > 40  # the corpus and the schedule are in it


def test_one_job_is_the_serial_run() -> None:
    target = f"{DEFECTS}:keeps_blank_paragraphs"
    quick = _settings(max_examples=30, skip=("scales_linearly",))
    serial = run(target, quick)
    one = run_parallel(target, quick, 1)
    assert [(r.id, r.status) for r in one.results] == [(r.id, r.status) for r in serial.results]
    assert one.violated[0].counterexample.document == serial.violated[0].counterexample.document  # type: ignore[union-attr]


def test_jobs_from() -> None:
    import os

    assert jobs_from("auto") == (os.cpu_count() or 1)
    assert jobs_from("3") == 3
    with pytest.raises(ValueError, match="at least 1"):
        jobs_from("0")
