"""The progress display: a bar on a terminal, plain lines in a log, never an error."""

from __future__ import annotations

import io

import pytest

from chunk_contract.engine.runner import (
    Finished,
    InvariantResult,
    Measuring,
    Progress,
    RunPhase,
    RunResult,
    Shrinking,
    Started,
)
from chunk_contract.reporting.progress import ProgressBar, RunProgress, duration, interactive


class Clock:
    """A clock the test moves by hand, so no verdict depends on the machine's speed."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def bar(stream: io.StringIO, clock: Clock, **kw: object) -> ProgressBar:
    return ProgressBar(label="checking t", stream=stream, clock=clock, **kw)  # type: ignore[arg-type]


def test_a_log_gets_one_line_per_tenth_not_per_update() -> None:
    out, clock = io.StringIO(), Clock()
    with bar(out, clock, total=100, tty=False) as progress:
        for _ in range(100):
            progress.update(advance=1)
    lines = out.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[0] == "checking t: 10/100 examples"
    assert lines[-1] == "checking t: 100/100 examples"


def test_a_log_is_never_silent_longer_than_every() -> None:
    out, clock = io.StringIO(), Clock()
    progress = bar(out, clock, total=10**6, tty=False, every=15.0)
    progress.update(advance=1)
    assert out.getvalue() == ""
    clock.now = 16.0
    progress.update(advance=1)
    assert out.getvalue().splitlines() == ["checking t: 2/1,000,000 examples · 2222 h 13 min left"]


def test_a_phase_change_and_violations_are_shown_at_once() -> None:
    out, clock = io.StringIO(), Clock()
    progress = bar(out, clock, total=100, tty=False)
    progress.update(advance=1, phase="shrinking no_lost_text", violations=1)
    assert out.getvalue() == "checking t: 1/100 examples · shrinking no_lost_text · 1 violation\n"


def test_a_terminal_redraws_one_line_in_place_with_a_bar() -> None:
    out, clock = io.StringIO(), Clock()
    progress = bar(out, clock, total=4, tty=True, budget_s=60.0)
    for _ in range(4):
        clock.now += 1.0
        progress.update(advance=1, phase="exploring")
    progress.close()
    text = out.getvalue()
    assert "\n" not in text
    assert text.count("\r\x1b[2K") == 5  # four redraws and the final clear
    # 3 of 4 in 3 s: 1 s left by the rate (the 60 s budget is only a cap)
    assert "[###############-----] 3/4 examples · exploring · 1 s left" in text


def test_a_terminal_is_not_redrawn_faster_than_ten_times_a_second() -> None:
    out, clock = io.StringIO(), Clock()
    progress = bar(out, clock, total=1000, tty=True)
    clock.now = 1.0
    for _ in range(1000):
        progress.update(advance=1)
    assert out.getvalue().count("\r") == 1


def test_quiet_shows_nothing_even_the_summary() -> None:
    out, clock = io.StringIO(), Clock()
    with bar(out, clock, total=3, tty=False, quiet=True) as progress:
        progress.update(3, phase="done")
        progress.close("3 mutants")
    assert out.getvalue() == ""


def test_a_closed_stream_silences_the_display_instead_of_raising() -> None:
    out, clock = io.StringIO(), Clock()
    progress = bar(out, clock, total=10, tty=False)
    out.close()
    progress.update(5, phase="exploring")
    progress.close("done")
    assert progress.quiet


def test_an_unknown_total_counts_without_a_bar_or_estimate() -> None:
    out, clock = io.StringIO(), Clock()
    progress = bar(out, clock, tty=False, unit="input")
    clock.now = 20.0
    progress.update(1)
    assert out.getvalue() == "checking t: 1 input\n"


@pytest.mark.parametrize(
    ("env", "tty", "expected"),
    [({}, True, True), ({"CI": "true"}, True, False), ({"TERM": "dumb"}, True, False),
     ({"NO_COLOR": "1"}, True, False), ({}, False, False)],
)
def test_interactive_needs_a_terminal_outside_ci(
    env: dict[str, str], tty: bool, expected: bool
) -> None:
    stream = io.StringIO()
    stream.isatty = lambda: tty  # type: ignore[method-assign]
    assert interactive(stream, env) is expected


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.0, "under 1 s"), (0.4, "under 1 s"), (0.6, "1 s"), (42, "42 s"), (185, "3 min 05 s"),
     (3720, "1 h 02 min")],
)
def test_durations_read_as_people_write_them(seconds: float, text: str) -> None:
    assert duration(seconds) == text


# --- the progress of runs, from the runner's events -------------------------------------------


def _result(target: str, *, violated: bool = False) -> RunResult:
    status = "violated" if violated else "passed"
    return RunResult(target, "text", 1, 40, [InvariantResult("no_lost_text", status, 40)], 3.0)


def _events(target: str, clock: Clock, *, violated: bool = False) -> list[object]:
    """One run's events as the runner emits them, the clock moving between them."""
    found = ("no_lost_text",) if violated else ()
    return [
        Started(target, "text", ("no_lost_text",), 1, 20),
        RunPhase("seed corpus", asked=30, budget_s=45.0),
        RunPhase("covering schedule", asked=40, budget_s=44.0),
        RunPhase("exploring", asked=40, budget_s=40.0),
        Progress(25, 20, found),
        Progress(40, 20, found),
        Measuring("scales_linearly"),
        RunPhase("fresh-interpreter rerun"),
        *([Shrinking("no_lost_text", 10.0)] if violated else []),
        Finished(_result(target, violated=violated)),
    ]


def _feed(progress: RunProgress, events: list[object], clock: Clock) -> None:
    for event in events:
        clock.now += 1.0
        progress(event)  # type: ignore[arg-type]


def test_a_run_in_a_log_names_every_phase_the_violations_and_the_budget_left() -> None:
    out, clock = io.StringIO(), Clock()
    progress = RunProgress(out, tty=False, clock=clock)
    _feed(progress, _events("t.py:split", clock, violated=True), clock)
    lines = out.getvalue().splitlines()
    assert lines[0] == "checking t.py:split: 0/30 examples · seed corpus · 45 s left"
    assert lines[1] == "checking t.py:split: 0/40 examples · covering schedule · 44 s left"
    assert "exploring · 40 s left" in lines[2]
    # 25 of 40 in 4 s: 2 s left by the rate, under the budget's 39 s
    assert any("25/40 examples · exploring · 1 violation · 2 s left" in line for line in lines)
    assert any("· measuring scales_linearly" in line for line in lines)
    assert any("· fresh-interpreter rerun" in line for line in lines)
    assert any("shrinking no_lost_text · 1 violation · 10 s left" in line for line in lines)
    assert lines[-1] == "checking t.py:split: 40 examples · 1 violation · 3 s"


def test_several_targets_get_one_line_each_target_i_of_n_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # room for the bar, whatever terminal runs the tests
    out, clock = io.StringIO(), Clock()
    progress = RunProgress(out, tty=True, targets=2, clock=clock)
    _feed(progress, _events("a.py:split", clock), clock)
    _feed(progress, _events("b.py:split", clock, violated=True), clock)
    progress.close()
    text = out.getvalue()
    assert "[####################] 40/40 examples · fresh-interpreter rerun" in text
    assert _screen(text) == [
        "checking a.py:split (target 1 of 2): 40 examples · passed · 3 s",
        "checking b.py:split (target 2 of 2): 40 examples · 1 violation · 3 s",
        "",  # the cursor, on a clean line
    ]


def _screen(text: str) -> list[str]:
    """What a terminal shows after ``text``: each redraw clears its line first."""
    return [line.rsplit("\r\x1b[2K", 1)[-1] for line in text.split("\n")]


def test_quiet_progress_shows_nothing() -> None:
    out, clock = io.StringIO(), Clock()
    progress = RunProgress(out, quiet=True, tty=False, clock=clock)
    _feed(progress, _events("t.py:split", clock, violated=True), clock)
    progress.close()
    assert out.getvalue() == ""


def test_events_before_a_start_or_after_a_finish_are_ignored() -> None:
    out, clock = io.StringIO(), Clock()
    progress = RunProgress(out, tty=False, clock=clock)
    progress(Progress(5, 20, ()))
    progress(RunPhase("exploring"))
    progress.close()
    assert out.getvalue() == ""


def test_a_stopped_run_clears_its_bar_on_close() -> None:
    out, clock = io.StringIO(), Clock()
    progress = RunProgress(out, tty=True, clock=clock)
    _feed(progress, _events("t.py:split", clock)[:4], clock)
    progress.close()
    assert out.getvalue().endswith("\r\x1b[2K") and progress.bar is None


def test_a_budget_caps_the_time_left_but_a_fast_phase_shows_its_rate() -> None:
    """A phase may take 3 min at most; at 10 of 100 examples after 1 s, 9 s are left, not 3 min."""
    out, clock = io.StringIO(), Clock()
    progress = bar(out, clock, total=100, tty=False, budget_s=180.0)
    clock.now = 1.0
    progress.update(done=10)
    assert progress.time_left() == pytest.approx(9.0)
    slow = bar(io.StringIO(), clock, total=100, tty=False, budget_s=5.0)
    clock.now = 11.0
    slow.update(done=1)
    assert slow.time_left() == 0.0  # the budget is spent: the cap, not the 990 s estimate


def test_the_count_moves_through_the_corpus_and_the_schedule() -> None:
    from chunk_contract.engine.runner import RunSettings, run

    seen: list[object] = []
    run("chunk_contract_reference/fixed.py:split",
        RunSettings(max_examples=20, seed=1, measure=False),
        on_event=seen.append)
    before = []
    for event in seen:
        if isinstance(event, RunPhase) and event.name == "exploring":
            break
        before.append(event)
    counts = [e.examples for e in before if isinstance(e, Progress)]
    assert len(counts) > 10 and counts == sorted(counts) and counts[-1] > 200
