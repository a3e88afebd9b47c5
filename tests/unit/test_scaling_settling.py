"""When the probe settles a linear trend: one noisy size is timed again, not grown past, and one
steep doubling between linear ones is a step of the memory hierarchy."""

from __future__ import annotations

from dataclasses import dataclass, field

from chunk_contract.containment.worker import Outcome
from chunk_contract.engine import scaling
from chunk_contract.transport.messages import Chunks, Timed, TimedFamily

#: CPU seconds a character for a linear chunker that settles at 25k / 50k / 100k characters
#: (2.5, 5 and 10 ms: measurable, and the largest takes SETTLED).
PER_CHAR = 1e-7


@dataclass
class _Noisy:
    """A worker taking ``cpu(size)`` CPU seconds, plus ``slow[size]`` on its first call there."""

    cpu: object
    slow: dict[int, float] = field(default_factory=dict)
    calls: list[int] = field(default_factory=list)

    def call(self, request: TimedFamily, *, timeout: float) -> Outcome:
        first = request.size not in self.calls
        self.calls.append(request.size)
        extra = self.slow.get(request.size, 0.0) if first else 0.0
        return Outcome("ok", Timed(self.cpu(request.size) + extra, Chunks([])))  # type: ignore[operator]


def _measured(worker: _Noisy) -> scaling.Timing:
    return scaling.measure(worker, "newlines only", timeout=2.0)  # type: ignore[arg-type]


def test_clean_linear_trend_settles_without_retiming() -> None:
    worker = _Noisy(lambda n: PER_CHAR * n)
    timing = _measured(worker)
    assert timing.settled and max(worker.calls) == 100_000
    assert len(worker.calls) == len(set(worker.calls))


def test_a_slow_largest_size_is_timed_again_not_grown_past() -> None:
    worker = _Noisy(lambda n: PER_CHAR * n, slow={100_000: 0.01})  # x2 on its first call
    timing = _measured(worker)
    assert timing.settled and not timing.superlinear, timing.describe()
    assert max(worker.calls) == 100_000 and worker.calls.count(100_000) == 2


def test_a_slow_smallest_fitted_size_is_timed_again_not_grown_past() -> None:
    worker = _Noisy(lambda n: PER_CHAR * n, slow={25_000: 0.01})  # x5 on its first call
    timing = _measured(worker)
    assert timing.settled and not timing.superlinear, timing.describe()
    assert max(worker.calls) == 100_000 and worker.calls.count(25_000) == 2


def test_a_superlinear_family_is_grown_not_retimed_below_the_floor() -> None:
    worker = _Noisy(lambda n: 0.0025 * (n / 25_000) ** 2)
    timing = _measured(worker)
    assert timing.superlinear, timing.describe()
    floor = next(i for i, n in enumerate(worker.calls)
                 if 0.0025 * (n / 25_000) ** 2 >= scaling.FLOOR)
    grown = worker.calls[:floor]  # (then confirmed: its largest sizes timed again)
    assert len(grown) == len(set(grown))  # grown to the floor, each size timed once


SIZES4 = (100_000, 200_000, 400_000, 800_000)


def _timing(*ms: float) -> scaling.Timing:
    return scaling.Timing("f", SIZES4, tuple(t / 1000 for t in ms), 2.0)


def test_one_steep_doubling_between_linear_ones_is_a_memory_step() -> None:
    assert _timing(4.0, 7.3, 22.9, 49.8).settled  # x3.1 once (a fast chunker's cache step)


def test_two_steep_doublings_a_steep_last_one_or_a_steep_fit_are_not_settled() -> None:
    assert not _timing(4.0, 10.0, 25.0, 50.0).settled  # two steep doublings
    assert not _timing(4.0, 8.0, 16.0, 40.0).settled  # the last one steep: grow on
    assert not _timing(4.0, 8.0, 64.0, 128.0).settled  # one step, but x32 over all
    three = scaling.Timing("f", SIZES4[:3], (0.004, 0.0124, 0.025), 2.0)
    assert not three.settled  # one step needs FIT sizes around it



def test_a_late_tentative_start_is_not_checked_before_it_is_measured_again() -> None:
    """A start predicted from a faster family that took EARLIER times MEASURABLE or more ends
    there, unchecked: the caller measures the family again from its own start and checks the
    largest size of that measurement (checking both cost a large reply's checks twice)."""
    checked: list[int] = []

    def check(document: str, config: object, outcome: object) -> list[object]:
        checked.append(len(document))
        return []

    worker = _Noisy(lambda n: PER_CHAR * 4 * n)  # 40 ms at 100k, where 2.5 ms was predicted
    late = scaling.measure(worker, "paragraphs", timeout=2.0, check=check,  # type: ignore[arg-type]
                           start=100_000, tentative=True)
    assert late.sizes == (100_000,) and not late.failed and checked == []
    again = scaling.measure(worker, "paragraphs", timeout=2.0, check=check,  # type: ignore[arg-type]
                            start=scaling.own_start(late))
    assert again.settled and checked[-1] == again.sizes[again.finished - 1]
