"""``scales_linearly``: time the plugin on doubling pathological documents.

Each family (one character repeated, newlines only, unbroken CJK, one long line) is chunked at
three sizes (more while the time stays under ``FLOOR``), each doubling the last. Times are the
worker's own CPU time, so load on the machine does not count, and the two sizes the verdict
compares are timed several times, keeping the least, because noise only ever adds time. A family
is reported when the largest size takes more than ``RATIO`` times as long as the size four times
smaller (a linear chunker takes about 4x; a quadratic one about 16x), and more than ``FLOOR``
seconds, so that timer noise on millisecond calls never counts. A suspected family is measured a
second time and must fail again; the first confirmed family is reported, and no family starts
after ``BUDGET`` seconds. A call that times out at a larger size after a smaller one returned
counts as superlinear. Plugin failures (exceptions, crashes) are left to ``no_crash``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from contract.engine.messages import CpuFamily
from contract.engine.transport import Transport
from contract.model import Config, Violation

FAMILIES: dict[str, Callable[[int], str]] = {
    "one character repeated": lambda n: "a" * n,
    "newlines only": lambda n: "\n" * n,
    "unbroken CJK": lambda n: ("漢字仮名交じり文章" * (n // 9 + 1))[:n],
    "one long line": lambda n: ("lorem ipsum dolor sit amet " * (n // 27 + 1))[:n],
}
SIZES = (25_000, 50_000, 100_000)
REPEATS = 3
RATIO = 8.0
FLOOR = 0.1
CONFIG = Config(max_size=200, overlap=20)
#: Further doublings tried while the largest size still takes under FLOOR seconds (up to
#: 6.4M characters): a quadratic loop in C (``str.rfind`` back to the document's start) takes
#: milliseconds at 100k characters and only shows its growth past a million.
EXTRA = 6
#: Seconds after which no further family is started.
BUDGET = 15.0


@dataclass(frozen=True)
class Timing:
    family: str
    sizes: tuple[int, ...]
    seconds: tuple[float | None, ...]  # CPU seconds; None: no answer within the timeout
    timeout: float

    @property
    def superlinear(self) -> bool:
        """The last size took over RATIO x the size 4x smaller (a timeout counts as the timeout)."""
        ref = max(0, len(self.seconds) - 3)
        first, last = self.seconds[ref], self.seconds[-1]
        if first is None or len(self.seconds) < 2:
            return False
        last = self.timeout if last is None else last
        growth = self.sizes[-1] / self.sizes[ref]
        return last > FLOOR and last > first * RATIO * growth / 4

    def describe(self) -> str:
        shown = ", ".join(
            f"{n:,} chars {'> timeout' if t is None else f'{t:.3f} s'}"
            for n, t in zip(self.sizes, self.seconds)
        )
        return f"{self.family}: {shown} of CPU time (linear allows about x2 per doubling)"


def _time(
    worker: Transport, family: str, size: int, config: Config, timeout: float,
    repeats: int = REPEATS,
) -> float | str | None:
    """The least CPU time of ``repeats`` calls on ``family`` at ``size`` characters (built in the
    worker); None on a timeout; "failed" if the plugin failed."""
    best: float | None = None
    for _ in range(repeats):
        request = CpuFamily(family, size, config.max_size, config.overlap)
        outcome = worker.call(request, timeout=timeout)
        if outcome.kind == "timeout":
            return None
        if outcome.kind != "ok" or outcome.value.value is None:
            return "failed"
        seconds = outcome.value.value
        best = seconds if best is None else min(best, seconds)
    return best


def measure(worker: Transport, family: str, *, timeout: float, config: Config = CONFIG,
            sizes: tuple[int, ...] = SIZES) -> Timing | None:
    """Time one family at every size (doubling on while the time is under FLOOR, up to
    EXTRA more sizes); None if the plugin failed on it.

    Each size is timed once; then the two sizes the verdict compares (the last and the one four
    times smaller) are timed REPEATS times in all, keeping the least.
    """
    planned, seconds = list(sizes), list[float | None]()
    while len(seconds) < len(planned):
        taken = _time(worker, family, planned[len(seconds)], config, timeout, repeats=1)
        if isinstance(taken, str):  # "failed"
            return None
        seconds.append(taken)
        if taken is None:
            break
        if len(seconds) == len(planned) and taken < FLOOR and len(planned) < len(sizes) + EXTRA:
            planned.append(planned[-1] * 2)
    for k in {max(0, len(seconds) - 3), len(seconds) - 1}:
        first = seconds[k]
        if first is None:
            continue
        again = _time(worker, family, planned[k], config, timeout, repeats=REPEATS - 1)
        if isinstance(again, str):
            return None
        seconds[k] = first if again is None else min(first, again)
    return Timing(family, tuple(planned[: len(seconds)]), tuple(seconds), timeout)


def probe(
    worker: Transport, *, timeout: float, config: Config = CONFIG, budget: float = BUDGET
) -> list[Violation]:
    """The first family whose time grows superlinearly (measured twice), as a violation.

    Families are tried in turn until one is confirmed or ``budget`` seconds have passed.
    """
    deadline = time.monotonic() + budget
    for family in FAMILIES:
        if time.monotonic() > deadline:
            break
        timing = measure(worker, family, timeout=timeout, config=config)
        if timing is None or not timing.superlinear:
            continue
        again = measure(worker, family, timeout=timeout, config=config)
        if again is not None and again.superlinear:
            return [
                Violation(
                    "scales_linearly",
                    f"{again.describe()}; config "
                    f"{config.describe()}: time grows faster than the input",
                )
            ]
    return []
