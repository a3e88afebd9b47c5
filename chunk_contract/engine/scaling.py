"""``scales_linearly``: time the plugin on doubling documents of every shape the generators know.

**Families.** ``FAMILIES`` maps a name to a builder ``size -> document``; the worker builds a
family's document itself, so megabytes never cross the pipe on the way in (an ``exec:`` child
is sent the document the host built). Four families are pathological (one character repeated,
newlines only, unbroken CJK, one long line); the others are realistic, what the generators
make, grown deterministically: paragraphs of prose, markdown sections with headings, lists,
fenced code, tables, JSON blocks, repeated identical blocks, CRLF text, and a mixed markdown
document. Every family applies to every text plugin.

**Measured from outside.** A call's CPU time is read by the host from ``/proc`` (the worker's
process group, threads and reaped children included; an ``exec:`` child's tree or cgroup),
never by the plugin's process, so a plugin that rewrites its clock cannot fake it. The chunks
come back and are checked against the host's own copy of the document like any other call's
(the rules that would call the plugin again left out) at every size up to ``CHECKED`` and at
the largest size measured, the one a verdict rests on most; the sizes between arrive unparsed
(:class:`~chunk_contract.transport.messages.Unchecked`) and are never decoded, since parsing and
checking them would cost the host more than the split cost the plugin. A plugin that builds
another document, or answers a large one fast with wrong chunks, breaks a rule; a call that
raises, crashes or breaks a rule on a probe document is a finding of that rule
(:class:`Broken`), shrunk to the smallest size of its family that still fails, never a lost
timing. A family whose chunks broke a rule is still timed to the end (its later calls are not
checked again): one bug must not hide another one's growth, and the growth's finding names
the rule those documents broke too.

**Sizes.** The first family starts small (``SIZES[0]``, 3,125 characters); each later one
starts at the first size the plugin's fastest settled family of its kind (pathological or
realistic; of any kind before one of its own settled) says takes ``MEASURABLE`` (at most
``SIZES[-1]``), since smaller sizes are never fitted. A late start that takes ``EARLIER`` times
that or more there (or does not finish) was predicted from a faster family: the family is
measured again from the first size its own time there says takes ``MARGIN`` times that (from
``SIZES[0]`` if it did not finish), so its fit ends at the smallest sizes that settle it (large
documents cross steps of the memory hierarchy, and a family far slower than predicted is most
often superlinear: growing it from the late start would cost more). A family
doubles until its trend is settled: linear (:attr:`Timing.settled`) or confirmed superlinear,
at most to 6.4M characters for the pathological families (a quadratic loop in C shows only past
a million) and 1.6M for the realistic ones. A family whose largest size is still under
``FLOOR`` there is linear: times that small are decided by caches and the scheduler, not by the
chunker.

**Verdict.** The trend is the exponent of a log-log fit over the last ``FIT`` sizes that took
at least ``MEASURABLE`` seconds (three at least: one pair cannot tell growth from noise).
Before a family under ``FLOOR`` grows on, a last doubling too steep to settle a trend that was
linear until then has its larger size timed once more, and a fit too flat for its linear last
doubling its smallest, keeping the least: load only ever adds time, and one noisy size must not
double the probe's cost. One steep doubling between linear ones over ``FIT`` sizes is a step of
the memory hierarchy (a fast chunker's time jumps where its data outgrows a cache), not growth.
Linear is 1, quadratic 2; growth is reported above ``SLOPE`` (x8 the time for x4 the input),
and only when the largest size took at least ``FLOOR`` CPU seconds. A suspect is confirmed
before it is reported: its largest size is timed again, it grows one more doubling where its
exponent is not clearly quadratic (``CLEAR``) and that stays affordable (``CONFIRM``), and
that doubling must be steep too (a step in the memory hierarchy is one steep doubling), then
its two largest fitted sizes are timed again, keeping the least of every size's runs (noise
only ever adds time; the largest is run ``REPEATS`` times), and it must still grow. A family
found by a timeout is measured a second time and must fail again. Every confirmed family is
reported, one violation each, with the sizes, their CPU times and the fitted exponent; no
family starts once the plugin has spent ``BUDGET`` CPU seconds in the probe.

**Timeouts.** The call's timeout is wall-clock, so a timeout depends on load. A size that does
not finish is waited for once more, up to ``LOAD`` times the most a linear chunker may take
there (``RATIO``'s slack included; at most ``EXTEND`` times the timeout), and counts as
superlinear only if it does not finish then either; if it does, its CPU time decides like any
other. A plugin that does not finish even the first size within ``EXTEND`` times the timeout
breaks ``terminates`` there.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING

from chunk_contract.containment.worker import Outcome
from chunk_contract.generation.families import FAMILIES, PATHOLOGICAL
from chunk_contract.spec.model import Config, Violation
from chunk_contract.transport.base import parsed
from chunk_contract.transport.messages import Chunks, Timed, TimedFamily

if TYPE_CHECKING:
    from chunk_contract.transport.base import Transport

__all__ = [
    "BUDGET", "CONFIG", "FAMILIES", "PATHOLOGICAL", "SIZES", "Broken", "Checker", "Probed",
    "Timing", "exponent", "measure", "own_start", "probe", "start_size", "survey",
]


SIZES = (3_125, 6_250, 12_500, 25_000, 50_000, 100_000)
REPEATS = 3
#: The linear allowance of a size that did not finish: RATIO times the input's growth / 4.
RATIO = 8.0
#: CPU seconds the largest size must take before growth is judged: below, caches and the
#: scheduler decide the ratios (a linear C chunker shows x8 for x4 between 18 and 146 ms).
FLOOR = 0.25
#: CPU seconds a size must take to be fitted at all.
MEASURABLE = 0.0025
#: Fitted exponent above which time grows faster than the input (x8 for x4 the input).
SLOPE = 1.5
#: A trend is settled linear early when its fitted exponent is within these bounds (a flatter
#: one is a fixed cost hiding the growth) and its largest size took SETTLED seconds.
LINEAR = (0.75, 1.2)
SETTLED = 0.01
#: A flat trend (a fixed cost per call, no growth begun on the last doubling either) is
#: settled once its largest size took FLAT seconds.
FLAT = 0.1
#: How many of the largest measurable sizes the fit uses.
FIT = 4
#: A suspect whose fitted exponent is under CLEAR grows one more doubling before it is
#: reported, if its largest size took under CONFIRM seconds: a step in the memory hierarchy
#: passes, a quadratic loop goes on growing.
CLEAR = 1.8
CONFIRM = 1.0
#: A size that did not finish counts as superlinear only after waiting LOAD times the most a
#: linear chunker may take (RATIO's slack included): a busy machine's wall clock may run that
#: much slower than the worker's CPU time without a correct chunker being reported.
LOAD = 8.0
#: A size that times out is tried once more with up to EXTEND times the call's timeout, when
#: the timeout itself was too short to tell growth from load.
EXTEND = 4.0
CONFIG = Config(max_size=200, overlap=20)
#: Further doublings past SIZES a pathological family may take (up to 6.4M characters): a
#: quadratic loop in C (``str.rfind`` back to the document's start) takes milliseconds at 100k
#: characters and only shows its growth past a million.
EXTRA = 6
#: The same for the realistic families, up to 1.6M characters: a C loop over a prefix per
#: chunk (``find`` or ``count`` from the start) shows by then on text that has breaks.
EXTRA_REALISTIC = 4
#: CPU seconds of the plugin after which no further family is started (a timeout counts as
#: its wait): room for every family of a quadratic chunker to be confirmed at FLOOR.
BUDGET = 60.0
#: Sizes up to this many characters are checked on every call; larger ones only at the largest
#: size measured (checking every size would cost the host more than the plugin).
CHECKED = 12_500
#: A late start whose first size took this many times MEASURABLE or more started later than the
#: family needed (the rate predicted MEASURABLE to twice that; a family's first call is often
#: slower than the next, its caches cold): it is measured again from the first size its own
#: time there says takes MARGIN times MEASURABLE (room for that first call's slowness).
EARLIER = 4.0
MARGIN = 2.0
#: Sizes tried while shrinking a broken family's document to its smallest failing size.
BISECTIONS = 12

#: Checks one call's outcome (its value a split's reply) on the host's copy of a document.
Checker = Callable[[str, Config, Outcome], list[Violation]]


@dataclass(frozen=True)
class Broken:
    """A probe call that broke a rule: the family's document at the smallest size found to
    fail, and the violations found there."""

    family: str
    size: int
    violations: tuple[Violation, ...]

    @property
    def document(self) -> str:
        return FAMILIES[self.family](self.size)


def exponent(sizes: tuple[int, ...], seconds: tuple[float, ...]) -> float:
    """The least-squares slope of log(seconds) over log(size): 1 linear, 2 quadratic."""
    xs = [math.log(n) for n in sizes]
    ys = [math.log(max(t, 1e-9)) for t in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / spread


@dataclass(frozen=True)
class Timing:
    """One family's measurement: the sizes tried and their least CPU times."""

    family: str
    sizes: tuple[int, ...]
    seconds: tuple[float | None, ...]  # CPU seconds; None: no answer within the timeout
    timeout: float
    spent: float = 0.0  # CPU seconds of every call made (a timeout counts as its wait)
    failed: bool = False  # no answer to time on this family: it raised, crashed or hung
    #: (see broken; a rule broken by the chunks of a call that answered leaves it timed)
    waited: float | None = None  # wall seconds the last size was given (default: timeout)
    broken: Broken | None = None  # the rule a call broke, if one did
    repeats: tuple[int, ...] = ()  # calls made at each size (default: one each)

    @property
    def finished(self) -> int:
        """How many sizes (from the first) finished; only the last size tried can time out."""
        return sum(t is not None for t in self.seconds)

    @property
    def fitted(self) -> tuple[int, ...]:
        """Indices of the sizes the trend is fitted on: the largest finished sizes (up to FIT,
        consecutive) that took at least MEASURABLE seconds."""
        found: list[int] = []
        for k in range(self.finished - 1, -1, -1):
            taken = self.seconds[k]
            if taken is None or taken < MEASURABLE or len(found) == FIT:
                break
            found.append(k)
        return tuple(reversed(found))

    @property
    def exponent(self) -> float | None:
        """The fitted exponent over :attr:`fitted`, or None with fewer than three sizes."""
        fit = self.fitted
        if len(fit) < 3:
            return None
        return exponent(tuple(self.sizes[k] for k in fit),
                        tuple(self._seconds(k) for k in fit))

    @property
    def last_step(self) -> float:
        """The exponent of the last doubling alone (0 without two fitted sizes): a step in the
        memory hierarchy is one steep doubling, a quadratic loop keeps every doubling steep."""
        fit = self.fitted
        if len(fit) < 2:
            return 0.0
        a, b = fit[-2], fit[-1]
        return exponent((self.sizes[a], self.sizes[b]), (self._seconds(a), self._seconds(b)))

    @property
    def largest(self) -> float:
        """CPU seconds of the largest finished size (0 if none finished)."""
        return self._seconds(self.finished - 1) if self.finished else 0.0

    @property
    def grew(self) -> bool:
        """The fitted exponent is over SLOPE and the largest size took at least FLOOR."""
        slope = self.exponent
        return slope is not None and slope > SLOPE and self.largest >= FLOOR

    @property
    def settled(self) -> bool:
        """The trend is known linear: a linear exponent at a measurable time, or at most SLOPE
        once the largest size took FLOOR; the last doubling's alone too (a fixed cost flattens
        the fit over the smaller sizes while the growth has begun). A fit of FIT sizes with one
        steep doubling between linear ones, at most SLOPE over all, is linear too: that one is
        a step of the memory hierarchy, where a superlinear chunker's doublings are all steep."""
        slope, step = self.exponent, self.last_step
        if slope is None:
            return False
        if self.largest >= FLOOR:
            return slope <= SLOPE and step <= SLOPE
        if max(slope, step) < LINEAR[0]:
            return self.largest >= FLAT  # a fixed cost, no growth begun
        if step > LINEAR[1] or self.largest < SETTLED:
            return False
        return LINEAR[0] <= slope <= LINEAR[1] or (slope <= SLOPE and self._one_steep_step())

    def _one_steep_step(self) -> bool:
        """The fit has FIT sizes and exactly one of its doublings is steeper than linear."""
        fit = self.fitted
        steps = [exponent((self.sizes[a], self.sizes[b]), (self._seconds(a), self._seconds(b)))
                 for a, b in itertools.pairwise(fit)]
        return len(fit) == FIT and sum(s > LINEAR[1] for s in steps) == 1

    @property
    def compared(self) -> tuple[int, int] | None:
        """Indices of the sizes a timeout is judged from: the largest finished size and the one
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
        return self._seconds(ref) * RATIO * (self.sizes[at] / self.sizes[ref]) / 4

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

    def _seconds(self, k: int) -> float:
        taken = self.seconds[k]
        assert taken is not None
        return taken

    def _waited(self) -> str:
        """The wait a size did not finish within: the timeout, or the timeout extended."""
        if self.wait == self.timeout:
            return f"the {self.timeout:g} s timeout"
        return f"{self.wait:.3g} s (the {self.timeout:g} s timeout extended)"

    def _finding(self) -> str:
        """The headline: the timeout, or the growth over the fitted sizes."""
        assert self.compared is not None
        late = self.late
        if late is not None and self.timed_out:
            ref = self.compared[0]
            return (
                f"{self.sizes[late]:,} chars did not finish within {self._waited()}, while "
                f"{self.sizes[ref]:,} chars took {self._seconds(ref):.3f} s and a linear "
                f"chunker of this kind would take at most {self.allowed(late):.3g} s"
            )
        return self._growth()

    def _growth(self) -> str:
        fit = self.fitted or self.compared or (0,)
        first, last = fit[0], fit[-1]
        growth = self.sizes[last] // self.sizes[first]
        ratio = self._seconds(last) / max(self._seconds(first), 1e-9)
        slope = self.exponent
        fitted = "" if slope is None else (
            f"; fitted exponent {slope:.2f} over {len(fit)} sizes (1 is linear, over {SLOPE:g} "
            f"is reported), each size the least of {self._runs(fit)} runs")
        return (
            f"{self.sizes[last]:,} chars took {self._seconds(last):.3f} s, while "
            f"{self.sizes[first]:,} chars took {self._seconds(first):.3f} s: x{growth} the "
            f"input, x{ratio:.3g} the time{fitted}"
        )

    def _runs(self, fit: tuple[int, ...]) -> str:
        counts = sorted({self.repeats[k] if k < len(self.repeats) else 1 for k in fit})
        return "/".join(str(c) for c in counts)


@dataclass
class _Measuring:
    """A family's measurement in progress: the sizes planned, the times so far, and the CPU
    seconds the plugin has spent (a timeout counts as its wait)."""

    worker: Transport
    family: str
    planned: list[int]
    timeout: float
    config: Config
    check: Checker | None = None
    seconds: list[float | None] = field(default_factory=list)
    repeats: list[int] = field(default_factory=list)
    checked: set[int] = field(default_factory=set)
    replies: dict[int, Outcome] = field(default_factory=dict)  # first replies, not yet checked
    spent: float = 0.0
    waited: float | None = None
    broken: Broken | None = None
    patient: bool = True  # wait EXTEND times the timeout on a first size that does not finish
    unanswered: bool = False  # the broken rule's call gave no chunks (raised, crashed): no time

    def timing(self, *, failed: bool = False) -> Timing:
        """The measurement so far."""
        return Timing(
            self.family, tuple(self.planned[: len(self.seconds)]), tuple(self.seconds),
            self.timeout, self.spent, failed, self.waited,
            self.broken, tuple(self.repeats),
        )

    def call(self, size: int, wait: float) -> Outcome:
        """One timed split of the family's document at ``size``, given ``wait`` wall seconds."""
        request = TimedFamily(self.family, size, self.config.max_size, self.config.overlap)
        return self.worker.call(request, timeout=wait)

    def time(self, size: int, repeats: int, limit: float | None = None) -> float | str | None:
        """The least CPU time of ``repeats`` calls at ``size`` characters (built in the
        worker), each given ``limit`` wall seconds (default: the timeout); None on a timeout;
        "failed" if the plugin failed or broke a rule (see ``broken``)."""
        wait = self.timeout if limit is None else limit
        best: float | None = None
        for _ in range(repeats):
            outcome = self.call(size, wait)
            if outcome.kind == "timeout":
                self.spent += wait
                return None
            taken = self._judge(size, outcome)
            if taken is None:
                return "failed"
            self.spent += taken
            best = taken if best is None else min(best, taken)
        return best

    def _judge(self, size: int, outcome: Outcome) -> float | None:
        """The CPU seconds of a call that finished, checked; None if it failed or broke a rule
        (``broken`` then says which, where the plugin is to blame)."""
        timed = outcome.value if outcome.ok else None
        if isinstance(timed, Timed):
            outcome = Outcome("ok", timed.reply, elapsed=outcome.elapsed)
        if _unmeasurable(outcome) or (outcome.kind == "memory" and self.seconds):
            return None  # no CPU time here, or memory at a size past a finished one
        if not outcome.ok or size <= CHECKED:
            if not self.verify(size, outcome) and self.unanswered:
                return None  # a rule its chunks broke leaves the time standing
        elif size not in self.replies:
            self.replies[size] = outcome  # checked if it is the largest (verify_largest)
        return timed.seconds if isinstance(timed, Timed) else None

    def verify(self, size: int, outcome: Outcome) -> bool:
        """Check one call's outcome on the host's copy of the document (once per size); False
        if it broke a rule, then ``broken`` says which, at the smallest size found."""
        if self.check is None or (size in self.checked and outcome.ok) or self.broken:
            return outcome.ok  # (one broken rule per family: its later calls are timed only)
        self.checked.add(size)
        reply = parsed(outcome)
        found = self.check(FAMILIES[self.family](size), self.config, reply)
        if found:
            self.unanswered = not (reply.ok and isinstance(reply.value, Chunks))
            self.broken = self._shrunk(size, found)
        return not found

    def verify_largest(self) -> bool:
        """Check the chunks of the largest size that finished (the one the verdict rests on
        most: a plugin that answers a large document with cheap garbage fails there); False
        if it broke a rule. The sizes between CHECKED and it are never parsed."""
        timing = self.timing()
        if not timing.finished:
            return True
        size = self.planned[timing.finished - 1]
        return size not in self.replies or self.verify(size, self.replies.pop(size))

    def _shrunk(self, size: int, found: list[Violation]) -> Broken:
        """The smallest size of this family found to break the same rule (bisected)."""
        assert self.check is not None
        rule = found[0].invariant
        good = max([n for n in self.planned[: len(self.seconds)] if n < size], default=0)
        for _ in range(BISECTIONS):
            if size - good <= 1:
                break
            middle = (good + size) // 2
            again = self.check(FAMILIES[self.family](middle), self.config,
                               self._untimed(self.call(middle, self.timeout)))
            if any(v.invariant == rule for v in again):
                size, found = middle, again
            else:
                good = middle
        return Broken(self.family, size, tuple(v for v in found if v.invariant == rule))

    @staticmethod
    def _untimed(outcome: Outcome) -> Outcome:
        if outcome.ok and isinstance(outcome.value, Timed):
            return parsed(Outcome("ok", outcome.value.reply, elapsed=outcome.elapsed))
        return outcome

    def next_size(self) -> float | str | None:
        """Time the next planned size once; on a timeout, once more with a longer wait."""
        size = self.planned[len(self.seconds)]
        self.waited = None
        taken = self.time(size, 1)
        self.seconds.append(None if isinstance(taken, str) else taken)
        self.repeats.append(1)
        if taken is None:
            taken = self._wait_longer(size)
            self.seconds[-1] = None if isinstance(taken, str) else taken
        return taken

    def _wait_longer(self, size: int) -> float | str | None:
        """Re-time a size that timed out, given LOAD times the most a linear chunker may take
        (at most EXTEND times the timeout), if the timeout was too short to tell; the first
        size, EXTEND times the timeout, and a ``terminates`` finding if it never finishes."""
        timing = self.timing()
        if timing.finished == 0:
            return self._hangs(size)
        need = timing.allowed(len(self.seconds) - 1) * LOAD
        if need <= self.timeout:
            return None  # the timeout already tells
        self.waited = min(need, self.timeout * EXTEND)
        return self.time(size, 1, limit=self.waited)

    def _hangs(self, size: int) -> float | str | None:
        """The first size did not finish: once more with EXTEND times the timeout; no answer
        then either breaks ``terminates`` on this document."""
        if not self.patient or self.check is None:
            return None
        self.waited = self.timeout * EXTEND
        taken = self.time(size, 1, limit=self.waited)
        if taken is not None:
            return taken
        self.unanswered = True
        self.broken = Broken(self.family, size, (Violation(
            "terminates",
            f"no answer within {self.waited:g} s ({EXTEND:g} times the {self.timeout:g} s "
            f"timeout) on the {self.family!r} scaling family's {size:,}-character document: "
            f"the call was killed"),))
        return "failed"


def _unmeasurable(outcome: Outcome) -> bool:
    """The transport cannot time calls (an http(s) service): not the plugin's failure."""
    return outcome.kind == "error" and outcome.error_type.lower() == "unsupported"


def _retime(state: _Measuring, indices: tuple[int, ...]) -> bool:
    """Time the sizes at ``indices`` once more, keeping the least; False if the plugin failed.
    Only a suspect is re-timed: noise only ever adds time, so re-timing cannot make a linear
    verdict superlinear."""
    for k in indices:
        again = state.time(state.planned[k], 1)
        if isinstance(again, str):
            return False
        state.repeats[k] += 1
        first = state.seconds[k]
        state.seconds[k] = first if again is None or first is None else min(first, again)
    return True


def _plan_next(state: _Measuring, most: int) -> bool:
    """Plan one more doubling if fewer than ``most`` sizes are planned."""
    if len(state.planned) >= most:
        return False
    if len(state.seconds) == len(state.planned):
        state.planned.append(state.planned[-1] * 2)
    return True


def _confirmed(state: _Measuring, most: int, grown: list[bool]) -> bool | str | None:
    """A suspect confirmed: its largest size re-timed, then, where its exponent is not clearly
    quadratic and one more doubling stays affordable, that doubling (None: grow it first, once),
    and at last the two largest fitted sizes timed again (the largest REPEATS times in all),
    keeping the least (re-timing a smaller size could only make the growth steeper), the grown
    doubling steep too. True if it still grew, False if not, "failed" if the plugin failed."""
    if not _retime(state, state.timing().fitted[-1:]):
        return "failed"
    timing = state.timing()
    if not timing.grew:
        return False
    slope = timing.exponent or 0.0
    if not grown and slope < CLEAR and timing.largest < CONFIRM and _plan_next(state, most):
        grown.append(True)
        return None
    if not _retime(state, timing.fitted[-2:]):
        return "failed"
    timing = state.timing()
    return timing.grew and (not grown or timing.last_step > SLOPE)


def measure(worker: Transport, family: str, *, timeout: float, config: Config = CONFIG,
            sizes: tuple[int, ...] = SIZES, check: Checker | None = None,
            patient: bool = True, start: int | None = None, tentative: bool = False) -> Timing:
    """Time one family, from ``sizes[0]`` doubling on (up to EXTRA sizes past ``sizes``,
    EXTRA_REALISTIC for a realistic family) until its trend is settled, a size times out or
    the family is confirmed superlinear. ``check`` checks each size's chunks once (a call that
    fails or breaks a rule ends the family: ``broken``). ``patient``: wait longer on a first
    size that does not finish (then ``terminates`` if it never does). ``start``: a later size
    of the doubling series to begin at (see :func:`start_size`); the largest size allowed
    stays the same. ``tentative``: the start was predicted from another family; the family
    ends after its first size if that took EARLIER times MEASURABLE or more (see
    :func:`own_start`).
    """
    first = sizes[0] if start is None else start
    skipped = round(math.log2(first / sizes[0]))
    most = len(sizes) + (EXTRA if family in PATHOLOGICAL else EXTRA_REALISTIC) - skipped
    state = _Measuring(worker, family, [first], timeout, config, check, patient=patient)
    grown: list[bool] = []
    while len(state.seconds) < len(state.planned):
        taken = state.next_size()
        if isinstance(taken, str):
            return state.timing(failed=True)
        if tentative and _late_start(state):
            return state.timing()  # not checked: the caller measures (and checks) it again
        if taken is None:
            break
        if state.timing().grew:
            verdict = _confirmed(state, most, grown)
            if verdict is None:
                continue
            if verdict:
                return _verified(state, failed=verdict == "failed")
        if _settled(state) or not _plan_next(state, most):
            break
    return _verified(state)


def _late_start(state: _Measuring) -> bool:
    """The family's first size took EARLIER times MEASURABLE or more: started later than it
    needed, it is measured again from its own start (see :func:`own_start`)."""
    first = state.seconds[0]
    return len(state.seconds) == 1 and first is not None and first >= EARLIER * MEASURABLE


def _settled(state: _Measuring) -> bool:
    """The trend is settled linear. Load only ever adds time, and one noisy size must not
    double the probe's cost: before a family under FLOOR grows on, a last doubling too steep to
    settle it has its largest size timed once more, and a fit too flat for its linear last
    doubling (its first size slowed: a cold cache, a collection) its smallest, keeping the
    least of each size's runs."""
    timing = state.timing()
    if timing.settled or timing.exponent is None or timing.largest >= FLOOR:
        return timing.settled
    k = _noisy_size(timing)
    if k is None or state.repeats[k] > 1:
        return False
    return _retime(state, (k,)) and state.timing().settled


def _noisy_size(timing: Timing) -> int | None:
    """The fitted size that keeps a trend from settling, if one size can: the largest after a
    steep last doubling where the sizes before it grew linearly (a superlinear family grows
    steeply all along, and is grown, not re-timed), the smallest of a fit too flat for its last
    doubling."""
    fit, slope, step = timing.fitted, timing.exponent or 0.0, timing.last_step
    if step > LINEAR[1]:
        before = exponent(tuple(timing.sizes[k] for k in fit[:-1]),
                          tuple(timing.seconds[k] or 0.0 for k in fit[:-1]))
        return fit[-1] if before <= LINEAR[1] else None
    if slope < LINEAR[0] <= step:
        return fit[0]
    return None


def _verified(state: _Measuring, *, failed: bool = False) -> Timing:
    """The measurement, once the chunks its verdict rests on are checked (a rule they break is
    the timing's ``broken``; its times stand)."""
    if not failed and not state.verify_largest():
        failed = state.unanswered
    return state.timing(failed=failed)


@dataclass
class Probed:
    """What the probe found: ``scales_linearly`` violations, and calls that broke other rules
    (one per rule, the first family's)."""

    violations: list[Violation] = field(default_factory=list)
    broken: dict[str, Broken] = field(default_factory=dict)


def survey(
    worker: Transport, *, timeout: float, config: Config = CONFIG, budget: float = BUDGET,
    families: tuple[str, ...] | None = None, check: Checker | None = None,
) -> Probed:
    """Every family measured (see :func:`measure`): one violation for each family whose time
    grows superlinearly (confirmed), and the rules its calls broke.

    Families (all of ``FAMILIES`` by default) are tried in turn; none starts once the plugin
    has spent ``budget`` CPU seconds in the probe (CPU time, so the families measured do not
    depend on the machine's load).
    """
    spent, found, rates = 0.0, Probed(), _Rates()
    for family in FAMILIES if families is None else families:
        if spent > budget:
            break
        patient = "terminates" not in found.broken
        first = _from_start(partial(measure, worker, family, timeout=timeout, config=config,
                                    check=check), patient, start_size(rates.predicted(family)))
        spent += first.spent
        rates.settle(family, first)
        if first.broken is not None:
            found.broken.setdefault(first.broken.violations[0].invariant, first.broken)
        if not first.superlinear:
            continue
        if first.grew:  # confirmed inside measure: re-timed, grown, every fitted size again
            found.violations.append(_violation(first, config))
            continue
        again = measure(worker, family, timeout=timeout, config=config, check=check,
                        patient=patient)  # a timeout depends on load: the family again
        spent += again.spent
        if again.superlinear:
            found.violations.append(_violation(again, config))
    return found


def _from_start(measured: Callable[..., Timing], patient: bool, start: int) -> Timing:
    """One family measured from ``start`` (predicted from a faster family, unless it is the
    first size), and again from its own start if it started late (see :func:`own_start`);
    ``spent`` counts both."""
    if start == SIZES[0]:
        return measured(patient=patient)
    tried = measured(patient=False, start=start, tentative=True)
    if not _started_late(tried):
        return tried
    earlier = own_start(tried)
    timing = measured(patient=patient and earlier is None, start=earlier)
    return replace(timing, spent=timing.spent + tried.spent)


def start_size(rate: float | None) -> int:
    """The size of the doubling series from ``SIZES[0]`` a family starts at, given the fewest
    CPU seconds per character an earlier family of this plugin took (None: no family measured
    yet): the smallest size that rate says takes MEASURABLE, the first a fit can use (a
    smaller one is never fitted). A family that takes longer per character is fitted from its
    first size all the same."""
    size = SIZES[0]
    while rate is not None and size < SIZES[-1] and size * rate < MEASURABLE:
        size *= 2
    return size


def _started_late(timing: Timing) -> bool:
    """A late start that did not finish its first size, or took EARLIER times MEASURABLE or
    more there: slower than the rate predicted, it is measured again (see :func:`own_start`)."""
    if timing.broken is not None:
        return False
    return timing.finished == 0 or (timing.seconds[0] or 0.0) >= EARLIER * MEASURABLE


def own_start(timing: Timing) -> int | None:
    """Where a family that started late is measured again: the first size its own time at the
    late start says takes MARGIN times MEASURABLE (see :func:`start_size`), None for
    ``SIZES[0]`` (also when the late start did not finish). A superlinear family's rate there
    is higher than at smaller sizes, so it starts early enough."""
    if timing.finished == 0:
        return None
    size = start_size(timing.largest / timing.sizes[0] / MARGIN)
    return None if size == SIZES[0] else size


@dataclass
class _Rates:
    """The fewest CPU seconds per character of the families settled so far, one for each kind
    (pathological or realistic): a plugin's realistic families run at about one rate, often
    twice its fastest pathological one (one character repeated), so each kind predicts its
    own starts."""

    fastest: dict[bool, float] = field(default_factory=dict)

    def predicted(self, family: str) -> float | None:
        """The rate ``family`` starts from: the fastest of its kind, else of any (None: no
        family settled yet)."""
        kind = family in PATHOLOGICAL
        return self.fastest.get(kind, min(self.fastest.values(), default=None))

    def settle(self, family: str, timing: Timing) -> None:
        """Count ``timing``'s rate if it settled linear at a measurable time (its largest size
        is the one least disturbed by fixed costs)."""
        if timing.superlinear or timing.failed or timing.broken or not timing.settled:
            return
        kind, per_char = family in PATHOLOGICAL, timing.largest / timing.sizes[timing.finished - 1]
        self.fastest[kind] = min(self.fastest.get(kind, per_char), per_char)


def probe(
    worker: Transport, *, timeout: float, config: Config = CONFIG, budget: float = BUDGET,
    families: tuple[str, ...] | None = None, check: Checker | None = None,
) -> list[Violation]:
    """The ``scales_linearly`` violations of :func:`survey`."""
    return survey(worker, timeout=timeout, config=config, budget=budget, families=families,
                  check=check).violations


def _violation(timing: Timing, config: Config) -> Violation:
    """The violation for a family confirmed superlinear."""
    also = ""
    if timing.broken is not None:
        rule = timing.broken.violations[0].invariant
        also = (f" (these documents also break {rule}, its own finding: the growth may follow "
                f"from that bug)")
    return Violation(
        "scales_linearly",
        f"{timing.describe()}; config {config.describe()}: time grows faster than the input"
        + also,
    )
