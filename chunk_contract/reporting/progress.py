"""Progress on long work: one redrawn bar on a terminal, plain lines in a log.

``run``, ``matrix``, ``mutate``, ``fuzz`` and ``campaign`` share this display::

    with ProgressBar(label="checking split", total=400, unit="example") as bar:
        for _ in work:
            bar.update(advance=1, phase="exploring", violations=found)

On a terminal (stderr is a TTY, ``TERM`` is not ``dumb`` and ``CI`` is unset) the line is
redrawn in place at most ten times a second: the bar, done/total, the phase, the violations so
far and the time left. Anywhere else (a CI log, a pipe, ``NO_COLOR`` set) a plain line is
printed at each tenth of
the total, at each change of phase, and at least every ``every`` seconds, so a log shows that work
goes on without drowning in it. ``quiet=True`` shows nothing. The display never raises: progress
must not be the reason a run fails, so a closed stream silences it.

:class:`RunProgress` is the ``progress`` report format: it turns the runner's events (Started,
Progress, RunPhase, Shrinking, Measuring, Finished) into one such display per target.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

from chunk_contract.engine import events
from chunk_contract.engine.events import Event, Started
from chunk_contract.errors import printable
from chunk_contract.reporting.formats import ReportFormat, register
from chunk_contract.spec.model import plural

if TYPE_CHECKING:
    from chunk_contract.engine.results import RunResult

#: The shortest interval between two redraws on a terminal, in seconds.
REDRAW = 0.1
#: The longest silence in a log, in seconds.
EVERY = 15.0


def interactive(stream: TextIO, env: Mapping[str, str] | None = None) -> bool:
    """Whether ``stream`` is a terminal that a bar can be redrawn on."""
    env = os.environ if env is None else env
    if env.get("CI") or env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):  # a closed or detached stream
        return False


def duration(seconds: float) -> str:
    """``under 1 s``, ``42 s``, ``3 min 05 s``, ``1 h 02 min``."""
    if seconds < 0.5:
        return "under 1 s"  # (a fast run's last examples are not "0 s left")
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, secs = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


class ProgressBar:
    """A progress display for one piece of long work (see the module docstring).

    ``total`` may be None (unknown: no bar, no estimate). ``budget_s`` is a time budget: the time
    left is then the budget's remainder; otherwise it is estimated from the rate so far.
    """

    def __init__(
        self,
        *,
        label: str,
        total: int | None = None,
        unit: str = "example",
        stream: TextIO | None = None,
        budget_s: float | None = None,
        quiet: bool = False,
        tty: bool | None = None,
        every: float = EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label, self.total, self.unit = printable(label, limit=300), total, unit
        self.stream = stream or sys.stderr
        self.budget_s, self.quiet, self.every, self.clock = budget_s, quiet, every, clock
        self.tty = interactive(self.stream) if tty is None else tty
        self.done, self.phase, self.violations = 0, "", 0
        self.started = self.last_shown = self.budget_from = clock()
        self._tenth = 0
        self._drawn = False

    def update(
        self,
        done: int | None = None,
        *,
        advance: int = 0,
        phase: str | None = None,
        violations: int | None = None,
    ) -> None:
        """Record progress (``done`` absolute or ``advance`` relative) and show it if due."""
        self.done = (self.done if done is None else done) + advance
        new_phase = phase is not None and phase != self.phase
        self.phase = self.phase if phase is None else phase
        self.violations = self.violations if violations is None else violations
        if self._due(new_phase):
            self._show()

    def set_budget(self, seconds: float | None) -> None:
        """A new time budget from now (a phase's), or None: estimate from the rate."""
        self.budget_s, self.budget_from = seconds, self.clock()

    def close(self, summary: str | None = None) -> None:
        """End the display: clear the bar, and print ``summary`` if given."""
        if self.quiet:
            return
        if self.tty and self._drawn:
            self._write("\r\x1b[2K")
        if summary:
            self._write(f"{self.label}: {summary}\n")

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def line(self) -> str:
        """The progress as one line of text, without the bar."""
        parts = [self.label + ":", self._count()]
        if self.phase:
            parts.append(f"· {self.phase}")
        if self.violations:
            parts.append(f"· {plural(self.violations, 'violation')}")
        left = self.time_left()
        if left is not None:
            parts.append(f"· {duration(left)} left")
        return " ".join(parts)

    def time_left(self) -> float | None:
        """Seconds left: an estimate from the rate so far, at most the budget's remainder (a
        budget is a cap, not a forecast: a phase of one second is not shown as minutes)."""
        elapsed = self.clock() - self.started
        cap = None
        if self.budget_s is not None:
            cap = max(0.0, self.budget_s - (self.clock() - self.budget_from))
        if not self.total or not 0 < self.done < self.total or elapsed <= 0:
            return cap  # no rate yet, or the examples are done (shrinking, measuring)
        estimate = elapsed * max(0, self.total - self.done) / self.done
        return estimate if cap is None else min(cap, estimate)

    def _count(self) -> str:
        count = self.done if self.total is None else self.total
        noun = self.unit if count == 1 else self.unit + "s"
        if self.total is None:
            return f"{self.done:,} {noun}"
        return f"{self.done:,}/{self.total:,} {noun}"

    def _due(self, new_phase: bool) -> bool:
        if self.quiet:
            return False
        now = self.clock()
        if self.tty:
            return new_phase or now - self.last_shown >= REDRAW
        tenth = 10 * self.done // self.total if self.total else 0
        due = new_phase or tenth > self._tenth or now - self.last_shown >= self.every
        self._tenth = max(self._tenth, tenth)
        return due

    def _show(self) -> None:
        self.last_shown = self.clock()
        if not self.tty:
            self._write(self.line() + "\n")
            return
        width = shutil.get_terminal_size((80, 24)).columns - 1
        self._write("\r\x1b[2K" + self._bar(width)[:width])
        self._drawn = True

    def _bar(self, width: int) -> str:
        text = self.line()
        if not self.total:
            return text
        cells = 20
        filled = min(cells, cells * self.done // self.total)
        bar = "[" + "#" * filled + "-" * (cells - filled) + "] "
        label, _, rest = text.partition(": ")
        return f"{label}: {bar}{rest}" if len(text) + len(bar) <= width else text

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: stop showing progress
            self.quiet = True


class RunProgress:
    """The progress of a command's runs, one display per target (target i of n).

    Shows the examples done of those asked, the phase (``seed corpus``, ``covering schedule``,
    ``exploring``, ``shrinking ID``, ``measuring ID``, ``fresh-interpreter rerun``), the
    violations so far and the time left in the phase's budget; each target ends on one line.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        quiet: bool = False,
        targets: int = 1,
        tty: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream, self.quiet, self.targets = stream or sys.stderr, quiet, targets
        self.tty, self.clock = tty, clock
        self.index = 0
        self.bar: ProgressBar | None = None

    def __call__(self, event: Event) -> None:
        if isinstance(event, events.Started):
            self._start(event)
        elif self.bar is None:
            return
        elif isinstance(event, events.Progress):
            self._progress(self.bar, event.examples, len(event.violated))
        elif isinstance(event, events.RunPhase):
            self._phase(self.bar, event.name, event.asked, event.budget_s)
        elif isinstance(event, events.Shrinking):
            self._phase(self.bar, f"shrinking {event.invariant}", None, event.budget_s)
        elif isinstance(event, events.Measuring):
            self._phase(self.bar, f"measuring {event.invariant}", None, None)
        elif isinstance(event, events.Finished):
            self._finish(self.bar, event.result)

    def close(self) -> None:
        """Clear a display left open (a command stopped before its target finished)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def _start(self, event: Started) -> None:
        self.close()
        self.index += 1
        of = f" (target {self.index} of {self.targets})" if self.targets > 1 else ""
        self.bar = ProgressBar(
            label=f"checking {event.target}{of}", total=event.max_examples,
            stream=self.stream, quiet=self.quiet, tty=self.tty, clock=self.clock,
        )

    @staticmethod
    def _progress(bar: ProgressBar, done: int, violations: int) -> None:
        if bar.total is not None and done > bar.total:
            bar.total = done  # the replayed inputs of a parallel part count too
        bar.update(done, violations=violations)

    @staticmethod
    def _phase(bar: ProgressBar, name: str, asked: int | None, budget_s: float | None) -> None:
        if asked is not None:
            bar.total = max(asked, bar.done)
        bar.set_budget(None if budget_s is None else max(0.0, budget_s))
        bar.update(phase=name)

    def _finish(self, bar: ProgressBar, result: RunResult) -> None:
        verdict = "passed" if result.passed else f"{plural(len(result.violated), 'violation')}"
        if result.interrupted:
            verdict = "interrupted"
        bar.close(f"{plural(result.examples, 'example')} · {verdict} · {duration(result.elapsed)}")
        self.bar = None


FORMAT = register(
    ReportFormat(
        name="progress",
        help="progress on stderr: a bar on a terminal, plain lines in a log (-q: none)",
        open=lambda output: RunProgress(output.stream, quiet=output.quiet, targets=output.targets),
    )
)
