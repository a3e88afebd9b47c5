"""``scales_linearly``: time the plugin on doubling documents of every shape the generators know.

**Families.** ``FAMILIES`` maps a name to a builder ``size -> document``; the worker looks a
family up by name and builds it itself, so megabytes never cross the pipe. Four families are
pathological (one character repeated, newlines only, unbroken CJK, one long line); the others
are realistic, what the generators make, grown deterministically (a unit repeated, numbered so
no two blocks are alike unless the family is about identical blocks): paragraphs of prose,
markdown sections with headings, lists, fenced code, tables, JSON blocks, repeated identical
blocks, CRLF text, and a mixed markdown document. Every family applies to every text plugin.

**Sizes.** A family starts small (``SIZES[0]``, 3,125 characters) and doubles to 100,000, then
on while the largest size takes under ``FLOOR`` seconds: up to 6.4M characters for the
pathological families (a quadratic loop in C shows only past a million), 1.6M for the realistic
ones (text with breaks shows a C loop over a prefix sooner). It stops growing as soon as it is
shown superlinear.

**Verdict.** Times are the worker's own CPU time, so load on the machine does not count. The
largest finished size is compared with the size four times smaller (one doubling cannot tell:
quadratic is x4 there, what linear with its slack may take): reported when it takes more than
``RATIO`` times as long (linear takes about 4x, quadratic about 16x) and more than ``FLOOR``
seconds, so timer noise on millisecond calls never counts. The two compared sizes are timed up
to ``REPEATS`` times, keeping the least (noise only ever adds time); only the repeats that could
change the verdict are made. A suspected family is measured a second time and must fail again.
Every confirmed family is reported, one violation each; no family starts once the plugin has
spent ``BUDGET`` CPU seconds in the probe.

**Timeouts.** The call's timeout is wall-clock, so a timeout depends on load. A size that does
not finish is waited for once more, up to ``LOAD`` times the most a linear chunker may take
there (RATIO's slack included; at most ``EXTEND`` times the timeout), and counts as superlinear
only if it does not finish then either; if it does, its CPU time decides like any other. So a
correct but slow chunker is judged on CPU times, and a plugin too slow even at the smallest
size is left to ``terminates``. Plugin failures are left to ``no_crash``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from contract.generation.families import FAMILIES, PATHOLOGICAL
from contract.spec.model import Config, Violation
from contract.transport.messages import CpuFamily

if TYPE_CHECKING:
    from contract.transport.base import Transport

__all__ = [
    "BUDGET", "CONFIG", "FAMILIES", "PATHOLOGICAL", "SIZES", "Timing", "measure", "probe",
]


SIZES = (3_125, 6_250, 12_500, 25_000, 50_000, 100_000)
REPEATS = 3
RATIO = 8.0
FLOOR = 0.1
#: A size that did not finish counts as superlinear only after waiting LOAD times the most a
#: linear chunker may take (RATIO's slack included): a busy machine's wall clock may run that
#: much slower than the worker's CPU time without a correct chunker being reported.
LOAD = 8.0
#: A size that times out is tried once more with up to EXTEND times the call's timeout, when
#: the timeout itself was too short to tell growth from load.
EXTEND = 4.0
CONFIG = Config(max_size=200, overlap=20)
#: Further doublings tried while the largest size still takes under FLOOR seconds (up to
#: 6.4M characters): a quadratic loop in C (``str.rfind`` back to the document's start) takes
#: milliseconds at 100k characters and only shows its growth past a million.
EXTRA = 6
#: The same for the realistic families, up to 1.6M characters: a C loop over a prefix per
#: chunk (``find`` or ``count`` from the start) shows by then on text that has breaks, and the
#: probe stays at a few seconds with this many families.
EXTRA_REALISTIC = 4
#: CPU seconds of the plugin after which no further family is started.
BUDGET = 30.0


@dataclass(frozen=True)
class Timing:
    """One family's measurement: the sizes tried and their least CPU times."""

    family: str
    sizes: tuple[int, ...]
    seconds: tuple[float | None, ...]  # CPU seconds; None: no answer within the timeout
    timeout: float
    spent: float = 0.0  # CPU seconds of every call made (a timeout counts as its wait)
    failed: bool = False  # the plugin failed on this family (left to no_crash)
    waited: float | None = None  # wall seconds the last size was given (default: timeout)

    @property
    def finished(self) -> int:
        """How many sizes (from the first) finished; only the last size tried can time out."""
        return sum(t is not None for t in self.seconds)

    @property
    def compared(self) -> tuple[int, int] | None:
        """Indices of the sizes the verdict compares: the largest finished size and the one
        four times smaller (or the first); None if no size finished."""
        if self.finished == 0:
            return None
        last = self.finished - 1
        return max(0, last - 2), last

    def allowed(self, at: int) -> float:
        """The most CPU time size ``at`` may take, growing linearly (with RATIO's slack) from
        the smaller compared size."""
        assert self.compared is not None
        ref = self.compared[0]
        first = self.seconds[ref]
        assert first is not None
        return first * RATIO * (self.sizes[at] / self.sizes[ref]) / 4

    @property
    def grew(self) -> bool:
        """The largest finished size took over FLOOR seconds and over its linear allowance
        (compared with a size four times smaller: one doubling cannot tell x4 from quadratic)."""
        pair = self.compared
        if pair is None or pair[1] - pair[0] < 2:
            return False
        last = self.seconds[pair[1]]
        assert last is not None
        return last > FLOOR and last > self.allowed(pair[1])

    @property
    def late(self) -> int | None:
        """The index of the size that did not finish, if one did not."""
        late = len(self.seconds) - 1
        return late if self.seconds and self.seconds[late] is None else None

    @property
    def wait(self) -> float:
        """Wall seconds the last size was given."""
        return self.timeout if self.waited is None else self.waited

    @property
    def timed_out(self) -> bool:
        """A size did not finish after LOAD times the most a linear chunker may take."""
        late = self.late
        if late is None or self.finished == 0:
            return False
        return self.allowed(late) * LOAD <= self.wait

    @property
    def superlinear(self) -> bool:
        """Time grew faster than the input: by the CPU times, or by a timeout."""
        return not self.failed and (self.grew or self.timed_out)

    def describe(self) -> str:
        """What was found and every size measured, in one uniform format."""
        shown = ", ".join(
            f"{n:,} chars: {'did not finish' if t is None else f'{t:.3f} s'}"
            for n, t in zip(self.sizes, self.seconds)
        )
        return f"{self.family}: {self._finding()}; measured (CPU time): {shown}"

    def _waited(self) -> str:
        """The wait a size did not finish within: the timeout, or the timeout extended."""
        if self.wait == self.timeout:
            return f"the {self.timeout:g} s timeout"
        return f"{self.wait:.3g} s (the {self.timeout:g} s timeout extended)"

    def _finding(self) -> str:
        """The headline: the timeout, or the growth between the compared sizes."""
        assert self.compared is not None
        ref, last = self.compared
        base = f"{self.sizes[ref]:,} chars took {self.seconds[ref]:.3f} s"
        late = self.late
        if late is not None and self.timed_out:
            return (
                f"{self.sizes[late]:,} chars did not finish within {self._waited()}, while "
                f"{base} and a linear chunker of this kind would take at most "
                f"{self.allowed(late):.3g} s"
            )
        growth = self.sizes[last] // self.sizes[ref]
        return (
            f"{self.sizes[last]:,} chars took {self.seconds[last]:.3f} s, "
            f"while {base}: x{growth} the input, linear allows about x{growth * RATIO / 4:g} "
            f"the time"
        )


@dataclass
class _Measuring:
    """A family's measurement in progress: the sizes planned, the times so far, and the CPU
    seconds the plugin has spent (a timeout counts as its wait)."""

    worker: Transport
    family: str
    planned: list[int]
    timeout: float
    config: Config
    seconds: list[float | None] = field(default_factory=list)
    retimed: set[int] = field(default_factory=set)
    spent: float = 0.0
    waited: float | None = None

    def timing(self, *, failed: bool = False) -> Timing:
        """The measurement so far."""
        return Timing(
            self.family, tuple(self.planned[: len(self.seconds)]), tuple(self.seconds),
            self.timeout, self.spent, failed, self.waited,
        )

    def time(self, size: int, repeats: int, limit: float | None = None) -> float | str | None:
        """The least CPU time of ``repeats`` calls at ``size`` characters (built in the
        worker), each given ``limit`` wall seconds (default: the timeout); None on a timeout;
        "failed" if the plugin failed."""
        wait = self.timeout if limit is None else limit
        best: float | None = None
        for _ in range(repeats):
            request = CpuFamily(self.family, size, self.config.max_size, self.config.overlap)
            outcome = self.worker.call(request, timeout=wait)
            if outcome.kind == "timeout":
                self.spent += wait
                return None
            taken = getattr(outcome.value, "value", None)  # a Seconds reply
            if outcome.kind != "ok" or not isinstance(taken, int | float) or _is_bool(taken):
                return "failed"
            self.spent += taken
            best = taken if best is None else min(best, taken)
        return best

    def next_size(self) -> float | str | None:
        """Time the next planned size once; on a timeout, once more with a longer wait."""
        size = self.planned[len(self.seconds)]
        self.waited = None
        taken = self.time(size, 1)
        self.seconds.append(None if isinstance(taken, str) else taken)
        if taken is None:
            taken = self._wait_longer(size)
            self.seconds[-1] = None if isinstance(taken, str) else taken
        return taken

    def _wait_longer(self, size: int) -> float | str | None:
        """Re-time a size that timed out, given LOAD times the most a linear chunker may take
        (at most EXTEND times the timeout), if the timeout was too short to tell."""
        timing = self.timing()
        if timing.finished == 0:
            return None  # too slow at the first size: left to terminates
        need = timing.allowed(len(self.seconds) - 1) * LOAD
        if need <= self.timeout:
            return None  # the timeout already tells
        self.waited = min(need, self.timeout * EXTEND)
        return self.time(size, 1, limit=self.waited)


def _is_bool(value: object) -> bool:
    return isinstance(value, bool)


def _settle(state: _Measuring) -> bool:
    """Re-time the compared sizes where that could change the verdict, keeping the least;
    False if the plugin failed.

    The verdict only grows with the larger size's time and shrinks with the smaller's, so a
    superlinear verdict is re-checked on the larger size, a linear one on the smaller: the
    same verdict as re-timing both, for fewer calls. A re-timing that times out keeps the
    first time.
    """
    for _ in range(2):
        timing = state.timing()
        pair = timing.compared
        if pair is None:
            return True
        if timing.superlinear and not timing.grew:
            return True  # a timeout: a smaller time at the smaller size only confirms it
        k = pair[1] if timing.superlinear else pair[0]
        if k in state.retimed:
            return True
        state.retimed.add(k)
        again = state.time(state.planned[k], REPEATS - 1)
        if isinstance(again, str):
            return False
        first = state.seconds[k]
        state.seconds[k] = first if again is None or first is None else min(first, again)
    return True


def _grow(state: _Measuring, most: int) -> None:
    """Plan one more doubling if the largest size so far was fast and fewer than ``most``
    sizes are planned."""
    taken = state.seconds[-1]
    at_end = len(state.seconds) == len(state.planned)
    if at_end and taken is not None and taken < FLOOR and len(state.planned) < most:
        state.planned.append(state.planned[-1] * 2)


def measure(worker: Transport, family: str, *, timeout: float, config: Config = CONFIG,
            sizes: tuple[int, ...] = SIZES) -> Timing:
    """Time one family, growing through ``sizes`` (and doubling on while under FLOOR, up to
    EXTRA more sizes, EXTRA_REALISTIC for a realistic family) until a size times out or the
    family is shown superlinear (``failed`` if the plugin failed on it). Each size is timed
    once, the compared ones again (``_settle``).
    """
    most = len(sizes) + (EXTRA if family in PATHOLOGICAL else EXTRA_REALISTIC)
    state = _Measuring(worker, family, list(sizes), timeout, config)
    while len(state.seconds) < len(state.planned):
        taken = state.next_size()
        if isinstance(taken, str):  # "failed"
            return state.timing(failed=True)
        if taken is None:
            break
        if state.timing().superlinear:
            if not _settle(state):
                return state.timing(failed=True)
            if state.timing().superlinear:
                return state.timing()
        _grow(state, most)
    return state.timing(failed=not _settle(state))


def probe(
    worker: Transport, *, timeout: float, config: Config = CONFIG, budget: float = BUDGET,
    families: tuple[str, ...] | None = None,
) -> list[Violation]:
    """One violation for every family whose time grows superlinearly (measured twice).

    Families (all of ``FAMILIES`` by default) are tried in turn; none starts once the plugin
    has spent ``budget`` CPU seconds in the probe (CPU time, so the families measured do not
    depend on the machine's load).
    """
    spent, found = 0.0, []
    for family in FAMILIES if families is None else families:
        if spent > budget:
            break
        first = measure(worker, family, timeout=timeout, config=config)
        spent += first.spent
        if not first.superlinear:
            continue
        again = measure(worker, family, timeout=timeout, config=config)
        spent += again.spent
        if again.superlinear:
            found.append(_violation(again, config))
    return found


def _violation(timing: Timing, config: Config) -> Violation:
    """The violation for a family confirmed superlinear."""
    return Violation(
        "scales_linearly",
        f"{timing.describe()}; config {config.describe()}: time grows faster than the input",
    )
