"""The progress display: a bar on a terminal, plain lines in a log, never an error."""

from __future__ import annotations

import io

import pytest

from contract.reporting.progress import ProgressBar, duration, interactive


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
    assert "[###############-----] 3/4 examples · exploring · 57 s left" in text


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
     ({}, False, False)],
)
def test_interactive_needs_a_terminal_outside_ci(
    env: dict[str, str], tty: bool, expected: bool
) -> None:
    stream = io.StringIO()
    stream.isatty = lambda: tty  # type: ignore[method-assign]
    assert interactive(stream, env) is expected


@pytest.mark.parametrize(
    ("seconds", "text"), [(0.4, "0 s"), (42, "42 s"), (185, "3 min 05 s"), (3720, "1 h 02 min")]
)
def test_durations_read_as_people_write_them(seconds: float, text: str) -> None:
    assert duration(seconds) == text
